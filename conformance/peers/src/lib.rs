//! Peers nobody here wrote, run against AEP extensions: the official MCP conformance
//! suite (`@modelcontextprotocol/conformance`), the MCP Inspector's CLI, the official
//! Python MCP SDK clients 1.x and 2.x, headless Chromium (CORS as a browser applies it),
//! a foreign AEP extension written in Python (FastAPI + FastMCP), and a real OAuth
//! authorization server (panva's `oidc-provider`, [`OidcProvider`]) with the Python SDK's
//! OAuth client (`python_oauth.rs`), and a real small model behind llama-cpp-python's and
//! llama.cpp's own servers ([`model`]). `install.sh` installs them (pinned) into `target/peers`
//! (`AEP_PEERS_DIR` overrides it); `README.md` documents each peer's commands and output.
//!
//! Every call is bounded in time, captures the peer's output (a peer's own summary line
//! must not reach the test runner's output) and returns it in the error when the peer
//! fails. [`Peers::require`] finds the installation: when it is missing, tests FAIL
//! under CI (`CI` set; `.ci/run` installs the peers) and otherwise print a notice and
//! pass without running.

mod binary;
pub mod model;
mod oidc;
mod python_oauth;

pub use binary::{utilities_binary, workspace_binary};
pub use oidc::{OidcClient, OidcOptions, OidcProvider, Pkce, SigningAlg, Token, jwt_parts};
pub use python_oauth::PythonOAuthServer;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Bound on one peer command (Node starts slowly on two shared cores).
pub const PEER_TIMEOUT: Duration = Duration::from_secs(120);

/// The conformance suite's scenarios that apply to a server offering arbitrary tools.
/// The `tools-call-*` scenarios call fixed tools of the suite's "everything" server
/// (`test_simple_text`, ...) and are listed with that reason in `baseline.txt`.
pub const SERVER_SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
];

/// The scenarios that apply to any server advertising a capability (a member of
/// `initialize`'s `capabilities`), whatever its resources, prompts or log messages are:
/// `logging-set-level` only sets a level, the list scenarios only check each item's
/// required fields. The other resources/prompts scenarios read or get fixed names of the
/// suite's "everything" server (`test://static-text`, `test_simple_prompt`, ...) and are in
/// `baseline.txt`.
pub const CAPABILITY_SCENARIOS: &[(&str, &str)] = &[
    ("logging", "logging-set-level"),
    ("resources", "resources-list"),
    ("prompts", "prompts-list"),
];

/// The scenarios a server with these `capabilities` (from `initialize`) must pass:
/// [`SERVER_SCENARIOS`], then those of [`CAPABILITY_SCENARIOS`] it advertises.
pub fn scenarios_for(capabilities: &Value) -> Vec<&'static str> {
    let advertised = CAPABILITY_SCENARIOS
        .iter()
        .filter(|(capability, _)| capabilities.get(capability).is_some_and(|c| !c.is_null()))
        .map(|(_, scenario)| *scenario);
    SERVER_SCENARIOS.iter().copied().chain(advertised).collect()
}

/// One line of `baseline.txt`: a scenario not run against the bundled extensions, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineEntry {
    /// The scenario's exact name.
    pub scenario: String,
    /// Why it is not run.
    pub reason: String,
}

/// `baseline.txt`: one `scenario reason...` per line, `#` comments and blank lines
/// skipped. A line without a reason, a name that is not a plain scenario name (no
/// patterns) and a name given twice are errors.
pub fn baseline() -> Result<Vec<BaselineEntry>, String> {
    let path = repo_root().join("conformance/peers/baseline.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_baseline(&text)
}

fn parse_baseline(text: &str) -> Result<Vec<BaselineEntry>, String> {
    let mut entries: Vec<BaselineEntry> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (scenario, reason) = line
            .split_once(char::is_whitespace)
            .map(|(s, r)| (s, r.trim()))
            .unwrap_or((line, ""));
        if reason.is_empty() {
            return Err(format!("baseline.txt:{number}: `{scenario}` has no reason"));
        }
        if !scenario.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!(
                "baseline.txt:{number}: `{scenario}` is not a scenario name (one per line, no patterns)"
            ));
        }
        if entries.iter().any(|e| e.scenario == scenario) {
            return Err(format!("baseline.txt:{number}: `{scenario}` is listed twice"));
        }
        entries.push(BaselineEntry {
            scenario: scenario.to_owned(),
            reason: reason.to_owned(),
        });
    }
    Ok(entries)
}

