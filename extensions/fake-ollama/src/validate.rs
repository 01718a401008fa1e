//! Decoding and validation of request bodies with Ollama's (Go's) rules and
//! error texts: `encoding/json` type errors, `ImageData` base64, `Duration`
//! for `keep_alive`, `ThinkValue`, and `Options.FromMap`.

use serde_json::{Map, Value};

/// An HTTP error answered as `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub(crate) fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }

    fn bad(message: impl Into<String>) -> Self {
        ApiError::new(400, message)
    }
}

/// `think` as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Think {
    Absent,
    Bool(bool),
    Level(String),
}

impl Think {
    /// Ollama's `ThinkValue.Bool()`.
    pub(crate) fn enabled(&self) -> bool {
        match self {
            Think::Absent => false,
            Think::Bool(b) => *b,
            Think::Level(_) => true,
        }
    }
}

/// One chat message, reduced to what the fake needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Msg {
    pub role: String,
    pub content: String,
}

/// A decoded `/api/chat` request.
#[derive(Debug, Clone)]
pub(crate) struct ChatParams {
    pub model: String,
    pub messages: Vec<Msg>,
    pub stream: bool,
    pub think: Think,
    pub tools_len: usize,
    pub options: Map<String, Value>,
    /// `keep_alive` in nanoseconds (negative = forever), if sent.
    pub keep_alive_ns: Option<i128>,
    pub format: Option<Value>,
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn type_err(v: &Value, strukt: &str, field: &str, ty: &str) -> ApiError {
    ApiError::bad(format!(
        "json: cannot unmarshal {} into Go struct field {strukt}.{field} of type {ty}",
        kind(v)
    ))
}

fn want_string<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    strukt: &str,
    path: &str,
) -> Result<Option<&'a str>, ApiError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(type_err(v, strukt, path, "string")),
    }
}

fn want_bool(
    obj: &Map<String, Value>,
    key: &str,
    strukt: &str,
    path: &str,
) -> Result<Option<bool>, ApiError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(type_err(v, strukt, path, "bool")),
    }
}

fn want_int(obj: &Map<String, Value>, key: &str, strukt: &str, path: &str) -> Result<Option<i64>, ApiError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            None => Err(ApiError::bad(format!(
                "json: cannot unmarshal number {n} into Go struct field {strukt}.{path} of type int"
            ))),
        },
        Some(v) => Err(type_err(v, strukt, path, "int")),
    }
}

fn want_array<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    strukt: &str,
    path: &str,
    ty: &str,
) -> Result<&'a [Value], ApiError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(v) => Err(type_err(v, strukt, path, ty)),
    }
}

/// Parses a JSON body the way gin's `ShouldBindJSON` does (empty body →
/// `missing request body`).
pub(crate) fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad("missing request body"));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad(e.to_string()))
}

fn top_object(v: Value, go_name: &str) -> Result<Map<String, Value>, ApiError> {
    match v {
        Value::Object(o) => Ok(o),
        Value::Null => Ok(Map::new()),
        other => Err(ApiError::bad(format!(
            "json: cannot unmarshal {} into Go value of type {go_name}",
            kind(&other)
        ))),
    }
}

/// Decodes `/api/show`'s body and returns the model name (`model`, or the
/// deprecated `name`).
pub(crate) fn decode_show(body: &[u8]) -> Result<String, ApiError> {
    let obj = top_object(parse_body(body)?, "api.ShowRequest")?;
    let model = want_string(&obj, "model", "ShowRequest", "model")?.unwrap_or("");
    let name = want_string(&obj, "name", "ShowRequest", "name")?.unwrap_or("");
    let m = if model.is_empty() { name } else { model };
    if m.is_empty() {
        return Err(ApiError::bad("model is required"));
    }
    Ok(m.to_string())
}

