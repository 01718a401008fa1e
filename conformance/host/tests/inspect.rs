//! `aep-host inspect` runs the `aep-inspector` binary found beside it (or on PATH) with
//! its arguments and exits as it does; without one it says how to build it.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// Held while a test writes an executable and runs it. A child forked by the other test
/// while this one's copy is still open for writing inherits that descriptor until it
/// execs, and running the copy then fails with ETXTBSY ("Text file busy"), as seen once.
static EXEC: Mutex<()> = Mutex::new(());

/// A directory holding a copy of `aep-host` and, if `inspector` is given, an
/// `aep-inspector` shell script with that body.
fn install(label: &str, inspector: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aep-host-inspect-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_aep-host"), dir.join("aep-host")).unwrap();
    if let Some(body) = inspector {
        let script = dir.join("aep-inspector");
        std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

#[test]
fn runs_the_inspector_beside_it_with_its_arguments_and_exit_status() {
    let _serial = EXEC.lock().unwrap_or_else(|e| e.into_inner());
    let dir = install("beside", Some(r#"echo "inspector got: $*"; exit 3"#));
    let output = Command::new(dir.join("aep-host"))
        .args(["inspect", "--listen", "127.0.0.1:0", "http://127.0.0.1:8710"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.trim(),
        "inspector got: --listen 127.0.0.1:0 http://127.0.0.1:8710"
    );
    assert_eq!(output.status.code(), Some(3));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_an_inspector_it_says_how_to_build_one() {
    let _serial = EXEC.lock().unwrap_or_else(|e| e.into_inner());
    let dir = install("missing", None);
    let output = Command::new(dir.join("aep-host"))
        .arg("inspect")
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.contains("inspector_not_found"), "{stderr}");
    assert!(stderr.contains("cargo build -p aep-inspector"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
