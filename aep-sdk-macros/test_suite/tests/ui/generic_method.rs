use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool]
    async fn show<T: std::fmt::Display>(&self, value: String) -> String {
        value
    }
}

fn main() {}
