//! `aep-host` signing in from the command line (`--oauth-*`) and from the configuration
//! file (`[extensions.<id>.oauth]`), with a token file that a second run reuses, against
//! the stand-in authorization server of tests/oauth_support.

use crate::common;
use crate::oauth_support;

use common::run::{Run, aep_host_with};
use oauth_support::{AuthServer, Behaviour, guarded_utilities};

/// Runs `aep-host args...` with `HOME` and `XDG_CONFIG_HOME` in `home` and debug logs
/// (a token must not show even there), killed after 60 s.
async fn aep_host(home: &std::path::Path, args: &[&str]) -> Run {
    let home = home.to_path_buf();
    aep_host_with(args, move |command| {
        command
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("RUST_LOG", "debug");
    })
    .await
}

#[tokio::test]
async fn the_flags_and_the_file_sign_in_and_a_second_run_reuses_the_tokens() {
    let (auth, _as) = AuthServer::start(Behaviour::default()).await;
    let extension = guarded_utilities(&auth).await;
    let home = std::env::temp_dir().join(format!("aep-host-oauth-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let flag = format!("aep.utilities={}", extension.base_url);
    let call = ["call", "hash.compute", r#"{"text":"abc"}"#];

    // Without sign-in: refused.
    let refused = aep_host(&home, &[&["-e", &flag][..], &call].concat()).await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);

    // The flags: headless, tokens in the default file under the configuration directory.
    let args = [
        &["--oauth-headless", "--oauth-token-store", "file", "-e", &flag][..],
        &call,
    ]
    .concat();
    let run = aep_host(&home, &args).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("ba7816bf"), "{}", run.stdout);
    let store = home.join("config").join("aep-host").join("oauth-tokens.json");
    let text = std::fs::read_to_string(&store).expect("the token file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&store).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    // Nothing printed or logged (at debug) shows a token.
    let tokens: serde_json::Value = serde_json::from_str(&text).unwrap();
    let issued: Vec<&str> = tokens["tokens"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["access_token"].as_str().unwrap())
        .collect();
    assert_eq!(issued.len(), 2, "the AEP routes and the MCP server: {text}");
    for token in &issued {
        assert!(
            !run.stdout.contains(token) && !run.stderr.contains(token),
            "{token} was shown"
        );
    }
    assert_eq!(auth.seen_at("/authorize").len(), 2);

    // The configuration file, the same token file: no new sign-in.
    let config = home.join("host.toml");
    std::fs::write(
        &config,
        format!(
            "[extensions.\"aep.utilities\"]\nurl = \"{}\"\n[extensions.\"aep.utilities\".oauth]\nheadless = true\ntoken_store = \"{}\"\n",
            extension.base_url,
            store.display()
        ),
    )
    .unwrap();
    let run = aep_host(
        &home,
        &[&["--config", config.to_str().unwrap()][..], &call].concat(),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(auth.seen_at("/authorize").len(), 2, "tokens from the file");

    // Client credentials without a secret: said before anything is sent.
    let run = aep_host(
        &home,
        &[
            &[
                "--oauth-client-credentials",
                "--oauth-client-id",
                "ci",
                "-e",
                &flag,
            ][..],
            &call,
        ]
        .concat(),
    )
    .await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("client id and a secret file"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&home);
}
