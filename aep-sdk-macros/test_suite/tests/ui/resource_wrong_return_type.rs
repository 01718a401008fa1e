use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri = "numbers://answer")]
    async fn answer(&self) -> u64 {
        42
    }
}

fn main() {}
