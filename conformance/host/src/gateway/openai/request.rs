//! A Chat Completions request body, checked as OpenAI checks it and turned into an AEP
//! chat request. A member the reference does not document is refused as OpenAI refuses
//! it ("Unrecognized request argument supplied"); one it documents and this gateway
//! cannot honour is refused naming it; hints without effect on the answer (`user`,
//! `store`, `service_tier`, ...) are accepted and dropped.

use aep_sdk::protocol::{ChatRequest, JsonSchemaFormat, ModelOptions, ResponseFormat, ToolDefinition};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::OpenAiError;
use super::messages::{self, Uses};

/// What the request asks of the provider, checked against its capabilities.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Needs {
    /// Function definitions are sent.
    pub tools: bool,
    /// An image part.
    pub vision: bool,
    /// `response_format` `json_object` or `json_schema`.
    pub structured: bool,
}

/// The checked request.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Parsed {
    /// The gateway model id asked for.
    pub model: String,
    /// `stream: true`.
    pub stream: bool,
    /// `stream_options.include_usage`.
    pub include_usage: bool,
    /// The AEP request (its `model` is still the gateway id).
    pub chat: ChatRequest,
    pub needs: Needs,
}

/// Every top-level member of the reference's "Create chat completion".
const KNOWN: &[&str] = &[
    "model",
    "messages",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "frequency_penalty",
    "presence_penalty",
    "reasoning_effort",
    "metadata",
    "n",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "modalities",
    "audio",
    "prediction",
    "functions",
    "function_call",
    "web_search_options",
    "verbosity",
    "store",
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "service_tier",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    model: String,
    messages: Vec<Value>,
    stream: Option<bool>,
    stream_options: Option<StreamOptions>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    max_tokens: Option<u32>,
    max_completion_tokens: Option<u32>,
    stop: Option<Stop>,
    seed: Option<i64>,
    tools: Option<Vec<Tool>>,
    tool_choice: Option<Value>,
    parallel_tool_calls: Option<bool>,
    response_format: Option<Value>,
    frequency_penalty: Option<f64>,
    presence_penalty: Option<f64>,
    reasoning_effort: Option<String>,
    metadata: Option<Map<String, Value>>,
    n: Option<u32>,
    logprobs: Option<bool>,
    top_logprobs: Option<u32>,
    logit_bias: Option<Map<String, Value>>,
    modalities: Option<Vec<String>>,
    audio: Option<Value>,
    prediction: Option<Value>,
    functions: Option<Value>,
    function_call: Option<Value>,
    web_search_options: Option<Value>,
    verbosity: Option<String>,
    // Accepted, without effect: the gateway stores nothing and has one service tier.
    #[serde(rename = "store")]
    _store: Option<bool>,
    #[serde(rename = "user")]
    _user: Option<String>,
    #[serde(rename = "safety_identifier")]
    _safety_identifier: Option<String>,
    #[serde(rename = "prompt_cache_key")]
    _prompt_cache_key: Option<String>,
    #[serde(rename = "service_tier")]
    _service_tier: Option<String>,
}

