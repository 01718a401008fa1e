//! [`Connection`]: one extension the Inspector is connected to: where it is, the
//! revision spoken, its credential (a bearer token, or the tokens of an OAuth sign-in;
//! kept here, never sent to the page), the SDK's canonical client, the host's tool
//! catalog and MCP pool, and the validated manifest.

use std::sync::{Arc, Mutex};

use aep_conformance::Report;
use aep_host::catalog::Catalog;
use aep_host::mcp::{McpPool, PoolOptions};
use aep_host::oauth::SignIn;
use aep_host::registry::{ExtensionEntry, Registry};
use aep_sdk::client::{Client, codes as client_codes};
use aep_sdk::protocol::{Manifest, ProtocolVersion};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::error::ApiError;
use crate::limits::{CHAT_TIMEOUT, CONNECT_TIMEOUT, REQUEST_TIMEOUT, TOOL_CALL_TIMEOUT};
use crate::oauth::Session;
use crate::probe;
use crate::proxy::{Proxy, Sender};
use crate::target::parse_target;
use crate::trace::Trace;

/// What the page sends to connect.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectRequest {
    /// The extension's base URL.
    pub url: String,
    /// A bearer token to send to it (blank means none).
    #[serde(default)]
    pub token: Option<String>,
    /// `"2026-08-01"` (default) or `"1.0"`.
    #[serde(default)]
    pub revision: Option<String>,
    /// Connect even when the manifest fails validation (its problems are kept with the
    /// connection; what does not need a valid manifest stays usable).
    #[serde(default)]
    pub anyway: bool,
}

/// A bearer token; its `Debug` never shows it.
#[derive(Clone)]
struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How requests to the extension are authorized.
#[derive(Debug)]
enum Credential {
    None,
    Bearer(Secret),
    /// The tokens of sign-in `session`: `aep` is the client of the AEP routes (the MCP
    /// pool has one per server, from the same token store).
    OAuth {
        session: String,
        aep: SignIn,
    },
}

/// A connected extension. Shared behind an `Arc`.
#[derive(Debug)]
pub struct Connection {
    /// The Inspector's id for it (`c1`, `c2`, ...).
    pub id: String,
    /// The extension's base URL.
    pub base: Url,
    /// The revision negotiated, exactly.
    pub revision: ProtocolVersion,
    /// The SDK's canonical client for it.
    pub client: Client,
    /// A plain HTTP client, for what the canonical client hides (raw documents, SSE frames).
    pub http: reqwest::Client,
    /// The manifest of [`Connection::revision`]: validated, or (connected anyway) as read.
    pub manifest: Manifest,
    /// The manifest's validation problems, when it was connected to anyway.
    pub invalid: Option<Vec<String>>,
    /// Tool resolution (AEP -> MCP) and calls, through the host's MCP pool.
    pub catalog: Catalog,
    /// The last conformance report, for export.
    pub last_report: Mutex<Option<Arc<Report>>>,
    /// The exchanges with the extension ([`crate::trace`]): the Inspector's own client's,
    /// and the proxy's.
    pub trace: Trace,
    /// The recording proxy the SDK's client, the MCP pool and the runner go through.
    pub proxy: Proxy,
    credential: Credential,
}

impl Connection {
    /// Checks the URL, fetches the manifest raw (to say what answered when it is not
    /// AEP), discovers it with the canonical client (exact revision, validation) and
    /// sets up the tool catalog.
    pub async fn open(
        id: String,
        request: &ConnectRequest,
        signed_in: Option<&Session>,
    ) -> Result<Self, ApiError> {
        let (base, revision) = parse_target(&request.url, request.revision.as_deref())?;
        let token = request
            .token
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| Secret(t.to_owned()));
        // A token typed in wins over a sign-in.
        let credential = match (token, signed_in) {
            (Some(token), _) => Credential::Bearer(token),
            (None, Some(session)) => Credential::OAuth {
                session: session.id.clone(),
                aep: SignIn::new(&base, session.connection_options())?,
            },
            (None, None) => Credential::None,
        };
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(CHAT_TIMEOUT)
            .build()
            .map_err(|e| ApiError::bad_request(format!("HTTP client: {e}")))?;

        let trace = Trace::default();
        let bearer = credential.bearer().await;
        let raw = probe::fetch(&http, &base, revision, bearer.as_deref(), &trace).await;
        probe::diagnose(&raw)?;

