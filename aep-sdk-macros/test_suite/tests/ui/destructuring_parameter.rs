use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool]
    async fn add(&self, (a, b): (i64, i64)) -> String {
        (a + b).to_string()
    }
}

fn main() {}
