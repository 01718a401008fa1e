use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext", tool_switch = "switch")]
impl Ext {
    #[tool]
    async fn ping(&self) -> String {
        String::from("pong")
    }
}

fn main() {}
