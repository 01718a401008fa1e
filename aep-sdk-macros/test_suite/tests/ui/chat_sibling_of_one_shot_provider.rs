use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(id = "echo")]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text("hi"))
    }

    #[chat(provider = "echo")]
    async fn echo_chat(&self, _request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text("hi"))
    }
}

fn main() {}
