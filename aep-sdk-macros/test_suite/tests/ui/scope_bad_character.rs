use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Writes a file.
    #[tool(scopes = ["files\\write"])]
    async fn write(&self) -> String {
        String::new()
    }
}

fn main() {}
