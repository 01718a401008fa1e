use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri = "notes://all", uri_template = "notes://{id}")]
    async fn note(&self, id: u64) -> String {
        format!("{id}")
    }

    #[resource(name = "nowhere")]
    async fn nowhere(&self) -> String {
        String::new()
    }
}

fn main() {}