/// Decodes `/api/chat`'s body (type errors are 400, like Ollama's binding).
pub(crate) fn decode_chat(body: &[u8]) -> Result<ChatParams, ApiError> {
    let obj = top_object(parse_body(body)?, "api.ChatRequest")?;
    const S: &str = "ChatRequest";

    let model = want_string(&obj, "model", S, "model")?.unwrap_or("").to_string();

    let mut messages = Vec::new();
    for m in want_array(&obj, "messages", S, "messages", "[]api.Message")? {
        match m {
            Value::Null => messages.push(Msg {
                role: String::new(),
                content: String::new(),
            }),
            Value::Object(mo) => messages.push(decode_message(mo)?),
            v => return Err(type_err(v, S, "messages", "api.Message")),
        }
    }

    let stream = want_bool(&obj, "stream", S, "stream")?.unwrap_or(true);

    let format = match obj.get("format") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.clone()),
    };

    let keep_alive_ns = match obj.get("keep_alive") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => {
            let secs = n.as_f64().unwrap_or(0.0);
            Some(if secs < 0.0 { -1 } else { (secs * 1e9) as i128 })
        }
        Some(Value::String(s)) => {
            let ns = parse_go_duration(s).map_err(ApiError::bad)?;
            Some(if ns < 0 { -1 } else { ns })
        }
        Some(v) => {
            return Err(ApiError::bad(format!("Unsupported type: '{}'", go_type(v))));
        }
    };

    let tools = want_array(&obj, "tools", S, "tools", "api.Tools")?;
    for t in tools {
        if !matches!(t, Value::Null | Value::Object(_)) {
            return Err(type_err(t, S, "tools", "api.Tool"));
        }
    }

    let options = match obj.get("options") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(v) => return Err(type_err(v, S, "options", "map[string]interface {}")),
    };

    let think = match obj.get("think") {
        None | Some(Value::Null) => Think::Absent,
        Some(Value::Bool(b)) => Think::Bool(*b),
        Some(Value::String(s)) => {
            if matches!(s.as_str(), "high" | "medium" | "low" | "max") {
                Think::Level(s.clone())
            } else {
                return Err(ApiError::bad(format!(
                    "invalid think value: {} (must be \"high\", \"medium\", \"low\", \"max\", true, or false)",
                    quote(s)
                )));
            }
        }
        Some(_) => {
            return Err(ApiError::bad(
                "think must be a boolean or string (\"high\", \"medium\", \"low\", \"max\", true, or false)",
            ));
        }
    };

    want_bool(&obj, "truncate", S, "truncate")?;
    want_bool(&obj, "shift", S, "shift")?;
    want_bool(&obj, "logprobs", S, "logprobs")?;
    if let Some(n) = want_int(&obj, "top_logprobs", S, "top_logprobs")?
        && !(0..=20).contains(&n)
    {
        return Err(ApiError::bad("top_logprobs must be between 0 and 20"));
    }

    Ok(ChatParams {
        model,
        messages,
        stream,
        think,
        tools_len: tools.iter().filter(|t| !t.is_null()).count(),
        options,
        keep_alive_ns,
        format,
    })
}

fn decode_message(mo: &Map<String, Value>) -> Result<Msg, ApiError> {
    const M: &str = "Message";
    let role = want_string(mo, "role", M, "messages.role")?
        .unwrap_or("")
        .to_lowercase();
    let content = want_string(mo, "content", M, "messages.content")?
        .unwrap_or("")
        .to_string();
    want_string(mo, "thinking", M, "messages.thinking")?;
    want_string(mo, "tool_name", M, "messages.tool_name")?;
    want_string(mo, "tool_call_id", M, "messages.tool_call_id")?;
    for img in want_array(mo, "images", M, "messages.images", "[]api.ImageData")? {
        match img {
            Value::Null => {}
            Value::String(s) => {
                if let Err(pos) = check_std_base64(s) {
                    return Err(ApiError::bad(format!("illegal base64 data at input byte {pos}")));
                }
            }
            v => return Err(type_err(v, M, "messages.images", "api.ImageData")),
        }
    }
    for tc in want_array(mo, "tool_calls", M, "messages.tool_calls", "[]api.ToolCall")? {
        let tco = match tc {
            Value::Null => continue,
            Value::Object(o) => o,
            v => return Err(type_err(v, M, "messages.tool_calls", "api.ToolCall")),
        };
        want_string(tco, "id", "ToolCall", "messages.tool_calls.id")?;
        let f = match tco.get("function") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(f)) => f,
            Some(v) => {
                return Err(type_err(
                    v,
                    "ToolCall",
                    "messages.tool_calls.function",
                    "api.ToolCallFunction",
                ));
            }
        };
        const F: &str = "ToolCallFunction";
        want_int(f, "index", F, "messages.tool_calls.function.index")?;
        want_string(f, "name", F, "messages.tool_calls.function.name")?;
        // ToolCallFunctionArguments decodes through an ordered map whose
        // parser only accepts an object (a JSON string — the OpenAI shape —
        // and even null are rejected).
        if let Some(a) = f.get("arguments")
            && !a.is_object()
        {
            return Err(ApiError::bad(
                "Value looks like object, but can't find closing '}' symbol",
            ));
        }
    }
    Ok(Msg { role, content })
}

