//! The browser mode of the host's OAuth client: the authorization URL goes to
//! `$BROWSER` (here a script that fetches it with curl and follows the redirects, as a
//! browser would), and the loopback listener receives the redirect. In a binary of its
//! own: it sets `BROWSER` for the process.

mod oauth_support;

use std::time::Duration;

use aep_host::oauth::{Authorize, OAuthOptions, SignIn};
use oauth_support::{AuthServer, Behaviour, guarded_utilities};
use url::Url;

#[tokio::test]
async fn the_redirect_listener_receives_the_code_from_the_browser() {
    if std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_err()
    {
        // Without curl this machine cannot play the browser; CI has it.
        assert!(std::env::var_os("CI").is_none(), "curl is needed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("aep-host-oauth-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("browser.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nexec curl -fsSL --max-time 10 -o /dev/null \"$1\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // SAFETY of the test: this binary's only test, before any thread reads it.
    unsafe { std::env::set_var("BROWSER", &script) };

    let (auth, _as) = AuthServer::start(Behaviour::default()).await;
    let extension = guarded_utilities(&auth).await;
    let mcp = Url::parse(&format!("{}/mcp", extension.base_url)).unwrap();
    let authorize = Authorize::Browser {
        open: true,
        port: 0,
        timeout: Duration::from_secs(20),
    };
    let sign_in = SignIn::new(&mcp, OAuthOptions::authorization_code(authorize)).unwrap();
    sign_in
        .sign_in(None)
        .await
        .expect("signed in through the browser");

    let authorizations = auth.seen_at("/authorize");
    assert_eq!(authorizations.len(), 1);
    let redirect = Url::parse(authorizations[0].param("redirect_uri").unwrap()).unwrap();
    assert_eq!(redirect.host_str(), Some("127.0.0.1"));
    assert_eq!(redirect.path(), "/callback");
    assert_ne!(redirect.port(), None);
    // The listener is gone once the code is in.
    assert!(std::net::TcpStream::connect(("127.0.0.1", redirect.port().unwrap())).is_err());
    let _ = std::fs::remove_dir_all(&dir);

    // Nobody signs in: the wait ends at its bound, with the reason.
    unsafe { std::env::set_var("BROWSER", "true") };
    let authorize = Authorize::Browser {
        open: true,
        port: 0,
        timeout: Duration::from_millis(300),
    };
    let error = SignIn::new(&mcp, OAuthOptions::authorization_code(authorize))
        .unwrap()
        .sign_in(None)
        .await
        .unwrap_err();
    assert!(error.message.contains("no sign-in within"), "{error}");
}
