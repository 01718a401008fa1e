use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext", scopes = [])]
impl Ext {
    /// Writes a file.
    #[tool]
    async fn write(&self) -> String {
        String::new()
    }
}

fn main() {}
