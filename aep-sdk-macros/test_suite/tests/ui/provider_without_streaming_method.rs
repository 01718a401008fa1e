use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[models(provider = "echo")]
    async fn models(&self) -> Result<Vec<ModelDescriptor>, AepError> {
        Ok(Vec::new())
    }
}

fn main() {}
