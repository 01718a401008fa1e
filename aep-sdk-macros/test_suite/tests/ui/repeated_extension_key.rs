use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext", name = "Other")]
impl Ext {}

fn main() {}
