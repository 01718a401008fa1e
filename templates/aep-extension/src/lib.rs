//! {{display_name}}: an AEP extension written with aep-sdk.

use aep_sdk::prelude::*;
{% if starting_point != "model-provider" %}use schemars::JsonSchema;
use serde::Serialize;
{% endif %}
/// The extension's shared state: every handler gets `&self`.
#[derive(Debug, Clone, Default)]
pub struct Extension;
{% if starting_point != "model-provider" %}
/// What `text.stats` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TextStats {
    /// Unicode characters.
    pub characters: usize,
    /// Whitespace-separated words.
    pub words: usize,
}
{% endif %}
#[aep_extension(id = "{{extension_id}}", name = "{{display_name}}")]
impl Extension {
{% if starting_point != "model-provider" %}    /// Turn text into upper case.
    #[tool(id = "text.upper", display_name = "Upper case", read_only, idempotent)]
    async fn upper(
        &self,
        /// The text to convert.
        text: String,
    ) -> Result<String, ToolError> {
        if text.is_empty() {
            return Err(ToolError::new("give me some text"));
        }
        Ok(text.to_uppercase())
    }

    /// Count the characters and words of text.
    #[tool(id = "text.stats", display_name = "Text statistics", read_only, idempotent)]
    async fn stats(
        &self,
        /// The text to measure.
        text: String,
    ) -> TextStats {
        TextStats { characters: text.chars().count(), words: text.split_whitespace().count() }
    }

    /// How to use this extension (an MCP resource: clients list and read it).
    #[resource(uri = "docs://{{extension_id}}/usage", name = "usage", mime_type = "text/markdown")]
    async fn usage(&self) -> &'static str {
        "# {{display_name}}\n\nTools: `text.upper` (upper case) and `text.stats` (characters and words)."
    }

    /// Ask a model to rewrite text in a tone (an MCP prompt: clients list and get it).
    #[prompt(name = "rewrite")]
    async fn rewrite(
        &self,
        /// The text to rewrite.
        text: String,
        /// The tone, e.g. "formal" (default "plain").
        tone: Option<String>,
    ) -> String {
        format!("Rewrite this in a {} tone:\n\n{text}", tone.as_deref().unwrap_or("plain"))
    }
{% endif %}{% if starting_point != "tools" %}
    /// Answer with the last user message, word by word.
    #[model_provider(id = "echo", display_name = "Echo", models = ["echo-1"], metadata(deterministic = true))]
    async fn echo(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default();
        Ok(chat_stream! {
            for word in text.split_inclusive(' ') {
                yield ChatUpdate::text(word).with_model("echo-1");
            }
            // Ending without a terminal update finishes with `stop`.
        })
    }
{% endif %}}
