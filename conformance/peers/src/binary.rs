//! This workspace's own executables for the tests of another package (cargo hands
//! `CARGO_BIN_EXE_*` only to a package's own tests): the one cargo put beside the running
//! test, unless it is missing or older than its sources; then cargo builds it first.
//! `cargo test --workspace` (CI) has built it already, with the workspace's features,
//! so nothing is built twice there; `cargo test -p aep-peers` has not.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::process::Command;

use crate::repo_root;

/// Bound on building an executable: a cold build of the SDK on two shared cores.
const BUILD_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// What `aep-utilities` (the bundled tools extension's binary) is built from.
const UTILITIES_SOURCES: &[&str] = &[
    "Cargo.lock",
    "extensions/utilities/Cargo.toml",
    "extensions/utilities/README.md",
    "extensions/utilities/src",
    "aep-sdk/Cargo.toml",
    "aep-sdk/src",
    "aep-sdk-macros/Cargo.toml",
    "aep-sdk-macros/src",
];

/// The `aep-utilities` executable ([`workspace_binary`]).
pub async fn utilities_binary() -> Result<PathBuf, String> {
    workspace_binary("aep-utilities", "aep-utilities", UTILITIES_SOURCES).await
}

/// The executable `bin` of workspace package `package`, built from the files under
/// `sources` (paths relative to the repository root; folders are walked).
pub async fn workspace_binary(package: &str, bin: &str, sources: &[&str]) -> Result<PathBuf, String> {
    let test = std::env::current_exe().map_err(|e| format!("the test's own path: {e}"))?;
    // target/<profile>/deps/<test>-<hash>
    let profile_dir = test
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in a cargo target folder", test.display()))?;
    let beside = profile_dir.join(bin);
    let root = repo_root();
    let newest = sources.iter().filter_map(|s| newest(&root.join(s))).max();
    if let (Ok(built), Some(newest)) = (modified(&beside), newest)
        && built >= newest
    {
        return Ok(beside);
    }
    build(package, bin, profile_dir).await
}

/// `cargo build -p package --bin bin` in the profile of the running test; the path of
/// the executable cargo reports.
async fn build(package: &str, bin: &str, profile_dir: &Path) -> Result<PathBuf, String> {
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_owned(),
        Some(other) => other.to_owned(),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let command = format!("cargo build -p {package} --bin {bin} --profile {profile}");
    let child = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            package,
            "--bin",
            bin,
            "--profile",
            &profile,
        ])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(repo_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{command}: {e}"))?;
    let output = tokio::time::timeout(BUILD_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| format!("{command} did not finish within {BUILD_TIMEOUT:?}"))?
        .map_err(|e| format!("{command}: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let executable = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from));
    match executable {
        Some(path) if output.status.success() => Ok(path),
        _ => Err(format!(
            "{command}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

fn modified(path: &Path) -> std::io::Result<SystemTime> {
    std::fs::metadata(path)?.modified()
}

/// The newest modification time of `path`, or of any file below it.
fn newest(path: &Path) -> Option<SystemTime> {
    let own = modified(path).ok();
    let Ok(entries) = std::fs::read_dir(path) else {
        return own;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| newest(&entry.path()))
        .chain(own)
        .max()
}
