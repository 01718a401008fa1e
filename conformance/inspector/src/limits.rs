//! Every bound the Inspector puts on a wait for an extension. The page puts its own,
//! slightly longer bounds on each `/api` call, so no spinner outlives these.

use std::time::Duration;

/// Establishing a TCP connection to an extension.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// One ordinary exchange (manifest, health, models, configuration), body included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// A non-streamed chat, and the silence allowed while reading any answer.
pub const CHAT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default bound on the silence between two SSE frames of a streamed chat (keep-alive
/// comments do not count); a request may choose another one.
pub const DEFAULT_STALL: Duration = Duration::from_secs(30);
/// The largest stall bound a request may ask for.
pub const MAX_STALL: Duration = Duration::from_secs(600);
/// One MCP tool call.
pub const TOOL_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of a body that is not JSON is kept to show (an HTML error page, ...).
pub const SNIPPET_CHARS: usize = 600;
/// One trip through an authorization server's pages (a person logging in and
/// consenting): past it the pending sign-in expires. At most 135 s (nine times
/// [`REQUEST_TIMEOUT`]): the host's OAuth client gives a visit ten.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(120);
/// Starting a sign-in (discovery, registration), and each step between two trips (the
/// code's exchange, reading the manifest, the next resource's discovery).
pub const SIGN_IN_STEP_TIMEOUT: Duration = Duration::from_secs(40);

/// Runs `work`, failing with `timed_out` (naming `what`) after `bound`.
pub async fn bounded<T, E>(
    bound: Duration,
    what: &str,
    work: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, crate::error::ApiError>
where
    crate::error::ApiError: From<E>,
{
    match tokio::time::timeout(bound, work).await {
        Ok(result) => result.map_err(Into::into),
        Err(_) => Err(crate::error::ApiError::upstream(
            crate::error::codes::TIMED_OUT,
            format!("{what}: no answer within {} s", bound.as_secs()),
        )),
    }
}
