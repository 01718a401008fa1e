//! Chat Completions messages as AEP messages: `system` and `developer` (both AEP
//! `system`), `user` (text and image parts), `assistant` (text, tool calls, and the
//! `reasoning_content` this gateway answers with) and `tool` (a tool result). Each
//! message is checked member by member so that an error names the member
//! (`messages[2].tool_calls[0].function.name`), as OpenAI's do.

use aep_sdk::protocol::{Content, Message, Role};
use serde_json::{Map, Value};

use super::error::OpenAiError;

/// What the messages ask of the provider.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Uses {
    /// An image part.
    pub images: bool,
}

/// The members each role may carry (OpenAI refuses others). An assistant message may
/// come back as the SDKs serialize an answer: `refusal`, `annotations`, `audio` and
/// `function_call` (null) included.
fn members(role: &str) -> Option<&'static [&'static str]> {
    Some(match role {
        "system" | "developer" | "user" => &["role", "content", "name"],
        "assistant" => &[
            "role",
            "content",
            "name",
            "tool_calls",
            "refusal",
            "annotations",
            "audio",
            "function_call",
            "reasoning_content",
        ],
        "tool" => &["role", "content", "tool_call_id"],
        _ => return None,
    })
}

/// All messages, in order.
pub(super) fn messages(values: &[Value], uses: &mut Uses) -> Result<Vec<Message>, OpenAiError> {
    if values.is_empty() {
        return Err(OpenAiError::param(
            "messages",
            Some("empty_array"),
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        ));
    }
    values
        .iter()
        .enumerate()
        .map(|(i, value)| message(&format!("messages[{i}]"), value, uses))
        .collect()
}

fn invalid_type(at: &str, expected: &str) -> OpenAiError {
    OpenAiError::param(
        at,
        Some("invalid_type"),
        format!("Invalid type for '{at}': expected {expected}."),
    )
}

fn missing(at: &str) -> OpenAiError {
    OpenAiError::param(
        at,
        Some("missing_required_parameter"),
        format!("Missing required parameter: '{at}'."),
    )
}

fn string<'v>(object: &'v Map<String, Value>, at: &str, key: &str) -> Result<&'v str, OpenAiError> {
    match object.get(key) {
        Some(Value::String(text)) => Ok(text),
        None | Some(Value::Null) => Err(missing(&format!("{at}.{key}"))),
        Some(_) => Err(invalid_type(&format!("{at}.{key}"), "a string")),
    }
}

fn message(at: &str, value: &Value, uses: &mut Uses) -> Result<Message, OpenAiError> {
    let Value::Object(object) = value else {
        return Err(invalid_type(at, "an object"));
    };
    let role = string(object, at, "role")?;
    if role == "function" {
        return Err(OpenAiError::unsupported(
            &format!("{at}.role"),
            "'function' messages are deprecated; send 'tool' messages",
        ));
    }
    let Some(allowed) = members(role) else {
        return Err(OpenAiError::param(
            format!("{at}.role"),
            Some("invalid_value"),
            format!(
                "Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
            ),
        ));
    };
    if let Some(extra) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(OpenAiError::param(
            at,
            None,
            format!("Additional properties are not allowed ('{extra}' was unexpected) - '{at}'"),
        ));
    }
    for key in ["audio", "function_call"] {
        if object.get(key).is_some_and(|v| !v.is_null()) {
            return Err(OpenAiError::unsupported(
                &format!("{at}.{key}"),
                "send text and 'tool_calls'",
            ));
        }
    }
    let content_at = format!("{at}.content");
    let content = object.get("content").filter(|c| !c.is_null());
    let mut message = match role {
        "system" | "developer" => Message::new(Role::System, text_parts(content, &content_at, false)?),
        "user" => Message::new(Role::User, user_parts(content, &content_at, uses)?),
        "tool" => {
            let call_id = string(object, at, "tool_call_id")?;
            let text: String = text_parts(content, &content_at, false)?
                .iter()
                .filter_map(Content::as_text)
                .collect();
            Message::new(
                Role::Tool,
                vec![Content::tool_result(call_id, Value::String(text), false)],
            )
        }
        _ => assistant(object, at, content)?,
    };
    message.author_name = match object.get("name") {
        Some(Value::String(name)) => Some(name.clone()),
        None | Some(Value::Null) => None,
        Some(_) => return Err(invalid_type(&format!("{at}.name"), "a string")),
    };
    Ok(message)
}

