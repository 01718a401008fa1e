use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(id = "echo", tools, tools = false)]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn main() {}
