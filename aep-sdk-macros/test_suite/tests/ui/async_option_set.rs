use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[option_set]
    async fn options(&self) -> OptionSetDecl {
        OptionSetDecl::new("t.ext/model-profile", "echo")
    }
}

fn main() {}
