//! `aep-utilities`: a tools extension written with `#[aep_extension]`, as a user would.
//!
//! Tools (MCP server `utilities` at `/mcp`):
//! - `hash.compute`: lowercase SHA-256 of UTF-8 text;
//! - `json.compact`: JSON text without insignificant whitespace (a tool error when the
//!   text is not JSON);
//! - `text.case`: upper, lower or title case;
//! - `text.stats`: characters, words and lines, as a structured result;
//! - `text.count_slowly`: counts to `to` (at most 100), 10 ms a step, reporting progress
//!   at each step and logging each step at `debug` and the end at `info` (what MCP
//!   clients exercise progress and `logging/setLevel` with).
//!
//! Resources: `docs://utilities/readme` (the README) and the template
//! `hash://sha256/{text}` (the SHA-256 of `text`). Prompt: `summarize` (`text`, optional
//! `style`).

use aep_sdk::prelude::*;
use aep_sdk::tool::LogLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The largest `to` of `text.count_slowly`.
pub const MAX_COUNT: u32 = 100;

/// The extension's state: none is needed, every tool is a pure function.
#[derive(Debug, Clone, Default)]
pub struct Utilities;

/// Letter case for `text.case`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Case {
    /// ALL CAPITALS.
    Upper,
    /// all lowercase.
    Lower,
    /// Each Word Capitalized.
    Title,
}

/// Counts returned by `text.stats`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TextStats {
    /// Unicode scalar values.
    pub characters: usize,
    /// Whitespace-separated words.
    pub words: usize,
    /// Lines (a trailing newline does not start a new one).
    pub lines: usize,
}

#[aep_extension(
    id = "aep.utilities",
    name = "Utilities",
    description = "Hashing, JSON and text tools, served over MCP.",
    mcp_server = "utilities"
)]
impl Utilities {
    /// Compute the lowercase hex SHA-256 digest of UTF-8 text.
    #[tool(
        name = "hash_compute",
        id = "hash.compute",
        display_name = "Compute SHA-256",
        read_only,
        idempotent
    )]
    async fn hash_compute(
        &self,
        /// The text to hash, as UTF-8.
        text: String,
    ) -> String {
        sha256_hex(&text)
    }

    /// Remove insignificant whitespace from JSON text.
    #[tool(
        name = "json_compact",
        id = "json.compact",
        display_name = "Compact JSON",
        read_only,
        idempotent
    )]
    async fn json_compact(
        &self,
        /// The JSON document, as text.
        json: String,
    ) -> Result<String, ToolError> {
        let value: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| ToolError::new(format!("not valid JSON: {e}")))?;
        Ok(value.to_string())
    }

    /// Change the letter case of text.
    #[tool(
        name = "text_case",
        id = "text.case",
        display_name = "Change case",
        read_only,
        idempotent
    )]
    async fn text_case(
        &self,
        /// The text to convert.
        text: String,
        /// Target case: `upper`, `lower` or `title`.
        case: Case,
    ) -> String {
        match case {
            Case::Upper => text.to_uppercase(),
            Case::Lower => text.to_lowercase(),
            Case::Title => title_case(&text),
        }
    }

    /// Count the characters, words and lines of text.
    #[tool(
        name = "text_stats",
        id = "text.stats",
        display_name = "Text statistics",
        read_only,
        idempotent,
        metadata(category = "text")
    )]
    async fn text_stats(
        &self,
        /// The text to measure.
        text: String,
        /// Count only lines that are not blank (default false).
        skip_blank_lines: Option<bool>,
    ) -> TextStats {
        let skip = skip_blank_lines.unwrap_or(false);
        TextStats {
            characters: text.chars().count(),
            words: text.split_whitespace().count(),
            lines: text.lines().filter(|l| !skip || !l.trim().is_empty()).count(),
        }
    }

    /// Count from 1 to `to` (at most 100), 10 ms a step, reporting progress at each step.
    #[tool(
        name = "count_slowly",
        id = "text.count_slowly",
        display_name = "Count slowly",
        read_only,
        idempotent
    )]
    async fn count_slowly(
        &self,
        /// The number to count to, at most 100.
        to: u32,
        ctx: ToolContext,
    ) -> Result<String, ToolError> {
        if to > MAX_COUNT {
            return Err(ToolError::new(format!("count to {MAX_COUNT} at most, not {to}")));
        }
        for i in 1..=to {
            if ctx.cancellation().is_cancelled() {
                return Err(ToolError::new(format!("cancelled at {i} of {to}")));
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            ctx.progress(f64::from(i), Some(f64::from(to)), Some(&format!("{i} of {to}")))
                .await;
            ctx.log(LogLevel::Debug, format!("step {i}")).await;
        }
        ctx.log(LogLevel::Info, format!("counted to {to}")).await;
        Ok(format!("counted to {to}"))
    }

    /// This extension's README: its tools, resources and prompts.
    #[resource(
        uri = "docs://utilities/readme",
        name = "readme",
        title = "Utilities README",
        mime_type = "text/markdown"
    )]
    async fn readme(&self) -> &'static str {
        README
    }

    /// The lowercase hex SHA-256 of `text` (percent-decoded from the URI).
    #[resource(
        uri_template = "hash://sha256/{text}",
        name = "sha256",
        title = "SHA-256 of a text",
        mime_type = "text/plain"
    )]
    async fn sha256_resource(&self, text: String) -> String {
        sha256_hex(&text)
    }

    /// Ask a model to summarize a text.
    #[prompt(name = "summarize", title = "Summarize a text")]
    async fn summarize(
        &self,
        /// The text to summarize.
        text: String,
        /// How: short (default), bullets or detailed.
        style: Option<Style>,
    ) -> String {
        let how = match style.unwrap_or(Style::Short) {
            Style::Short => "in one or two sentences",
            Style::Bullets => "as a bulleted list of its main points",
            Style::Detailed => "in a paragraph per main point",
        };
        format!("Summarize the following text {how}.\n\n{text}")
    }
}

/// How `summarize` asks for a summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One or two sentences.
    Short,
    /// A bulleted list of the main points.
    Bullets,
    /// A paragraph per main point.
    Detailed,
}

impl std::str::FromStr for Style {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "short" => Ok(Style::Short),
            "bullets" => Ok(Style::Bullets),
            "detailed" => Ok(Style::Detailed),
            other => Err(format!("style is short, bullets or detailed, not '{other}'")),
        }
    }
}

/// The extension's README, served as `docs://utilities/readme`.
pub const README: &str = include_str!("../README.md");

/// Lowercase hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn title_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut start = true;
    for c in text.chars() {
        if start && c.is_alphanumeric() {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = c.is_whitespace();
    }
    out
}
