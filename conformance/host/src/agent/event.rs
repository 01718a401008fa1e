//! What the agent loop reports while it runs.

use aep_sdk::protocol::{FinishReason, ToolCall};

use crate::error::HostError;
use crate::invoke::ToolOutput;

/// One thing that happened in [`super::Agent::run`], in order.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A model turn starts (1-based).
    StepStarted {
        /// Turn number.
        step: usize,
    },
    /// Streamed answer text.
    TextDelta(String),
    /// Streamed reasoning text.
    Reasoning(String),
    /// The model asks for a tool call.
    ToolCall(ToolCall),
    /// A tool call finished: the tool's output, or why it could not run. Either way the
    /// model is told (an error goes back as a tool result with `isError: true`).
    ToolResult {
        /// The call.
        call: ToolCall,
        /// What it produced.
        outcome: Result<ToolOutput, HostError>,
    },
    /// The model turn ended.
    StepFinished {
        /// Turn number.
        step: usize,
        /// Why the model stopped.
        finish_reason: Option<FinishReason>,
    },
}
