//! `aep-host inspect`: starts the AEP Inspector. It is its own crate (`aep-inspector`,
//! which builds on this one), so the host runs its binary: beside this one (a cargo
//! build puts both in `target/<profile>/`), else on `PATH`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::{ErrorCode, HostError, Result};

const BINARY: &str = "aep-inspector";

/// Where the Inspector's binary is, if anywhere.
fn find() -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(BINARY)))
        .filter(|path| path.is_file());
    beside.or_else(|| {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|dir| PathBuf::from(dir).join(BINARY))
            .find(|path| path.is_file())
    })
}

/// Runs `aep-inspector ARGS...` and waits for it (until Ctrl-C ends both).
pub fn inspect(args: &[String]) -> Result<ExitCode> {
    let Some(binary) = find() else {
        return Err(HostError::new(
            ErrorCode::InspectorNotFound,
            format!(
                "`{BINARY}` is not beside this binary nor on PATH: build it with `cargo build -p aep-inspector` (or `cargo install --path conformance/inspector`)"
            ),
        ));
    };
    let status = std::process::Command::new(&binary)
        .args(args)
        .status()
        .map_err(|e| {
            HostError::new(
                ErrorCode::InspectorNotFound,
                format!("cannot start {}: {e}", binary.display()),
            )
        })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
