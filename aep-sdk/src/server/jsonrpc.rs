//! The one JSON-RPC error answer the router gives on the MCP endpoints before rmcp sees
//! a request (a refused origin, a missing token, a missing scope).

use axum::response::{IntoResponse, Response};
use http::StatusCode;

/// `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":...}}` with `status`:
/// the request is refused as a whole, so no id is known to answer.
pub(crate) fn refused(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32600, "message": message },
    });
    (status, axum::Json(body)).into_response()
}
