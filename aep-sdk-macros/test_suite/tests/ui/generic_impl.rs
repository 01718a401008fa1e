use aep_sdk::prelude::*;

struct Ext<T>(T);

#[aep_extension(id = "t.ext", name = "Ext")]
impl<T: Send + Sync + 'static> Ext<T> {}

fn main() {}