/// An installation of the peers.
#[derive(Debug, Clone)]
pub struct Peers {
    dir: PathBuf,
}

/// The repository's root (this crate is `conformance/peers`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("conformance/peers sits two levels below the root")
        .to_owned()
}

/// What a peer printed and how it ended.
#[derive(Debug, Clone)]
pub struct Run {
    /// The command, for messages.
    pub command: String,
    /// Exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// The whole run, for a failure message.
    pub fn describe(&self) -> String {
        format!(
            "{}\nexit: {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.command, self.code, self.stdout, self.stderr
        )
    }

    /// Lines of stderr that are warnings or errors (Python logging, Ajv's schema warnings,
    /// tracebacks); informational lines are left out.
    pub fn warnings(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|line| {
                let lower = line.to_ascii_lowercase();
                [
                    "warning",
                    "error",
                    "traceback",
                    "unknown format",
                    "ignored in schema",
                    "failed",
                ]
                .iter()
                .any(|w| lower.contains(w))
            })
            .collect()
    }

    /// `Ok(stdout)` when the peer exited 0 and printed no warning.
    pub fn clean(self) -> Result<String, String> {
        if self.code == Some(0) && self.warnings().is_empty() {
            Ok(self.stdout)
        } else {
            Err(self.describe())
        }
    }
}

/// Where `install.sh` installs: `AEP_PEERS_DIR`, else `target/peers`.
pub fn peers_dir() -> PathBuf {
    std::env::var_os("AEP_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/peers"))
}

impl Peers {
    /// The installation in `AEP_PEERS_DIR` or `target/peers`, when complete.
    pub fn find() -> Option<Self> {
        let dir = peers_dir();
        let complete = [
            "conformance",
            "inspector-cli",
            "py1",
            "py2",
            "browser-cors",
            "oidc-provider",
        ]
        .iter()
        .all(|bin| dir.join("bin").join(bin).exists());
        complete.then_some(Self { dir })
    }

    /// [`Peers::find`], failing under CI and printing a notice elsewhere.
    pub fn require() -> Option<Self> {
        let found = Self::find();
        if found.is_none() {
            let message = "the foreign peers are not installed: run `bash conformance/peers/install.sh`";
            assert!(std::env::var_os("CI").is_none(), "{message} (CI installs them)");
            eprintln!("NOTICE: {message}; skipping");
        }
        found
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.dir.join("bin").join(name)
    }

    fn script(name: &str) -> PathBuf {
        repo_root().join("conformance/peers/python").join(name)
    }

    /// Runs `program args`, bounded by [`PEER_TIMEOUT`], output captured.
    pub async fn run(&self, program: &Path, args: &[String]) -> Run {
        let command = format!("{} {}", program.display(), args.join(" "));
        let mut child = Command::new(program);
        child
            .args(args)
            .env("NO_COLOR", "1")
            .env("FORCE_COLOR", "0")
            .stdin(Stdio::null())
            .kill_on_drop(true);
        match tokio::time::timeout(PEER_TIMEOUT, child.output()).await {
            Ok(Ok(output)) => Run {
                command,
                code: output.status.code(),
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            },
            Ok(Err(error)) => Run {
                command,
                code: None,
                stdout: String::new(),
                stderr: format!("could not start: {error}"),
            },
            Err(_) => Run {
                command,
                code: None,
                stdout: String::new(),
                stderr: format!("did not finish within {PEER_TIMEOUT:?}"),
            },
        }
    }

