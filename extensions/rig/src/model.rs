//! AEP -> rig: an AEP model provider as a rig completion model.
//!
//! [`aep_model`] pairs an [`AepWire`] (how a rig request becomes an AEP
//! [`ChatRequest`] and how AEP updates become rig's reply) with an [`AepTransport`]
//! (the SDK's canonical [`Client`]: `POST .../chat/stream` for a streamed reply,
//! `POST .../chat` for a unary one). The result is a rig `Model`; rig-agent's
//! `AgentBuilder::new` takes it as is (it converts into `DynModel<Completion>`).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use aep_rig::model::aep_model;
//! use aep_sdk::client::Client;
//!
//! let model = aep_model(Client::new("http://127.0.0.1:8710")?, "echo", "echo-1");
//! let agent = rig_agent::AgentBuilder::new(model).preamble("Be brief.").build();
//! let answer = agent.prompt("Hello").await?;
//! println!("{}", answer.output());
//! # Ok(()) }
//! ```
//!
//! What rig gets: text and reasoning deltas as they arrive, each AEP tool call as one
//! finished rig tool call, the terminal update's finish reason, usage (the terminal
//! update's, else the last an update reported) and model. AEP errors are rig
//! [`ProviderError`]s with the AEP code and message ([`crate::map::error`]); a stream
//! that ends without its terminal update is an error, never a success.
//!
//! Cancellation: rig's `Streamed` owns the AEP update stream, which owns the HTTP
//! response. Dropping the rig stream (or an agent run) drops the SSE connection, and
//! an AEP extension cancels the provider's work when its client goes away.

use std::marker::PhantomData;

use aep_sdk::client::Client;
use aep_sdk::protocol::{self as aep, ChatRequest, ChatResponse, Content, Message, Role};
use futures::StreamExt;
use rig_core::DynModel;
use rig_core::completion::options::{Mapping, OptionFields, OptionMap};
use rig_core::completion::{Accepts, CompletionRequest, ReplayTarget};
use rig_core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_core::error::{EncodeError, ProviderError};
use rig_core::message::{Api, CallId, ToolName};
use rig_core::operation::{Block, Completion, Finish};
use rig_core::wire::document::{Reassemble, Serves};
use rig_core::wire::{Decoder, Descriptor, Flow, Mode, Out, Wire, WireEvent};
use serde_json::Value;

use crate::map::error::provider_error;
use crate::map::reply::{Frame, frames_of_response, frames_of_update, rig_finish, rig_usage};
use crate::map::request::to_aep_request;

/// The provider name rig records for replies from AEP (origins, telemetry).
pub const PROVIDER_NAME: &str = "aep";

/// An AEP model provider (reached through [`aep_model`]) as rig completion model.
pub type AepModel = Model<AepWire, AepTransport>;

/// The model `model` of the AEP model provider `provider` of the extension `client`
/// talks to, as a rig completion model.
pub fn aep_model(client: Client, provider: impl Into<String>, model: impl Into<String>) -> AepModel {
    let provider = provider.into();
    Model::new(AepWire { model: model.into() }, AepTransport { client, provider })
}

/// [`aep_model`], erased to what rig's agent and other consumers store.
pub fn aep_dyn_model(
    client: Client,
    provider: impl Into<String>,
    model: impl Into<String>,
) -> DynModel<Completion> {
    aep_model(client, provider, model).erase()
}

/// What goes over AEP and how the answer is read: the request becomes an AEP
/// [`ChatRequest`] ([`to_aep_request`]), and AEP updates become rig's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct AepWire {
    /// The model a request addresses when it names none.
    pub model: String,
}

const HONOURED: &str = "sent as an AEP ModelOptions member";

fn unsupported(what: &str) -> Mapping {
    Mapping::unsupported(format!(
        "AEP chat requests have no member for {what}; pass a provider's own parameter in additional_params (AEP additionalOptions)"
    ))
}

impl ReplayTarget for AepWire {
    fn api(&self) -> Api {
        Api::from("aep.chat")
    }

    fn provider(&self) -> &str {
        PROVIDER_NAME
    }

    fn model(&self) -> &str {
        &self.model
    }

