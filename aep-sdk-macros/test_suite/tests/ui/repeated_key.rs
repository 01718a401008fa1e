use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool(name = "a", name = "b")]
    async fn upper(&self, text: String) -> String {
        text.to_uppercase()
    }
}

fn main() {}
