//! Every workspace binary's `--help`, and each of its subcommands' (read from the
//! "Commands:" section), is plain text: no rustdoc markup (backticks, links, "README",
//! attributes) leaks from the doc comments clap turns into help texts. An extension's
//! help introduces the extension on its first line, as `ServeArgs::command` does
//! ("NAME VERSION, an AEP extension (ID)"), groups its own options under a heading of
//! their own before the serving flags ("Listening:", ...) and ends with "Examples:"; the
//! other binaries end their top-level help with "Examples:" too. Needs no peer: only the
//! binaries, built by `workspace_binary` when they are missing or stale.

use std::path::{Path, PathBuf};
use std::process::Command;

use aep_peers::{utilities_binary, workspace_binary};

/// What the binaries are built from: the workspace's crates (a change anywhere makes
/// `workspace_binary` ask cargo, which rebuilds only what the change touched).
const SOURCES: &[&str] = &[
    "Cargo.lock",
    "aep-sdk",
    "aep-sdk-macros",
    "extensions",
    "conformance",
];

/// Secrets the binaries read from the environment; `--help` shows no value of theirs.
const SECRETS: [&str; 5] = [
    "AEP_BEARER_TOKEN",
    "AEP_OAUTH_INTROSPECTION_SECRET",
    "LocalAI__ApiKey",
    "AEP_OPENAI_API_KEY",
    "AEP_RIG_API_KEY",
];
const CANARY: &str = "s3cret-canary-value";

/// What rustdoc markup looks like when it leaks into a help text.
const MARKUP: [&str; 5] = ["`", "](", "[`", "README", "#["];

/// One workspace binary.
struct Binary {
    package: &'static str,
    bin: &'static str,
    /// For an extension: its name as its manifest gives it, and the heading of its own
    /// options (none when it has none).
    extension: Option<(&'static str, Option<&'static str>)>,
}

const BINARIES: &[Binary] = &[
    Binary {
        package: "aep-mcp-everything",
        bin: "aep-mcp-everything",
        extension: Some(("MCP everything server", None)),
    },
    Binary {
        package: "aep-ollama",
        bin: "aep-ollama",
        extension: Some(("Ollama", Some("Ollama:"))),
    },
    Binary {
        package: "aep-openai-compatible",
        bin: "aep-llamacpp",
        extension: Some(("llama.cpp", Some("llama.cpp server:"))),
    },
    Binary {
        package: "aep-openai-compatible",
        bin: "aep-localai",
        extension: Some(("LocalAI", Some("LocalAI:"))),
    },
    Binary {
        package: "aep-openai-compatible",
        bin: "aep-openai",
        extension: Some(("OpenAI-compatible", Some("Upstream server:"))),
    },
    Binary {
        package: "aep-rig",
        bin: "aep-rig",
        extension: Some(("rig", Some("rig provider:"))),
    },
    Binary {
        package: "aep-host",
        bin: "aep-host",
        extension: None,
    },
    Binary {
        package: "aep-conformance",
        bin: "aep-conformance",
        extension: None,
    },
    Binary {
        package: "aep-inspector",
        bin: "aep-inspector",
        extension: None,
    },
    Binary {
        package: "aep-mcp-everything",
        bin: "aep-mcp-everything-client",
        extension: None,
    },
    Binary {
        package: "aep-bench",
        bin: "aep-bench",
        extension: None,
    },
    Binary {
        package: "fake-openai",
        bin: "fake-openai",
        extension: None,
    },
];

/// The executable, built when missing or older than its sources.
async fn executable(binary: &Binary) -> PathBuf {
    workspace_binary(binary.package, binary.bin, SOURCES)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `program ARGS... --help`, in an environment holding only the [`SECRETS`] (no other
/// AEP_* value shown beside a flag).
fn help(program: &Path, args: &[String]) -> String {
    let output = Command::new(program)
        .args(args)
        .arg("--help")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(SECRETS.map(|name| (name, CANARY)))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} {} --help: {}\n{text}{}",
        program.display(),
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// The subcommands the "Commands:" section lists, but help.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim_end() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        // An entry starts two spaces in; a wrapped description further.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The help of `program` and of every subcommand under it, each with the arguments that
/// reach it.
fn helps(program: &Path, args: Vec<String>, into: &mut Vec<(String, String)>) {
    let text = help(program, &args);
    for sub in subcommands(&text) {
        let mut deeper = args.clone();
        deeper.push(sub);
        helps(program, deeper, into);
    }
    into.push((args.join(" "), text));
}

#[tokio::test]
async fn every_binary_introduces_itself_in_plain_text() {
    let utilities = utilities_binary().await.unwrap_or_else(|e| panic!("{e}"));
    let mut binaries = vec![("aep-utilities", utilities, Some(("Utilities", None::<&str>)))];
    for binary in BINARIES {
        binaries.push((binary.bin, executable(binary).await, binary.extension));
    }
    let mut failures = Vec::new();
    for (bin, program, extension) in binaries {
        let mut texts = Vec::new();
        helps(&program, Vec::new(), &mut texts);
        for (args, text) in &texts {
            let command = format!("{bin} {args}").trim_end().to_owned();
            if text.contains(CANARY) {
                failures.push(format!("{command} --help shows a secret's value"));
            }
            for markup in MARKUP {
                if let Some(line) = text.lines().find(|line| line.contains(markup)) {
                    failures.push(format!("{command} --help has {markup:?}: {line}"));
                }
            }
        }
        let top = &texts.last().expect("the top-level help").1;
        if !top.contains("\nExamples:\n") {
            failures.push(format!("{bin} --help has no Examples section"));
        }
        let Some((name, heading)) = extension else {
            continue;
        };
        let first = top.lines().next().unwrap_or_default();
        if !(first.starts_with(&format!("{name} ")) && first.contains(", an AEP extension (")) {
            failures.push(format!(
                "{bin} --help does not begin with \"{name} VERSION, an AEP extension (ID)\": {first}"
            ));
        }
        for expected in ["Listening:", "Access:"].into_iter().chain(heading) {
            if !top.lines().any(|line| line == expected) {
                failures.push(format!("{bin} --help has no {expected} heading"));
            }
        }
        if let Some(heading) = heading {
            let own = top.find(&format!("\n{heading}\n"));
            let serving = top.find("\nListening:\n");
            if !matches!((own, serving), (Some(own), Some(serving)) if own < serving) {
                failures.push(format!(
                    "{bin} --help: its own options ({heading}) do not come before the serving flags"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