    /// Runs one scenario of the official MCP conformance suite against the MCP endpoint
    /// `url`; `Ok` holds its checks (`checks.json`), every one `SUCCESS` or `INFO`.
    pub async fn mcp_scenario(&self, url: &str, scenario: &str) -> Result<Vec<Value>, String> {
        let out = tempdir(&format!("conformance-{scenario}"));
        let args = [
            "server",
            "--url",
            url,
            "--scenario",
            scenario,
            "-o",
            &out.display().to_string(),
        ]
        .map(String::from);
        let run = self.run(&self.bin("conformance"), &args).await;
        let checks = read_checks(&out);
        let _ = std::fs::remove_dir_all(&out);
        let checks = checks.map_err(|e| format!("{e}\n{}", run.describe()))?;
        let bad: Vec<&Value> = checks
            .iter()
            .filter(|c| !matches!(c["status"].as_str(), Some("SUCCESS" | "INFO")))
            .collect();
        if run.code != Some(0) || !bad.is_empty() || checks.is_empty() {
            return Err(format!(
                "scenario {scenario} against {url}: {}\n{}",
                serde_json::to_string_pretty(&bad).unwrap_or_default(),
                run.describe()
            ));
        }
        Ok(checks)
    }

    /// Every server scenario the suite has (`conformance list --server`), in its order.
    pub async fn mcp_scenario_names(&self) -> Result<Vec<String>, String> {
        let listed = self
            .run(&self.bin("conformance"), &["list".into(), "--server".into()])
            .await;
        let names: Vec<String> = listed
            .stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .collect();
        if listed.code != Some(0) || names.is_empty() {
            return Err(listed.describe());
        }
        Ok(names)
    }

    /// The suite's every server scenario (`--suite all`, one run) against `url`: each
    /// scenario's checks, by scenario name. Pass or fail is for the caller to judge.
    pub async fn mcp_suite(&self, url: &str) -> Result<BTreeMap<String, Vec<Value>>, String> {
        let out = tempdir("conformance-suite");
        let args = [
            "server",
            "--url",
            url,
            "--suite",
            "all",
            "-o",
            &out.display().to_string(),
        ]
        .map(String::from);
        let run = self.run(&self.bin("conformance"), &args).await;
        let results = read_suite(&out);
        let _ = std::fs::remove_dir_all(&out);
        match results {
            Ok(results) if !results.is_empty() => Ok(results),
            Ok(_) => Err(format!("no results\n{}", run.describe())),
            Err(e) => Err(format!("{e}\n{}", run.describe())),
        }
    }

