//! For the sign-in tests: an extension that is an OAuth 2.1 resource server (its AEP
//! routes and two MCP servers, each its own resource, all needing scope `mcp`), and a
//! walk through oidc-provider's pages that refuses consent.

use std::collections::BTreeMap;

use aep_peers::OidcProvider;
use aep_sdk::prelude::*;
use aep_sdk::server::OAuth;
use aep_sdk::testing::{ExtensionServer, ServeOptions, serve};
use url::Url;

/// Who a tool call came from, as the extension saw the token.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Identity {
    /// The token's `sub`: the login.
    pub subject: Option<String>,
    /// Its scopes.
    pub scopes: Vec<String>,
    /// Which MCP server answered.
    pub server: String,
}

fn identity(ctx: &ToolContext, server: &str) -> Identity {
    let caller = ctx.caller();
    Identity {
        subject: caller.and_then(|c| c.subject()).map(str::to_owned),
        scopes: caller.map(|c| c.scopes().to_vec()).unwrap_or_default(),
        server: server.to_owned(),
    }
}

/// The protected extension.
#[derive(Clone, Default)]
pub struct Guarded;

#[aep_extension(id = "test.guarded", name = "Guarded", version = "0.1.0", scopes = ["mcp"])]
impl Guarded {
    /// Who the extension sees calling.
    #[tool(id = "guarded.whoami", display_name = "Who am I", read_only)]
    async fn whoami(&self, ctx: ToolContext) -> Result<Identity, ToolError> {
        Ok(identity(&ctx, "default"))
    }

    /// The same, on the admin server (a resource of its own).
    #[tool(
        id = "guarded.admin_whoami",
        display_name = "Who am I (admin)",
        server = "admin",
        read_only
    )]
    async fn admin_whoami(&self, ctx: ToolContext) -> Result<Identity, ToolError> {
        Ok(identity(&ctx, "admin"))
    }

    /// The last user message, back.
    #[model_provider(id = "echo", models = ["echo-1"])]
    async fn echo(&self, request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text(request.last_user_text().unwrap_or_default()))
    }
}

/// [`Guarded`] trusting `issuer`, served by the SDK's serve loop on a loopback port.
pub fn guarded(issuer: &str) -> ExtensionServer {
    let extension = Guarded
        .extension_builder()
        .oauth(OAuth::issuer(issuer))
        .build()
        .expect("the guarded extension builds");
    serve(extension, ServeOptions::new())
}

/// A query parameter of `url`.
pub fn param(url: &str, name: &str) -> Option<String> {
    Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Visits `authorize_url` and presses oidc-provider's "[ Cancel ]" on its login page:
/// the redirect back to the client, carrying `error=access_denied`.
pub async fn refuse(oidc: &OidcProvider, authorize_url: &str) -> Url {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(15))
        .build()
        .unwrap();
    let issuer = Url::parse(oidc.issuer()).unwrap();
    let mut cookies: BTreeMap<String, String> = BTreeMap::new();
    let mut url = Url::parse(authorize_url).unwrap();
    for _ in 0..8 {
        if url.origin() != issuer.origin() {
            return url;
        }
        // The login page's cancel link is its own path plus `/abort`.
        if url.path().starts_with("/interaction/") && !url.path().ends_with("/abort") {
            url.set_path(&format!("{}/abort", url.path()));
        }
        let cookie: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let response = http
            .get(url.clone())
            .header("cookie", cookie.join("; "))
            .send()
            .await
            .unwrap();
        for set in response.headers().get_all("set-cookie") {
            let pair = set.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        let location = response
            .headers()
            .get("location")
            .unwrap_or_else(|| panic!("{url} answered {} without a redirect", response.status()))
            .to_str()
            .unwrap()
            .to_owned();
        url = url.join(&location).unwrap();
    }
    panic!("no redirect back to the client from {authorize_url}");
}
