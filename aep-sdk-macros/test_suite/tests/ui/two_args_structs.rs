use aep_sdk::prelude::*;

struct Ext;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    text: String,
}

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool]
    async fn upper(&self, #[args] args: Args, extra: String) -> String {
        format!("{}{extra}", args.text)
    }
}

fn main() {}