/// Go-style `%q` for plain strings (JSON string syntax).
pub(crate) fn quote(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Go's `base64.StdEncoding` acceptance (`\r` and `\n` ignored, padding
/// required). `Err(offset)` like `CorruptInputError`.
pub(crate) fn check_std_base64(s: &str) -> Result<(), usize> {
    let b = s.as_bytes();
    let mut q = 0usize; // position inside the current 4-char group
    let mut pad = 0usize; // '=' seen in the current group
    let mut done = false; // a padded group has been completed
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' || c == b'\r' {
            continue;
        }
        if done {
            return Err(i);
        }
        if c == b'=' {
            if q < 2 {
                return Err(i);
            }
            pad += 1;
            q += 1;
            if q == 4 {
                done = true;
                q = 0;
            }
            continue;
        }
        if pad > 0 || !(c.is_ascii_alphanumeric() || c == b'+' || c == b'/') {
            return Err(i);
        }
        q = (q + 1) % 4;
    }
    if q != 0 { Err(b.len()) } else { Ok(()) }
}

/// Go's `time.ParseDuration`, in nanoseconds, with its error texts.
pub(crate) fn parse_go_duration(orig: &str) -> Result<i128, String> {
    let invalid = || format!("time: invalid duration {}", quote(orig));
    let mut s = orig;
    let mut neg = false;
    if let Some(r) = s.strip_prefix('-') {
        neg = true;
        s = r;
    } else if let Some(r) = s.strip_prefix('+') {
        s = r;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: f64 = 0.0;
    while !s.is_empty() {
        let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = &s[..int_len];
        s = &s[int_len..];
        let mut frac_part = "";
        if let Some(r) = s.strip_prefix('.') {
            let fl = r.bytes().take_while(u8::is_ascii_digit).count();
            frac_part = &r[..fl];
            s = &r[fl..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(invalid());
        }
        let unit_len = s
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map(|(i, _)| i)
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(orig)));
        }
        let unit = &s[..unit_len];
        s = &s[unit_len..];
        let mult: f64 = match unit {
            "ns" => 1.0,
            "us" | "\u{00b5}s" | "\u{03bc}s" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    quote(unit),
                    quote(orig)
                ));
            }
        };
        let num: f64 = format!(
            "{}.{}",
            if int_part.is_empty() { "0" } else { int_part },
            if frac_part.is_empty() { "0" } else { frac_part }
        )
        .parse()
        .map_err(|_| invalid())?;
        total += num * mult;
    }
    if total > i64::MAX as f64 {
        return Err(invalid());
    }
    let ns = total as i128;
    Ok(if neg { -ns } else { ns })
}

