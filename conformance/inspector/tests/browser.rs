//! The Inspector in headless Chromium (Debian's `chromium`, driven by `playwright-core`
//! from `target/peers`, installed by `conformance/peers/install.sh`): every screen
//! driven by role and label against the utilities extension, the echo example and
//! fixtures on loopback ports (`js/inspector_browser.mjs` walks them), and a sign-in to
//! an OAuth-protected extension through oidc-provider's pages in a popup; screenshots in
//! `target/inspector-screenshots/`. Missing Node, playwright-core or Chromium fails under
//! CI (`CI` set) and is skipped with a NOTICE elsewhere; so do the other peers for the
//! sign-in ([`aep_peers::Peers::require`]), whose steps are then left out.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::{Inspector, fixtures, oauth};
use serde_json::{Value, json};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("conformance/inspector sits two levels below the root")
        .to_owned()
}

/// Node, and the script's directory, when Node, playwright-core and Chromium are all there.
fn browser() -> Option<PathBuf> {
    let peers = std::env::var_os("AEP_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/peers"));
    let node = peers.join("bin/node");
    let chromium = std::env::var_os("AEP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let missing: Vec<String> = [
        (node.clone(), "Node (target/peers/bin/node)"),
        (peers.join("npm/node_modules/playwright-core"), "playwright-core"),
        (chromium, "Chromium"),
    ]
    .into_iter()
    .filter(|(path, _)| !path.exists())
    .map(|(path, what)| format!("{what} at {}", path.display()))
    .collect();
    if missing.is_empty() {
        return Some(node);
    }
    let message = format!(
        "the browser test needs {}: run `bash conformance/peers/install.sh`",
        missing.join(", ")
    );
    assert!(std::env::var_os("CI").is_none(), "{message} (CI installs them)");
    eprintln!("NOTICE: {message}; skipping");
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the foreign peers: bash conformance/peers/install.sh (CI runs it and these tests with --include-ignored)"]
async fn every_screen_works_in_headless_chromium() {
    let Some(node) = browser() else { return };
    let utilities = common::utilities().await;
    let echo = common::echo().await;
    let (models, ended) = fixtures::models().await;
    let orders = fixtures::orders().await;
    let slow_health = fixtures::slow_health().await;
    let not_aep = fixtures::not_aep().await;
    let html = fixtures::html_error_page().await;
    let invalid = fixtures::invalid_manifest().await;
    let half_broken = fixtures::utilities_with_invalid_manifest().await;
    // The sign-in: oidc-provider and an extension that trusts it.
    let oidc = match aep_peers::Peers::require() {
        Some(peers) => Some(
            peers
                .oidc_provider(aep_peers::OidcOptions::default())
                .await
                .expect("oidc-provider starts"),
        ),
        None => None,
    };
    let guarded = oidc.as_ref().map(|oidc| oauth::guarded(oidc.issuer()));
    let inspector = Inspector::start(vec![]).await;
    let screenshots = repo_root().join("target/inspector-screenshots");
    let config = json!({
        "guarded": guarded.as_ref().map(|g| g.base_url.clone()),
        "inspector": inspector.url,
        "utilities": utilities.base_url,
        "echo": echo.base_url,
        "models": models.base_url,
        "orders": orders.base_url,
        "slowHealth": slow_health.base_url,
        "unreachable": fixtures::unreachable_url().await,
        "notAep": not_aep.base_url,
        "html": html.base_url,
        "invalid": invalid.base_url,
        "halfBroken": half_broken.base_url,
        "screenshots": screenshots,
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/inspector_browser.mjs");
    let run = tokio::process::Command::new(&node)
        .arg(&script)
        .arg(config.to_string())
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("the browser script ends within 300 s")
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the browser walk failed ({:?}):\n--- stderr\n{stderr}\n--- stdout\n{stdout}",
        output.status.code()
    );
    let result: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    println!("{}", serde_json::to_string_pretty(&result).unwrap_or_default());
    for name in [
        "overview",
        "playground",
        "stalled-stream",
        "tools",
        "resources-prompts",
        "configuration",
        "conformance",
        "trace",
        "native-options",
        "nested-tool",
        "connect-anyway",
        "bad-input",
        "cancelled-wait",
    ]
    .into_iter()
    .chain(guarded.iter().flat_map(|_| ["sign-in-refused", "signed-in"]))
    {
        let file = screenshots.join(format!("{name}.png"));
        assert!(
            std::fs::metadata(&file).is_ok_and(|m| m.len() > 1000),
            "{}",
            file.display()
        );
    }
    assert!(
        ended.load(Ordering::SeqCst) >= 2,
        "the cancelled and the stalled streams were both dropped at the provider"
    );
}
