//! Getting from the authorization URL to the redirect that carries the code:
//! [`Authorize::Browser`] (a person, with a loopback listener for the redirect),
//! [`Authorize::Headless`] (the server redirects straight back: follow it without a
//! browser), or [`Authorize::Custom`] (your function, e.g. one that logs in through a
//! login form).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use url::Url;

use super::discovery::failed;
use super::listener::Listener;
use crate::error::Result;

/// The redirect URI of [`Authorize::headless`]: nothing listens there, the host reads
/// the code from the redirect itself.
pub const HEADLESS_REDIRECT_URI: &str = "http://127.0.0.1/oauth/callback";

/// Bound on the redirects followed in headless mode.
const MAX_HOPS: usize = 10;

/// One trip through the authorization endpoint.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    /// The authorization URL, with `client_id`, `redirect_uri`, `state`, the PKCE
    /// challenge, `resource` and `scope`.
    pub url: Url,
    /// Where the server sends the browser back.
    pub redirect_uri: Url,
    /// The resource being signed in to.
    pub resource: String,
    /// The authorization server's issuer.
    pub issuer: String,
}

/// Takes an [`AuthorizationRequest`] to the redirect: returns the URL the server
/// redirected to (the redirect URI with `code` and `state`, or `error`). Closures
/// `Fn(AuthorizationRequest) -> impl Future<Output = Result<Url>>` are `Visit`s.
pub trait Visit: Send + Sync {
    /// Visits the authorization URL.
    fn visit(&self, request: AuthorizationRequest) -> BoxFuture<'static, Result<Url>>;
}

impl<F, Fut> Visit for F
where
    F: Fn(AuthorizationRequest) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Url>> + Send + 'static,
{
    fn visit(&self, request: AuthorizationRequest) -> BoxFuture<'static, Result<Url>> {
        Box::pin(self(request))
    }
}

/// How the authorization endpoint is visited.
#[derive(Clone)]
pub enum Authorize {
    /// Print the URL on stderr (and open a browser when `open`: `$BROWSER`, else
    /// `xdg-open`, `open` on macOS); a listener on
    /// `127.0.0.1:port` (0: any free port) receives the redirect, waited for at most
    /// `timeout`.
    Browser {
        /// Open the system's browser on the URL.
        open: bool,
        /// The listener's port.
        port: u16,
        /// Bound on the person's sign-in.
        timeout: Duration,
    },
    /// Fetch the URL without a browser and follow the server's redirects until one
    /// reaches `redirect_uri` (for servers that redirect straight back, like the MCP
    /// conformance suite's).
    Headless {
        /// The redirect URI to register and send.
        redirect_uri: Url,
    },
    /// Your own [`Visit`], given ten times the options' request timeout to come back.
    Custom {
        /// The redirect URI to register and send.
        redirect_uri: Url,
        /// Takes the request to the redirect.
        visit: Arc<dyn Visit>,
    },
}

impl fmt::Debug for Authorize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Authorize::Browser { open, port, timeout } => f
                .debug_struct("Browser")
                .field("open", open)
                .field("port", port)
                .field("timeout", timeout)
                .finish(),
            Authorize::Headless { redirect_uri } => f
                .debug_struct("Headless")
                .field("redirect_uri", &redirect_uri.as_str())
                .finish(),
            Authorize::Custom { redirect_uri, .. } => f
                .debug_struct("Custom")
                .field("redirect_uri", &redirect_uri.as_str())
                .finish_non_exhaustive(),
        }
    }
}

impl Authorize {
    /// [`Authorize::Headless`] with [`HEADLESS_REDIRECT_URI`].
    pub fn headless() -> Self {
        Authorize::Headless {
            redirect_uri: Url::parse(HEADLESS_REDIRECT_URI).expect("a URL"),
        }
    }

    /// [`Authorize::Browser`] on any free port, five minutes to sign in.
    pub fn browser(open: bool) -> Self {
        Authorize::Browser {
            open,
            port: 0,
            timeout: Duration::from_secs(300),
        }
    }

    /// [`Authorize::Custom`] with `visit`.
    pub fn custom(redirect_uri: Url, visit: impl Visit + 'static) -> Self {
        Authorize::Custom {
            redirect_uri,
            visit: Arc::new(visit),
        }
    }