    /// The MCP Inspector CLI against `url` with `args` (`--method tools/list`, ...).
    pub async fn inspector(&self, url: &str, args: &[&str]) -> Run {
        let mut all = vec![url.to_owned(), "--transport".to_owned(), "http".to_owned()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        self.run(&self.bin("inspector-cli"), &all).await
    }

    /// [`Peers::inspector`], which must exit 0 without a warning: the JSON it printed.
    pub async fn inspector_json(&self, url: &str, args: &[&str]) -> Result<Value, String> {
        let output = self.inspector(url, args).await.clean()?;
        serde_json::from_str(&output).map_err(|e| format!("inspector {args:?} output: {e}: {output}"))
    }

    /// The `capabilities` the server at `url` advertises, as the Inspector CLI's
    /// `initialize` reports them.
    pub async fn capabilities(&self, url: &str) -> Result<Value, String> {
        let init = self.inspector_json(url, &["--method", "initialize"]).await?;
        match init.get("capabilities") {
            Some(capabilities @ Value::Object(_)) => Ok(capabilities.clone()),
            _ => Err(format!(
                "no capabilities in the Inspector's initialize output: {init}"
            )),
        }
    }

    /// Lists the tools at `url` with the Inspector CLI and calls every read-only one with
    /// arguments made from its input schema; any warning (an unknown schema `format`, ...)
    /// or error fails. Returns the names of the tools called.
    pub async fn inspector_lists_and_calls(&self, url: &str) -> Result<Vec<String>, String> {
        let listed = self.inspector(url, &["--method", "tools/list"]).await.clean()?;
        let listed: Value =
            serde_json::from_str(&listed).map_err(|e| format!("tools/list output: {e}: {listed}"))?;
        let tools = listed["tools"].as_array().cloned().unwrap_or_default();
        if tools.is_empty() {
            return Err(format!("the Inspector listed no tools at {url}"));
        }
        let mut called = Vec::new();
        for tool in tools
            .iter()
            .filter(|t| t["annotations"]["readOnlyHint"] == json!(true))
        {
            let name = tool["name"].as_str().unwrap_or_default();
            let mut args = vec!["--method", "tools/call", "--tool-name", name];
            let pairs: Vec<String> = arguments_for(&tool["inputSchema"])
                .into_iter()
                .map(|(key, value)| match value {
                    Value::String(text) => format!("{key}={text}"),
                    other => format!("{key}={other}"),
                })
                .collect();
            if !pairs.is_empty() {
                args.push("--tool-arg");
                args.extend(pairs.iter().map(String::as_str));
            }
            let mut run = self.inspector(url, &args).await;
            // A tool error is an answer (exit 5, `tool_is_error` on stderr, the result on
            // stdout); only warnings and other failures count against the server.
            if run.code == Some(5) && run.stderr.contains("\"tool_is_error\"") {
                run.code = Some(0);
                run.stderr = run
                    .stderr
                    .lines()
                    .filter(|l| !l.contains("\"tool_is_error\""))
                    .collect();
            }
            let output = run.clean()?;
            let result: Value = serde_json::from_str(&output)
                .map_err(|e| format!("tools/call {name} output: {e}: {output}"))?;
            if result["content"].as_array().is_none_or(Vec::is_empty) {
                return Err(format!("tools/call {name} at {url}: {result}"));
            }
            called.push(name.to_owned());
        }
        Ok(called)
    }

    /// The official Python MCP client of `sdk` against `url`: lists every tool and calls
    /// each read-only one. `Ok` holds one JSON line per call (`tool`, `arguments`,
    /// `result`; a result may be a tool error).
    pub async fn python_client(&self, sdk: PythonSdk, url: &str) -> Result<Vec<Value>, String> {
        self.python_client_with(sdk, url, &[]).await
    }

    /// The official Python MCP client of `sdk` against `url` doing the resources/prompts
    /// pass that `args` ask for (`--resources`, `--read URI`, `--prompts`, `--prompt NAME
    /// ARGS`; `python/_client_common.py`, `surface`): one JSON line per step, a JSON-RPC
    /// error being the answer of its step (`{"read": uri, "error": {"code", "message"}}`).
    pub async fn python_surface(
        &self,
        sdk: PythonSdk,
        url: &str,
        args: &[&str],
    ) -> Result<Vec<Value>, String> {
        self.python_client_with(sdk, url, args).await
    }

    async fn python_client_with(
        &self,
        sdk: PythonSdk,
        url: &str,
        extra: &[&str],
    ) -> Result<Vec<Value>, String> {
        let (python, script, mut args) = match sdk {
            PythonSdk::V1 => ("py1", "mcp_client_v1.py", vec![]),
            PythonSdk::V2(mode) => (
                "py2",
                "mcp_client_v2.py",
                vec!["--mode".to_owned(), mode.to_owned()],
            ),
        };
        let mut all = vec![Self::script(script).display().to_string(), url.to_owned()];
        all.append(&mut args);
        all.extend(extra.iter().map(|a| (*a).to_owned()));
        let mut run = self.run(&self.bin(python), &all).await;
        // Exit 2: a tool answered `isError: true`, which is an answer, not a failure.
        if run.code == Some(2) {
            run.code = Some(0);
        }
        let stdout = run.clean()?;
        stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).map_err(|e| format!("{e}: {l}")))
            .collect()
    }

    /// The official Python SDK client of `sdk` (1.x, or 2.x in `legacy` mode: the one that
    /// has `logging/setLevel`) against the MCP endpoint `url`, which must offer
    /// `count_slowly(to)` (progress per step, a debug log per step and an info log at the
    /// end): progress after `logging/setLevel debug`, the logs at `debug` and at `warning`,
    /// and a count to 100 cancelled after its third progress notification
    /// (`python/mcp_progress_v1.py`, `mcp_progress_v2.py`; their JSON report).
    pub async fn python_progress(&self, sdk: PythonSdk, url: &str) -> Result<Value, String> {
        self.python_progress_of(sdk, url, "count_slowly").await
    }

    /// [`Peers::python_progress`] calling the tool by the name `tool` (a gateway lists
    /// `count_slowly` under its AEP id).
    pub async fn python_progress_of(&self, sdk: PythonSdk, url: &str, tool: &str) -> Result<Value, String> {
        let (python, script) = match sdk {
            PythonSdk::V1 => ("py1", "mcp_progress_v1.py"),
            PythonSdk::V2("legacy") => ("py2", "mcp_progress_v2.py"),
            PythonSdk::V2(mode) => return Err(format!("mcp_progress_v2.py speaks legacy only, not {mode}")),
        };
        let args = vec![
            Self::script(script).display().to_string(),
            url.to_owned(),
            tool.to_owned(),
        ];
        let stdout = self.run(&self.bin(python), &args).await.clean()?;
        serde_json::from_str(stdout.trim()).map_err(|e| format!("{e}: {stdout}"))
    }

    /// `python/<script> args` on the py1 venv's Python as a command, for a test that
    /// drives the process itself (its stdin, when to stop it); killed on drop.
    pub fn py1_command(&self, script: &str, args: &[&str]) -> Command {
        let mut command = Command::new(self.bin("py1"));
        command.arg(Self::script(script)).args(args).kill_on_drop(true);
        command
    }

    /// Runs `python/<script> args` on the py1 venv's Python ([`Peers::run`]: bounded,
    /// output captured).
    pub async fn py1(&self, script: &str, args: &[&str]) -> Run {
        let mut all = vec![Self::script(script).display().to_string()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        self.run(&self.bin("py1"), &all).await
    }

    /// Starts the foreign Python extension (`foreign_ext.py`) with `flags`
    /// (`--v1-canonical`, `--health-loading`, `--nulls`) on a free loopback port.
    pub async fn python_extension(&self, flags: &[&str]) -> Result<PythonExtension, String> {
        let mut command = Command::new(self.bin("py1"));
        command
            .arg(Self::script("foreign_ext.py"))
            .args(["--port", "0"])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| format!("foreign_ext.py: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .map_err(|_| "foreign_ext.py did not say LISTENING within 60 s".to_owned())?
            .map_err(|e| e.to_string())?
            .ok_or("foreign_ext.py exited before listening")?;
        let base_url = line
            .strip_prefix("LISTENING ")
            .ok_or_else(|| format!("unexpected first line: {line}"))?
            .trim()
            .to_owned();
        Ok(PythonExtension {
            base_url,
            _child: child,
        })
    }
}

impl Peers {
    /// Every peer against one MCP endpoint: the suite's scenarios that apply to what it
    /// advertises ([`scenarios_for`]), the Inspector CLI and each Python client mode listing
    /// and calling the read-only tools. Returns every failure, or the tools the Inspector
    /// called.
    pub async fn check_mcp_endpoint(&self, url: &str) -> Result<Vec<String>, String> {
        let mut failures = Vec::new();
        let scenarios = match self.capabilities(url).await {
            Ok(capabilities) => scenarios_for(&capabilities),
            Err(error) => {
                failures.push(error);
                SERVER_SCENARIOS.to_vec()
            }
        };
        for scenario in scenarios {
            if let Err(error) = self.mcp_scenario(url, scenario).await {
                failures.push(error);
            }
        }
        let called = self
            .inspector_lists_and_calls(url)
            .await
            .map_err(|e| failures.push(e))
            .ok();
        for sdk in PythonSdk::ALL {
            if let Err(error) = self.python_client(sdk, url).await {
                failures.push(format!("{sdk:?}: {error}"));
            }
        }
        match called {
            Some(called) if failures.is_empty() => Ok(called),
            _ => Err(failures.join("\n\n")),
        }
    }
}

/// A running extension binary, stopped on drop.
#[derive(Debug)]
pub struct RunningBinary {
    /// `http://127.0.0.1:PORT`, from its `listening on` log line.
    pub base_url: String,
    _child: Child,
}

/// Starts an extension binary built with this SDK on `127.0.0.1:0` (`--listen`) and
/// waits (at most 60 s) for its `listening on http://...` log line.
pub async fn start_binary(program: &Path) -> Result<RunningBinary, String> {
    start_binary_with(program, &[]).await
}

/// [`start_binary`] with more arguments (`--oauth-issuer URL`, ...).
pub async fn start_binary_with(program: &Path, args: &[&str]) -> Result<RunningBinary, String> {
    start_binary_env(program, args, &[]).await
}

/// [`start_binary_with`] with environment variables set for the binary.
pub async fn start_binary_env(
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<RunningBinary, String> {
    let mut child = Command::new(program)
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stdout).lines();
    let base_url = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some((_, rest)) = line.split_once("listening on ") {
                // `listening on http://127.0.0.1:PORT extension=...`
                return rest.split_whitespace().next().map(str::to_owned);
            }
        }
        None
    })
    .await
    .map_err(|_| format!("{} did not log `listening on` within 60 s", program.display()))?;
    let Some(base_url) = base_url else {
        // It exited (a refused flag, say): its reason is on stderr.
        let mut said = String::new();
        let read = tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said);
        let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
        return Err(format!("{} exited before listening: {said}", program.display()));
    };
    // Keep draining its output so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    tokio::spawn(async move { tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await });
    Ok(RunningBinary {
        base_url,
        _child: child,
    })
}

