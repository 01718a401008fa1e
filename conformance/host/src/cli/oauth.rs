//! The `--oauth-*` flags: sign in with OAuth 2.1 to the extensions given on the command
//! line (`--extension`, and the URL of `discover`, `resources` and `prompts`) when they
//! answer 401. Extensions of the configuration file use their own `oauth` table.

use std::path::PathBuf;

use clap::Args;

use crate::error::Result;
use crate::oauth::{OAuthOptions, OAuthSettings};

/// The sign-in flags (any of them turns sign-in on).
#[derive(Debug, Clone, Default, Args)]
pub struct OAuthArgs {
    /// Sign in with OAuth 2.1 when an extension given here answers 401 (implied by any
    /// other --oauth-* flag): dynamic registration, a browser, tokens in memory.
    #[arg(long, global = true)]
    pub oauth: bool,
    /// A pre-registered OAuth client id.
    #[arg(long, global = true, value_name = "ID")]
    pub oauth_client_id: Option<String>,
    /// A file holding the pre-registered client's secret (its first line).
    #[arg(long, global = true, value_name = "FILE")]
    pub oauth_client_secret_file: Option<PathBuf>,
    /// The scope to ask for (space-separated; default: the server's challenge, else its
    /// scopes_supported, else none).
    #[arg(long, global = true, value_name = "SCOPE")]
    pub oauth_scope: Option<String>,
    /// This client's metadata document URL, used as the client id by servers that
    /// support Client ID Metadata Documents.
    #[arg(long, global = true, value_name = "URL")]
    pub oauth_client_metadata_url: Option<String>,
    /// Client credentials (machine to machine) instead of a person signing in; needs
    /// --oauth-client-id and --oauth-client-secret-file.
    #[arg(long, global = true)]
    pub oauth_client_credentials: bool,
    /// No browser: follow the authorization server's redirects (for servers that
    /// redirect straight back).
    #[arg(long, global = true)]
    pub oauth_headless: bool,
    /// Open the system's browser on the authorization URL (it is printed either way).
    #[arg(long, global = true)]
    pub oauth_open_browser: bool,
    /// The port of the 127.0.0.1 listener that receives the sign-in redirect (default:
    /// any free port).
    #[arg(long, global = true, value_name = "PORT")]
    pub oauth_redirect_port: Option<u16>,
    /// Where tokens are kept: memory (default), file (aep-host/oauth-tokens.json under
    /// the user's configuration directory, mode 0600), or a file's path.
    #[arg(long, global = true, value_name = "memory|file|PATH")]
    pub oauth_token_store: Option<String>,
}

impl OAuthArgs {
    /// The settings, when any flag asks for sign-in.
    pub fn settings(&self) -> Option<OAuthSettings> {
        let settings = OAuthSettings {
            client_id: self.oauth_client_id.clone(),
            client_secret_file: self.oauth_client_secret_file.clone(),
            client_metadata_url: self.oauth_client_metadata_url.clone(),
            scope: self.oauth_scope.clone(),
            client_credentials: self.oauth_client_credentials,
            headless: self.oauth_headless,
            open_browser: self.oauth_open_browser,
            redirect_port: self.oauth_redirect_port,
            token_store: self.oauth_token_store.clone(),
        };
        (self.oauth || settings != OAuthSettings::default()).then_some(settings)
    }

    /// The options, when any flag asks for sign-in (the secret file is read now).
    pub fn options(&self) -> Result<Option<OAuthOptions>> {
        self.settings().map(|s| s.options()).transpose()
    }
}
