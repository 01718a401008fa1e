//! The broken fixtures: each is the reference extension with one rule broken, and the
//! table of the checks each must fail (exactly those, run strictly).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aep_sdk::protocol::{McpToolMapping, ToolContribution};
use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::{HeaderValue, Method, StatusCode, header};
use serde_json::{Value, json};

use super::corrupt::*;
use super::reference::Reference;

/// One broken extension.
pub struct Fixture {
    /// Short name.
    pub name: &'static str,
    /// The rule it breaks.
    pub breaks: &'static str,
    /// Exactly the checks that must fail (strict run).
    pub expected: &'static [&'static str],
    /// Builds its router.
    pub build: fn() -> Router,
}

/// The table: fixture -> the checks it must fail.
pub const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "no-v1-route",
        breaks: "GET /.well-known/agentstration is not served",
        expected: &["1.discovery.v1"],
        build: no_v1_route,
    },
    Fixture {
        name: "no-aep-route",
        breaks: "GET /.well-known/aep is not served",
        expected: &["1.discovery.2026-08-01"],
        build: no_aep_route,
    },
    Fixture {
        name: "wrong-revision",
        breaks: "the V1 route reports protocolVersion 0.9",
        expected: &["1.discovery.revision"],
        build: wrong_revision,
    },
    Fixture {
        name: "v1-canonical-alias",
        breaks: "the V1 route serves the canonical 2026-08-01 document (the C# reference's alias)",
        expected: &["1.discovery.v1-exact"],
        build: v1_canonical_alias,
    },
    Fixture {
        name: "documents-differ",
        breaks: "the two discovery documents differ in extension.version",
        expected: &["1.discovery.identical"],
        build: documents_differ,
    },
    Fixture {
        name: "missing-model-providers",
        breaks: "contributions.modelProviders is missing",
        expected: &["1.manifest.members"],
        build: missing_model_providers,
    },
    Fixture {
        name: "empty-extension-name",
        breaks: "extension.name is empty",
        expected: &["1.manifest.identity"],
        build: empty_extension_name,
    },
    Fixture {
        name: "no-health-capability",
        breaks: "aep.health is not advertised",
        expected: &["1.manifest.capabilities"],
        build: no_health_capability,
    },
    Fixture {
        name: "tools-capability-endpoint",
        breaks: "aep.tools carries an endpoint",
        expected: &["1.manifest.capabilities"],
        build: tools_capability_endpoint,
    },
    Fixture {
        name: "configuration-unadvertised",
        breaks: "option sets are served but aep.configuration is not advertised",
        expected: &["1.manifest.capabilities"],
        build: configuration_unadvertised,
    },
    Fixture {
        name: "duplicate-provider",
        breaks: "provider 'ref' is declared twice (as 'REF')",
        expected: &["1.manifest.providers"],
        build: duplicate_provider,
    },
    Fixture {
        name: "mcp-endpoint-credentials",
        breaks: "the MCP endpoint carries user:password",
        expected: &["1.manifest.mcp-servers"],
        build: mcp_endpoint_credentials,
    },
    Fixture {
        name: "empty-tool-display-name",
        breaks: "a tool contribution has an empty displayName",
        expected: &["1.manifest.tools.valid"],
        build: empty_tool_display_name,
    },
    Fixture {
        name: "unknown-mcp-server-ref",
        breaks: "a tool contribution names an undeclared MCP server",
        expected: &["1.manifest.tools.server-ref"],
        build: unknown_mcp_server_ref,
    },
    Fixture {
        name: "schema-in-contribution",
        breaks: "a tool contribution carries an inputSchema",
        expected: &["1.manifest.tools.no-schema"],
        build: schema_in_contribution,
    },
    Fixture {
        name: "health-html",
        breaks: "GET /aep/health answers an HTML page",
        expected: &["1.health"],
        build: health_html,
    },
    Fixture {
        name: "unknown-finish-reason",
        breaks: "/chat answers finishReason \"done\"",
        expected: &["2.json.enums", "3.provider.chat"],
        build: unknown_finish_reason,
    },
    Fixture {
        name: "provider-list-empty",
        breaks: "GET /aep/model-providers answers []",
        expected: &["3.providers.list"],
        build: provider_list_empty,
    },
    Fixture {
        name: "case-sensitive-ids",
        breaks: "provider routes match ids case-sensitively",
        expected: &["3.providers.case-insensitive"],
        build: case_sensitive_ids,
    },
    Fixture {
        name: "provider-health-500",
        breaks: "provider health answers 500 text/plain",
        expected: &["3.provider.health"],
        build: provider_health_500,
    },
    Fixture {
        name: "models-not-array",
        breaks: "models answers {\"models\": [...]}",
        expected: &["3.provider.models"],
        build: models_not_array,
    },
    Fixture {
        name: "chat-wrong-shape",
        breaks: "/chat answers 200 with a document that is not a ChatResponse",
        expected: &["3.provider.chat"],
        build: chat_wrong_shape,
    },
    Fixture {
        name: "stream-wrong-headers",
        breaks: "streams are served as application/json without cache-control",
        expected: &["3.stream.response"],
        build: stream_wrong_headers,
    },
    Fixture {
        name: "stream-no-accel-buffering",
        breaks: "streams lack x-accel-buffering: no",
        expected: &["3.stream.accel-buffering"],
        build: stream_no_accel_buffering,
    },
    Fixture {
        name: "stream-no-blank-lines",
        breaks: "SSE events are not separated by blank lines",
        expected: &["3.stream.framing"],
        build: stream_no_blank_lines,
    },
    Fixture {
        name: "stream-not-json",
        breaks: "a data line is not JSON",
        expected: &["3.stream.json"],
        build: stream_not_json,
    },
    Fixture {
        name: "data-after-terminal",
        breaks: "an update follows the terminal update",
        expected: &["3.stream.terminal"],
        build: data_after_terminal,
    },
    Fixture {
        name: "no-terminal-update",
        breaks: "the stream ends without a terminal update",
        expected: &["3.stream.terminal"],
        build: no_terminal_update,
    },
    Fixture {
        name: "stream-stays-open",
        breaks: "the stream stays open after its terminal update",
        expected: &["3.stream.terminal"],
        build: stream_stays_open,
    },
    Fixture {
        name: "stream-text-differs",
        breaks: "the streamed text differs from the /chat text",
        expected: &["3.stream.matches-chat"],
        build: stream_text_differs,
    },
    Fixture {
        name: "cancellation-breaks",
        breaks: "a stream closed early leaves the extension answering 503",
        expected: &["3.stream.cancellation"],
        build: cancellation_breaks,
    },
    Fixture {
        name: "unknown-provider-wrong-code",
        breaks: "an unknown provider answers 404 not_found",
        expected: &["4.errors.unknown-provider"],
        build: unknown_provider_wrong_code,
    },
    Fixture {
        name: "malformed-json-html",
        breaks: "malformed JSON answers a 400 HTML page",
        expected: &["4.errors.malformed-json"],
        build: malformed_json_html,
    },
    Fixture {
        name: "wrong-types-500",
        breaks: "wrong JSON types answer 500",
        expected: &["4.errors.wrong-types"],
        build: wrong_types_500,
    },
    Fixture {
        name: "empty-messages-accepted",
        breaks: "messages: [] is answered 200",
        expected: &["4.errors.empty-messages"],
        build: empty_messages_accepted,
    },
    Fixture {
        name: "content-type-ignored",
        breaks: "a text/plain body is accepted",
        expected: &["4.errors.content-type"],
        build: content_type_ignored,
    },
    Fixture {
        name: "oversized-500",
        breaks: "a body over 16 MiB is answered 500 text/plain",
        expected: &["4.errors.oversized"],
        build: oversized_500,
    },
    Fixture {
        name: "catalog-bad-preferred",
        breaks: "preferredVersion names no version",
        expected: &["5.config.catalog"],
        build: catalog_bad_preferred,
    },
    Fixture {
        name: "schema-reordered",
        breaks: "a schema is served with its members reordered (wrong digest)",
        expected: &["5.config.digest"],
        build: schema_reordered,
    },
    Fixture {
        name: "unknown-set-accepted",
        breaks: "native options of an unknown option set are ignored",
        expected: &["5.config.options.unknown-set"],
        build: unknown_set_accepted,
    },
    Fixture {
        name: "unknown-version-wrong-code",
        breaks: "an unknown version answers invalid_options",
        expected: &["5.config.options.unknown-version"],
        build: unknown_version_wrong_code,
    },
    Fixture {
        name: "digest-mismatch-400",
        breaks: "a digest mismatch answers 400",
        expected: &["5.config.options.digest-mismatch"],
        build: digest_mismatch_400,
    },
    Fixture {
        name: "invalid-values-accepted",
        breaks: "values failing the schema are accepted",
        expected: &["5.config.options.invalid-values"],
        build: invalid_values_accepted,
    },
    Fixture {
        name: "valid-options-rejected",
        breaks: "valid native options answer 422",
        expected: &["5.config.options.valid"],
        build: valid_options_rejected,
    },
    Fixture {
        name: "migrate-wrong-digest",
        breaks: "a migration answers another schemaDigest",
        expected: &["5.config.migrate"],
        build: migrate_wrong_digest,
    },
    Fixture {
        name: "migrate-errors-500",
        breaks: "migration errors answer 500",
        expected: &["5.config.migrate.errors"],
        build: migrate_errors_500,
    },
    Fixture {
        name: "mcp-unreachable",
        breaks: "the MCP endpoint points where nothing is served",
        expected: &["6.mcp.reachable"],
        build: mcp_unreachable,
    },
    Fixture {
        name: "mcp-initialize-broken",
        breaks: "initialize answers a JSON-RPC error",
        expected: &["6.mcp.initialize"],
        build: mcp_initialize_broken,
    },
    Fixture {
        name: "mcp-stateless-broken",
        breaks: "server/discover answers method not found",
        expected: &["6.mcp.stateless"],
        build: mcp_stateless_broken,
    },
    Fixture {
        name: "mcp-any-origin",
        breaks: "the MCP endpoint accepts any browser Origin",
        expected: &["6.mcp.origin"],
        build: mcp_any_origin,
    },
    Fixture {
        name: "missing-tool",
        breaks: "a contribution maps to a tool the MCP server does not list",
        expected: &["6.tools.contribution-maps"],
        build: missing_tool,
    },
    Fixture {
        name: "bad-input-schema",
        breaks: "a tool's inputSchema has type \"strng\"",
        expected: &["6.tools.schemas"],
        build: bad_input_schema,
    },
    Fixture {
        name: "tool-call-error",
        breaks: "a read-only tool answers a JSON-RPC error for valid arguments",
        expected: &["6.tools.call"],
        build: tool_call_error,
    },
    Fixture {
        name: "structured-output-missing",
        breaks: "a tool with an outputSchema returns no structuredContent",
        expected: &["6.tools.call"],
        build: structured_output_missing,
    },
];

