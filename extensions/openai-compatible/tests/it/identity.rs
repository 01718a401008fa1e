//! Identity and contract equal to the reference C# extensions (ids, names, versions,
//! provider booleans, option sets and digests), and aep-openai's own.

use crate::common;

use aep_openai_compatible::flavor::Flavor;
use common::stand;
use serde_json::{Value, json};

#[tokio::test]
async fn manifests_and_catalogs_match_the_reference() {
    let cases = [
        (
            Flavor::LlamaCpp,
            "Agentstration.Extensions.LlamaCpp",
            "llama.cpp",
            "1.0.0",
            json!({"chat": true, "streaming": true, "tools": true, "thinking": true, "structuredOutput": true, "vision": false, "modelDiscovery": true}),
            Some((
                "io.agentstration.llamacpp/model-profile",
                aep_openai_compatible::profile::LLAMACPP_DIGEST,
            )),
        ),
        (
            Flavor::LocalAi,
            "Agentstration.Extensions.LocalAI",
            "LocalAI",
            "1.0.0",
            json!({"chat": true, "streaming": true, "tools": true, "thinking": true, "structuredOutput": false, "vision": false, "modelDiscovery": true}),
            Some((
                "io.agentstration.localai/model-profile",
                aep_openai_compatible::profile::LOCALAI_DIGEST,
            )),
        ),
        (
            Flavor::OpenAi,
            "aep.openai-compatible",
            "OpenAI-compatible",
            "0.1.0",
            json!({"chat": true, "streaming": true, "tools": true, "thinking": true, "structuredOutput": true, "vision": true, "modelDiscovery": true}),
            None,
        ),
    ];
    for (flavor, id, name, version, capabilities, option_set) in cases {
        let stand = stand(flavor).await;
        let manifest = stand.client.discover().await.unwrap();
        let value = serde_json::to_value(&manifest).unwrap();
        assert_eq!(value["extension"]["id"], id);
        assert_eq!(value["extension"]["name"], name);
        assert_eq!(value["extension"]["version"], version, "{flavor:?}");
        let provider = &value["contributions"]["modelProviders"][0];
        assert_eq!(provider["id"], flavor.provider_id());
        assert_eq!(provider["capabilities"], capabilities, "{flavor:?}");
        assert!(
            value["contributions"]["tools"]
                .as_array()
                .is_none_or(Vec::is_empty)
        );
        match option_set {
            Some((set, digest)) => {
                let catalog = stand.client.configuration().await.unwrap();
                let catalog: Value = serde_json::to_value(catalog).unwrap();
                assert_eq!(catalog["optionSets"][0]["id"], set);
                assert_eq!(catalog["optionSets"][0]["contributionId"], flavor.provider_id());
                assert_eq!(catalog["optionSets"][0]["versions"][0]["schemaDigest"], digest);
            }
            None => assert!(value["capabilities"].get("aep.configuration").is_none()),
        }
    }
}
