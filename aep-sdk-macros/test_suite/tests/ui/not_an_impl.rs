use aep_sdk::prelude::*;

#[aep_extension(id = "t.ext", name = "Ext")]
struct Ext;

fn main() {}
