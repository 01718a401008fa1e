use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[prompt]
    async fn borrow(&self, text: &str) -> String {
        text.to_owned()
    }
}

fn main() {}
