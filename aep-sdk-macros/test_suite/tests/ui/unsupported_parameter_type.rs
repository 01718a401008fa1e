use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool]
    async fn upper(&self, text: &str) -> String {
        text.to_uppercase()
    }
}

fn main() {}
