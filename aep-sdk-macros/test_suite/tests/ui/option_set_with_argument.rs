use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[option_set(name = "tuning")]
    fn options(&self) -> OptionSetDecl {
        OptionSetDecl::new("t.ext/tuning", "tuning")
    }
}

fn main() {}
