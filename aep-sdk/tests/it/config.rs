//! Versioned configuration (spec section 5) over real HTTP: the catalog and capability,
//! schema digests (pinned to values computed independently with python3 hashlib),
//! request-time checks of `options.nativeOptions` on `/chat` and `/chat/stream`, typed
//! values reaching the provider, migrations, and startup refusal of bad declarations.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aep_sdk::client::Client;
use aep_sdk::config::{OptionSetDecl, compact_json, compact_json_text, schema_digest, schema_digest_text};
use aep_sdk::prelude::*;
use aep_sdk::protocol::{
    ConfigurationCatalog, ErrorResponse, MigrationRequest, ModelOptions, ProtocolVersion, VersionedOptions,
};
use aep_sdk::server::{Extension, ModelProvider};
use aep_sdk::testing::{TestServer, spawn};
use futures::StreamExt;
use serde_json::{Value, json};

const OLLAMA_SET: &str = "io.agentstration.ollama/model-profile";
const OLLAMA_SCHEMA: &str = include_str!("../fixtures/ollama-model-profile-1.0.0.json");
/// `python3 -c "import json,hashlib; s=json.load(open('tests/fixtures/ollama-model-profile-1.0.0.json'));
/// c=json.dumps(s,separators=(',',':')); print('sha256:'+hashlib.sha256(c.encode()).hexdigest())"`
const OLLAMA_DIGEST: &str = "sha256:db13bcf3bc8d35fbfe870f05f23d914c78a2adb6d18ec2c5a27409854838cf11";
const OLLAMA_COMPACT: &str = r#"{"type":"object","properties":{"think":{"description":"Ollama thinking mode or effort."},"keepAlive":{"type":"string"},"contextSize":{"type":"integer","minimum":1},"numGpu":{"type":"integer","minimum":0},"numThread":{"type":"integer","minimum":1},"numBatch":{"type":"integer","minimum":1},"mirostat":{"type":"integer","minimum":0,"maximum":2},"endpointMode":{"type":"string","enum":["chat"]},"additionalOptions":{"type":"object"}},"additionalProperties":false}"#;

const LLM_SET: &str = "acme.llm/profile";

#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Mode {
    Fast,
    Careful,
}

/// Version 3 of the `acme.llm/profile` set, declared from this type.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProfileV3 {
    temperature: f64,
    tags: Vec<String>,
    mode: Mode,
}

/// The reference Ollama options, read into a Rust type while the literal schema (and so
/// the reference digest) is kept.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct OllamaProfile {
    context_size: Option<u32>,
    num_gpu: Option<u8>,
}

/// Answers with what it was handed: the validated JSON, the typed values and the version.
struct Recorder {
    calls: Arc<AtomicUsize>,
}

impl ModelProvider for Recorder {
    async fn chat_stream(&self, _request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let seen = json!({
            "json": ctx.native_options_json(),
            "typed": ctx.native_options::<ProfileV3>().map(|p| format!("{p:?}")),
            "ollama": ctx.native_options::<OllamaProfile>().map(|p| format!("{p:?}")),
            "version": ctx.native_options_envelope().map(|e| e.version.clone()),
        });
        let updates = vec![
            Ok(ChatUpdate::text(seen.to_string())),
            Ok(ChatUpdate::finish(FinishReason::Stop)),
        ];
        Ok(ChatStream::new(futures::stream::iter(updates)))
    }
}

