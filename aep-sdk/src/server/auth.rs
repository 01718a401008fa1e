//! Optional bearer-token authentication for every AEP and MCP route.

use std::fmt;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use subtle::ConstantTimeEq;

use crate::AepError;
use crate::error::codes;
use crate::protocol::ProtocolVersion;

/// A bearer token every request must carry (`Authorization: Bearer <token>`).
///
/// The token is compared in constant time, never logged, never put in the manifest or in
/// an error message; a missing or wrong token gets the same 401 AEP error.
#[derive(Clone)]
pub struct BearerAuth {
    token: Arc<[u8]>,
    public_discovery: bool,
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerAuth")
            .field("token", &"<redacted>")
            .field("public_discovery", &self.public_discovery)
            .finish()
    }
}

impl BearerAuth {
    /// Requires `token` on every route, discovery included.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into().into_bytes().into(),
            public_discovery: false,
        }
    }

    /// Leaves the two discovery routes public (the rest still needs the token).
    pub fn public_discovery(mut self, public: bool) -> Self {
        self.public_discovery = public;
        self
    }

    fn accepts(&self, request: &Request) -> bool {
        if self.public_discovery
            && ProtocolVersion::ALL
                .iter()
                .any(|v| v.discovery_path() == request.uri().path())
        {
            return true;
        }
        let Some(value) = request.headers().get(header::AUTHORIZATION) else {
            return false;
        };
        let Some(presented) = value.as_bytes().strip_prefix(b"Bearer ") else {
            return false;
        };
        // Constant time for equal lengths; the length itself is not secret enough to hide.
        presented.ct_eq(&self.token).into()
    }
}

pub(crate) async fn require(State(auth): State<BearerAuth>, request: Request, next: Next) -> Response {
    if auth.accepts(&request) {
        return next.run(request).await;
    }
    let error = AepError::new(
        StatusCode::UNAUTHORIZED,
        codes::UNAUTHORIZED,
        "missing or invalid bearer token",
    );
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}
