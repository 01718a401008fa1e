//! Provider health (shared/openai-compatible-notes.md 2.8 and 3.6): llama.cpp's
//! `/health`, LocalAI's `/readyz`, any other server's `/v1/models`. 2xx: `available`;
//! 503 (a model still loading): `loading`; another status: `unavailable`; no
//! connection: `unreachable`. The details carry the upstream's message.

use aep_sdk::protocol::{Availability, Health};

use crate::client::{UpstreamClient, UpstreamError, error_message};

/// Probes the upstream.
pub async fn check(client: &UpstreamClient) -> Health {
    let flavor = client.flavor();
    let path = flavor.health_path();
    match client.probe(path).await {
        Ok((status, _)) if (200..300).contains(&status) => Health::available(),
        Ok((503, body)) => Health::new(Availability::Loading, error_message(flavor, 503, &body)),
        Ok((status, body)) => Health::unavailable(error_message(flavor, status, &body)),
        Err(UpstreamError::Unreachable { reason }) => Health::new(Availability::Unreachable, reason),
        Err(error) => Health::unavailable(format!("GET {}{path}: {error}", client.endpoint())),
    }
}
