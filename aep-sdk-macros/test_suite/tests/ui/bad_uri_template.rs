use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri_template = "notes://{id")]
    async fn note(&self, id: u64) -> String {
        format!("{id}")
    }

    #[resource(uri_template = "pairs://{a}{b}")]
    async fn pair(&self, a: String, b: String) -> String {
        a + &b
    }
}

fn main() {}
