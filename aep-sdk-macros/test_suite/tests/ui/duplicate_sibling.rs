use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(id = "echo")]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let _ = request;
        Err(AepError::internal("no"))
    }

    #[health(provider = "echo")]
    async fn health_a(&self) -> Result<Health, AepError> {
        Ok(Health::available())
    }

    #[health(provider = "echo")]
    async fn health_b(&self) -> Result<Health, AepError> {
        Ok(Health::available())
    }
}

fn main() {}