impl Peers {
    /// Headless Chromium (Debian's, driven by playwright-core) fetching the extension at
    /// `base_url` from a page on `localhost` and from one on the foreign origin
    /// `127.0.0.2`: discovery, a streamed chat with `model`, an MCP session (initialize,
    /// tools/list, DELETE). Returns the script's JSON report (`conformance/peers/README.md`).
    pub async fn browser_cors(&self, base_url: &str, model: &str) -> Result<Value, String> {
        let run = self
            .run(
                &self.bin("browser-cors"),
                &[base_url.to_owned(), model.to_owned()],
            )
            .await;
        if run.code != Some(0) {
            return Err(run.describe());
        }
        serde_json::from_str(run.stdout.trim()).map_err(|e| format!("{e}\n{}", run.describe()))
    }
}

/// Which official Python MCP SDK runs the client.
#[derive(Debug, Clone, Copy)]
pub enum PythonSdk {
    /// `mcp` 1.x: `streamable_http_client` + `ClientSession` (session revision).
    V1,
    /// `mcp` 2.x: `mcp.Client(url, mode=...)` with `legacy`, `auto` or `2026-07-28`.
    V2(&'static str),
}

impl PythonSdk {
    /// 1.x, and 2.x in each of its modes.
    pub const ALL: [PythonSdk; 4] = [
        PythonSdk::V1,
        PythonSdk::V2("legacy"),
        PythonSdk::V2("auto"),
        PythonSdk::V2("2026-07-28"),
    ];
}

/// The running foreign extension; stopped on drop.
#[derive(Debug)]
pub struct PythonExtension {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    _child: Child,
}

/// Arguments for a call made from an input schema: every required property, strings
/// `"x"`, integers their minimum or 1, numbers 1.5, booleans true, arrays empty (or one
/// item when `minItems` says so), enums their first value, objects recursively.
pub fn arguments_for(schema: &Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for name in required {
        arguments.insert(name.to_owned(), value_for(&schema["properties"][name]));
    }
    arguments
}

fn value_for(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(first) = schema["oneOf"]
        .as_array()
        .or(schema["anyOf"].as_array())
        .and_then(|b| b.first())
    {
        return value_for(first);
    }
    let kind = match &schema["type"] {
        Value::Array(types) => types
            .iter()
            .find(|t| *t != "null")
            .cloned()
            .unwrap_or(Value::Null),
        other => other.clone(),
    };
    match kind.as_str() {
        Some("string") => json!("x"),
        Some("integer") => schema["minimum"].as_i64().map_or(json!(1), |m| json!(m.max(1))),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        Some("array") => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            Value::Array((0..min).map(|_| value_for(&schema["items"])).collect())
        }
        Some("object") => Value::Object(arguments_for(schema)),
        _ => Value::Null,
    }
}