/// Ollama's `Options.FromMap` type checks (unknown keys ignored). Error is
/// answered 500 by Ollama.
pub(crate) fn check_options(options: &Map<String, Value>) -> Result<(), ApiError> {
    enum T {
        Int,
        Float,
        Bool,
        Strings,
    }
    for (key, val) in options {
        let t = match key.as_str() {
            "num_keep" | "seed" | "num_predict" | "top_k" | "repeat_last_n" | "num_ctx" | "num_batch"
            | "num_gpu" | "main_gpu" | "num_thread" | "draft_num_predict" => T::Int,
            "top_p" | "min_p" | "typical_p" | "temperature" | "repeat_penalty" | "presence_penalty"
            | "frequency_penalty" => T::Float,
            "use_mmap" => T::Bool,
            "stop" => T::Strings,
            _ => continue,
        };
        if val.is_null() {
            continue;
        }
        let q = quote(key);
        let err = match t {
            T::Int if !val.is_number() => Some(format!("option {q} must be of type integer")),
            T::Float if !val.is_number() => Some(format!("option {q} must be of type float32")),
            T::Bool if !val.is_boolean() => Some(format!("option {q} must be of type boolean")),
            T::Strings => match val {
                Value::Array(a) if a.iter().all(Value::is_string) => None,
                Value::Array(_) => Some(format!("option {q} must be of an array of strings")),
                _ => Some(format!("option {q} must be of type array")),
            },
            _ => None,
        };
        if let Some(e) = err {
            return Err(ApiError::new(500, e));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_go_duration("10m"), Ok(600_000_000_000));
        assert_eq!(parse_go_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_go_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(
            parse_go_duration("-1"),
            Err("time: missing unit in duration \"-1\"".into())
        );
        assert_eq!(parse_go_duration("-1m"), Ok(-60_000_000_000));
        assert_eq!(
            parse_go_duration("300"),
            Err("time: missing unit in duration \"300\"".into())
        );
        assert_eq!(
            parse_go_duration("5x"),
            Err("time: unknown unit \"x\" in duration \"5x\"".into())
        );
        assert_eq!(parse_go_duration(""), Err("time: invalid duration \"\"".into()));
        assert!(parse_go_duration("m").is_err());
    }

    #[test]
    fn base64() {
        assert_eq!(check_std_base64("aGVsbG8="), Ok(()));
        assert_eq!(check_std_base64("aGVsbA=="), Ok(()));
        assert_eq!(check_std_base64("aGVs\nbG8="), Ok(()));
        assert_eq!(check_std_base64(""), Ok(()));
        assert_eq!(check_std_base64("data:image/png;base64,aGVsbG8="), Err(4));
        assert!(check_std_base64("aGVsbG8").is_err());
        assert!(check_std_base64("aGVsbA==aa").is_err());
        assert!(check_std_base64("a===").is_err());
        assert!(check_std_base64("aGVsbG8-").is_err());
    }

    #[test]
    fn options() {
        let o = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(check_options(&o(serde_json::json!({"temperature": 1, "bogus": "x"}))).is_ok());
        assert_eq!(
            check_options(&o(serde_json::json!({"stop": "x"}))),
            Err(ApiError::new(500, "option \"stop\" must be of type array"))
        );
        assert_eq!(
            check_options(&o(serde_json::json!({"num_ctx": "8k"}))),
            Err(ApiError::new(500, "option \"num_ctx\" must be of type integer"))
        );
    }

    #[test]
    fn chat_decoding() {
        let p = decode_chat(br#"{"model":"m","messages":[{"role":"User","content":"hi"}]}"#).expect("valid");
        assert!(p.stream);
        assert_eq!(p.messages[0].role, "user");
        assert_eq!(decode_chat(b"").unwrap_err().message, "missing request body");
        let e = decode_chat(br#"{"model":"m","keep_alive":"300"}"#).unwrap_err();
        assert_eq!(e, ApiError::bad("time: missing unit in duration \"300\""));
        assert!(decode_chat(br#"{"model":"m","keep_alive":300}"#).is_ok());
        let e = decode_chat(br#"{"model":"m","stream":"yes"}"#).unwrap_err();
        assert_eq!(e.status, 400);
        let e = decode_chat(
            br#"{"model":"m","messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.status, 400);
        let e = decode_chat(br#"{"model":"m","think":"huge"}"#).unwrap_err();
        assert!(e.message.starts_with("invalid think value: \"huge\""));
    }
}