// ---- section 1 -------------------------------------------------------------------------

fn no_v1_route() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if request.uri().path() == "/.well-known/agentstration" {
            return aep_error(404, "not_found");
        }
        next.run(request).await
    })
}

fn no_aep_route() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if request.uri().path() == "/.well-known/aep" {
            return aep_error(404, "not_found");
        }
        next.run(request).await
    })
}

/// Edits the manifest of both discovery routes.
fn manifest_edit(edit: fn(&mut Value)) -> Router {
    manifest_edit_on(Reference::router(), edit)
}

fn manifest_edit_on(router: Router, edit: fn(&mut Value)) -> Router {
    hook(router, move |request: Request, next: Next| async move {
        let discovery = is_discovery(request.uri().path());
        let response = next.run(request).await;
        if discovery {
            edit_json(response, edit).await
        } else {
            response
        }
    })
}

fn wrong_revision() -> Router {
    v1_reports("0.9")
}

fn v1_canonical_alias() -> Router {
    v1_reports("2026-08-01")
}

fn v1_reports(revision: &'static str) -> Router {
    hook(
        Reference::router(),
        move |request: Request, next: Next| async move {
            let v1 = request.uri().path() == "/.well-known/agentstration";
            let response = next.run(request).await;
            if v1 {
                edit_json(response, |m| m["protocolVersion"] = json!(revision)).await
            } else {
                response
            }
        },
    )
}