fn tempdir(label: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = repo_root()
        .join("target/tmp")
        .join(format!("{label}-{}-{nanos}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The suite run's results: `OUT/server-<scenario>-<time>/checks.json` for each scenario,
/// `<time>` being an ISO time with `:` and `.` made `-` (`2026-12-01T09-00-23-577Z`).
fn read_suite(out: &Path) -> Result<BTreeMap<String, Vec<Value>>, String> {
    const TIME: usize = "-2026-12-01T09-00-23-577Z".len();
    let mut results = BTreeMap::new();
    let entries = std::fs::read_dir(out).map_err(|e| format!("no results in {}: {e}", out.display()))?;
    for dir in entries.filter_map(Result::ok).map(|e| e.path()) {
        let folder = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let scenario = folder
            .strip_prefix("server-")
            .and_then(|rest| rest.get(..rest.len().checked_sub(TIME)?))
            .ok_or_else(|| format!("unexpected result folder {}", dir.display()))?;
        let file = dir.join("checks.json");
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let checks = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        results.insert(scenario.to_owned(), checks);
    }
    Ok(results)
}

/// Whether every check passed: `SUCCESS` or `INFO`, at least one (a `WARNING` does not pass).
pub fn checks_pass(checks: &[Value]) -> bool {
    !checks.is_empty()
        && checks
            .iter()
            .all(|c| matches!(c["status"].as_str(), Some("SUCCESS" | "INFO")))
}

/// `OUT/server-<scenario>-<time>/checks.json`, the suite's result file.
fn read_checks(out: &Path) -> Result<Vec<Value>, String> {
    let entries = std::fs::read_dir(out).map_err(|e| format!("no results in {}: {e}", out.display()))?;
    let file = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join("checks.json"))
        .find(|p| p.exists())
        .ok_or_else(|| format!("no checks.json under {}", out.display()))?;
    let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer", "minimum": 0, "maximum": 255},
                "numbers": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                "case": {"enum": ["upper", "lower"]},
                "nested": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]},
                "optional": {"type": ["integer", "null"]}
            },
            "required": ["text", "times", "numbers", "case", "nested"]
        });
        assert_eq!(
            Value::Object(arguments_for(&schema)),
            json!({"text": "x", "times": 1, "numbers": [1], "case": "upper", "nested": {"on": true}})
        );
    }

    #[test]
    fn baseline_lines_are_one_scenario_and_a_reason() {
        let parsed = parse_baseline("# comment\n\nping   answers pings\ntools-list lists  tools\n").unwrap();
        assert_eq!(
            parsed,
            [
                BaselineEntry {
                    scenario: "ping".into(),
                    reason: "answers pings".into()
                },
                BaselineEntry {
                    scenario: "tools-list".into(),
                    reason: "lists  tools".into()
                }
            ]
        );
        assert!(parse_baseline("ping\n").unwrap_err().contains("no reason"));
        assert!(
            parse_baseline("resources-* all of them\n")
                .unwrap_err()
                .contains("no patterns")
        );
        assert!(parse_baseline("ping a\nping b\n").unwrap_err().contains("twice"));
    }

    #[test]
    fn scenarios_follow_the_advertised_capabilities() {
        let all = scenarios_for(&json!({"tools": {}, "logging": {}, "resources": {}, "prompts": {}}));
        assert_eq!(&all[..SERVER_SCENARIOS.len()], SERVER_SCENARIOS);
        assert_eq!(
            &all[SERVER_SCENARIOS.len()..],
            ["logging-set-level", "resources-list", "prompts-list"]
        );
        let tools_only = scenarios_for(&json!({"tools": {}}));
        assert_eq!(tools_only, SERVER_SCENARIOS);
    }

    #[test]
    fn warnings_are_found_in_stderr() {
        let run = Run {
            command: "c".into(),
            code: Some(0),
            stdout: String::new(),
            stderr: "negotiated protocolVersion 2025-11-25\nunknown format \"uint\" ignored in schema at path \"#/properties/total\"\n".into(),
        };
        assert_eq!(run.warnings().len(), 1);
        assert!(run.clean().is_err());
    }
}
