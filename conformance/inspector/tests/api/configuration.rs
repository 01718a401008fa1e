//! The configuration screen: option sets listed, values checked and migrated.

use serde_json::{Value, json};

use crate::common::{self, Inspector, api, fixtures};
use crate::drip_values;

/// A migration of the drip option set's `values` from version `from` to `to`.
fn migration(from: &str, to: &str, values: Value) -> Value {
    json!({"optionSet": fixtures::DRIP_SET, "fromVersion": from, "toVersion": to, "values": values})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn option_sets_are_listed_values_checked_and_migrated() {
    let (models, _) = fixtures::models().await;
    let utilities = common::utilities().await;
    let (inspector, id) = Inspector::connected(&models.base_url).await;
    let base = api(&id, "configuration");
    let catalog = inspector.get_ok(&base).await;
    let set = &catalog["optionSets"][0];
    assert_eq!(set["id"], fixtures::DRIP_SET);
    assert_eq!(set["contributionId"], "drip");
    assert_eq!(set["preferredVersion"], "2");
    assert_eq!(set["versions"][0]["deprecated"], true);
    assert_eq!(set["migrations"], json!([{"fromVersion": "1", "toVersion": "2"}]));
    for version in set["versions"].as_array().unwrap() {
        assert_eq!(version["digestCheck"]["matches"], true, "{version}");
        assert_eq!(version["digestCheck"]["computed"], version["schemaDigest"]);
    }

    let validate = format!("{base}/validate");
    let good = inspector
        .post_ok(
            &validate,
            drip_values("2", json!({"temperature": 1.5, "mode": "fast"})),
        )
        .await;
    assert_eq!(good["valid"], true, "{good}");
    assert_eq!(good["schemaDigest"], set["versions"][1]["schemaDigest"]);
    let (_, bad) = inspector
        .post(
            &validate,
            drip_values("2", json!({"temperature": 3, "mode": "slow", "x": 1})),
        )
        .await;
    assert_eq!(bad["valid"], false, "{bad}");
    let issues: Vec<(&str, &str)> = bad["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].as_str().unwrap(), i["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        issues,
        [
            ("values.temperature", "maximum"),
            ("values.mode", "enum"),
            ("values.x", "unknown")
        ],
        "{bad}"
    );
    inspector
        .post_refused(
            &validate,
            drip_values("9", json!({})),
            404,
            "option_version_unsupported",
        )
        .await;

    let migrate = format!("{base}/migrate");
    let migrated = inspector
        .post_ok(&migrate, migration("1", "2", json!({"temp": 0.4})))
        .await;
    assert_eq!(migrated["options"]["version"], "2");
    assert_eq!(
        migrated["options"]["values"],
        json!({"temperature": 0.4, "mode": "careful"})
    );
    assert_eq!(
        migrated["options"]["schemaDigest"],
        set["versions"][1]["schemaDigest"]
    );
    assert_eq!(
        migrated["request"]["fromSchemaDigest"],
        set["versions"][0]["schemaDigest"]
    );
    assert_eq!(migrated["check"], json!({"valid": true, "issues": []}));
    let refused = inspector
        .post_expect(&migrate, migration("1", "2", json!({"temp": "hot"})), 422)
        .await;
    assert!(
        refused["error"]["details"]
            .as_array()
            .unwrap()
            .contains(&json!("target: values.temp")),
        "{refused}"
    );
    inspector
        .post_refused(
            &migrate,
            migration("2", "1", json!({"temperature": 1})),
            422,
            "option_migration_unsupported",
        )
        .await;

    let plain = inspector.connect_id(&utilities.base_url).await;
    inspector
        .get_refused(&api(&plain, "configuration"), 404, "configuration_not_offered")
        .await;
}