fn documents_differ() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let v1 = request.uri().path() == "/.well-known/agentstration";
        let response = next.run(request).await;
        if v1 {
            edit_json(response, |m| m["extension"]["version"] = json!("9.9.9")).await
        } else {
            response
        }
    })
}

fn missing_model_providers() -> Router {
    manifest_edit(|m| {
        m["contributions"]
            .as_object_mut()
            .map(|c| c.remove("modelProviders"));
    })
}

fn empty_extension_name() -> Router {
    manifest_edit(|m| m["extension"]["name"] = json!(""))
}

fn no_health_capability() -> Router {
    manifest_edit(|m| {
        m["capabilities"].as_object_mut().map(|c| c.remove("aep.health"));
    })
}

fn tools_capability_endpoint() -> Router {
    manifest_edit(|m| m["capabilities"]["aep.tools"]["endpoint"] = json!("/aep/tools"))
}

fn configuration_unadvertised() -> Router {
    manifest_edit(|m| {
        m["capabilities"]
            .as_object_mut()
            .map(|c| c.remove("aep.configuration"));
    })
}

fn duplicate_provider() -> Router {
    manifest_edit(|m| {
        if let Some(providers) = m["contributions"]["modelProviders"].as_array_mut() {
            let mut copy = providers[0].clone();
            copy["id"] = json!("REF");
            providers.push(copy);
        }
    })
}

