//! The extension a request names: its base URL and revision, checked, from what the
//! page sent (connecting and signing in take the same two).

use aep_host::registry::describe_endpoint_error;
use aep_sdk::client::codes as client_codes;
use aep_sdk::protocol::ProtocolVersion;
use aep_sdk::validate::parse_base_url;
use axum::http::StatusCode;
use url::Url;

use crate::error::ApiError;

/// The extension's base URL and revision, checked, from what the page sent.
pub fn parse_target(url: &str, revision: Option<&str>) -> Result<(Url, ProtocolVersion), ApiError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(ApiError::bad_request(
            "give the extension's base URL, e.g. http://127.0.0.1:8710",
        ));
    }
    let base = parse_base_url(url).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            client_codes::ENDPOINT_INVALID,
            format!("base URL {}", describe_endpoint_error(url, &e)),
        )
    })?;
    let revision = match revision.map(str::trim) {
        None | Some("") => ProtocolVersion::LATEST,
        Some(text) => ProtocolVersion::from_wire(text).map_err(|e| ApiError::bad_request(e.to_string()))?,
    };
    Ok((base, revision))
}
