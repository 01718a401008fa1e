use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext", author = "me")]
impl Ext {}

fn main() {}