fn mcp_endpoint_credentials() -> Router {
    manifest_edit(|m| m["mcp"]["servers"][0]["endpoint"] = json!("http://user:secret@127.0.0.1:9/mcp"))
}

fn empty_tool_display_name() -> Router {
    manifest_edit(|m| m["contributions"]["tools"][0]["displayName"] = json!(""))
}

fn unknown_mcp_server_ref() -> Router {
    manifest_edit(|m| m["contributions"]["tools"][0]["mcp"]["server"] = json!("nowhere"))
}

fn schema_in_contribution() -> Router {
    manifest_edit(|m| {
        m["contributions"]["tools"][0]["inputSchema"] =
            json!({"type": "object", "properties": {"text": {"type": "string"}}})
    })
}

fn health_html() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if request.uri().path() == "/aep/health" {
            return (
                [(header::CONTENT_TYPE, "text/html")],
                "<html><body>OK</body></html>",
            )
                .into_response();
        }
        next.run(request).await
    })
}

// ---- sections 2 and 3 ------------------------------------------------------------------

/// Rewrites successful answers of `GET`/`POST` on paths that `applies` selects.
fn edit_answers(applies: fn(&Method, &str) -> bool, edit: fn(&mut Value)) -> Router {
    hook(
        Reference::router(),
        move |request: Request, next: Next| async move {
            let selected = applies(request.method(), request.uri().path());
            let response = next.run(request).await;
            if selected && response.status().is_success() {
                edit_json(response, edit).await
            } else {
                response
            }
        },
    )
}

fn unknown_finish_reason() -> Router {
    edit_answers(
        |m, p| m == Method::POST && p.ends_with("/chat"),
        |r| r["finishReason"] = json!("done"),
    )
}

fn provider_list_empty() -> Router {
    edit_answers(
        |m, p| m == Method::GET && p == "/aep/model-providers",
        |r| *r = json!([]),
    )
}

fn case_sensitive_ids() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let path = request.uri().path().to_owned();
        if let Some(rest) = path.strip_prefix("/aep/model-providers/") {
            let id = rest.split('/').next().unwrap_or("");
            if id != "ref" && id.eq_ignore_ascii_case("ref") {
                return aep_error(404, "provider_unavailable");
            }
        }
        next.run(request).await
    })
}

fn provider_health_500() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if request.uri().path() == "/aep/model-providers/ref/health" {
            return (StatusCode::INTERNAL_SERVER_ERROR, "upstream exploded").into_response();
        }
        next.run(request).await
    })
}

fn models_not_array() -> Router {
    edit_answers(
        |m, p| m == Method::GET && p.ends_with("/models"),
        |r| *r = json!({"models": r.clone()}),
    )
}

