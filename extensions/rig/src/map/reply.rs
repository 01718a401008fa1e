//! Answers, both ways: AEP updates and responses as the [`Frame`]s the AEP model's
//! decoder reads, and a rig reply (stream events, then its folded
//! [`CompletionResponse`]) as AEP updates and responses ([`Updates`],
//! [`to_aep_response`]); finish reasons and usage both ways.
//!
//! | AEP `finishReason` | rig [`FinishReason`] |
//! |---|---|
//! | `stop` | `Stop` (`ToolCalls` when the turn holds tool calls) |
//! | `length` | `Length` |
//! | `toolCalls` | `ToolCalls` |
//! | `contentFilter` | `ContentFilter` |
//! | `other` | `Other("other")`; rig's `Other(_)` becomes `other` |
//! | `error` | never a finish: the AEP client reports it as an error ([`super::error`]) |
//!
//! A rig reply that names no finish reason is not a success in AEP: rig marks it
//! failed (`CompletionResponse::error`), and [`Updates::finish`] turns that into the
//! terminal error update.

use std::collections::HashMap;

use aep_sdk::AepError;
use aep_sdk::protocol::{self as aep, ChatResponse, ChatUpdate, Content, ContentKind, Message, Role};
use rig_core::completion::{CompletionResponse, FinishReason, Usage};
use rig_core::message::{AssistantContent, DocumentSourceKind, Image, ImageMediaType, MimeType};
use rig_core::streaming::StreamEvent;
use serde_json::Value;

/// One piece of an AEP answer, as the AEP model's decoder reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A text delta.
    Text(String),
    /// A reasoning delta.
    Reasoning(String),
    /// A whole tool call (AEP sends calls whole, with arguments as a JSON object).
    Call {
        /// The call id.
        id: String,
        /// The function name.
        name: String,
        /// The arguments (an object; a JSON string is read as the object's text).
        arguments: Value,
    },
    /// A whole image the model produced.
    Image(Image),
    /// Token counts an update reported before the end.
    Usage(aep::Usage),
    /// The model an update names.
    Model(String),
    /// The terminal update: why generation stopped.
    Done {
        /// The finish reason (never `error`: that is a failure).
        reason: aep::FinishReason,
        /// Token counts, when reported with it.
        usage: Option<aep::Usage>,
        /// The model, when named with it.
        model: Option<String>,
    },
}

fn content_frame(content: Content) -> Option<Frame> {
    if let Some(reasoning) = content.as_reasoning() {
        return Some(Frame::Reasoning(reasoning.to_owned()));
    }
    match content.kind {
        ContentKind::Text => content.text.filter(|t| !t.is_empty()).map(Frame::Text),
        ContentKind::ToolCall => content.tool_call.map(|call| Frame::Call {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
        }),
        ContentKind::Image => {
            let data = match (content.data, content.uri) {
                (Some(Value::String(data)), _) => DocumentSourceKind::Base64(data),
                (_, Some(uri)) => DocumentSourceKind::Url(uri),
                _ => return None,
            };
            Some(Frame::Image(Image {
                data,
                media_type: content
                    .media_type
                    .as_deref()
                    .and_then(ImageMediaType::from_mime_type),
                ..Image::default()
            }))
        }
        // Files, other structured data and tool results are not part of a model's turn
        // in rig.
        other => {
            tracing::debug!(kind = ?other, "an AEP answer content rig has no block for; skipped");
            None
        }
    }
}

/// The frames of one streamed update: its contents, then what it reports, then
/// [`Frame::Done`] when it is terminal.
///
/// ```
/// use aep_rig::map::reply::{Frame, frames_of_update};
/// use aep_sdk::protocol::{ChatUpdate, FinishReason};
///
/// let frames = frames_of_update(ChatUpdate::text("hi").with_finish(FinishReason::Stop));
/// assert_eq!(frames[0], Frame::Text("hi".into()));
/// assert!(matches!(frames[1], Frame::Done { reason: FinishReason::Stop, .. }));
/// ```
pub fn frames_of_update(update: ChatUpdate) -> Vec<Frame> {
    let mut frames: Vec<Frame> = update.contents.into_iter().filter_map(content_frame).collect();
    match update.finish_reason {
        Some(reason) => frames.push(Frame::Done {
            reason,
            usage: update.usage,
            model: update.model,
        }),
        None => {
            frames.extend(update.usage.map(Frame::Usage));
            frames.extend(update.model.map(Frame::Model));
        }
    }
    frames
}

