//! Schema digests (spec section 5): `sha256:` plus the lowercase hex SHA-256 of the
//! schema written as compact JSON, members in authored order, strings escaped the way
//! the C# reference's `System.Text.Json` default encoder escapes them.
//!
//! That encoder writes printable ASCII as is, except `"`, `&`, `'`, `+`, `<`, `>` and
//! `` ` ``, which it writes as `\u0022`, `\u0026`, ... (uppercase hex); `\n`, `\r`, `\t`,
//! `\b`, `\f` and `\\` get their short escapes; every other control character, DEL and
//! every non-ASCII character becomes `\uXXXX` (a surrogate pair for characters outside
//! the BMP), also uppercase.
//!
//! Numbers: the reference serializes a parsed `JsonElement`, which keeps the original
//! token text of each number (`1.0` stays `1.0`, `1e2` stays `1e2`). A
//! [`serde_json::Value`] cannot keep it (this workspace does not enable serde_json's
//! `arbitrary_precision`), so [`compact_json`] writes numbers as serde_json does
//! (`1` -> `1`, `1.0` -> `1.0`, `1e2` -> `100.0`). To digest a schema exactly as written,
//! give its text to [`compact_json_text`] / [`schema_digest_text`], which re-encode
//! strings but copy number tokens verbatim.
//!
//! ```
//! use aep_sdk::config::{compact_json_text, schema_digest_text};
//!
//! let text = r#"{ "type": "number", "minimum": 1.0, "description": "<ok> & 'é'" }"#;
//! assert_eq!(
//!     compact_json_text(text).unwrap(),
//!     r#"{"type":"number","minimum":1.0,"description":"\u003Cok\u003E \u0026 \u0027\u00E9\u0027"}"#
//! );
//! assert!(schema_digest_text(text).unwrap().starts_with("sha256:"));
//! ```

use std::fmt;
use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Prefix of every schema digest.
pub const DIGEST_PREFIX: &str = "sha256:";

/// Nesting limit of [`compact_json_text`] (a stack guard; the reference's parser stops at 64).
pub const MAX_DEPTH: usize = 128;

/// `sha256:` + lowercase hex SHA-256 of `compact` (already compact JSON text).
pub fn digest_of_compact(compact: &str) -> String {
    let hash = Sha256::digest(compact.as_bytes());
    let mut out = String::with_capacity(DIGEST_PREFIX.len() + 64);
    out.push_str(DIGEST_PREFIX);
    for byte in hash.iter() {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The digest of a schema held as a [`Value`] (numbers written as serde_json writes them).
pub fn schema_digest(schema: &Value) -> String {
    digest_of_compact(&compact_json(schema))
}

/// The digest of a schema given as JSON text, number tokens kept verbatim: the digest the
/// C# reference computes for the same text.
pub fn schema_digest_text(text: &str) -> Result<String, JsonTextError> {
    Ok(digest_of_compact(&compact_json_text(text)?))
}

/// `value` as compact JSON with `System.Text.Json`'s default escaping.
pub fn compact_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (name, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                write_value(out, member);
            }
            out.push('}');
        }
    }
}

/// Writes `text` as a JSON string literal with `System.Text.Json`'s default escaping.
pub fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '"' | '&' | '\'' | '+' | '<' | '>' | '`' => escape_utf16(out, ch),
            ' '..='~' => out.push(ch),
            _ => escape_utf16(out, ch),
        }
    }
    out.push('"');
}

fn escape_utf16(out: &mut String, ch: char) {
    let mut units = [0u16; 2];
    for unit in ch.encode_utf16(&mut units) {
        let _ = write!(out, "\\u{unit:04X}");
    }
}

/// Why a JSON text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonTextError {
    /// Byte offset of the problem in the text.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for JsonTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for JsonTextError {}

/// A JSON text (RFC 8259, one value, optional surrounding whitespace and leading BOM)
/// re-written as compact JSON with `System.Text.Json`'s default escaping, members in
/// their written order and number tokens copied verbatim. Duplicate member names in one
/// object are refused (a schema with them has no single meaning).
pub fn compact_json_text(text: &str) -> Result<String, JsonTextError> {
    let bytes = text.as_bytes();
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut reader = Reader {
        text,
        bytes,
        pos: start,
        out: String::with_capacity(text.len()),
    };
    reader.skip_ws();
    reader.value(0)?;
    reader.skip_ws();
    if reader.pos != bytes.len() {
        return Err(reader.error("unexpected content after the JSON value"));
    }
    Ok(reader.out)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: String,
}

