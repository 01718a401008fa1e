//! Bounded requests to authorization servers: metadata, JWKS, introspection. Each is
//! bounded in time (the whole exchange, a slowly dripping body included) and in size,
//! must answer JSON, and goes only to HTTPS or loopback URLs; redirects are not followed
//! (a metadata document is where the issuer says it is).

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use url::Url;

/// Bound on one document (metadata, key set, introspection answer).
pub(crate) const MAX_DOCUMENT: usize = 256 * 1024;

/// Why a fetch failed, said the way an operator can act on it.
#[derive(Debug, Clone)]
pub(crate) struct FetchError {
    pub(crate) url: String,
    pub(crate) reason: String,
    /// The server answered 404 (the next candidate URL may be tried).
    pub(crate) not_found: bool,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.url, self.reason)
    }
}

/// Whether `url` may be fetched: HTTPS, or HTTP to a loopback host (a development
/// authorization server on this machine).
pub(crate) fn allowed(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// The HTTP client of the resource server.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    timeout: Duration,
}

impl Fetcher {
    pub(crate) fn new(timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .user_agent(concat!("aep-sdk/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Self { client, timeout }
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `GET url` as JSON.
    pub(crate) async fn get<T: DeserializeOwned>(&self, url: &Url) -> Result<T, FetchError> {
        self.json(url, self.client.get(url.clone())).await
    }

    /// `POST url` with a form body and HTTP Basic client authentication, as JSON.
    pub(crate) async fn post_form<T: DeserializeOwned>(
        &self,
        url: &Url,
        form: &[(&str, &str)],
        basic: (&str, &str),
    ) -> Result<T, FetchError> {
        // RFC 6749 section 2.3.1: both parts form-encoded before Basic encoding.
        let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let request = self
            .client
            .post(url.clone())
            .basic_auth(encode(basic.0), Some(encode(basic.1)))
            .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        self.json(url, request).await
    }

    async fn json<T: DeserializeOwned>(
        &self,
        url: &Url,
        request: reqwest::RequestBuilder,
    ) -> Result<T, FetchError> {
        let fail = |reason: String| FetchError {
            url: url.to_string(),
            reason,
            not_found: false,
        };
        if !allowed(url) {
            return Err(fail(
                "refused: authorization servers are reached over HTTPS (plain HTTP only on loopback)".into(),
            ));
        }
        let exchange = async {
            let mut response = request
                .header(http::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|e| fail(format!("unreachable ({})", error_chain(&e))))?;
            let status = response.status();
            if !status.is_success() {
                let mut error = fail(format!("answered HTTP {}", status.as_u16()));
                error.not_found = status == http::StatusCode::NOT_FOUND;
                return Err(error);
            }
            let content_type = response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let essence = content_type.split(';').next().unwrap_or("").trim();
            if !(essence == "application/json" || essence.ends_with("+json")) {
                let shown = if essence.is_empty() {
                    "no content type"
                } else {
                    essence
                };
                return Err(fail(format!("answered {shown}, not JSON")));
            }
            let mut body = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| fail(format!("the answer broke off ({})", error_chain(&e))))?
            {
                if body.len() + chunk.len() > MAX_DOCUMENT {
                    return Err(fail(format!(
                        "the answer is larger than {} KiB",
                        MAX_DOCUMENT / 1024
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            serde_json::from_slice(&body).map_err(|e| fail(format!("not the expected JSON document ({e})")))
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => Err(fail(format!("no complete answer within {:?}", self.timeout))),
        }
    }
}

/// An error and its sources, in one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
