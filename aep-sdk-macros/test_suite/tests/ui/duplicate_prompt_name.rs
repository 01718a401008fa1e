use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt(name = "summarize")]
    async fn summarize(&self, text: String) -> String {
        text
    }

    #[prompt(name = "summarize")]
    async fn summarize_briefly(&self, text: String) -> String {
        text
    }
}

fn main() {}