fn chat_wrong_shape() -> Router {
    edit_answers(
        |m, p| m == Method::POST && p.ends_with("/chat"),
        |r| *r = json!({"message": "pong"}),
    )
}

/// Rewrites the body of successful stream answers.
fn edit_streams(edit: fn(String) -> String) -> Router {
    hook(
        Reference::router(),
        move |request: Request, next: Next| async move {
            let stream = request.uri().path().ends_with("/chat/stream");
            let response = next.run(request).await;
            if stream && response.status().is_success() {
                map_body(response, |body| {
                    edit(String::from_utf8_lossy(&body).into_owned()).into_bytes()
                })
                .await
            } else {
                response
            }
        },
    )
}

fn stream_wrong_headers() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let stream = request.uri().path().ends_with("/chat/stream");
        let mut response = next.run(request).await;
        if stream && response.status().is_success() {
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.remove(header::CACHE_CONTROL);
        }
        response
    })
}

fn stream_no_accel_buffering() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let mut response = next.run(request).await;
        response.headers_mut().remove("x-accel-buffering");
        response
    })
}

fn stream_no_blank_lines() -> Router {
    edit_streams(|body| body.replace("\n\n", "\n") + "\n")
}

fn stream_not_json() -> Router {
    edit_streams(|body| format!("data: {{oops, not json\n\n{body}"))
}

fn data_after_terminal() -> Router {
    edit_streams(|body| body + "data: {\"contents\":[{\"kind\":\"text\",\"text\":\"late\"}]}\n\n")
}

fn no_terminal_update() -> Router {
    edit_streams(|body| {
        body.split_inclusive("\n\n")
            .filter(|event| !event.contains("finishReason"))
            .collect()
    })
}

fn stream_text_differs() -> Router {
    edit_streams(|body| body.replace("pong", "PONG"))
}

fn stream_stays_open() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let stream = request.uri().path().ends_with("/chat/stream");
        let response = next.run(request).await;
        if !(stream && response.status().is_success()) {
            return response;
        }
        let (parts, body) = response.into_parts();
        // The events, then silence for a minute (the client gives up first).
        let tail = futures::stream::once(async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok::<_, axum::Error>(axum::body::Bytes::new())
        });
        Response::from_parts(parts, Body::from_stream(body.into_data_stream().chain(tail)))
    })
}

fn cancellation_breaks() -> Router {
    let broken = Arc::new(AtomicBool::new(false));
    hook(Reference::router(), move |request: Request, next: Next| {
        let broken = broken.clone();
        async move {
            if broken.load(Ordering::SeqCst) {
                return aep_error(503, "provider_unavailable");
            }
            let stream = request.uri().path().ends_with("/chat/stream");
            let response = next.run(request).await;
            if !(stream && response.status().is_success()) {
                return response;
            }
            // Slow chunks; a body dropped before its end poisons the extension.
            let (parts, body) = response.into_parts();
            let guard = Poison {
                flag: broken,
                armed: true,
            };
            let chunks = body.into_data_stream();
            let slowed = futures::stream::unfold((chunks, guard), |(mut chunks, mut guard)| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                match chunks.next().await {
                    Some(chunk) => Some((chunk, (chunks, guard))),
                    None => {
                        guard.disarm();
                        None
                    }
                }
            });
            Response::from_parts(parts, Body::from_stream(slowed))
        }
    })
}

struct Poison {
    flag: Arc<AtomicBool>,
    armed: bool,
}

impl Poison {
    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Poison {
    fn drop(&mut self) {
        if self.armed {
            self.flag.store(true, Ordering::SeqCst);
        }
    }
}

// ---- section 4 -------------------------------------------------------------------------

fn unknown_provider_wrong_code() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let response = next.run(request).await;
        if response.status() != StatusCode::NOT_FOUND {
            return response;
        }
        edit_json(response, |e| {
            if e["error"]["code"] == "provider_unavailable" {
                e["error"]["code"] = json!("not_found");
            }
        })
        .await
    })
}

