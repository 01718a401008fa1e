use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri = "docs://readme", mime = "text/plain")]
    async fn readme(&self) -> String {
        String::from("read me")
    }
}

fn main() {}
