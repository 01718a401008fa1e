//! One response as the authorization tests read it.

use serde_json::Value;

/// Status, `WWW-Authenticate` (empty when absent) and body (JSON, else the text as a
/// JSON string) of the response to `request`.
pub async fn answer(request: reqwest::RequestBuilder) -> (u16, String, Value) {
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    (
        status,
        challenge,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}