fn assistant(object: &Map<String, Value>, at: &str, content: Option<&Value>) -> Result<Message, OpenAiError> {
    let mut contents = Vec::new();
    match object.get("reasoning_content") {
        Some(Value::String(text)) if !text.is_empty() => contents.push(Content::reasoning(text)),
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => return Err(invalid_type(&format!("{at}.reasoning_content"), "a string")),
    }
    if content.is_some() {
        contents.extend(text_parts(content, &format!("{at}.content"), true)?);
    }
    match object.get("tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(calls)) => {
            for (j, call) in calls.iter().enumerate() {
                contents.push(tool_call(&format!("{at}.tool_calls[{j}]"), call)?);
            }
        }
        Some(_) => return Err(invalid_type(&format!("{at}.tool_calls"), "an array")),
    }
    Ok(Message::new(Role::Assistant, contents))
}

/// `{"id", "type": "function", "function": {"name", "arguments"}}`. Arguments that are
/// not JSON (a model's slip the client echoes back) travel as a JSON string.
fn tool_call(at: &str, call: &Value) -> Result<Content, OpenAiError> {
    let Value::Object(call) = call else {
        return Err(invalid_type(at, "an object"));
    };
    let id = string(call, at, "id")?;
    match call.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(kind)) if kind == "function" => {}
        Some(_) => {
            return Err(OpenAiError::unsupported(
                &format!("{at}.type"),
                "only 'function' tool calls are",
            ));
        }
    }
    let function_at = format!("{at}.function");
    let Some(Value::Object(function)) = call.get("function") else {
        return Err(missing(&function_at));
    };
    let name = string(function, &function_at, "name")?;
    let raw = string(function, &function_at, "arguments")?;
    let arguments = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
    Ok(Content::tool_call(id, name, arguments))
}

/// A string, or an array of `text` parts (and `refusal` parts, as text, when
/// `refusals`).
fn text_parts(content: Option<&Value>, at: &str, refusals: bool) -> Result<Vec<Content>, OpenAiError> {
    parts(content, at, |part, kind, part_at| match kind {
        "text" => Ok(Content::text(string(part, part_at, "text")?)),
        "refusal" if refusals => Ok(Content::text(string(part, part_at, "refusal")?)),
        _ => Err(part_refused(kind, part_at)),
    })
}

fn user_parts(content: Option<&Value>, at: &str, uses: &mut Uses) -> Result<Vec<Content>, OpenAiError> {
    parts(content, at, |part, kind, part_at| match kind {
        "text" => Ok(Content::text(string(part, part_at, "text")?)),
        "image_url" => {
            uses.images = true;
            image(part, part_at)
        }
        _ => Err(part_refused(kind, part_at)),
    })
}

fn part_refused(kind: &str, at: &str) -> OpenAiError {
    match kind {
        "input_audio" | "file" => OpenAiError::unsupported(
            &format!("{at}.type"),
            "AEP chat carries text and images; send the file's text",
        ),
        _ => OpenAiError::param(
            format!("{at}.type"),
            Some("invalid_value"),
            format!("Invalid value: '{kind}'. This message accepts 'text' and 'image_url' parts."),
        ),
    }
}

fn parts(
    content: Option<&Value>,
    at: &str,
    mut each: impl FnMut(&Map<String, Value>, &str, &str) -> Result<Content, OpenAiError>,
) -> Result<Vec<Content>, OpenAiError> {
    match content {
        None => Err(missing(at)),
        Some(Value::String(text)) => Ok(vec![Content::text(text)]),
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(k, part)| {
                let part_at = format!("{at}[{k}]");
                let Value::Object(part) = part else {
                    return Err(invalid_type(&part_at, "an object"));
                };
                let kind = string(part, &part_at, "type")?;
                each(part, kind, &part_at)
            })
            .collect(),
        Some(_) => Err(invalid_type(at, "a string or an array of content parts")),
    }
}

