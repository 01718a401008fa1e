use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(display_name = "Echo")]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let _ = request;
        Err(AepError::internal("no"))
    }
}

fn main() {}