fn malformed_json_html() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if !is_chat(request.uri().path()) {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        if serde_json::from_slice::<Value>(&body).is_err() {
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "text/html")],
                "<h1>Bad Request</h1>",
            )
                .into_response();
        }
        next.run(rebuild(parts, body)).await
    })
}

fn wrong_types_500() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if !is_chat(request.uri().path()) {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        if serde_json::from_slice::<Value>(&body)
            .is_ok_and(|v| v.get("model").is_some_and(|m| !m.is_string()))
        {
            return aep_error(500, "internal_error");
        }
        next.run(rebuild(parts, body)).await
    })
}

fn empty_messages_accepted() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if !is_chat(request.uri().path()) {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        if serde_json::from_slice::<Value>(&body).is_ok_and(|v| v["messages"] == json!([])) {
            return fake_chat();
        }
        next.run(rebuild(parts, body)).await
    })
}

fn content_type_ignored() -> Router {
    hook(
        Reference::router(),
        |mut request: Request, next: Next| async move {
            request
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            next.run(request).await
        },
    )
}

fn oversized_500() -> Router {
    let roomy = Reference::builder()
        .body_limit(64 * 1024 * 1024)
        .build()
        .expect("valid declaration")
        .router();
    hook(roomy, |request: Request, next: Next| async move {
        let (parts, body) = request.into_parts();
        let bytes = axum::body::to_bytes(body, 64 * 1024 * 1024)
            .await
            .unwrap_or_default();
        if bytes.len() > 16 * 1024 * 1024 {
            return (StatusCode::INTERNAL_SERVER_ERROR, "request too large").into_response();
        }
        next.run(Request::from_parts(parts, Body::from(bytes))).await
    })
}

// ---- section 5 -------------------------------------------------------------------------

fn catalog_bad_preferred() -> Router {
    edit_answers(
        |m, p| m == Method::GET && p == "/aep/configuration",
        |c| c["optionSets"][0]["preferredVersion"] = json!("9.9.9"),
    )
}

fn schema_reordered() -> Router {
    edit_answers(
        |m, p| m == Method::GET && p == "/aep/configuration",
        |c| {
            let schema = &mut c["optionSets"][0]["versions"][1]["schema"];
            if let Some(members) = schema.as_object() {
                let reversed: serde_json::Map<String, Value> = members
                    .iter()
                    .rev()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                *schema = Value::Object(reversed);
            }
        },
    )
}

/// A chat request's native options, if any.
fn native(body: &[u8]) -> Option<Value> {
    let value: Value = serde_json::from_slice(body).ok()?;
    value.pointer("/options/nativeOptions").cloned()
}

fn unknown_set_accepted() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if !is_chat(request.uri().path()) {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        let unknown = native(&body).is_some_and(|n| n["optionSet"] != json!(super::reference::OPTION_SET));
        if unknown {
            let mut value: Value = serde_json::from_slice(&body).unwrap_or_default();
            value["options"]
                .as_object_mut()
                .map(|o| o.remove("nativeOptions"));
            return next
                .run(rebuild(parts, serde_json::to_vec(&value).unwrap_or_default()))
                .await;
        }
        next.run(rebuild(parts, body)).await
    })
}

/// Rewrites AEP errors with `code` answered on the chat routes.
fn chat_error(code: &'static str, replace: fn() -> Response) -> Router {
    hook(
        Reference::router(),
        move |request: Request, next: Next| async move {
            let chat = is_chat(request.uri().path());
            let response = next.run(request).await;
            if !chat || response.status().is_success() {
                return response;
            }
            let (parts, body) = response.into_parts();
            let body = bytes(body).await;
            if error_code(&body).as_deref() == Some(code) {
                return replace();
            }
            Response::from_parts(parts, Body::from(body))
        },
    )
}

fn unknown_version_wrong_code() -> Router {
    chat_error("option_version_unsupported", || aep_error(422, "invalid_options"))
}

fn digest_mismatch_400() -> Router {
    chat_error("option_schema_mismatch", || {
        aep_error(400, "option_schema_mismatch")
    })
}

fn invalid_values_accepted() -> Router {
    chat_error("invalid_options", fake_chat)
}

