use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Clone for Ext {
    fn clone(&self) -> Self {
        Ext
    }
}

fn main() {}