impl Reader<'_> {
    fn error(&self, message: impl Into<String>) -> JsonTextError {
        JsonTextError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), JsonTextError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected '{}'", byte as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<(), JsonTextError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH}")));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let text = self.string()?;
                write_string(&mut self.out, &text);
                Ok(())
            }
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a JSON value")),
            None => Err(self.error("unexpected end of text")),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), JsonTextError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            self.out.push_str(word);
            Ok(())
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn object(&mut self, depth: usize) -> Result<(), JsonTextError> {
        self.pos += 1;
        self.out.push('{');
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.out.push('}');
            return Ok(());
        }
        let mut names = std::collections::HashSet::new();
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a member name"));
            }
            let at = self.pos;
            let name = self.string()?;
            write_string(&mut self.out, &name);
            if !names.insert(name.clone()) {
                return Err(JsonTextError {
                    offset: at,
                    message: format!("duplicate member '{name}'"),
                });
            }
            self.skip_ws();
            self.expect(b':')?;
            self.out.push(':');
            self.skip_ws();
            self.value(depth + 1)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.out.push(',');
                }
                Some(b'}') => {
                    self.pos += 1;
                    self.out.push('}');
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), JsonTextError> {
        self.pos += 1;
        self.out.push('[');
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.out.push(']');
            return Ok(());
        }
        loop {
            self.skip_ws();
            self.value(depth + 1)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.out.push(',');
                }
                Some(b']') => {
                    self.pos += 1;
                    self.out.push(']');
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    /// Reads a string literal (the cursor is on its opening quote) and returns its value.
    fn string(&mut self) -> Result<String, JsonTextError> {
        self.pos += 1;
        let mut value = String::new();
        loop {
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // Only ASCII bytes stop the run, so both ends are on character boundaries.
            value.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(value);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = self.peek().ok_or_else(|| self.error("unterminated string"))?;
                    self.pos += 1;
                    match escaped {
                        b'"' => value.push('"'),
                        b'\\' => value.push('\\'),
                        b'/' => value.push('/'),
                        b'b' => value.push('\u{8}'),
                        b'f' => value.push('\u{c}'),
                        b'n' => value.push('\n'),
                        b'r' => value.push('\r'),
                        b't' => value.push('\t'),
                        b'u' => {
                            let ch = self.unicode_escape()?;
                            value.push(ch);
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape"));
                        }
                    }
                }
                Some(_) => return Err(self.error("control character in a string")),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonTextError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("short \\u escape"))?;
        let mut value = 0u32;
        for &digit in digits {
            let nibble = (digit as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            value = value * 16 + nibble;
        }
        self.pos += 4;
        Ok(value)
    }

    /// After `\u`: one BMP character or a surrogate pair written as two escapes.
    fn unicode_escape(&mut self) -> Result<char, JsonTextError> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes[self.pos..].starts_with(b"\\u") {
                    return Err(self.error("unpaired surrogate in \\u escape"));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("unpaired surrogate in \\u escape"));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("unpaired surrogate in \\u escape")),
            _ => first,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))
    }

    fn number(&mut self) -> Result<(), JsonTextError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: digit expected after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: digit expected in the exponent"));
            }
            self.digits();
        }
        self.out.push_str(&self.text[start..self.pos]);
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_like_system_text_json() {
        // Expected text written by hand from the reference encoder's rules.
        let value = json!({"a<b>": "x&y'z+w`v\"q\\r\n\t\u{8}\u{c}\u{1}\u{7f}é€😀/"});
        assert_eq!(
            compact_json(&value),
            r#"{"a\u003Cb\u003E":"x\u0026y\u0027z\u002Bw\u0060v\u0022q\\r\n\t\b\f\u0001\u007F\u00E9\u20AC\uD83D\uDE00/"}"#
        );
    }

    #[test]
    fn text_and_value_agree_when_numbers_are_plain() {
        let text = "{\n  \"type\": \"object\",\n  \"properties\": {\"n\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 2.5}},\n  \"required\": [\"n\"]\n}";
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(compact_json_text(text).unwrap(), compact_json(&value));
        assert_eq!(schema_digest_text(text).unwrap(), schema_digest(&value));
    }

    #[test]
    fn text_keeps_number_tokens() {
        assert_eq!(
            compact_json_text("[1.0, 1e2, -0, 0.10, 1E+2]").unwrap(),
            "[1.0,1e2,-0,0.10,1E+2]"
        );
        // A Value cannot: this is the documented limit of `compact_json`.
        let value: Value = serde_json::from_str("[1e2]").unwrap();
        assert_eq!(compact_json(&value), "[100.0]");
    }

    #[test]
    fn text_unescapes_then_re_escapes() {
        assert_eq!(
            compact_json_text(r#"{"k": "\u00e9\/\"\ud83d\ude00<"}"#).unwrap(),
            r#"{"k":"\u00E9/\u0022\uD83D\uDE00\u003C"}"#
        );
    }

    #[test]
    fn text_errors() {
        for bad in [
            "",
            "{",
            "{\"a\":1,}",
            "[1,]",
            "01",
            "1.",
            "-",
            "1e",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"a\nb\"",
            "{\"a\":1,\"a\":2}",
            "nul",
            "{} {}",
            "{'a':1}",
        ] {
            assert!(compact_json_text(bad).is_err(), "accepted {bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 2);
        assert!(compact_json_text(&deep).is_err());
    }

    #[test]
    fn digest_format() {
        // sha256("{}") computed independently (python3 hashlib).
        assert_eq!(
            digest_of_compact("{}"),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
