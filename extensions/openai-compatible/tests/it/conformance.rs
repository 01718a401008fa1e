//! The conformance suite, strictly, against each extension in front of the stand-in.

use crate::common;

use aep_conformance::Options;
use common::{FLAVORS, stand};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_flavour_passes_the_conformance_suite_strictly() {
    for flavor in FLAVORS {
        let stand = stand(flavor).await;
        let options = Options {
            provider: Some(stand.provider().to_owned()),
            model: Some("smollm2".to_owned()),
            strict: true,
            ..Options::default()
        };
        let report = aep_conformance::check_with(&stand.server.base_url, &options).await;
        let failed: Vec<String> = report
            .failed()
            .iter()
            .map(|r| format!("{}: {:?} {:?}", r.id, r.reason, r.details))
            .collect();
        assert!(failed.is_empty(), "{flavor:?}:\n{}", failed.join("\n"));
        assert!(report.counts().passed > 20, "{flavor:?}: {:?}", report.counts());
    }
}
