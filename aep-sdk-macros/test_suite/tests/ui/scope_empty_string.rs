use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// The guide.
    #[resource(uri = "docs://guide", scopes = ["docs:read", ""])]
    async fn guide(&self) -> String {
        String::new()
    }
}

fn main() {}
