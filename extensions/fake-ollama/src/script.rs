//! Scripted replies for `/api/chat`.
//!
//! A [`Reply`] describes what the "model" generates: thinking deltas, content
//! deltas, tool calls, the `done_reason`, the counters of the final chunk and
//! the pacing. The server turns it into Ollama's chunk sequence:
//!
//! 1. one chunk per thinking delta (`content: ""`, `thinking: delta`) — only
//!    when the model has the `thinking` capability and the request did not
//!    send `think: false`;
//! 2. one chunk per content delta;
//! 3. one chunk per tool-call group (`content: ""`, `tool_calls: [...]`);
//! 4. the final `done: true` chunk (`content` = [`Reply::final_content`],
//!    usually `""`), with `done_reason` and the counters.
//!
//! With `stream: false` the same sequence is folded into one object (content
//! and thinking concatenated, all tool calls, the last chunk's counters).
//!
//! Scripted tool calls are sent even when the request carried no `tools`
//! (a real model would not call undeclared tools; scripting that is the
//! test's choice). Tool-call ids: see [`ToolCallId`]; generated ids are
//! deterministic per server (`call_` + 8 chars of `[a-z0-9]`).

use std::time::Duration;

use serde_json::Value;

/// How a scripted tool call's `id` is produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCallId {
    /// A fresh `call_` + 8 lowercase alphanumerics (what current Ollama sends).
    Generated,
    /// Exactly this id.
    Fixed(String),
    /// No `id` field at all (what Ollama before ~0.12 sent).
    Omitted,
}

/// One tool call the fake model emits:
/// `{"id":"call_xxxxxxxx","function":{"index":0,"name":"...","arguments":{...}}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// How the id is produced.
    pub id: ToolCallId,
    /// `function.name`.
    pub name: String,
    /// `function.arguments`; Ollama always sends an object. A non-object is
    /// sent as given (to test a proxy's robustness).
    pub arguments: Value,
    /// `function.index`; `None` = position among all tool calls of the reply.
    pub index: Option<usize>,
}

impl ToolCall {
    /// A call with a generated id and automatic index.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: ToolCallId::Generated,
            name: name.into(),
            arguments,
            index: None,
        }
    }

    /// Uses this exact id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = ToolCallId::Fixed(id.into());
        self
    }

    /// Sends no `id` (older Ollama versions).
    pub fn without_id(mut self) -> Self {
        self.id = ToolCallId::Omitted;
        self
    }

    /// Forces `function.index`.
    pub fn index(mut self, index: usize) -> Self {
        self.index = Some(index);
        self
    }
}

/// One non-final chunk, for full control with [`Reply::from_chunks`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chunk {
    /// `message.content` (always sent, maybe `""`).
    pub content: String,
    /// `message.thinking` (sent when non-empty; dropped when thinking is off).
    pub thinking: String,
    /// `message.tool_calls` (sent when non-empty).
    pub tool_calls: Vec<ToolCall>,
    /// `message.images` (sent when non-empty; raw base64).
    pub images: Vec<String>,
}

impl Chunk {
    /// A content-only chunk.
    pub fn content(s: impl Into<String>) -> Self {
        Chunk {
            content: s.into(),
            ..Chunk::default()
        }
    }

    /// A thinking-only chunk.
    pub fn thinking(s: impl Into<String>) -> Self {
        Chunk {
            thinking: s.into(),
            ..Chunk::default()
        }
    }

    /// A tool-call chunk (empty content).
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Chunk {
            tool_calls: calls,
            ..Chunk::default()
        }
    }
}

/// Counters of the final chunk, in nanoseconds / tokens. Zero values are
/// omitted from the JSON, as Ollama does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// `total_duration` (ns).
    pub total_duration: u64,
    /// `load_duration` (ns).
    pub load_duration: u64,
    /// `prompt_eval_count` (tokens).
    pub prompt_eval_count: u64,
    /// `prompt_eval_duration` (ns).
    pub prompt_eval_duration: u64,
    /// `eval_count` (tokens).
    pub eval_count: u64,
    /// `eval_duration` (ns).
    pub eval_duration: u64,
}

/// Timing of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pacing {
    /// Wait before the status line and the first chunk (a slow model load:
    /// no headers at all meanwhile).
    pub load_delay: Duration,
    /// Wait between two consecutive chunks (after the first).
    pub chunk_delay: Duration,
}

/// A scripted answer for one `/api/chat` request. See the module docs for the
/// chunk order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub(crate) thinking: Vec<String>,
    pub(crate) content: Vec<String>,
    pub(crate) tool_chunks: Vec<Vec<ToolCall>>,
    pub(crate) open_tool_chunk: bool,
    pub(crate) raw: Option<Vec<Chunk>>,
    pub(crate) final_content: String,
    pub(crate) done_reason: Option<String>,
    pub(crate) counters: Option<Counters>,
    pub(crate) pacing: Pacing,
}

impl Reply {
    /// An empty reply (just the final chunk) — build on it.
    pub fn new() -> Self {
        Reply::default()
    }

    /// Content split into word-like deltas (each delta carries its leading
    /// whitespace: `"Hello big world"` → `"Hello"`, `" big"`, `" world"`).
    pub fn text(text: &str) -> Self {
        Reply::new().content(text)
    }