fn llm_set() -> OptionSetDecl {
    OptionSetDecl::new(LLM_SET, "llm")
        .version(
            "1",
            json!({"type": "object", "properties": {"temp": {"type": "number"}}, "additionalProperties": false}),
        )
        .deprecated("1")
        .version(
            "2",
            r#"{
                "type": "object",
                "properties": {
                    "temperature": {"type": "number", "minimum": 0},
                    "topP": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["temperature"],
                "additionalProperties": false
            }"#,
        )
        .version_from_type::<ProfileV3>("3")
        .preferred("3")
        // 1 -> 2 renames `temp`; a negative temperature makes an invalid version-2 value.
        .migration("1", "2", |values: Value| async move {
            let temp = values.get("temp").cloned().unwrap_or(json!(0.7));
            Ok::<_, String>(json!({"temperature": temp}))
        })
        // 2 -> 3 adds a mode; some tags make it fail, as a string or as an AEP error.
        .migration("2", "3", |mut values: Value| async move {
            let tags = values.get("tags").cloned().unwrap_or(json!([]));
            if tags.as_array().is_some_and(|t| t.contains(&json!("boom"))) {
                return Err(aep_sdk::config::MigrationError::from("the tag 'boom' cannot be carried over"));
            }
            if tags.as_array().is_some_and(|t| t.contains(&json!("teapot"))) {
                return Err(AepError::unprocessable("custom_refusal", "no teapots").into());
            }
            values["tags"] = tags;
            values["mode"] = json!("careful");
            Ok(values)
        })
}

fn extension(calls: &Arc<AtomicUsize>) -> Extension {
    Extension::builder("acme.config", "Config test", "1.0.0")
        .model_provider(
            ModelProviderDescriptor::new("llm", "LLM"),
            Recorder { calls: calls.clone() },
        )
        .model_provider(
            ModelProviderDescriptor::new("ollama", "Ollama"),
            Recorder { calls: calls.clone() },
        )
        .option_set(llm_set())
        .option_set(
            OptionSetDecl::new(OLLAMA_SET, "ollama")
                .version_typed::<OllamaProfile>("1.0.0", OLLAMA_SCHEMA)
                .expect_digest("1.0.0", OLLAMA_DIGEST),
        )
        .build()
        .expect("valid declaration")
}

struct Fixture {
    server: TestServer,
    client: Client,
    http: reqwest::Client,
    calls: Arc<AtomicUsize>,
    catalog: ConfigurationCatalog,
}

impl Fixture {
    async fn start() -> Self {
        let calls = Arc::new(AtomicUsize::new(0));
        let server = spawn(extension(&calls).router()).await;
        let client = Client::new(&server.base_url).unwrap();
        let catalog = client.configuration().await.unwrap();
        Self {
            server,
            client,
            http: reqwest::Client::new(),
            calls,
            catalog,
        }
    }

    fn digest(&self, set: &str, version: &str) -> String {
        let set = self.catalog.option_sets.iter().find(|s| s.id == set).unwrap();
        set.versions
            .iter()
            .find(|v| v.version == version)
            .unwrap()
            .schema_digest
            .clone()
    }

    /// `nativeOptions` for `set`/`version` with the published digest.
    fn native(&self, set: &str, version: &str, values: Value) -> Value {
        json!({"optionSet": set, "version": version, "schemaDigest": self.digest(set, version), "values": values})
    }

    async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.server.base_url))
            .json(body)
            .send()
            .await
            .unwrap()
    }
}

fn chat_body(native: Value) -> Value {
    json!({
        "model": "m",
        "messages": [{"role": "user", "contents": [{"kind": "text", "text": "hi"}]}],
        "options": {"nativeOptions": native}
    })
}

fn request_with(native: VersionedOptions) -> ChatRequest {
    let mut request = ChatRequest::new("m", vec![Message::user("hi")]);
    request.options = Some(ModelOptions {
        native_options: Some(native),
        ..ModelOptions::default()
    });
    request
}

/// Reads a 422 AEP error answer and checks it is plain JSON.
async fn error_of(response: reqwest::Response) -> aep_sdk::protocol::ErrorBody {
    assert_eq!(response.status().as_u16(), 422);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "content-type {content_type}"
    );
    let text = response.text().await.unwrap();
    assert!(!text.starts_with("data:"), "an SSE byte was sent: {text}");
    serde_json::from_str::<ErrorResponse>(&text).unwrap().error
}

