use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Ask for a summary.
    #[prompt(scopes = ["notes:read", "prompts", "notes:read"])]
    async fn summarize(&self, text: String) -> String {
        text
    }
}

fn main() {}
