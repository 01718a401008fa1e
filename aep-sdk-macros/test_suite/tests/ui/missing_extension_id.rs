use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(name = "Ext")]
impl Ext {}

fn main() {}
