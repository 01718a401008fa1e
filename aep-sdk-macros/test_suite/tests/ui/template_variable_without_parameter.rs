use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri_template = "notes://{folder}/{id}")]
    async fn note(&self, id: u64) -> Result<String, ToolError> {
        Ok(format!("note {id}"))
    }
}

fn main() {}
