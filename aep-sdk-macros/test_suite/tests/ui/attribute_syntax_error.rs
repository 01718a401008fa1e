//! Tokens that do not parse are one error: the keys after them are not read, so none is
//! reported missing.

use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool(name "upper")]
    async fn upper(&self, text: String) -> String {
        text.to_uppercase()
    }

    #[model_provider(display_name = "Echo", id == "echo")]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn main() {}
