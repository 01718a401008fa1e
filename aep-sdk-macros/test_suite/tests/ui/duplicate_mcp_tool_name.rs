use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool(id = "a", name = "convert")]
    async fn upper(&self, text: String) -> String {
        text.to_uppercase()
    }

    #[tool(id = "b", name = "convert")]
    async fn lower(&self, text: String) -> String {
        text.to_lowercase()
    }
}

fn main() {}
