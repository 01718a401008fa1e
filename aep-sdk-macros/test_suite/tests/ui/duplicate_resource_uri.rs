use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[resource(uri = "docs://readme")]
    async fn readme(&self) -> String {
        String::from("read me")
    }

    #[resource(uri = "docs://readme")]
    async fn readme_again(&self) -> String {
        String::from("read me again")
    }
}

fn main() {}