        let proxy = Proxy::start(&base, trace.clone()).await.map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "proxy_failed",
                format!("could not start the trace proxy on 127.0.0.1: {e}"),
            )
        })?;
        let mut builder = Client::builder(proxy.base_for(Sender::Sdk).as_str())
            .revision(revision)
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(REQUEST_TIMEOUT);
        match &credential {
            Credential::Bearer(token) => builder = builder.bearer_token(token.0.clone()),
            Credential::OAuth { aep, .. } => builder = builder.token_source(Arc::new(aep.clone())),
            Credential::None => {}
        }
        let client = builder.build()?;
        let (manifest, invalid) = match client.discover().await {
            Ok(manifest) => (manifest, None),
            Err(e) if e.code == client_codes::DESCRIPTOR_INVALID && request.anyway => {
                let error = unproxy_error(discovery_error(e), &proxy, &base);
                let document = raw.json.clone().unwrap_or_default();
                let manifest: Manifest = serde_json::from_value(document).map_err(|read| {
                    let mut error = error.clone();
                    error.message = format!(
                        "{} and cannot be read even without validation ({read}), so the Inspector cannot connect anyway",
                        error.message
                    );
                    error
                })?;
                (manifest, Some(error.details))
            }
            Err(e) => return Err(unproxy_error(discovery_error(e), &proxy, &base)),
        };

        let mut entry = ExtensionEntry::new(
            &manifest.extension.id,
            proxy.base_for(Sender::Mcp).as_str(),
            revision,
        )?;
        let pool = McpPool::with_options(PoolOptions {
            connect_timeout: CONNECT_TIMEOUT,
            request_timeout: REQUEST_TIMEOUT,
            call_timeout: TOOL_CALL_TIMEOUT,
            ..PoolOptions::default()
        });
        match &credential {
            Credential::Bearer(token) => entry = entry.with_bearer_token(&token.0)?,
            Credential::OAuth { aep, .. } => {
                // The pool and the host's client reach the extension through the proxy;
                // the resources signed in to are the extension's own.
                let mcp_base = proxy.base_for(Sender::Mcp);
                let options = aep
                    .options()
                    .clone()
                    .through_proxy(mcp_base.clone(), base.clone());
                pool.set_oauth(&mcp_base, options.clone());
                entry = entry.with_oauth(options)?;
            }
            Credential::None => {}
        }
        let mut registry = Registry::new();
        registry.insert(entry)?;
        let catalog = Catalog::new(Arc::new(registry), pool);
        // The host's catalog discovers (and validates) the manifest itself: an invalid
        // one has no tools there (the tool list says why).
        if invalid.is_none() {
            catalog.add_extension_tools(&manifest.extension.id).await?;
        }
        Ok(Self {
            id,
            base,
            revision,
            client,
            http,
            manifest,
            invalid,
            catalog,
            last_report: Mutex::new(None),
            trace,
            proxy,
            credential,
        })
    }

    /// `text` with the proxy's origin replaced by the extension's: what clients going
    /// through the proxy say (errors, reports, MCP URLs) names the extension.
    pub fn unproxy(&self, text: &str) -> String {
        unproxy(text, &self.proxy, &self.base)
    }

    /// Closes the MCP sessions, then stops the proxy.
    pub async fn close(&self) {
        self.catalog.pool().close().await;
        self.proxy.close().await;
    }

    /// The token to send now (typed in, or the sign-in's, refreshed when it expired),
    /// for server-side requests only.
    pub async fn bearer(&self) -> Option<String> {
        self.credential.bearer().await
    }

    /// The bearer token typed in, if that is the credential.
    pub fn static_token(&self) -> Option<&str> {
        match &self.credential {
            Credential::Bearer(token) => Some(token.0.as_str()),
            _ => None,
        }
    }

    /// The sign-in whose tokens this connection uses, if any.
    pub fn sign_in(&self) -> Option<&str> {
        match &self.credential {
            Credential::OAuth { session, .. } => Some(session),
            _ => None,
        }
    }

    /// A request to `path` under the base URL, with the token.
    pub async fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.http.request(method, probe::join(&self.base, path));
        match self.bearer().await {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// What the page shows of the connection: never a token, only whether there is one
    /// (`auth`: `bearer` or `oauth`, with the sign-in's id in `signIn`).
    pub fn summary(&self) -> Value {
        let auth = match &self.credential {
            Credential::None => None,
            Credential::Bearer(_) => Some("bearer"),
            Credential::OAuth { .. } => Some("oauth"),
        };
        json!({
            "id": self.id,
            "url": self.base.as_str(),
            "revision": self.revision.as_str(),
            "authenticated": auth.is_some(),
            "auth": auth,
            "signIn": self.sign_in(),
            "extension": self.manifest.extension,
            "invalid": self.invalid,
        })
    }
}

impl Credential {
    async fn bearer(&self) -> Option<String> {
        match self {
            Credential::None => None,
            Credential::Bearer(token) => Some(token.0.clone()),
            Credential::OAuth { aep, .. } => aep.access_token().await.map(|t| t.expose().to_owned()),
        }
    }
}

fn unproxy(text: &str, proxy: &Proxy, base: &Url) -> String {
    let to = base.origin().ascii_serialization();
    let mut out = text.to_owned();
    for from in proxy.prefixes() {
        out = replace_prefix(&out, &from, &to);
    }
    out
}

/// `text` with each `from` replaced by `to`, where what follows `from` does not go on
/// with the same name (`http://127.0.0.1:80` is not the start of `http://127.0.0.1:8080`).
fn replace_prefix(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

fn unproxy_error(mut error: ApiError, proxy: &Proxy, base: &Url) -> ApiError {
    error.message = unproxy(&error.message, proxy, base);
    for detail in &mut error.details {
        *detail = unproxy(detail, proxy, base);
    }
    error
}

/// The client's discovery failure, with a manifest's problems one per line.
fn discovery_error(error: aep_sdk::client::ClientError) -> ApiError {
    if error.code == client_codes::DESCRIPTOR_INVALID {
        let (head, problems) = error
            .message
            .split_once(": invalid manifest: ")
            .unwrap_or((error.message.as_str(), ""));
        let details: Vec<String> = problems
            .split("; ")
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        return ApiError::upstream(
            error.code,
            format!(
                "{head} serves a manifest that fails validation ({} problems)",
                details.len()
            ),
        )
        .with_details(details);
    }
    error.into()
}