/// `{"image_url": {"url": "data:image/png;base64,..." | "https://..."}}`.
fn image(part: &Map<String, Value>, at: &str) -> Result<Content, OpenAiError> {
    let url_at = format!("{at}.image_url.url");
    let url = match part.get("image_url") {
        Some(Value::Object(image)) => string(image, &format!("{at}.image_url"), "url")?,
        Some(Value::String(url)) => url,
        _ => return Err(missing(&url_at)),
    };
    if let Some(rest) = url.strip_prefix("data:") {
        return match rest.split_once(";base64,") {
            Some((media_type, data)) if media_type.starts_with("image/") => {
                Ok(Content::image_base64(media_type, data))
            }
            _ => Err(OpenAiError::param(
                url_at,
                Some("invalid_image_url"),
                "An image data URL reads 'data:image/<type>;base64,<data>'.",
            )),
        };
    }
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(OpenAiError::param(
            url_at,
            Some("invalid_image_url"),
            "An image URL is an http(s) URL or a base64 data URL.",
        ));
    }
    Ok(Content::image_uri(media_type_of(url), url))
}

/// The media type an image URL's extension says; `image/*` when it says none (AEP wants
/// one, and the provider fetches the image anyway).
fn media_type_of(url: &str) -> &'static str {
    let path = url.split(['?', '#']).next().unwrap_or(url).to_ascii_lowercase();
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => "image/*",
    }
}

#[cfg(test)]
mod tests {
    use aep_sdk::protocol::ContentKind;
    use serde_json::json;

    use super::*;

    fn convert(values: Value) -> Result<(Vec<Message>, Uses), OpenAiError> {
        let mut uses = Uses::default();
        let messages = messages(values.as_array().unwrap(), &mut uses)?;
        Ok((messages, uses))
    }

    #[test]
    fn every_role_maps_to_its_aep_message() {
        let (messages, uses) = convert(json!([
            {"role": "developer", "content": "be brief"},
            {"role": "user", "name": "ann", "content": [
                {"type": "text", "text": "what is "},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "low"}},
                {"type": "image_url", "image_url": {"url": "https://x.test/cat.JPG?s=1"}}]},
            {"role": "assistant", "content": null, "refusal": null, "annotations": [],
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
                            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "not json"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "42"}]}
        ]))
        .unwrap();
        assert!(uses.images);
        assert_eq!(messages[0], Message::system("be brief"));
        assert_eq!(messages[1].author_name.as_deref(), Some("ann"));
        assert_eq!(
            messages[1].contents[1],
            Content::image_base64("image/png", "iVBO")
        );
        assert_eq!(
            messages[1].contents[2],
            Content::image_uri("image/jpeg", "https://x.test/cat.JPG?s=1")
        );
        assert_eq!(
            messages[2].contents[0],
            Content::tool_call("c1", "f", json!({"a": 1}))
        );
        assert_eq!(
            messages[2].contents[1],
            Content::tool_call("c2", "g", json!("not json"))
        );
        assert_eq!(messages[3].role, Role::Tool);
        assert_eq!(messages[3].contents[0].kind, ContentKind::ToolResult);
        assert_eq!(
            messages[3].contents[0].tool_result.as_ref().unwrap().result,
            json!("42")
        );
    }

    #[test]
    fn errors_name_the_member() {
        let param = |v: Value| convert(v).unwrap_err().param.unwrap();
        assert_eq!(
            param(json!([{"role": "wizard", "content": "x"}])),
            "messages[0].role"
        );
        assert_eq!(
            param(json!([{"role": "user", "content": "x", "foo": 1}])),
            "messages[0]"
        );
        assert_eq!(param(json!([{"role": "user"}])), "messages[0].content");
        assert_eq!(
            param(json!([{"role": "tool", "content": "x"}])),
            "messages[0].tool_call_id"
        );
        assert_eq!(
            param(json!([{"role": "user", "content": [{"type": "input_audio"}]}])),
            "messages[0].content[0].type"
        );
        assert_eq!(
            param(json!([{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": 3}}]}])),
            "messages[0].tool_calls[0].function.name"
        );
        assert_eq!(
            param(
                json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "ftp://x"}}]}])
            ),
            "messages[0].content[0].image_url.url"
        );
        assert_eq!(param(json!([])), "messages");
    }
}
