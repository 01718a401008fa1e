use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[model_provider(id = "echo")]
    async fn echo(&self, _request: ChatRequest) -> Result<String, AepError> {
        Ok("hi".to_owned())
    }
}

fn main() {}
