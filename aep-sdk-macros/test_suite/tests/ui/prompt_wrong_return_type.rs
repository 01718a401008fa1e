use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt]
    async fn count(&self, text: String) -> Result<usize, ToolError> {
        Ok(text.len())
    }
}

fn main() {}
