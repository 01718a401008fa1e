//! Ollama's wire shapes for `/api/chat` answers, serialised in Go's field
//! order with Go's `omitempty` rules.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;

use crate::script::Counters;

/// A tool call with its id and index decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ToolCallOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub function: FunctionOut,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FunctionOut {
    pub index: usize,
    pub name: String,
    pub arguments: Value,
}

/// `message` of a chat answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct MessageOut {
    pub role: &'static str,
    pub content: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub thinking: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallOut>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One `/api/chat` object (a stream line, or the whole non-streamed answer).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ChatOut<'a> {
    pub model: &'a str,
    pub created_at: String,
    pub message: &'a MessageOut,
    pub done: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub done_reason: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    pub total_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub load_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub prompt_eval_count: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub prompt_eval_duration: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub eval_count: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub eval_duration: u64,
}

impl<'a> ChatOut<'a> {
    pub(crate) fn chunk(model: &'a str, message: &'a MessageOut) -> Self {
        Self::done(model, message, "", Counters::default(), false)
    }

    pub(crate) fn done(
        model: &'a str,
        message: &'a MessageOut,
        done_reason: &'a str,
        c: Counters,
        done: bool,
    ) -> Self {
        ChatOut {
            model,
            created_at: now_rfc3339(),
            message,
            done,
            done_reason,
            total_duration: c.total_duration,
            load_duration: c.load_duration,
            prompt_eval_count: c.prompt_eval_count,
            prompt_eval_duration: c.prompt_eval_duration,
            eval_count: c.eval_count,
            eval_duration: c.eval_duration,
        }
    }

    /// Compact JSON plus `\n`, escaped like Go's `json.Marshal`.
    pub(crate) fn line(&self) -> Vec<u8> {
        let mut v = go_escape(serde_json::to_vec(self).unwrap_or_default());
        v.push(b'\n');
        v
    }
}

/// `{"error": message}` (compact, no newline).
pub(crate) fn error_body(message: &str) -> Vec<u8> {
    go_escape(serde_json::to_vec(&serde_json::json!({ "error": message })).unwrap_or_default())
}

/// Go's `encoding/json` escapes `<`, `>`, `&`, U+2028 and U+2029 inside
/// strings (`\u003c`...). Those bytes only occur inside strings in compact
/// JSON, so a byte-level rewrite is exact.
pub(crate) fn go_escape(v: Vec<u8>) -> Vec<u8> {
    let needs = v.iter().any(|&b| b == b'<' || b == b'>' || b == b'&')
        || v.windows(3)
            .any(|w| w == [0xE2, 0x80, 0xA8] || w == [0xE2, 0x80, 0xA9]);
    if !needs {
        return v;
    }
    let mut out = Vec::with_capacity(v.len() + 16);
    let mut i = 0;
    while i < v.len() {
        match v[i] {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            0xE2 if v.get(i + 1) == Some(&0x80) && matches!(v.get(i + 2), Some(0xA8 | 0xA9)) => {
                out.extend_from_slice(if v[i + 2] == 0xA8 { b"\\u2028" } else { b"\\u2029" });
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}

/// Current UTC time like Go's `time.Time` JSON (RFC 3339, nanoseconds with
/// trailing zeros trimmed): `2024-07-22T20:33:28.123648Z`.
pub(crate) fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

pub(crate) fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let nanos = d.subsec_nanos();
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, dd) = civil_from_days(days);
    let mut s = format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    );
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s.push('Z');
    s
}

/// Howard Hinnant's days → (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        let t = UNIX_EPOCH + Duration::new(1_721_680_408, 123_648_000);
        assert_eq!(rfc3339(t), "2024-07-22T20:33:28.123648Z");
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn go_escaping() {
        let v = serde_json::to_vec(&serde_json::json!({"c": "<a> & \u{2028}é"})).unwrap_or_default();
        assert_eq!(
            String::from_utf8(go_escape(v)).unwrap_or_default(),
            r#"{"c":"\u003ca\u003e \u0026 \u2028é"}"#
        );
    }

    #[test]
    fn omitempty() {
        let m = MessageOut {
            role: "assistant",
            ..MessageOut::default()
        };
        let line = String::from_utf8(ChatOut::chunk("m", &m).line()).unwrap_or_default();
        assert!(line.ends_with("\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":false}\n"));
        let c = Counters {
            eval_count: 3,
            ..Counters::default()
        };
        let line = String::from_utf8(ChatOut::done("m", &m, "stop", c, true).line()).unwrap_or_default();
        assert!(line.ends_with("\"done\":true,\"done_reason\":\"stop\",\"eval_count\":3}\n"));
    }
}
