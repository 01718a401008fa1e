//! `POST /v1/chat/completions`: the body checked and mapped, the model resolved and its
//! provider's capabilities checked, then the AEP call through the extension's canonical
//! client (`/chat` or `/chat/stream`, whichever the provider declares; the other is made
//! from it). The handler runs in the request's server span, so the AEP call continues
//! the OpenAI client's trace (`traceparent`) and carries it on to the extension.

use std::sync::Arc;

use aep_sdk::AepError;
use aep_sdk::client::{Client, ClientError, UpdateStream};
use aep_sdk::protocol::{ChatRequest, ChatResponse, ChatUpdate, FinishReason, Message, Role};
use aep_sdk::server::AepJson;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;

use super::OpenAi;
use super::completion::{Answer, completion};
use super::error::OpenAiError;
use super::models::Listed;
use super::request::{self, Needs};

/// The route's handler; every refusal is an OpenAI error.
pub(super) async fn completions(
    State(state): State<Arc<OpenAi>>,
    body: Result<AepJson<Value>, AepError>,
) -> Response {
    match answer(&state, body).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn answer(state: &OpenAi, body: Result<AepJson<Value>, AepError>) -> Result<Response, OpenAiError> {
    let AepJson(body) = body.map_err(|e| OpenAiError::from_body_rejection(&e))?;
    let mut parsed = request::parse(body)?;
    let listed = state
        .models
        .resolve(&parsed.model)
        .await
        .ok_or_else(|| OpenAiError::model_not_found(&parsed.model))?;
    check(&listed, parsed.needs)?;
    parsed.chat.model = listed.reference.model.clone();
    let extension = listed.reference.extension.clone();
    let Some(entry) = state.gateway.catalog().registry().get(&extension) else {
        return Err(OpenAiError::model_not_found(&parsed.model));
    };
    let call = Call {
        client: entry.client(),
        provider: &listed.reference.provider,
        request: &parsed.chat,
        streams: listed.capabilities.streaming,
        answers: listed.capabilities.chat,
    };
    let answer = Answer::new(&parsed.model);
    let failed = |error: ClientError| OpenAiError::from_client(&error, &parsed.model, &extension);
    if parsed.stream {
        let updates = call.stream().await.map_err(failed)?;
        Ok(super::chunks::response(
            answer,
            parsed.include_usage,
            extension.clone(),
            updates,
        ))
    } else {
        let response = call.whole().await.map_err(failed)?;
        Ok(axum::Json(completion(&answer, &response)?).into_response())
    }
}

/// A request the provider cannot honour is refused here, saying so, rather than
/// answered as if the provider had.
fn check(listed: &Listed, needs: Needs) -> Result<(), OpenAiError> {
    let capabilities = listed.capabilities;
    let lacking = [
        (
            needs.structured && !capabilities.structured_output,
            "response_format",
            "structured output",
        ),
        (
            needs.tools && !capabilities.tools,
            "tools",
            "tools (function calling)",
        ),
        (
            needs.vision && !capabilities.vision,
            "messages",
            "vision (image input)",
        ),
    ];
    match lacking.into_iter().find(|(lacks, _, _)| *lacks) {
        Some((_, param, what)) => Err(OpenAiError::param(
            param,
            Some("unsupported_parameter"),
            format!(
                "The model `{}` does not support {what}: its provider '{}' of extension '{}' does not declare it.",
                listed.id, listed.reference.provider, listed.reference.extension
            ),
        )),
        None => Ok(()),
    }
}

struct Call<'a> {
    client: &'a Client,
    provider: &'a str,
    request: &'a ChatRequest,
    streams: bool,
    answers: bool,
}

impl Call<'_> {
    /// The updates: `/chat/stream`, or `/chat`'s answer as one terminal update.
    async fn stream(&self) -> Result<UpdateStream, ClientError> {
        if self.streams || !self.answers {
            return self.client.chat_stream(self.provider, self.request).await;
        }
        let response = self.client.chat(self.provider, self.request).await?;
        let update = ChatUpdate {
            contents: response.messages.into_iter().flat_map(|m| m.contents).collect(),
            role: Some(Role::Assistant),
            model: response.model,
            finish_reason: Some(response.finish_reason.unwrap_or(FinishReason::Stop)),
            usage: response.usage,
            error: None,
        };
        Ok(Box::pin(futures::stream::iter([Ok(update)])))
    }

    /// The whole answer: `/chat`, or `/chat/stream`'s updates folded.
    async fn whole(&self) -> Result<ChatResponse, ClientError> {
        if self.answers || !self.streams {
            return self.client.chat(self.provider, self.request).await;
        }
        let mut updates = self.client.chat_stream(self.provider, self.request).await?;
        let mut response = ChatResponse::default();
        let mut contents = Vec::new();
        while let Some(update) = updates.next().await {
            let update = update?;
            contents.extend(update.contents);
            response.usage = update.usage.or(response.usage);
            response.model = update.model.or(response.model);
            if update.finish_reason.is_some() {
                response.finish_reason = update.finish_reason;
                break;
            }
        }
        response.messages = vec![Message::new(Role::Assistant, contents)];
        Ok(response)
    }
}