    /// AEP carries images in user and assistant messages and any JSON in tool
    /// results; what a provider behind it reads is that provider's matter.
    fn accepts(&self, _model: &str) -> Accepts {
        Accepts::ALL
    }

    /// `top_p`, `seed` and `stop` travel as AEP `topP`, `seed`, `stopSequences`; rig's
    /// reasoning, cache, service-tier, verbosity and parallel-tool-calls options have no
    /// AEP member and are refused (an error under rig's default policy).
    fn map_options(&self, _request: &CompletionRequest, fields: OptionFields<'_>) -> OptionMap {
        let OptionFields {
            reasoning,
            cache,
            service_tier,
            verbosity,
            parallel_tool_calls,
            top_p,
            seed,
            stop,
        } = fields;
        OptionMap {
            reasoning: Mapping::of(reasoning, |_| unsupported("a reasoning effort or budget")),
            cache: Mapping::of(cache, |_| unsupported("prompt caching")),
            service_tier: Mapping::of(service_tier, |_| unsupported("a service tier")),
            verbosity: Mapping::of(verbosity, |_| unsupported("verbosity")),
            parallel_tool_calls: Mapping::of(parallel_tool_calls, |_| unsupported("parallel tool calls")),
            top_p: Mapping::of(top_p, |_| Mapping::Omit(HONOURED)),
            seed: Mapping::of(seed, |_| Mapping::Omit(HONOURED)),
            stop: Mapping::of_stop(stop, |_| Mapping::Omit(HONOURED)),
        }
    }
}

impl Wire for AepWire {
    type Op = Completion;
    type Payload = ChatRequest;
    type Frame = Frame;
    type Decoder<'id> = AepDecoder<'id>;
    type Reassembler = AepDocument;

    fn describe(&self) -> Descriptor<'_> {
        Descriptor::new(PROVIDER_NAME)
            .model(self.model.as_str())
            .replay(self)
    }

    fn encode(&self, request: CompletionRequest, _mode: Mode) -> Result<ChatRequest, EncodeError> {
        to_aep_request(request, &self.model)
    }

    fn decoder<'id>(&self) -> AepDecoder<'id> {
        AepDecoder::default()
    }
}

/// Reads [`Frame`]s into rig's reply: text and reasoning runs, whole tool calls and
/// images, and the end.
#[derive(Default)]
pub struct AepDecoder<'id> {
    usage: Option<aep::Usage>,
    model: Option<String>,
    brand: PhantomData<fn(&'id ()) -> &'id ()>,
}

impl std::fmt::Debug for AepDecoder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AepDecoder")
            .field("usage", &self.usage)
            .field("model", &self.model)
            .finish()
    }
}

impl<'id> Decoder<'id, Completion, Frame> for AepDecoder<'id> {
    type Event = Frame;

    fn classify(&self, frame: Frame) -> WireEvent<Frame> {
        WireEvent::Known(frame)
    }

    fn decode(&mut self, frame: Frame, mut out: Out<'id, Completion>) -> Result<Flow, ProviderError> {
        let _ = &self.brand;
        match frame {
            Frame::Text(text) => {
                out.run(Block::Text, &text)?;
            }
            Frame::Reasoning(text) => {
                out.run(Block::Reasoning { redacted: false }, &text)?;
            }
            Frame::Call { id, name, arguments } => {
                out.end_run()?;
                let name = ToolName::new(name).map_err(|_| {
                    ProviderError::Response("the AEP provider sent a tool call without a name".to_owned())
                })?;
                let arguments = match arguments {
                    // Some providers send the arguments as JSON text.
                    Value::String(text) => text,
                    Value::Null => "{}".to_owned(),
                    value => value.to_string(),
                };
                let index = out.fresh_index();
                out.whole(
                    index,
                    Block::Call {
                        id: CallId::from_wire(id),
                        name,
                    },
                    Value::Null,
                    &arguments,
                )?;
            }
            Frame::Image(image) => {
                out.end_run()?;
                let index = out.fresh_index();
                out.open(index, Block::Image(image), Value::Null)?;
                out.finish(index)?;
            }
            Frame::Usage(usage) => self.usage = Some(usage),
            Frame::Model(model) => self.model = Some(model),
            Frame::Done { reason, usage, model } => {
                out.end_run()?;
                out.finish_open()?;
                let usage = usage
                    .or(self.usage.take())
                    .as_ref()
                    .map(rig_usage)
                    .unwrap_or_default();
                return Ok(out.end(Finish {
                    usage,
                    reason: Some(rig_finish(reason)),
                    model: model.or_else(|| self.model.take()),
                    ..Finish::default()
                }));
            }
        }
        Ok(Flow::More)
    }
}

