//! `#[tool(timeout = ..)]` takes the grammar of `--tool-timeout`: a bare number is
//! seconds, decimals are allowed.

use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    /// Thirty seconds.
    #[tool(timeout = "30")]
    async fn bare(&self) {}

    /// A second and a half.
    #[tool(timeout = "1.5s")]
    async fn decimal(&self) {}

    /// A quarter second.
    #[tool(timeout = "250ms")]
    async fn millis(&self) {}
}

fn main() {
    let extension = Ext.into_extension().unwrap();
    let manifest = extension.manifest(aep_sdk::protocol::ProtocolVersion::LATEST);
    assert_eq!(manifest.contributions.tools.len(), 3);
}
