//! The agent loop: chat with tools. The model's tool calls are executed through the
//! catalog (MCP) and their results sent back as tool-result messages, until the model
//! answers without calling a tool or the step limit is reached. Every model turn is
//! streamed; [`AgentEvent`]s report it as it happens.

mod event;

use aep_sdk::protocol::{
    ChatRequest, Content, ContentKind, FinishReason, Message, ModelOptions, Role, ToolCall, ToolDefinition,
};
use futures::StreamExt;
use serde_json::{Value, json};

pub use event::AgentEvent;

use crate::catalog::{AgentTool, Catalog};
use crate::error::{ErrorCode, HostError, Result};
use crate::invoke::ToolOutput;
use crate::models::{self, ModelRef};

/// Default bound on model turns.
pub const DEFAULT_MAX_STEPS: usize = 8;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentStop {
    /// The model answered without asking for a tool.
    Answered(Option<FinishReason>),
    /// The model still asked for tools after the last allowed turn.
    StepLimit,
}

/// The result of [`Agent::run`].
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOutcome {
    /// The whole conversation, including tool calls and tool results.
    pub messages: Vec<Message>,
    /// The text of the last model turn.
    pub answer: String,
    /// Model turns taken.
    pub steps: usize,
    /// How it ended.
    pub stop: AgentStop,
}

/// A model, the tools it may call, and a step limit.
#[derive(Debug, Clone)]
pub struct Agent<'a> {
    catalog: &'a Catalog,
    model: ModelRef,
    tools: Vec<AgentTool>,
    max_steps: usize,
    options: Option<ModelOptions>,
}

/// The function-calling definition a model sees for a tool: its id as the name, its
/// description, and MCP's input schema as the parameters.
pub fn tool_definition(tool: &AgentTool) -> ToolDefinition {
    ToolDefinition {
        name: tool.id.clone(),
        description: tool
            .description
            .clone()
            .or_else(|| Some(tool.display_name.clone())),
        parameters: tool.input_schema.clone(),
    }
}

impl<'a> Agent<'a> {
    /// An agent talking to `model`, with no tools and [`DEFAULT_MAX_STEPS`].
    pub fn new(catalog: &'a Catalog, model: ModelRef) -> Self {
        Self {
            catalog,
            model,
            tools: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            options: None,
        }
    }

    /// The tools the model may call (resolved with the catalog).
    pub fn tools(mut self, tools: Vec<AgentTool>) -> Self {
        self.tools = tools;
        self
    }

    /// Bound on model turns (at least 1).
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// Generation options sent with every turn.
    pub fn options(mut self, options: ModelOptions) -> Self {
        self.options = Some(options);
        self
    }

    /// Runs the conversation in `messages` to an answer or the step limit, reporting
    /// each event to `on_event`. Fails only when the model cannot be reached or its
    /// stream fails; a failing tool is reported to the model instead.
    pub async fn run(
        &self,
        messages: Vec<Message>,
        on_event: &mut (dyn FnMut(&AgentEvent) + Send),
    ) -> Result<AgentOutcome> {
        let definitions: Vec<ToolDefinition> = self.tools.iter().map(tool_definition).collect();
        let mut conversation = messages;
        for step in 1..=self.max_steps {
            on_event(&AgentEvent::StepStarted { step });
            let request = ChatRequest {
                options: self.options.clone(),
                tools: definitions.clone(),
                ..ChatRequest::new(self.model.model.clone(), conversation.clone())
            };
            let turn = self.turn(&request, on_event).await?;
            on_event(&AgentEvent::StepFinished {
                step,
                finish_reason: turn.finish_reason,
            });
            let calls: Vec<ToolCall> = turn.message.tool_calls().cloned().collect();
            let answer = turn.message.text();
            conversation.push(turn.message);
            if calls.is_empty() {
                return Ok(AgentOutcome {
                    messages: conversation,
                    answer,
                    steps: step,
                    stop: AgentStop::Answered(turn.finish_reason),
                });
            }
            let outcomes = futures::future::join_all(calls.iter().map(|call| self.execute(call))).await;
            for (call, outcome) in calls.into_iter().zip(outcomes) {
                let (result, is_error) = match &outcome {
                    Ok(output) => (output.result_value(), output.is_error),
                    Err(error) => (
                        json!({"error": {"code": error.code.as_str(), "message": error.message}}),
                        true,
                    ),
                };
                conversation.push(Message::new(
                    Role::Tool,
                    vec![Content::tool_result(call.id.clone(), result, is_error)],
                ));
                on_event(&AgentEvent::ToolResult { call, outcome });
            }
        }
        let answer = conversation.last().map(Message::text).unwrap_or_default();
        Ok(AgentOutcome {
            messages: conversation,
            answer,
            steps: self.max_steps,
            stop: AgentStop::StepLimit,
        })
    }

    /// One streamed model turn, folded into an assistant message.
    async fn turn(
        &self,
        request: &ChatRequest,
        on_event: &mut (dyn FnMut(&AgentEvent) + Send),
    ) -> Result<Turn> {
        let mut stream = models::chat_stream(self.catalog.registry(), &self.model, request).await?;
        let mut text = String::new();
        let mut calls = Vec::new();
        let mut finish_reason = None;
        while let Some(update) = stream.next().await {
            let update = update?;
            for content in update.contents {
                if let Some(delta) = content.as_reasoning() {
                    on_event(&AgentEvent::Reasoning(delta.to_owned()));
                } else if content.kind == ContentKind::Text {
                    let delta = content.text.unwrap_or_default();
                    on_event(&AgentEvent::TextDelta(delta.clone()));
                    text.push_str(&delta);
                } else if let Some(call) = content.tool_call {
                    let call = normalize(call);
                    on_event(&AgentEvent::ToolCall(call.clone()));
                    calls.push(call);
                }
            }
            if update.finish_reason.is_some() {
                finish_reason = update.finish_reason;
                break;
            }
        }
        let mut contents = Vec::new();
        if !text.is_empty() {
            contents.push(Content::text(text));
        }
        contents.extend(
            calls
                .into_iter()
                .map(|c| Content::tool_call(c.id, c.name, c.arguments)),
        );
        Ok(Turn {
            message: Message::new(Role::Assistant, contents),
            finish_reason,
        })
    }

    async fn execute(&self, call: &ToolCall) -> Result<ToolOutput> {
        let Some(tool) = self.tools.iter().find(|t| t.id == call.name) else {
            return Err(HostError::new(
                ErrorCode::ToolNotFound,
                format!("the model called '{}', which is not one of its tools", call.name),
            )
            .with_target(&call.name));
        };
        self.catalog.invoke_resolved(tool, call.arguments.clone()).await
    }
}

struct Turn {
    message: Message,
    finish_reason: Option<FinishReason>,
}

/// Some providers send arguments as a JSON string; the host wants the object.
fn normalize(mut call: ToolCall) -> ToolCall {
    if let Value::String(text) = &call.arguments
        && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text)
    {
        call.arguments = parsed;
    }
    call
}