/// A streamed reply's `raw`: the AEP answer its frames add up to, as a
/// [`ChatResponse`] document (a unary reply's `raw` is the `/chat` answer itself).
#[derive(Debug, Default)]
pub struct AepDocument {
    contents: Vec<Content>,
    finish_reason: Option<aep::FinishReason>,
    usage: Option<aep::Usage>,
    model: Option<String>,
}

impl Serves<Completion> for AepDocument {}

impl Reassemble<Frame> for AepDocument {
    fn absorb(&mut self, frame: &Frame) {
        match frame {
            Frame::Text(text) => {
                if let Some(last) = self.contents.last_mut()
                    && last.as_text().is_some()
                    && let Some(held) = &mut last.text
                {
                    held.push_str(text);
                } else {
                    self.contents.push(Content::text(text.clone()));
                }
            }
            Frame::Reasoning(text) => {
                if let Some(last) = self.contents.last_mut()
                    && let Some(held) = last.as_reasoning()
                {
                    *last = Content::reasoning(format!("{held}{text}"));
                } else {
                    self.contents.push(Content::reasoning(text.clone()));
                }
            }
            Frame::Call { id, name, arguments } => {
                self.contents
                    .push(Content::tool_call(id.clone(), name.clone(), arguments.clone()));
            }
            // Images are in the response's choice; the document keeps what AEP
            // clients read as text.
            Frame::Image(_) => {}
            Frame::Usage(usage) => self.usage = Some(*usage),
            Frame::Model(model) => self.model = Some(model.clone()),
            Frame::Done { reason, usage, model } => {
                self.finish_reason = Some(*reason);
                if usage.is_some() {
                    self.usage = *usage;
                }
                if model.is_some() {
                    self.model.clone_from(model);
                }
            }
        }
    }

    fn finish(self) -> Value {
        let response = ChatResponse {
            messages: vec![Message::new(Role::Assistant, self.contents)],
            model: self.model,
            finish_reason: self.finish_reason,
            usage: self.usage,
            metadata: None,
        };
        serde_json::to_value(response).unwrap_or(Value::Null)
    }
}

/// Sends AEP chat requests with the SDK's canonical [`Client`] to one model provider.
#[derive(Debug, Clone)]
pub struct AepTransport {
    /// The client of the extension that serves the provider.
    pub client: Client,
    /// The provider id.
    pub provider: String,
}

impl Transport<AepWire> for AepTransport {
    fn send(&self, payload: ChatRequest, exchange: Exchange) -> Opening<Frame> {
        let client = self.client.clone();
        let provider = self.provider.clone();
        match exchange.mode {
            Mode::Streaming => Opening::new(async move {
                let updates = client
                    .chat_stream(&provider, &payload)
                    .await
                    .map_err(provider_error)?;
                let frames = updates.flat_map(|update| {
                    let frames: Vec<Result<Frame, ProviderError>> = match update {
                        Ok(update) => frames_of_update(update).into_iter().map(Ok).collect(),
                        Err(error) => vec![Err(provider_error(error))],
                    };
                    futures::stream::iter(frames)
                });
                Ok(Opened::new(frames))
            }),
            Mode::Unary => Opening::new(async move {
                let response = client.chat(&provider, &payload).await.map_err(provider_error)?;
                let document = serde_json::to_value(&response).unwrap_or(Value::Null);
                let frames = frames_of_response(response).into_iter().map(Ok);
                Ok(Opened::new(futures::stream::iter(frames)).with_document(document))
            }),
        }
    }
}
