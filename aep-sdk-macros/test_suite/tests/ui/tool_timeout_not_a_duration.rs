use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Waits.
    #[tool(timeout = "thirty seconds")]
    async fn wait(&self) -> String {
        String::new()
    }
}

fn main() {}