    /// Content split into exactly `n` deltas of near-equal length (in chars;
    /// fewer when the text is shorter than `n`; `n == 0` counts as 1).
    pub fn text_in(text: &str, n: usize) -> Self {
        Reply::new().content_in(text, n)
    }

    /// Content deltas exactly as given.
    pub fn deltas<I, S>(deltas: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut r = Reply::new();
        r.content = deltas.into_iter().map(Into::into).collect();
        r
    }

    /// Only tool calls, all in one chunk (content empty).
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Reply::new().tool_call_chunk(calls)
    }

    /// Full control over the non-final chunks (thinking in these chunks is
    /// still dropped when thinking is off).
    pub fn from_chunks(chunks: Vec<Chunk>) -> Self {
        Reply {
            raw: Some(chunks),
            ..Reply::default()
        }
    }

    /// Appends content split into word-like deltas.
    pub fn content(mut self, text: &str) -> Self {
        self.content.extend(split_words(text));
        self
    }

    /// Appends content split into `n` deltas.
    pub fn content_in(mut self, text: &str, n: usize) -> Self {
        self.content.extend(split_n(text, n));
        self
    }

    /// Appends thinking split into word-like deltas.
    pub fn thinking(mut self, text: &str) -> Self {
        self.thinking.extend(split_words(text));
        self
    }

    /// Appends thinking split into `n` deltas.
    pub fn thinking_in(mut self, text: &str, n: usize) -> Self {
        self.thinking.extend(split_n(text, n));
        self
    }

    /// Adds a tool call to the current combined tool-call chunk (all calls
    /// added with `tool_call` in a row share one chunk).
    pub fn tool_call(mut self, call: ToolCall) -> Self {
        match self.tool_chunks.last_mut() {
            Some(last) if self.open_tool_chunk => last.push(call),
            _ => {
                self.tool_chunks.push(vec![call]);
                self.open_tool_chunk = true;
            }
        }
        self
    }

    /// Adds a separate chunk carrying these tool calls (use it repeatedly to
    /// spread calls over several chunks).
    pub fn tool_call_chunk(mut self, calls: Vec<ToolCall>) -> Self {
        self.tool_chunks.push(calls);
        self.open_tool_chunk = false;
        self
    }

    /// Content carried by the final `done: true` chunk (default `""`).
    pub fn final_content(mut self, text: impl Into<String>) -> Self {
        self.final_content = text.into();
        self
    }

    /// `done_reason` of the final chunk (default `"stop"`).
    pub fn done_reason(mut self, reason: impl Into<String>) -> Self {
        self.done_reason = Some(reason.into());
        self
    }

    /// Fixed counters for the final chunk (zeros are omitted). Without this,
    /// counters are computed: `prompt_eval_count` from the prompt's words,
    /// `eval_count` = number of generated chunks, durations measured.
    pub fn counters(mut self, counters: Counters) -> Self {
        self.counters = Some(counters);
        self
    }

    /// Wait before the headers and first chunk (slow model load).
    pub fn load_delay(mut self, d: Duration) -> Self {
        self.pacing.load_delay = d;
        self
    }

    /// Wait between chunks.
    pub fn chunk_delay(mut self, d: Duration) -> Self {
        self.pacing.chunk_delay = d;
        self
    }

    /// Both delays at once.
    pub fn pacing(mut self, pacing: Pacing) -> Self {
        self.pacing = pacing;
        self
    }

    /// The non-final chunks in order (thinking not yet filtered).
    pub(crate) fn chunks(&self) -> Vec<Chunk> {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        let mut out = Vec::new();
        out.extend(self.thinking.iter().map(|t| Chunk::thinking(t.clone())));
        out.extend(self.content.iter().map(|c| Chunk::content(c.clone())));
        out.extend(self.tool_chunks.iter().map(|c| Chunk::tool_calls(c.clone())));
        out
    }
}

/// Splits into word-like pieces, each starting with its leading whitespace.
pub(crate) fn split_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut seen_word = false;
    for ch in text.chars() {
        if ch.is_whitespace() && seen_word {
            out.push(std::mem::take(&mut cur));
            seen_word = false;
        }
        if !ch.is_whitespace() {
            seen_word = true;
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Splits into `n` pieces of near-equal char length.
pub(crate) fn split_n(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, chars.len());
    let base = chars.len() / n;
    let extra = chars.len() % n;
    let mut out = Vec::with_capacity(n);
    let mut pos = 0;
    for i in 0..n {
        let len = base + usize::from(i < extra);
        out.push(chars[pos..pos + len].iter().collect());
        pos += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting() {
        assert_eq!(split_words("Hello big  world"), vec!["Hello", " big", "  world"]);
        assert_eq!(split_words(" a"), vec![" a"]);
        assert_eq!(split_n("abcdefg", 3), vec!["abc", "de", "fg"]);
        assert_eq!(split_n("ab", 5), vec!["a", "b"]);
        assert!(split_n("", 3).is_empty());
    }

    #[test]
    fn tool_grouping() {
        let r = Reply::new()
            .tool_call(ToolCall::new("a", serde_json::json!({})))
            .tool_call(ToolCall::new("b", serde_json::json!({})))
            .tool_call_chunk(vec![ToolCall::new("c", serde_json::json!({}))])
            .tool_call(ToolCall::new("d", serde_json::json!({})));
        let sizes: Vec<usize> = r.tool_chunks.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![2, 1, 1]);
    }
}