#[derive(Debug, Deserialize)]
struct StreamOptions {
    include_usage: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Stop {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
struct Tool {
    #[serde(rename = "type")]
    kind: String,
    function: Option<Function>,
}

#[derive(Debug, Deserialize)]
struct Function {
    name: String,
    description: Option<String>,
    parameters: Option<Value>,
}

/// Checks `body` and maps it (see the module).
pub(super) fn parse(body: Value) -> Result<Parsed, OpenAiError> {
    let Value::Object(members) = &body else {
        return Err(OpenAiError::invalid("The request body must be a JSON object."));
    };
    let unknown: Vec<&str> = members
        .keys()
        .map(String::as_str)
        .filter(|k| !KNOWN.contains(k))
        .collect();
    if !unknown.is_empty() {
        let s = if unknown.len() > 1 { "s" } else { "" };
        return Err(OpenAiError::invalid(format!(
            "Unrecognized request argument{s} supplied: {}",
            unknown.join(", ")
        )));
    }
    let body: Body = serde_path_to_error::deserialize(body).map_err(shape_error)?;
    refuse_unsupported(&body)?;
    let mut uses = Uses::default();
    let messages = messages::messages(&body.messages, &mut uses)?;
    let mut needs = Needs {
        vision: uses.images,
        ..Needs::default()
    };
    let mut additional = Map::new();
    let tools = tools(&body, &mut additional)?;
    needs.tools = !tools.is_empty();
    let response_format = match &body.response_format {
        Some(format) => response_format(format)?,
        None => None,
    };
    needs.structured = matches!(
        response_format,
        Some(ResponseFormat::JsonObject | ResponseFormat::JsonSchema { .. })
    );
    for (key, value) in [
        ("frequency_penalty", body.frequency_penalty.map(|v| json!(v))),
        ("presence_penalty", body.presence_penalty.map(|v| json!(v))),
        (
            "reasoning_effort",
            body.reasoning_effort.as_ref().map(|v| json!(v)),
        ),
        ("parallel_tool_calls", body.parallel_tool_calls.map(|v| json!(v))),
    ] {
        if let Some(value) = value {
            additional.insert(key.to_owned(), value);
        }
    }
    let options = ModelOptions {
        temperature: in_range("temperature", body.temperature, 0.0, 2.0)?,
        top_p: in_range("top_p", body.top_p, 0.0, 1.0)?,
        max_output_tokens: body.max_completion_tokens.or(body.max_tokens),
        seed: body.seed,
        stop_sequences: body.stop.map(|stop| match stop {
            Stop::One(one) => vec![one],
            Stop::Many(many) => many,
        }),
        response_format,
        additional_options: (!additional.is_empty()).then_some(additional),
        ..ModelOptions::default()
    };
    in_range("frequency_penalty", body.frequency_penalty, -2.0, 2.0)?;
    in_range("presence_penalty", body.presence_penalty, -2.0, 2.0)?;
    let chat = ChatRequest {
        options: (options != ModelOptions::default()).then_some(options),
        tools,
        metadata: body.metadata,
        ..ChatRequest::new(&body.model, messages)
    };
    Ok(Parsed {
        model: body.model,
        stream: body.stream.unwrap_or(false),
        include_usage: body.stream_options.and_then(|o| o.include_usage).unwrap_or(false),
        chat,
        needs,
    })
}

fn shape_error(error: serde_path_to_error::Error<serde_json::Error>) -> OpenAiError {
    let path = error.path().to_string();
    let inner = error.into_inner().to_string();
    if let Some(field) = inner
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        let param = if path == "." {
            field.to_owned()
        } else {
            format!("{path}.{field}")
        };
        return OpenAiError::param(
            &param,
            Some("missing_required_parameter"),
            format!("Missing required parameter: '{param}'."),
        );
    }
    OpenAiError::param(
        &path,
        Some("invalid_type"),
        format!("Invalid type for '{path}': {inner}."),
    )
}

fn in_range(name: &str, value: Option<f64>, min: f64, max: f64) -> Result<Option<f64>, OpenAiError> {
    match value {
        Some(v) if v < min => Err(OpenAiError::param(
            name,
            Some("decimal_below_min_value"),
            format!(
                "Invalid '{name}': decimal below minimum value. Expected a value >= {min}, but got {v} instead."
            ),
        )),
        Some(v) if v > max => Err(OpenAiError::param(
            name,
            Some("decimal_above_max_value"),
            format!(
                "Invalid '{name}': decimal above maximum value. Expected a value <= {max}, but got {v} instead."
            ),
        )),
        other => Ok(other),
    }
}

/// The documented members that would change the answer's shape in ways AEP cannot
/// carry, when set to anything but their default.
fn refuse_unsupported(body: &Body) -> Result<(), OpenAiError> {
    if body.n.is_some_and(|n| n != 1) {
        return Err(OpenAiError::unsupported(
            "n",
            "the gateway answers with one choice",
        ));
    }
    if body.logprobs == Some(true) || body.top_logprobs.is_some() {
        let param = if body.logprobs == Some(true) {
            "logprobs"
        } else {
            "top_logprobs"
        };
        return Err(OpenAiError::unsupported(
            param,
            "AEP updates carry no log probabilities",
        ));
    }
    if body.logit_bias.as_ref().is_some_and(|b| !b.is_empty()) {
        return Err(OpenAiError::unsupported("logit_bias", "AEP has no token biases"));
    }
    if body
        .modalities
        .as_ref()
        .is_some_and(|m| m.iter().any(|m| m != "text"))
    {
        return Err(OpenAiError::unsupported(
            "modalities",
            "the gateway answers with text only",
        ));
    }
    let set = [
        (
            "audio",
            body.audio.is_some(),
            "the gateway answers with text only",
        ),
        (
            "prediction",
            body.prediction.is_some(),
            "AEP has no predicted outputs",
        ),
        ("functions", body.functions.is_some(), "deprecated; send 'tools'"),
        (
            "function_call",
            body.function_call.is_some(),
            "deprecated; send 'tool_choice'",
        ),
        (
            "web_search_options",
            body.web_search_options.is_some(),
            "the gateway has no web search",
        ),
        (
            "verbosity",
            body.verbosity.is_some(),
            "AEP has no verbosity option",
        ),
    ];
    match set.into_iter().find(|(_, set, _)| *set) {
        Some((param, _, why)) => Err(OpenAiError::unsupported(param, why)),
        None => Ok(()),
    }
}

/// `tools` as AEP tool definitions. `tool_choice` `"none"` sends none (AEP has no
/// switch, so that is how it is honoured everywhere); `"required"` and a named function
/// travel as `additionalOptions.tool_choice` in OpenAI's shape, for providers that read
/// it (`aep-openai` forwards it); `"auto"` is what AEP providers do anyway.
fn tools(body: &Body, additional: &mut Map<String, Value>) -> Result<Vec<ToolDefinition>, OpenAiError> {
    let mut definitions = Vec::new();
    for (i, tool) in body.tools.iter().flatten().enumerate() {
        let (true, Some(function)) = (tool.kind == "function", &tool.function) else {
            return Err(OpenAiError::unsupported(
                &format!("tools[{i}]"),
                "only 'function' tools with a 'function' member are",
            ));
        };
        definitions.push(ToolDefinition {
            name: function.name.clone(),
            description: function.description.clone(),
            // OpenAI's default: a function without parameters takes none.
            parameters: function
                .parameters
                .clone()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        });
    }
    let named = |choice: &Value| {
        choice
            .pointer("/function/name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match &body.tool_choice {
        None => {}
        Some(Value::String(choice)) if choice == "none" => definitions.clear(),
        Some(Value::String(choice)) if choice == "auto" => {}
        Some(choice @ Value::String(required)) if required == "required" => {
            if definitions.is_empty() {
                return Err(OpenAiError::param(
                    "tool_choice",
                    None,
                    "'tool_choice' 'required' is only allowed when 'tools' are specified.",
                ));
            }
            additional.insert("tool_choice".into(), choice.clone());
        }
        Some(choice @ Value::Object(object)) if object.get("type") == Some(&json!("function")) => {
            let Some(name) = named(choice) else {
                return Err(OpenAiError::param(
                    "tool_choice.function.name",
                    Some("missing_required_parameter"),
                    "Missing required parameter: 'tool_choice.function.name'.",
                ));
            };
            if !definitions.iter().any(|d| d.name == name) {
                return Err(OpenAiError::param(
                    "tool_choice",
                    Some("invalid_value"),
                    format!("Invalid value for 'tool_choice': function '{name}' is not one of 'tools'."),
                ));
            }
            additional.insert("tool_choice".into(), choice.clone());
        }
        Some(_) => {
            return Err(OpenAiError::unsupported(
                "tool_choice",
                "it takes 'none', 'auto', 'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}",
            ));
        }
    }
    Ok(definitions)
}

/// `{"type": "text"}`, `{"type": "json_object"}` or `{"type": "json_schema",
/// "json_schema": {"name", "schema"?, "description"?, "strict"?}}`.
fn response_format(format: &Value) -> Result<Option<ResponseFormat>, OpenAiError> {
    let kind = format.get("type").and_then(Value::as_str);
    match kind {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(ResponseFormat::JsonObject)),
        Some("json_schema") => {
            let Some(Value::Object(schema)) = format.get("json_schema") else {
                return Err(OpenAiError::param(
                    "response_format.json_schema",
                    Some("missing_required_parameter"),
                    "Missing required parameter: 'response_format.json_schema'.",
                ));
            };
            let Some(Value::String(name)) = schema.get("name") else {
                return Err(OpenAiError::param(
                    "response_format.json_schema.name",
                    Some("missing_required_parameter"),
                    "Missing required parameter: 'response_format.json_schema.name'.",
                ));
            };
            Ok(Some(ResponseFormat::JsonSchema {
                json_schema: JsonSchemaFormat {
                    name: Some(name.clone()),
                    schema: schema.get("schema").cloned().unwrap_or_else(|| json!({})),
                    description: schema
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    strict: schema.get("strict").and_then(Value::as_bool),
                },
            }))
        }
        _ => Err(OpenAiError::param(
            "response_format.type",
            Some("invalid_value"),
            "Invalid value for 'response_format.type': expected 'text', 'json_object' or 'json_schema'.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(extra: Value) -> Value {
        let mut body = json!({"model": "echo/echo-1", "messages": [{"role": "user", "content": "hi"}]});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    }

    #[test]
    fn options_tools_and_formats_map_to_aep() {
        let parsed = parse(request(json!({
            "stream": true, "stream_options": {"include_usage": true},
            "temperature": 0.5, "top_p": 0.9, "max_tokens": 10, "max_completion_tokens": 20,
            "stop": "END", "seed": 7, "frequency_penalty": 0.1, "user": "u1", "store": false,
            "tools": [{"type": "function", "function": {"name": "f", "description": "d"}}],
            "tool_choice": {"type": "function", "function": {"name": "f"}},
            "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": {"type": "object"}}},
            "metadata": {"k": "v"}
        })))
        .unwrap();
        assert!(parsed.stream && parsed.include_usage);
        assert_eq!(
            parsed.needs,
            Needs {
                tools: true,
                vision: false,
                structured: true
            }
        );
        let options = parsed.chat.options.unwrap();
        assert_eq!(options.max_output_tokens, Some(20));
        assert_eq!(options.stop_sequences, Some(vec!["END".to_owned()]));
        assert_eq!(
            (options.temperature, options.top_p, options.seed),
            (Some(0.5), Some(0.9), Some(7))
        );
        let additional = options.additional_options.unwrap();
        assert_eq!(additional["tool_choice"]["function"]["name"], "f");
        assert_eq!(additional["frequency_penalty"], json!(0.1));
        assert_eq!(
            parsed.chat.tools[0].parameters,
            json!({"type": "object", "properties": {}})
        );
        assert!(matches!(
            options.response_format,
            Some(ResponseFormat::JsonSchema { .. })
        ));
        assert_eq!(parsed.chat.metadata.unwrap()["k"], "v");
    }

    #[test]
    fn tool_choice_none_sends_no_tools() {
        let parsed = parse(request(json!({
            "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "none"})))
        .unwrap();
        assert!(parsed.chat.tools.is_empty() && !parsed.needs.tools);
        assert_eq!(parsed.chat.options, None);
    }

    #[test]
    fn refusals_say_which_member_and_why() {
        let error = |extra: Value| parse(request(extra)).unwrap_err();
        let unknown = error(json!({"top_k": 3, "foo": 1}));
        assert_eq!(
            unknown.message,
            "Unrecognized request arguments supplied: top_k, foo"
        );
        assert_eq!((unknown.status.as_u16(), unknown.param), (400, None));
        let typed = error(json!({"temperature": "hot"}));
        assert_eq!(typed.param.as_deref(), Some("temperature"));
        assert_eq!(typed.code.as_deref(), Some("invalid_type"));
        assert_eq!(
            error(json!({"temperature": 3})).code.as_deref(),
            Some("decimal_above_max_value")
        );
        assert_eq!(error(json!({"n": 2})).param.as_deref(), Some("n"));
        assert_eq!(
            error(json!({"logprobs": true})).param.as_deref(),
            Some("logprobs")
        );
        assert_eq!(
            error(json!({"tool_choice": "required"})).param.as_deref(),
            Some("tool_choice")
        );
        assert_eq!(
            error(json!({"tools": [{"type": "function", "function": {"name": 1}}]}))
                .param
                .as_deref(),
            Some("tools[0].function.name")
        );
        let missing = parse(json!({"messages": []})).unwrap_err();
        assert_eq!(missing.message, "Missing required parameter: 'model'.");
        assert!(parse(json!([1])).is_err());
        // Defaults are accepted.
        assert!(
            parse(request(
                json!({"n": 1, "logprobs": false, "modalities": ["text"], "audio": null})
            ))
            .is_ok()
        );
    }

    #[test]
    fn every_known_member_is_a_member_of_the_body() {
        for member in KNOWN {
            let extra = Value::Object(Map::from_iter([((*member).to_owned(), json!("x"))]));
            let error = parse(request(extra));
            if let Err(error) = error {
                assert!(
                    !error.message.contains("unknown field"),
                    "{member}: {}",
                    error.message
                );
            }
        }
    }
}
