use aep_sdk::prelude::*;

struct Ext;

struct Opaque;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt]
    async fn opaque(&self, value: Opaque) -> String {
        let _ = value;
        String::new()
    }
}

fn main() {}