    /// Gets ready for one authorization: binds the listener (browser mode) and says
    /// which redirect URI to use.
    pub(crate) async fn prepare(&self, request_timeout: Duration) -> Result<Prepared> {
        Ok(match self {
            Authorize::Browser { open, port, timeout } => {
                let listener = Listener::bind(*port).await?;
                Prepared {
                    redirect_uri: listener.redirect_uri().clone(),
                    how: How::Browser {
                        listener,
                        open: *open,
                        timeout: *timeout,
                    },
                }
            }
            Authorize::Headless { redirect_uri } => Prepared {
                redirect_uri: redirect_uri.clone(),
                how: How::Headless { request_timeout },
            },
            Authorize::Custom { redirect_uri, visit } => Prepared {
                redirect_uri: redirect_uri.clone(),
                how: How::Custom {
                    visit: visit.clone(),
                    bound: request_timeout * 10,
                },
            },
        })
    }
}

/// One authorization, ready to visit.
pub(crate) struct Prepared {
    pub(crate) redirect_uri: Url,
    how: How,
}

enum How {
    Browser {
        listener: Listener,
        open: bool,
        timeout: Duration,
    },
    Headless {
        request_timeout: Duration,
    },
    Custom {
        visit: Arc<dyn Visit>,
        bound: Duration,
    },
}

impl Prepared {
    /// Visits the authorization URL; the redirect's URL.
    pub(crate) async fn visit(self, request: AuthorizationRequest) -> Result<Url> {
        match self.how {
            How::Browser {
                listener,
                open,
                timeout,
            } => {
                eprintln!(
                    "To sign in to {} (authorization server {}), open this URL in a browser:\n  {}",
                    request.resource, request.issuer, request.url
                );
                if open && let Err(why) = open_browser(&request.url) {
                    eprintln!("(could not open a browser: {why}; open the URL yourself)");
                }
                listener.wait(timeout).await
            }
            How::Headless { request_timeout } => follow_redirects(&request, request_timeout).await,
            How::Custom { visit, bound } => match tokio::time::timeout(bound, visit.visit(request)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(failed(format!(
                    "the authorization visit did not come back within {}s",
                    bound.as_secs()
                ))),
            },
        }
    }
}

/// Headless: fetches the authorization URL without a browser and follows the server's
/// redirects (at most ten) until one points at the redirect URI; returns that URL. A
/// page instead of a redirect means the server wants a person: use the browser mode.
pub async fn follow_redirects(request: &AuthorizationRequest, timeout: Duration) -> Result<Url> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .map_err(|e| failed(format!("HTTP client: {e}")))?;
    let mut url = request.url.clone();
    for _ in 0..MAX_HOPS {
        if is_redirect_uri(&url, &request.redirect_uri) {
            return Ok(url);
        }
        let response = http.get(url.clone()).send().await.map_err(|e| {
            failed(format!(
                "authorization request: {}",
                aep_sdk::client::error_chain(&e)
            ))
        })?;
        let status = response.status();
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        match location {
            Some(location) if status.is_redirection() => {
                url = url
                    .join(&location)
                    .map_err(|e| failed(format!("authorization request: bad Location '{location}': {e}")))?;
            }
            _ => {
                return Err(failed(format!(
                    "the authorization server answered the authorization request with HTTP {} \
                     instead of a redirect back: it wants a person to sign in, so run without \
                     headless mode (--oauth-headless) and sign in in a browser",
                    status.as_u16()
                )));
            }
        }
    }
    Err(failed(format!(
        "the authorization request did not come back to {} within {MAX_HOPS} redirects",
        request.redirect_uri
    )))
}

fn is_redirect_uri(url: &Url, redirect_uri: &Url) -> bool {
    url.scheme() == redirect_uri.scheme()
        && url.host_str() == redirect_uri.host_str()
        && url.port_or_known_default() == redirect_uri.port_or_known_default()
        && url.path() == redirect_uri.path()
}

/// Opens a browser on `url`: the program named by `$BROWSER`, else the system's opener
/// (no shell: the URL is one argument).
fn open_browser(url: &Url) -> std::result::Result<(), String> {
    let chosen = std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty());
    let (program, args): (String, Vec<&str>) = match &chosen {
        Some(browser) => (browser.trim().to_owned(), vec![url.as_str()]),
        None if cfg!(target_os = "macos") => ("open".to_owned(), vec![url.as_str()]),
        None if cfg!(windows) => (
            "rundll32".to_owned(),
            vec!["url.dll,FileProtocolHandler", url.as_str()],
        ),
        None => ("xdg-open".to_owned(), vec![url.as_str()]),
    };
    std::process::Command::new(&program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reaped when it exits (xdg-open returns at once; a browser may stay).
            std::thread::spawn(move || child.wait());
        })
        .map_err(|e| format!("{program}: {e}"))
}
