//! The reference extension every broken fixture starts from: one deterministic model
//! provider, an option set with two versions and migrations both ways, and an MCP server
//! with read-only (one of them reporting progress), unannotated and destructive tools, a
//! resource, a resource template and a prompt. It passes every check, strictly.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aep_sdk::config::OptionSetDecl;
use aep_sdk::prelude::*;
use aep_sdk::server::ExtensionBuilder;
use serde_json::Value;

/// The extension; `destructive_calls` counts calls of tools that must never be called.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    pub destructive_calls: Arc<AtomicUsize>,
}

/// Sum returned by `add` (structured content with an output schema).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Sum {
    /// a + b.
    pub sum: i64,
}

pub const OPTION_SET: &str = "aep.conformance/reference-profile";

/// Version 1.0.0, as text: number tokens and HTML-sensitive characters exercise the digest.
const PROFILE_V1: &str = r#"{"type":"object","description":"Profile <v1> & 'legacy' +1","properties":{"temperatureScale":{"type":"number","minimum":0.0,"maximum":2.0},"mode":{"enum":["fast","slow"]}},"additionalProperties":false}"#;

/// Version 2.0.0, pretty-printed as authored.
const PROFILE_V2: &str = r#"{
  "type": "object",
  "description": "Profile v2 — é",
  "properties": {
    "scale": { "type": "number", "minimum": 0.0, "maximum": 2.0 },
    "mode": { "type": "string", "enum": ["fast", "slow"] },
    "contextSize": { "type": "integer", "minimum": 1 }
  },
  "required": ["mode"],
  "additionalProperties": false
}"#;

fn rename(values: &mut Value, from: &str, to: &str) {
    if let Some(object) = values.as_object_mut()
        && let Some(value) = object.remove(from)
    {
        object.insert(to.to_owned(), value);
    }
}

#[aep_extension(
    id = "aep.conformance.reference",
    name = "Conformance reference",
    description = "Everything the conformance suite checks, done right.",
    mcp_server = "reference"
)]
impl Reference {
    /// Streams the words of the last user message, then a terminal update.
    #[model_provider(id = "ref", display_name = "Reference", models = ["ref-1"], metadata(deterministic = true))]
    async fn reference(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        let words: Vec<String> = text.split_inclusive(' ').map(str::to_owned).collect();
        let count = words.len() as u64;
        let mut updates: Vec<Result<ChatUpdate, AepError>> =
            words.into_iter().map(|w| Ok(ChatUpdate::text(w))).collect();
        updates.push(Ok(ChatUpdate {
            usage: Some(Usage::new(count, count)),
            ..ChatUpdate::finish(FinishReason::Stop)
        }));
        Ok(ChatStream::new(futures::stream::iter(updates)))
    }

    #[option_set]
    fn profile(&self) -> OptionSetDecl {
        OptionSetDecl::new(OPTION_SET, "ref")
            .version("1.0.0", PROFILE_V1)
            .version("2.0.0", PROFILE_V2)
            .preferred("2.0.0")
            .deprecated("1.0.0")
            .migration("1.0.0", "2.0.0", |mut values| async move {
                rename(&mut values, "temperatureScale", "scale");
                if let Some(object) = values.as_object_mut() {
                    object
                        .entry("mode")
                        .or_insert_with(|| Value::String("fast".into()));
                }
                Ok::<_, String>(values)
            })
            .migration("2.0.0", "1.0.0", |mut values| async move {
                rename(&mut values, "scale", "temperatureScale");
                if let Some(object) = values.as_object_mut() {
                    object.remove("contextSize");
                }
                Ok::<_, String>(values)
            })
    }

    /// Return the text unchanged.
    #[tool(
        name = "echo_text",
        id = "text.echo",
        display_name = "Echo text",
        read_only,
        idempotent
    )]
    async fn echo_text(
        &self,
        /// The text to return.
        text: String,
    ) -> String {
        text
    }

    /// Add two integers.
    #[tool(name = "add", id = "math.add", display_name = "Add", read_only)]
    async fn add(
        &self,
        /// First term.
        a: i64,
        /// Second term.
        b: i64,
    ) -> Sum {
        Sum {
            sum: a.saturating_add(b),
        }
    }

    /// Count to three, reporting progress at each step.
    #[tool(
        name = "count",
        id = "text.count",
        display_name = "Count",
        read_only,
        idempotent
    )]
    async fn count(&self, ctx: ToolContext) -> String {
        for step in 1..=3_u32 {
            ctx.progress(f64::from(step), Some(3.0), Some(&format!("{step} of 3")))
                .await;
        }
        "counted to 3".to_owned()
    }

    /// What this extension is.
    #[resource(uri = "docs://reference/about", name = "about", mime_type = "text/plain")]
    async fn about(&self) -> &'static str {
        "The conformance reference: everything the suite checks, done right."
    }

    /// `text`, echoed back.
    #[resource(uri_template = "echo://{text}", name = "echo", mime_type = "text/plain")]
    async fn echo_resource(&self, text: String) -> String {
        text
    }

    /// Greet someone.
    #[prompt(name = "greet", title = "Greet someone")]
    async fn greet(
        &self,
        /// Who to greet.
        name: String,
        /// How, e.g. "warmly" (default "briefly").
        manner: Option<String>,
    ) -> String {
        format!("Greet {name} {}.", manner.as_deref().unwrap_or("briefly"))
    }

    /// Remember a note (not annotated: a client must assume it modifies state).
    #[tool(name = "note", id = "store.note", display_name = "Note")]
    async fn note(&self, text: String) -> String {
        self.destructive_calls.fetch_add(1, Ordering::SeqCst);
        format!("noted {text}")
    }

    /// Delete everything (destructive).
    #[tool(name = "wipe", id = "store.wipe", display_name = "Wipe", destructive)]
    async fn wipe(&self) -> String {
        self.destructive_calls.fetch_add(1, Ordering::SeqCst);
        "wiped".to_owned()
    }
}

impl Reference {
    /// The declaration, to add to or change before building.
    pub fn builder() -> ExtensionBuilder {
        Reference::default().extension_builder()
    }

    /// The reference as a router.
    pub fn router() -> axum::Router {
        Self::builder().build().expect("valid declaration").router()
    }
}
