use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool]
    fn upper(&self, text: String) -> String {
        text.to_uppercase()
    }
}

fn main() {}
