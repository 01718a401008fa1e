//! Renders `aep-extension` for each starting point with real cargo-generate (the test
//! fails under CI without it and is skipped with a notice elsewhere), builds the result
//! against the local aep-sdk, and runs its tests, which start the extension and run the
//! conformance suite; the ones with tools are then started as binaries and checked by the
//! foreign peers (conformance/peers). The generated crates share one target directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("templates/ has a parent")
        .to_owned()
}

fn cargo_generate_available() -> bool {
    Command::new("cargo")
        .args(["generate", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Renders with real cargo-generate, as a user does.
fn render(starting_point: &str, name: &str, dest: &Path) {
    let template_dir = workspace().join("templates/aep-extension");
    let values = BTreeMap::from([
        (
            "extension_id".to_owned(),
            format!("test.{}", starting_point.replace('-', ".")),
        ),
        ("display_name".to_owned(), format!("Test {starting_point}")),
        ("starting_point".to_owned(), starting_point.to_owned()),
        ("aep_sdk_source".to_owned(), workspace().display().to_string()),
    ]);
    let parent = dest.parent().expect("dest has a parent");
    std::fs::create_dir_all(parent).expect("create the destination's parent");
    let mut command = Command::new("cargo");
    command
        .args(["generate", "--silent", "--vcs", "none", "--path"])
        .arg(&template_dir);
    command.args(["--name", name, "--destination"]).arg(parent);
    for (key, value) in &values {
        command.arg("--define").arg(format!("{key}={value}"));
    }
    let output = command.output().expect("cargo generate runs");
    assert!(
        output.status.success(),
        "cargo generate failed\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
#[ignore = "needs cargo-generate 0.23.7 and the foreign peers (CI installs them and runs these tests with --include-ignored)"]
fn every_starting_point_builds_without_warnings_and_passes_conformance() {
    if !cargo_generate_available() {
        let message = "cargo-generate is not installed: `cargo install cargo-generate@0.23.7 --locked`";
        assert!(std::env::var_os("CI").is_none(), "{message} (CI installs it)");
        eprintln!("NOTICE: {message}; skipping");
        return;
    }
    let root = workspace().join("target/aep-templates");
    for starting_point in ["tools-and-provider", "tools", "model-provider"] {
        let name = format!("my-{starting_point}-extension");
        let dest = root.join(&name);
        let _ = std::fs::remove_dir_all(&dest);
        render(starting_point, &name, &dest);
        // Same dependency versions as this workspace: nothing new to download or build.
        std::fs::copy(workspace().join("Cargo.lock"), dest.join("Cargo.lock")).expect("copy Cargo.lock");
        lean(starting_point, &dest);
        let output = Command::new(env!("CARGO"))
            .args(["test", "--quiet"])
            .current_dir(&dest)
            .env("CARGO_TARGET_DIR", root.join("target"))
            .env_remove("RUSTFLAGS")
            .output()
            .expect("cargo test runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{starting_point}: cargo test failed\n{stdout}\n{stderr}"
        );
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning")).collect();
        assert!(warnings.is_empty(), "{starting_point}: warnings\n{stderr}");
        assert!(
            stdout.contains("test result: ok"),
            "{starting_point}: no tests ran\n{stdout}"
        );
        // The binary as `cargo build` makes it (aep-sdk's default features; `cargo test`
        // built it with the dev-dependencies' features), checked by the peers below too.
        let built = Command::new(env!("CARGO"))
            .args(["build", "--quiet"])
            .current_dir(&dest)
            .env("CARGO_TARGET_DIR", root.join("target"))
            .env_remove("RUSTFLAGS")
            .output()
            .expect("cargo build runs");
        assert!(
            built.status.success(),
            "{starting_point}: cargo build failed\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let binary = root.join("target/debug").join(&name);
        if starting_point == "tools-and-provider" {
            without_optional_features(&binary);
        }
        if starting_point != "model-provider" {
            peers_accept(&binary);
        }
    }
}

/// What a generated extension must not build unless it asks (aep-sdk's features
/// `client`, `oauth`, `config`, `otel`): an HTTP client, a JSON Schema validator, JWT
/// checks, OpenTelemetry.
const NOT_BY_DEFAULT: [&str; 8] = [
    "reqwest",
    "jsonschema",
    "jsonwebtoken",
    "aws-lc-rs",
    "opentelemetry",
    "rustls",
    // HTTP/2 (aep-sdk's `http2` feature) and a regex engine (tracing-subscriber's
    // `env-filter`): a tenth and a fifth of what the SDK adds to a cold build.
    "h2",
    "regex",
];

/// `cargo tree` of the generated extension's build (not its tests) holds none of
/// [`NOT_BY_DEFAULT`].
fn lean(starting_point: &str, dest: &Path) {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--edges", "normal", "--prefix", "none", "--format", "{p}"])
        .current_dir(dest)
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && tree.contains("aep-sdk"),
        "{starting_point}: cargo tree failed\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let heavy: Vec<&str> = tree
        .lines()
        .filter(|line| {
            let name = line.split(' ').next().unwrap_or("");
            NOT_BY_DEFAULT.iter().any(|heavy| name.starts_with(heavy))
        })
        .collect();
    assert!(
        heavy.is_empty(),
        "{starting_point}: default features build {heavy:?}\n{tree}"
    );
}

/// What a default-features binary does with what needs a feature it lacks: OAuth settings
/// stop it before it listens, naming the feature; native options are refused as by an
/// extension that declares no option set (422 `option_set_unsupported`).
fn without_optional_features(binary: &Path) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let refused = aep_peers::start_binary_with(binary, &["--oauth-issuer", "https://login.example.com"]).await;
        let Err(said) = refused else {
            panic!("{}: served OAuth without the `oauth` feature", binary.display());
        };
        assert!(said.contains("`oauth` feature"), "{said}");

        let running = aep_peers::start_binary(binary).await.unwrap_or_else(|e| panic!("{e}"));
        let addr = running
            .base_url
            .trim_start_matches("http://")
            .parse()
            .expect("the binary logs host:port");
        let body = br#"{"model":"echo-1","messages":[{"role":"user","contents":[{"kind":"text","text":"hi"}]}],
            "options":{"nativeOptions":{"optionSet":"acme.tuning","version":"1.0.0","schemaDigest":"sha256:00","values":{}}}}"#;
        let request = aep_sdk::testing::raw::request(
            "POST",
            "/aep/model-providers/echo/chat",
            &["content-type: application/json"],
            body,
        );
        let answer = aep_sdk::testing::raw::exchange(addr, request, std::time::Duration::from_secs(10))
            .await
            .answer();
        assert_eq!(answer.status, 422, "{}", answer.preview());
        assert_eq!(answer.error_code().as_deref(), Some("option_set_unsupported"), "{}", answer.preview());
    });
}

/// The generated binary, started as a user would, checked by the peers nobody here wrote
/// (MCP conformance suite, Inspector CLI, Python clients; see conformance/peers).
fn peers_accept(binary: &Path) {
    let Some(peers) = aep_peers::Peers::require() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let running = aep_peers::start_binary(binary)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let url = format!("{}/mcp", running.base_url);
        let called = peers
            .check_mcp_endpoint(&url)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
        assert!(
            !called.is_empty(),
            "{}: no read-only tool was called",
            binary.display()
        );
    });
}
