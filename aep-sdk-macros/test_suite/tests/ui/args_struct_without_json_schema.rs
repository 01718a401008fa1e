use aep_sdk::prelude::*;

#[derive(serde::Deserialize)]
struct Args {
    text: String,
}

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Upper-cases the text.
    #[tool]
    async fn upper(&self, #[args] args: Args) -> String {
        args.text.to_uppercase()
    }
}

fn main() {}
