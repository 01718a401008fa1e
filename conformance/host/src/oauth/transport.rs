//! [`OAuthHttpClient`]: rmcp's Streamable HTTP client (reqwest) with a [`SignIn`]: each
//! request carries the current token, and a 401 or 403 challenge is answered by signing
//! in (or stepping up) and sending the same request again, at most
//! [`MAX_CHALLENGES`](super::MAX_CHALLENGES) times, in the middle of a session if need be.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

use super::sign_in::SignIn;

use aep_sdk::client::MAX_CHALLENGES;

type Error = StreamableHttpError<reqwest::Error>;
type Headers = HashMap<HeaderName, HeaderValue>;

/// A reqwest client that signs in to its MCP server when refused.
#[derive(Clone, Debug)]
pub struct OAuthHttpClient {
    http: reqwest::Client,
    sign_in: SignIn,
}

impl OAuthHttpClient {
    /// `http` with `sign_in`.
    pub fn new(http: reqwest::Client, sign_in: SignIn) -> Self {
        Self { http, sign_in }
    }

    /// Runs `call` with the current token; on a challenge, signs in and runs it again.
    async fn signed<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let mut challenges = 0;
        loop {
            let token = self.sign_in.access_token().await.map(|t| t.expose().to_owned());
            let result = call(token.clone()).await;
            let (status, header) = match &result {
                Err(StreamableHttpError::AuthRequired(e)) => (401, Some(e.www_authenticate_header.clone())),
                Err(StreamableHttpError::InsufficientScope(e)) => {
                    (403, Some(e.www_authenticate_header.clone()))
                }
                // A 401 without WWW-Authenticate.
                Err(StreamableHttpError::Client(e))
                    if e.status() == Some(reqwest::StatusCode::UNAUTHORIZED) =>
                {
                    (401, None)
                }
                _ => return result,
            };
            if challenges == MAX_CHALLENGES {
                return result;
            }
            challenges += 1;
            if self
                .sign_in
                .challenged(status, header.as_deref(), token.as_deref())
                .await
                .is_err()
            {
                // The reason waits in the SignIn for the pool's error message.
                return result;
            }
        }
    }
}

impl StreamableHttpClient for OAuthHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|token| {
            self.http.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|token| {
            self.http.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth: Option<String>,
        headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.signed(|token| {
            self.http.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<(), Error> {
        // Ending a session is no reason to sign in: the token in hand, if any.
        let token = self.sign_in.access_token().await.map(|t| t.expose().to_owned());
        self.http.delete_session(uri, session_id, token, headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth: Option<String>,
        headers: Headers,
    ) -> Result<BoxedSseResponse, Error> {
        self.signed(|token| {
            self.http.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth: Option<String>,
        headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, Error> {
        self.signed(|token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