/// The frames of a whole answer (`/chat`): every assistant message's contents, then
/// [`Frame::Done`]. An answer without a finish reason finished normally: `stop`
/// (`toolCalls` when it asks for tools).
pub fn frames_of_response(response: ChatResponse) -> Vec<Frame> {
    let mut frames = Vec::new();
    for message in response.messages {
        if message.role == Role::Assistant {
            frames.extend(message.contents.into_iter().filter_map(content_frame));
        }
    }
    let calls = frames.iter().any(|f| matches!(f, Frame::Call { .. }));
    let reason = response.finish_reason.unwrap_or(if calls {
        aep::FinishReason::ToolCalls
    } else {
        aep::FinishReason::Stop
    });
    frames.push(Frame::Done {
        reason,
        usage: response.usage,
        model: response.model,
    });
    frames
}

/// An AEP finish reason as rig's.
pub fn rig_finish(reason: aep::FinishReason) -> FinishReason {
    match reason {
        aep::FinishReason::Stop => FinishReason::Stop,
        aep::FinishReason::Length => FinishReason::Length,
        aep::FinishReason::ToolCalls => FinishReason::ToolCalls,
        aep::FinishReason::ContentFilter => FinishReason::ContentFilter,
        aep::FinishReason::Error => FinishReason::Other("error".to_owned()),
        aep::FinishReason::Other => FinishReason::Other("other".to_owned()),
    }
}

/// rig's finish reason as AEP's. No reason (a wire without a finish vocabulary) is
/// `toolCalls` when the turn holds calls, else `stop`.
pub fn aep_finish(reason: Option<&FinishReason>, has_calls: bool) -> aep::FinishReason {
    match reason {
        Some(FinishReason::Stop) if has_calls => aep::FinishReason::ToolCalls,
        Some(FinishReason::Stop) => aep::FinishReason::Stop,
        Some(FinishReason::Length) => aep::FinishReason::Length,
        Some(FinishReason::ToolCalls) => aep::FinishReason::ToolCalls,
        Some(FinishReason::ContentFilter) => aep::FinishReason::ContentFilter,
        None if has_calls => aep::FinishReason::ToolCalls,
        None => aep::FinishReason::Stop,
        Some(_) => aep::FinishReason::Other,
    }
}

/// AEP token counts as rig's.
pub fn rig_usage(usage: &aep::Usage) -> Usage {
    Usage::new()
        .input_tokens(usage.input_tokens)
        .output_tokens(usage.output_tokens)
        .total_tokens(usage.total_tokens)
}

/// rig's token counts as AEP's; `None` when the provider reported none.
pub fn aep_usage(usage: &Usage) -> Option<aep::Usage> {
    let usage = aep::Usage {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        total_tokens: usage
            .total_tokens
            .or_else(|| Some(usage.input_tokens? + usage.output_tokens?)),
    };
    (usage != aep::Usage::default()).then_some(usage)
}

fn image_content(image: &Image) -> Option<Content> {
    let media_type = image
        .media_type
        .as_ref()
        .map_or("image/png", |m| m.to_mime_type());
    match &image.data {
        DocumentSourceKind::Base64(data) => Some(Content::image_base64(media_type, data.clone())),
        DocumentSourceKind::Url(uri) => Some(Content::image_uri(media_type, uri.clone())),
        _ => None,
    }
}

/// A finished tool call as AEP content: its arguments as the object they parse to, or,
/// when the model wrote JSON that does not parse, as that text (so the host reports the
/// bad arguments to the model instead of calling the tool with none).
fn call_content(call: &rig_core::message::ToolCall) -> Content {
    let arguments = match &call.function.invalid_arguments {
        Some(text) => Value::String(text.clone()),
        None => call.function.arguments_value(),
    };
    Content::tool_call(call.id.wire(), call.function.name.to_string(), arguments)
}

/// A rig reply's stream events as AEP updates: text and reasoning deltas as they come,
/// each tool call whole once it ends, then [`Updates::finish`] for the terminal update.
#[derive(Debug, Default)]
pub struct Updates {
    /// Bytes of each text or reasoning part already sent, by part position.
    sent: HashMap<usize, usize>,
}

