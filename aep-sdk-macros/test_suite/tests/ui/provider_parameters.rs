use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(id = "echo")]
    async fn echo(&self) -> Result<ChatStream, AepError> {
        Err(AepError::internal("no"))
    }
}

fn main() {}
