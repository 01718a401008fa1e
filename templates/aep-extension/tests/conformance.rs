//! Starts the extension on a free loopback port and runs the AEP conformance suite.

use aep_sdk::server::AepExtension;

#[tokio::test]
async fn passes_aep_conformance() {
    let extension = {{crate_name}}::Extension::default().into_extension().expect("a valid declaration");
    let server = aep_sdk::testing::spawn(extension.router()).await;
    // Panics with the table of failed checks when anything fails.
    aep_conformance::check(&server.base_url).await.assert_success();
}