fn valid_options_rejected() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if !is_chat(request.uri().path()) {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        let has_native = native(&body).is_some();
        let response = next.run(rebuild(parts, body)).await;
        if has_native && response.status().is_success() {
            return aep_error(422, "invalid_options");
        }
        response
    })
}

fn migrate_wrong_digest() -> Router {
    edit_answers(
        |m, p| m == Method::POST && p == "/aep/configuration/migrate",
        |r| {
            r["options"]["schemaDigest"] =
                json!("sha256:1111111111111111111111111111111111111111111111111111111111111111")
        },
    )
}

fn migrate_errors_500() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        let migrate = request.uri().path() == "/aep/configuration/migrate";
        let response = next.run(request).await;
        if migrate && response.status() == StatusCode::UNPROCESSABLE_ENTITY {
            return aep_error(500, "internal_error");
        }
        response
    })
}

// ---- section 6 -------------------------------------------------------------------------

fn mcp_unreachable() -> Router {
    manifest_edit(|m| m["mcp"]["servers"][0]["endpoint"] = json!("/nothing-here"))
}

/// Answers MCP requests whose JSON-RPC method is `method` with a JSON-RPC error.
fn mcp_method_error(router: Router, method: &'static str) -> Router {
    hook(router, move |request: Request, next: Next| async move {
        // Browser requests (with an Origin) still reach the server's own Origin check.
        if request.uri().path() != "/mcp"
            || request.method() != Method::POST
            || request.headers().contains_key("origin")
        {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        if message["method"] == method {
            let error = json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}});
            return axum::Json(error).into_response();
        }
        next.run(rebuild(parts, body)).await
    })
}

fn mcp_initialize_broken() -> Router {
    mcp_method_error(Reference::router(), "initialize")
}

fn mcp_stateless_broken() -> Router {
    mcp_method_error(Reference::router(), "server/discover")
}

fn mcp_any_origin() -> Router {
    let access = aep_sdk::server::McpAccess {
        allowed_origins: vec!["https://aep-conformance.invalid".into()],
        ..Default::default()
    };
    Reference::builder()
        .mcp_access(access)
        .build()
        .expect("valid declaration")
        .router()
}

fn missing_tool() -> Router {
    Reference::builder()
        .tool(ToolContribution {
            id: "ghost.tool".into(),
            display_name: "Ghost".into(),
            description: None,
            metadata: None,
            mcp: McpToolMapping {
                server: "reference".into(),
                tool: "ghost".into(),
            },
        })
        .build()
        .expect("valid declaration")
        .router()
}

/// Rewrites the JSON-RPC answers to MCP requests whose method is `method`.
fn mcp_answer_edit(method: &'static str, edit: fn(&mut Value)) -> Router {
    hook(
        Reference::router(),
        move |request: Request, next: Next| async move {
            if request.uri().path() != "/mcp" || request.method() != Method::POST {
                return next.run(request).await;
            }
            let (parts, body) = buffer(request).await;
            let selected = serde_json::from_slice::<Value>(&body).is_ok_and(|m| m["method"] == method);
            let response = next.run(rebuild(parts, body)).await;
            if selected {
                edit_mcp(response, edit).await
            } else {
                response
            }
        },
    )
}

fn bad_input_schema() -> Router {
    mcp_answer_edit("tools/list", |message| {
        for tool in message
            .pointer_mut("/result/tools")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if tool["name"] == "echo_text" {
                tool["inputSchema"]["properties"]["text"]["type"] = json!("strng");
            }
        }
    })
}

fn tool_call_error() -> Router {
    hook(Reference::router(), |request: Request, next: Next| async move {
        if request.uri().path() != "/mcp" || request.method() != Method::POST {
            return next.run(request).await;
        }
        let (parts, body) = buffer(request).await;
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        if message["method"] == "tools/call" && message["params"]["name"] == "echo_text" {
            let error = json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": "Invalid params"}});
            return axum::Json(error).into_response();
        }
        next.run(rebuild(parts, body)).await
    })
}

fn structured_output_missing() -> Router {
    mcp_answer_edit("tools/call", |message| {
        if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
            result.remove("structuredContent");
        }
    })
}