#[tokio::test]
async fn ollama_reference_schema_digest_is_pinned() {
    assert_eq!(compact_json_text(OLLAMA_SCHEMA).unwrap(), OLLAMA_COMPACT);
    assert_eq!(schema_digest_text(OLLAMA_SCHEMA).unwrap(), OLLAMA_DIGEST);
    let value: Value = serde_json::from_str(OLLAMA_SCHEMA).unwrap();
    assert_eq!(schema_digest(&value), OLLAMA_DIGEST);
}

#[test]
fn digest_escapes_like_the_reference() {
    // The schema as authored, with HTML-sensitive and non-ASCII characters.
    let text = "{\"description\":\"<b> & 'q' + `x` \\\" café € 😀\"}";
    // Written by hand from System.Text.Json's default encoder rules.
    let escaped = r#"{"description":"\u003Cb\u003E \u0026 \u0027q\u0027 \u002B \u0060x\u0060 \u0022 caf\u00E9 \u20AC \uD83D\uDE00"}"#;
    // sha256 of `escaped`, computed with python3 hashlib.
    let expected = "sha256:5b71a4272dd597a263cdff08bd58a3649832ac9a954a4797d94bc116846cd9cd";
    assert_eq!(compact_json_text(text).unwrap(), escaped);
    assert_eq!(schema_digest_text(text).unwrap(), expected);
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(compact_json(&value), escaped);
    assert_eq!(schema_digest(&value), expected);
    // The escaped form is itself a valid authored text with the same digest.
    assert_eq!(schema_digest_text(escaped).unwrap(), expected);
}

#[test]
fn digest_keeps_number_tokens_of_literal_text() {
    let text = r#"{ "type": "number", "minimum": 1.0, "maximum": 1e2 }"#;
    // python3 hashlib over the compact text with the tokens as written.
    assert_eq!(
        schema_digest_text(text).unwrap(),
        "sha256:934122fa6a5695e46736c65e6e04e8139693c97731fe7f9e08768f8b13272d6f"
    );
    // A serde_json::Value cannot keep `1e2` (documented limit): it writes `100.0`.
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        schema_digest(&value),
        "sha256:f99b0b885ffbc0a1ac751e9bd098de5f994a12c4289885f133464c10d35db33c"
    );
}

