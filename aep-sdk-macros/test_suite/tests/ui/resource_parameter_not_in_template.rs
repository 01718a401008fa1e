use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri_template = "notes://{id}")]
    async fn note(&self, id: u64, folder: String) -> String {
        format!("{folder}/{id}")
    }

    #[resource(uri = "docs://readme")]
    async fn readme(&self, lang: String) -> String {
        lang
    }
}

fn main() {}