impl Updates {
    /// The update an event makes, if any.
    pub fn event(&mut self, event: StreamEvent) -> Option<ChatUpdate> {
        match event {
            StreamEvent::Text { part, text } if !text.is_empty() => {
                *self.sent.entry(part.index()).or_default() += text.len();
                Some(ChatUpdate::text(text))
            }
            StreamEvent::Reasoning { part, text } if !text.is_empty() => {
                *self.sent.entry(part.index()).or_default() += text.len();
                Some(ChatUpdate::reasoning(text))
            }
            StreamEvent::End { part, content } => {
                let sent = self.sent.remove(&part.index()).unwrap_or(0);
                // What a part's end holds beyond the deltas sent (a wire that states a
                // block whole); a restated block cannot be taken back and is left.
                let rest = |text: &str| {
                    text.get(sent..)
                        .filter(|rest| !rest.is_empty())
                        .map(str::to_owned)
                };
                match content {
                    AssistantContent::ToolCall(call) => Some(ChatUpdate::contents(vec![call_content(&call)])),
                    AssistantContent::Text(text) => rest(&text.text).map(ChatUpdate::text),
                    AssistantContent::Reasoning(reasoning) => {
                        rest(&reasoning.text).map(ChatUpdate::reasoning)
                    }
                    AssistantContent::Image(image) => {
                        image_content(&image).map(|c| ChatUpdate::contents(vec![c]))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The terminal update of a reply rig folded into `response`: its finish reason,
    /// usage and model. A reply rig marks failed (no finish reason, a tool call left
    /// unfinished, a refusal) is an error.
    pub fn finish(response: &CompletionResponse) -> Result<ChatUpdate, AepError> {
        if let Some(error) = &response.error {
            return Err(super::error::failed_reply(error));
        }
        let has_calls = response.tool_calls().next().is_some();
        let mut update = ChatUpdate::finish(aep_finish(response.finish_reason().as_ref(), has_calls));
        update.usage = aep_usage(&response.usage);
        update.model = response.model().map(str::to_owned);
        Ok(update)
    }
}

/// A rig response as the AEP answer of `/chat`: one assistant message with its text,
/// reasoning, tool calls and images in order, the finish reason, usage and model. A
/// reply rig marks failed is an error.
pub fn to_aep_response(
    response: &CompletionResponse,
    requested_model: &str,
) -> Result<ChatResponse, AepError> {
    let terminal = Updates::finish(response)?;
    let mut contents = Vec::new();
    for part in &response.choice {
        match part {
            AssistantContent::Text(text) if !text.text.is_empty() => {
                contents.push(Content::text(text.text.clone()))
            }
            AssistantContent::Reasoning(reasoning) if !reasoning.text.is_empty() => {
                contents.push(Content::reasoning(reasoning.text.clone()))
            }
            AssistantContent::ToolCall(call) => contents.push(call_content(call)),
            AssistantContent::Image(image) => contents.extend(image_content(image)),
            _ => {}
        }
    }
    Ok(ChatResponse {
        messages: vec![Message::new(Role::Assistant, contents)],
        model: terminal.model.or_else(|| Some(requested_model.to_owned())),
        finish_reason: terminal.finish_reason,
        usage: terminal.usage,
        metadata: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aep_sdk::protocol::FinishReason as Aep;

    #[test]
    fn finish_reasons_both_ways() {
        for (aep, rig) in [
            (Aep::Stop, FinishReason::Stop),
            (Aep::Length, FinishReason::Length),
            (Aep::ToolCalls, FinishReason::ToolCalls),
            (Aep::ContentFilter, FinishReason::ContentFilter),
        ] {
            assert_eq!(rig_finish(aep), rig);
            assert_eq!(aep_finish(Some(&rig), false), aep);
        }
        assert_eq!(rig_finish(Aep::Other), FinishReason::Other("other".into()));
        assert_eq!(
            aep_finish(Some(&FinishReason::Other("pause_turn".into())), false),
            Aep::Other
        );
        // A stop with calls asks for tools; no reason at all is a stop, or toolCalls.
        assert_eq!(aep_finish(Some(&FinishReason::Stop), true), Aep::ToolCalls);
        assert_eq!(aep_finish(None, false), Aep::Stop);
        assert_eq!(aep_finish(None, true), Aep::ToolCalls);
        assert_eq!(aep_finish(Some(&FinishReason::Length), true), Aep::Length);
    }

    #[test]
    fn usage_both_ways_and_none_when_unreported() {
        let rig = rig_usage(&aep::Usage::new(3, 4));
        assert_eq!(
            (rig.input_tokens, rig.output_tokens, rig.total_tokens),
            (Some(3), Some(4), Some(7))
        );
        assert_eq!(aep_usage(&rig), Some(aep::Usage::new(3, 4)));
        assert_eq!(aep_usage(&Usage::new()), None);
        // A total the provider left out is the sum; a lone counter stays alone.
        let partial = aep_usage(&Usage::new().input_tokens(5).output_tokens(2)).unwrap();
        assert_eq!(partial.total_tokens, Some(7));
        let input_only = aep_usage(&Usage::new().input_tokens(5)).unwrap();
        assert_eq!((input_only.output_tokens, input_only.total_tokens), (None, None));
    }

    #[test]
    fn a_terminal_update_ends_the_frames_and_reports_usage_and_model() {
        let update = ChatUpdate::reasoning("hmm")
            .with_usage(aep::Usage::new(1, 1))
            .with_model("m");
        assert_eq!(
            frames_of_update(update),
            [
                Frame::Reasoning("hmm".into()),
                Frame::Usage(aep::Usage::new(1, 1)),
                Frame::Model("m".into())
            ]
        );
        let terminal =
            ChatUpdate::tool_call("c", "f", serde_json::json!({"a": 1})).with_finish(Aep::ToolCalls);
        let frames = frames_of_update(terminal);
        assert!(matches!(&frames[0], Frame::Call { id, .. } if id == "c"));
        assert!(matches!(
            frames[1],
            Frame::Done {
                reason: Aep::ToolCalls,
                usage: None,
                ..
            }
        ));
        // Empty text deltas and role-only updates make no frame.
        assert!(frames_of_update(ChatUpdate::text("")).is_empty());
        assert!(frames_of_update(ChatUpdate::default()).is_empty());
    }

    #[test]
    fn a_whole_answer_without_a_finish_reason_finished_normally() {
        let asks = ChatResponse::message(Message::new(
            Role::Assistant,
            vec![Content::tool_call("c", "f", serde_json::json!({}))],
        ));
        let asks = ChatResponse {
            finish_reason: None,
            ..asks
        };
        let frames = frames_of_response(asks);
        assert!(matches!(
            frames.last(),
            Some(Frame::Done {
                reason: Aep::ToolCalls,
                ..
            })
        ));
        let said = ChatResponse {
            finish_reason: None,
            ..ChatResponse::text("hi")
        };
        assert!(matches!(
            frames_of_response(said).last(),
            Some(Frame::Done {
                reason: Aep::Stop,
                ..
            })
        ));
    }

    #[test]
    fn an_ended_part_sends_only_what_its_deltas_did_not() {
        // Events as rig serializes them (parts cannot be built outside rig).
        let event = |value: serde_json::Value| -> StreamEvent { serde_json::from_value(value).unwrap() };
        let mut updates = Updates::default();
        let sent: Vec<String> = [
            event(serde_json::json!({"event": "start", "part": 0, "kind": "text"})),
            event(serde_json::json!({"event": "text", "part": 0, "text": "Hel"})),
            event(serde_json::json!({"event": "end", "part": 0, "content": {"type": "text", "text": "Hello"}})),
            // A part stated whole at its end: all of it.
            event(serde_json::json!({"event": "end", "part": 1, "content": {"type": "reasoning", "text": "why"}})),
        ]
        .into_iter()
        .filter_map(|e| updates.event(e))
        .map(|u| match u.contents[0].as_reasoning() {
            Some(reasoning) => format!("reasoning:{reasoning}"),
            None => u.text_delta(),
        })
        .collect();
        assert_eq!(sent, ["Hel", "lo", "reasoning:why"]);
    }

    fn response(choice: Vec<AssistantContent>) -> CompletionResponse {
        let origin = rig_core::message::Origin::new("test.api", "test", "m1");
        CompletionResponse::new(
            choice,
            Usage::new().input_tokens(2).output_tokens(1),
            origin,
            Value::Null,
        )
    }

    #[test]
    fn a_reply_rig_marked_failed_is_an_error_not_a_finish() {
        let mut failed =
            response(vec![AssistantContent::text("half")]).with_finish_reason(FinishReason::Stop);
        failed.error = Some("the provider ended the reply without a finish reason".into());
        let error = Updates::finish(&failed).unwrap_err();
        assert_eq!(error.code(), aep_sdk::error::codes::REQUEST_FAILED);
        assert!(error.message().contains("without a finish reason"), "{error}");
        assert_eq!(to_aep_response(&failed, "m1").unwrap_err().code(), error.code());

        let ok = response(vec![AssistantContent::text("whole")]).with_finish_reason(FinishReason::Length);
        let update = Updates::finish(&ok).unwrap();
        assert_eq!(update.finish_reason, Some(Aep::Length));
        assert_eq!(update.usage, Some(aep::Usage::new(2, 1)));
        let answer = to_aep_response(&ok, "m1").unwrap();
        assert_eq!(answer.all_text(), "whole");
        assert_eq!(
            answer.model.as_deref(),
            Some("m1"),
            "the requested model when none is reported"
        );
    }

    #[test]
    fn malformed_call_arguments_reach_aep_as_their_text() {
        let function = rig_core::message::ToolFunction::parse(
            rig_core::message::ToolName::new("f").unwrap(),
            "{\"a\": ",
        );
        let call = rig_core::message::ToolCall::from_wire("c1", function);
        let content = call_content(&call);
        let call = content.tool_call.unwrap();
        assert_eq!(call.arguments, Value::String("{\"a\": ".into()));
    }
}