#[tokio::test]
async fn capability_and_catalog() {
    let fx = Fixture::start().await;
    let manifest = fx.client.discover().await.unwrap();
    let capability = manifest
        .capability("aep.configuration")
        .expect("aep.configuration advertised");
    assert_eq!(capability.version, "1.0");
    assert_eq!(capability.endpoint.as_deref(), Some("/aep/configuration"));

    let sets = &fx.catalog.option_sets;
    assert_eq!(sets.len(), 2);
    let llm = &sets[0];
    assert_eq!(
        (llm.id.as_str(), llm.contribution_kind.as_str()),
        (LLM_SET, "model-provider")
    );
    assert_eq!(
        (llm.contribution_id.as_str(), llm.scope.as_str()),
        ("llm", "model-profile")
    );
    assert_eq!(llm.preferred_version, "3");
    let versions: Vec<(&str, bool)> = llm
        .versions
        .iter()
        .map(|v| (v.version.as_str(), v.deprecated))
        .collect();
    assert_eq!(versions, [("1", true), ("2", false), ("3", false)]);
    let edges: Vec<(&str, &str)> = llm
        .migrations
        .iter()
        .map(|e| (e.from_version.as_str(), e.to_version.as_str()))
        .collect();
    assert_eq!(edges, [("1", "2"), ("2", "3")]);
    // Every published digest is the digest of the published schema.
    for set in sets {
        for version in &set.versions {
            assert_eq!(
                schema_digest(&version.schema),
                version.schema_digest,
                "{} {}",
                set.id,
                version.version
            );
        }
    }
    // The schema from the Rust type: inlined, no `$schema`.
    let v3 = &llm.versions[2].schema;
    assert!(v3.get("$schema").is_none());
    assert_eq!(
        v3["properties"]["mode"]["enum"],
        json!(["fast", "careful"]),
        "{v3}"
    );
    assert_eq!(v3["additionalProperties"], json!(false));

    let ollama = &sets[1];
    assert_eq!(ollama.versions[0].schema_digest, OLLAMA_DIGEST);
    assert!(ollama.migrations.is_empty());
    // The raw answer carries the schema as its compact reference text.
    let raw = reqwest::get(format!("{}/aep/configuration", fx.server.base_url))
        .await
        .unwrap();
    assert!(
        raw.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    assert!(raw.text().await.unwrap().contains(OLLAMA_COMPACT));
}

#[tokio::test]
async fn capability_absent_without_option_sets() {
    let calls = Arc::new(AtomicUsize::new(0));
    let extension = Extension::builder("acme.plain", "Plain", "1.0.0")
        .model_provider(
            ModelProviderDescriptor::new("llm", "LLM"),
            Recorder { calls: calls.clone() },
        )
        .build()
        .unwrap();
    assert!(
        !extension
            .manifest(ProtocolVersion::V1)
            .capabilities
            .contains_key("aep.configuration")
    );
    let server = spawn(extension.router()).await;
    let client = Client::new(&server.base_url).unwrap();
    let manifest = client.discover().await.unwrap();
    assert!(manifest.capability("aep.configuration").is_none());
    let error = client.configuration().await.unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(404));
    // Native options naming a set nobody publishes are still refused before the provider.
    let native = json!({"optionSet": "x", "version": "1", "schemaDigest": "sha256:00", "values": {}});
    let response = reqwest::Client::new()
        .post(format!("{}/aep/model-providers/llm/chat", server.base_url))
        .json(&chat_body(native))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await.code, "option_set_unsupported");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn every_option_error_on_chat_and_stream() {
    let fx = Fixture::start().await;
    let v2 = |values: Value| fx.native(LLM_SET, "2", values);
    let mut wrong_digest = v2(json!({"temperature": 1}));
    wrong_digest["schemaDigest"] = json!(fx.digest(LLM_SET, "1"));
    // (provider, nativeOptions, code, text the message must contain)
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "llm",
            json!({"optionSet": "acme.unknown", "version": "1", "schemaDigest": "sha256:00", "values": {}}),
            "option_set_unsupported",
            "'acme.unknown'",
        ),
        // A set bound to provider `ollama`, sent to provider `llm`.
        (
            "llm",
            fx.native(OLLAMA_SET, "1.0.0", json!({})),
            "option_set_unsupported",
            "'llm'",
        ),
        (
            "llm",
            json!({"optionSet": LLM_SET, "version": "9", "schemaDigest": "sha256:00", "values": {}}),
            "option_version_unsupported",
            "'9'",
        ),
        ("llm", wrong_digest, "option_schema_mismatch", "schema digest"),
        ("llm", v2(json!([1])), "invalid_options", "'values'"),
        (
            "llm",
            v2(json!({"temperature": "hot"})),
            "invalid_options",
            "'values.temperature' must be of type 'number'",
        ),
        (
            "llm",
            v2(json!({})),
            "invalid_options",
            "'values.temperature' is missing",
        ),
        (
            "llm",
            v2(json!({"temperature": 1, "extra": 1})),
            "invalid_options",
            "'values.extra' is not supported",
        ),
        (
            "llm",
            v2(json!({"temperature": 1, "tags": ["a", 2]})),
            "invalid_options",
            "'values.tags[1]'",
        ),
        (
            "llm",
            v2(json!({"temperature": -1})),
            "invalid_options",
            "'values.temperature' must be at least 0",
        ),
        (
            "llm",
            v2(json!({"temperature": 1, "topP": 0})),
            "invalid_options",
            "'values.topP' must be greater than 0",
        ),
        (
            "llm",
            fx.native(
                LLM_SET,
                "3",
                json!({"temperature": 1, "tags": [], "mode": "slow"}),
            ),
            "invalid_options",
            "'values.mode' is not one of the supported values",
        ),
        (
            "ollama",
            fx.native(OLLAMA_SET, "1.0.0", json!({"mirostat": 3})),
            "invalid_options",
            "'values.mirostat' must be at most 2",
        ),
    ];
    for (provider, native, code, fragment) in cases {
        for route in ["chat", "chat/stream"] {
            let path = format!("/aep/model-providers/{provider}/{route}");
            let error = error_of(fx.post(&path, &chat_body(native.clone())).await).await;
            assert_eq!(error.code, code, "{route} {native}: {}", error.message);
            assert!(
                error.message.contains(fragment),
                "{route}: {:?} lacks {fragment:?}",
                error.message
            );
        }
    }
    assert_eq!(
        fx.calls.load(Ordering::SeqCst),
        0,
        "the provider ran for a rejected request"
    );

    // The canonical client surfaces the same errors, for chat and for streams.
    let native: VersionedOptions = serde_json::from_value(v2(json!({"temperature": 1, "x": 1}))).unwrap();
    let request = request_with(native);
    let error = fx.client.chat("llm", &request).await.unwrap_err();
    let remote = error.remote.expect("AEP error body");
    assert_eq!(
        (remote.code.as_str(), remote.target.as_deref()),
        ("invalid_options", Some("values.x"))
    );
    let error = fx
        .client
        .chat_stream("llm", &request)
        .await
        .err()
        .expect("refused before the stream");
    assert_eq!(error.status.map(|s| s.as_u16()), Some(422));
    assert_eq!(error.remote.unwrap().code, "invalid_options");
    assert_eq!(fx.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn validated_values_reach_the_provider_typed_when_declared_from_a_type() {
    let fx = Fixture::start().await;
    let seen = |response: ChatResponse| serde_json::from_str::<Value>(&response.all_text()).unwrap();

    let v3 = json!({"temperature": 0.5, "tags": ["a"], "mode": "fast"});
    let native: VersionedOptions = serde_json::from_value(fx.native(LLM_SET, "3", v3.clone())).unwrap();
    // Provider ids match case-insensitively, the binding too.
    let answer = seen(
        fx.client
            .chat("LLM", &request_with(native.clone()))
            .await
            .unwrap(),
    );
    assert_eq!(answer["json"], v3);
    assert_eq!(answer["version"], "3");
    let expected = ProfileV3 {
        temperature: 0.5,
        tags: vec!["a".into()],
        mode: Mode::Fast,
    };
    assert_eq!(answer["typed"], format!("{expected:?}"));

    let mut updates = fx.client.chat_stream("llm", &request_with(native)).await.unwrap();
    let first = updates.next().await.unwrap().unwrap();
    let streamed: Value = serde_json::from_str(&first.text_delta()).unwrap();
    assert_eq!(streamed["typed"], format!("{expected:?}"));

    // A literal schema: JSON only.
    let v2 = json!({"temperature": 1, "tags": ["x"]});
    let native: VersionedOptions = serde_json::from_value(fx.native(LLM_SET, "2", v2.clone())).unwrap();
    let answer = seen(fx.client.chat("llm", &request_with(native)).await.unwrap());
    assert_eq!(
        (answer["json"].clone(), answer["typed"].clone()),
        (v2, Value::Null)
    );

    // No native options: nothing attached.
    let plain = ChatRequest::new("m", vec![Message::user("hi")]);
    let answer = seen(fx.client.chat("llm", &plain).await.unwrap());
    assert_eq!(
        (answer["json"].clone(), answer["version"].clone()),
        (Value::Null, Value::Null)
    );

    let ollama =
        json!({"think": "high", "contextSize": 8192, "endpointMode": "chat", "additionalOptions": {"x": 1}});
    let native: VersionedOptions =
        serde_json::from_value(fx.native(OLLAMA_SET, "1.0.0", ollama.clone())).unwrap();
    assert_eq!(
        seen(fx.client.chat("ollama", &request_with(native)).await.unwrap())["json"],
        ollama
    );
    assert_eq!(fx.calls.load(Ordering::SeqCst), 5);
}

fn migration(fx: &Fixture, from: &str, to: &str, values: Value) -> MigrationRequest {
    MigrationRequest {
        option_set: LLM_SET.into(),
        from_version: from.into(),
        from_schema_digest: fx.digest(LLM_SET, from),
        to_version: to.into(),
        values,
    }
}

#[tokio::test]
async fn migration_chain_through_an_intermediate_version() {
    let fx = Fixture::start().await;
    let answer = fx
        .client
        .migrate(&migration(&fx, "1", "3", json!({"temp": 0.2})))
        .await
        .unwrap();
    let options = answer.options;
    assert_eq!(
        (options.option_set.as_str(), options.version.as_str()),
        (LLM_SET, "3")
    );
    assert_eq!(options.schema_digest, fx.digest(LLM_SET, "3"));
    assert_eq!(
        options.values,
        json!({"temperature": 0.2, "tags": [], "mode": "careful"})
    );
    // The answer is a complete envelope the provider accepts as is.
    let reply = fx.client.chat("llm", &request_with(options)).await.unwrap();
    assert!(reply.all_text().contains("Careful"), "{}", reply.all_text());

    // A single step, and the identity.
    let answer = fx
        .client
        .migrate(&migration(&fx, "1", "2", json!({})))
        .await
        .unwrap();
    assert_eq!(answer.options.values, json!({"temperature": 0.7}));
    let same = json!({"temperature": 3});
    let answer = fx
        .client
        .migrate(&migration(&fx, "2", "2", same.clone()))
        .await
        .unwrap();
    assert_eq!(
        (answer.options.version.as_str(), answer.options.values),
        ("2", same)
    );
}

#[tokio::test]
async fn migration_failures() {
    let fx = Fixture::start().await;
    let remote = |error: aep_sdk::client::ClientError| {
        assert_eq!(error.status.map(|s| s.as_u16()), Some(422));
        error.remote.expect("AEP error body")
    };

    // Step 1 -> 2 produces a temperature version 2 refuses: the step is named.
    let error = remote(
        fx.client
            .migrate(&migration(&fx, "1", "3", json!({"temp": -1})))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, "option_migration_failed");
    assert!(error.message.contains("from '1' to '2'"), "{}", error.message);
    assert!(
        error.message.contains("'values.temperature' must be at least 0"),
        "{}",
        error.message
    );
    assert_eq!(error.target.as_deref(), Some("values.temperature"));
    let details = error.details.unwrap();
    assert_eq!(
        (details["fromVersion"].as_str(), details["toVersion"].as_str()),
        ("1", "2")
    );

    // Step 2 -> 3 fails with a reason.
    let failing = json!({"temperature": 1, "tags": ["boom"]});
    let error = remote(
        fx.client
            .migrate(&migration(&fx, "2", "3", failing))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, "option_migration_failed");
    assert!(
        error.message.contains("from '2' to '3' failed: the tag 'boom'"),
        "{}",
        error.message
    );
    // ... or with its own AEP error, passed through.
    let teapot = json!({"temperature": 1, "tags": ["teapot"]});
    let error = remote(
        fx.client
            .migrate(&migration(&fx, "2", "3", teapot))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (error.code.as_str(), error.message.as_str()),
        ("custom_refusal", "no teapots")
    );

    // No path backwards.
    let error = remote(
        fx.client
            .migrate(&migration(
                &fx,
                "3",
                "1",
                json!({"temperature": 1, "tags": [], "mode": "fast"}),
            ))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, "option_migration_unsupported");
    assert!(error.message.contains("from '3' to '1'"), "{}", error.message);

    // The source is checked first.
    let error = remote(
        fx.client
            .migrate(&migration(&fx, "1", "3", json!({"bogus": 1})))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (error.code.as_str(), error.target.as_deref()),
        ("invalid_options", Some("values.bogus"))
    );
    let error = remote(
        fx.client
            .migrate(&migration(&fx, "1", "3", json!("x")))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, "invalid_options");
    let mut request = migration(&fx, "1", "3", json!({}));
    request.from_schema_digest = fx.digest(LLM_SET, "2");
    assert_eq!(
        remote(fx.client.migrate(&request).await.unwrap_err()).code,
        "option_schema_mismatch"
    );
    request = migration(&fx, "1", "3", json!({}));
    request.to_version = "7".into();
    assert_eq!(
        remote(fx.client.migrate(&request).await.unwrap_err()).code,
        "option_version_unsupported"
    );
    request = migration(&fx, "1", "3", json!({}));
    request.option_set = "acme.unknown".into();
    assert_eq!(
        remote(fx.client.migrate(&request).await.unwrap_err()).code,
        "option_set_unsupported"
    );

    // A malformed body is a 400 AEP error, not a 5xx.
    let response = fx
        .post("/aep/configuration/migrate", &json!({"optionSet": 1}))
        .await;
    assert_eq!(response.status().as_u16(), 400);
    let body: ErrorResponse = response.json().await.unwrap();
    assert_eq!(body.error.code, "invalid_request");
}

fn refused(decl: OptionSetDecl) -> Vec<String> {
    let calls = Arc::new(AtomicUsize::new(0));
    match Extension::builder("acme.bad", "Bad", "1.0.0")
        .model_provider(ModelProviderDescriptor::new("llm", "LLM"), Recorder { calls })
        .option_set(decl)
        .build()
    {
        Err(aep_sdk::Error::Declaration(problems)) => problems.iter().map(ToString::to_string).collect(),
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("an invalid declaration was accepted"),
    }
}

#[test]
fn startup_refuses_invalid_declarations() {
    let schema = || json!({"type": "object"});
    let noop = |values: Value| async move { Ok::<_, String>(values) };
    let cases: Vec<(OptionSetDecl, &str)> = vec![
        (
            OptionSetDecl::new("s", "nobody").version("1", schema()),
            "contribution 'nobody' is not a declared model provider",
        ),
        (
            OptionSetDecl::new("s", "llm")
                .version("1", schema())
                .version("2", schema())
                .preferred("3"),
            "preferred version '3' is not among its versions ('1', '2')",
        ),
        (
            OptionSetDecl::new("s", "llm")
                .version("1", schema())
                .version("1", schema()),
            "version '1' is declared more than once",
        ),
        (
            OptionSetDecl::new(OLLAMA_SET, "llm")
                .version("1.0.0", OLLAMA_SCHEMA.replace("\"maximum\": 2", "\"maximum\": 3"))
                .expect_digest("1.0.0", OLLAMA_DIGEST),
            "schema digest mismatch: declared 'sha256:db13bcf3",
        ),
        (
            OptionSetDecl::new("s", "llm")
                .version("1", schema())
                .migration("1", "2", noop),
            "migration '1' -> '2' names unknown version '2'",
        ),
        (
            OptionSetDecl::new("s", "llm")
                .version("1", schema())
                .version("2", schema())
                .preferred("2")
                .migration("1", "2", noop)
                .migration("1", "2", noop),
            "migration '1' -> '2' is registered more than once",
        ),
        (
            OptionSetDecl::new("s", "llm").version("1", "{\"type\": }"),
            "the schema is not valid JSON",
        ),
    ];
    for (decl, fragment) in cases {
        let problems = refused(decl);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains(fragment),
            "{:?} lacks {fragment:?}",
            problems[0]
        );
    }
    // The error names every problem.
    let calls = Arc::new(AtomicUsize::new(0));
    let error = Extension::builder("acme.bad", "Bad", "1.0.0")
        .model_provider(ModelProviderDescriptor::new("llm", "LLM"), Recorder { calls })
        .option_set(OptionSetDecl::new("a", "x").version("1", schema()))
        .option_set(
            OptionSetDecl::new("b", "llm")
                .version("1", schema())
                .deprecated("0"),
        )
        .build()
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("option set 'a': contribution 'x'"), "{error}");
    assert!(
        error.contains("option set 'b': deprecated version '0' is not declared"),
        "{error}"
    );
}
