//! Scale-out (issue 10, item 8): two replicas of one extension behind a real nginx on
//! loopback. AEP calls and stateless MCP calls are balanced round robin and alternate
//! between the replicas; streams pass through unbuffered with every update and their
//! terminal update; session-based MCP clients stay on the replica that holds their
//! session. The configuration is the one the serving guide recommends (`aep_sdk::guide::serving`,
//! "Behind a load balancer").
//!
//! nginx: each test starts its own nginx (`nginx -p <dir> -c <dir>/nginx.conf -g
//! 'daemon off;'`) with a generated configuration, pid file, logs and temp paths in a
//! directory under `target/tmp`, listening on a free 127.0.0.1 port, and stops it when
//! the test ends. When no `nginx` binary is found (PATH, /usr/sbin, /usr/local/sbin,
//! /usr/local/nginx/sbin), the tests FAIL if the `CI` environment variable is set (CI
//! installs Debian's `nginx` package) and otherwise print a notice and pass without
//! running. Install it with `apt-get install nginx`.
//!
//! The replicas answer with their name so each test sees who served it: the manifest's
//! description, the `model` of chat answers and updates, and the `whoami` tool's result.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::server::{ConnectionLimits, Extension};
use futures::StreamExt;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tokio::sync::Semaphore;

const REPLICAS: [&str; 2] = ["replica-a", "replica-b"];
/// Bound on each test's work once nginx runs.
const TEST_LIMIT: Duration = Duration::from_secs(60);

/// One replica of the extension; every answer names it.
#[derive(Clone)]
struct Replica {
    name: &'static str,
    /// Gated streams wait here after their first update (see `streams_pass_unbuffered`).
    gate: Arc<Semaphore>,
}

#[aep_extension(id = "t.replicated", name = "Replicated", version = "1.0.0")]
impl Replica {
    /// Name the replica that served this call.
    #[tool(read_only)]
    async fn whoami(&self) -> String {
        self.name.to_owned()
    }

    /// Streams `metadata.updates` (default 1) sequence-numbered updates, each with the
    /// replica's name as `model`. With `metadata.gate`, waits for the gate after the first.
    #[model_provider(id = "replica", models = ["r"])]
    async fn answer(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let metadata = request.metadata.unwrap_or_default();
        let updates = metadata.get("updates").and_then(|v| v.as_u64()).unwrap_or(1);
        let gated = metadata.get("gate").and_then(|v| v.as_bool()).unwrap_or(false);
        let (name, gate) = (self.name, self.gate.clone());
        let stream = futures::stream::unfold(0u64, move |i| {
            let gate = gate.clone();
            async move {
                if gated && i == 1 {
                    gate.acquire().await.ok()?.forget();
                }
                let update = match i {
                    i if i < updates => ChatUpdate::text(i.to_string()),
                    i if i == updates => ChatUpdate::finish(FinishReason::Stop),
                    _ => return None,
                };
                let update = ChatUpdate {
                    model: Some(name.to_owned()),
                    ..update
                };
                Some((Ok(update), i + 1))
            }
        });
        Ok(ChatStream::new(stream))
    }
}

/// The nginx configuration under test. `{dir}` holds everything nginx writes.
fn nginx_conf(dir: &Path, listen: SocketAddr, replicas: &[SocketAddr]) -> String {
    let servers: String = replicas
        .iter()
        .map(|addr| format!("        server {addr};\n"))
        .collect();
    let dir = dir.display();
    format!(
        r#"worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}

http {{
    log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr '
                        'mcp-version="$http_mcp_protocol_version" session="$http_mcp_session_id"';
    access_log {dir}/access.log upstream;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    # MCP affinity: stateless requests (revision 2026-07-28 sends MCP-Protocol-Version
    # on every request) get an empty key, which the hash balancer serves round robin;
    # everything else, session clients' initialize (which has no session id yet)
    # included, is keyed by client address and stays on one replica.
    map $http_mcp_protocol_version $mcp_affinity {{
        default      $remote_addr;
        "2026-07-28" "";
    }}

    upstream aep {{
{servers}        keepalive 16;
    }}

    upstream aep_mcp {{
        hash $mcp_affinity consistent;
{servers}        keepalive 16;
    }}

    server {{
        listen {listen};

        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        # Streams (AEP chat/stream, MCP SSE) pass through as they are written.
        proxy_buffering off;
        proxy_request_buffering off;
        proxy_cache off;
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
        # The SDK accepts 16 MiB request bodies; nginx's default is 1 MiB.
        client_max_body_size 16m;

        location /mcp {{
            proxy_pass http://aep_mcp;
        }}

        location / {{
            proxy_pass http://aep;
        }}
    }}
}}
"#
    )
}

fn find_nginx() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"].map(PathBuf::from))
        .map(|dir| dir.join("nginx"))
        .find(|candidate| candidate.is_file())
}

/// A running nginx; stopped (TERM, then KILL) and its directory removed on drop. When
/// the test panics the directory (config and logs) is kept and the error log printed.
struct Nginx {
    child: Child,
    dir: PathBuf,
    base_url: String,
}

impl Nginx {
    fn start(binary: &Path, replicas: &[SocketAddr], name: &str) -> Self {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scale_out-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let listen = free_port();
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(&dir, listen, replicas)).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf)
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut nginx = Self {
            child,
            dir,
            base_url: format!("http://{listen}"),
        };
        let started = Instant::now();
        while std::net::TcpStream::connect_timeout(&listen, Duration::from_millis(100)).is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                panic!("nginx exited ({status}):\n{}", nginx.log("error.log"));
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx does not listen on {listen}:\n{}",
                nginx.log("error.log")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // TERM lets the master stop its workers; KILL if it has not within 5 s.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let started = Instant::now();
        while !matches!(self.child.try_wait(), Ok(Some(_))) {
            if started.elapsed() > Duration::from_secs(5) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if std::thread::panicking() {
            eprintln!(
                "nginx files kept in {}\n--- error.log\n{}--- access.log (tail)\n{}",
                self.dir.display(),
                self.log("error.log"),
                tail(&self.log("access.log"), 40)
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n") + "\n"
}

fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// Two replicas served by `serve_listener` and nginx in front of them.
struct Setup {
    nginx: Nginx,
    gate: Arc<Semaphore>,
    replicas: Vec<SocketAddr>,
}

impl Setup {
    /// `None` when nginx is not installed and `CI` is not set (see the file's header).
    async fn start(name: &str) -> Option<Self> {
        let Some(binary) = find_nginx() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "nginx is not installed, and CI is set: install Debian's nginx package"
            );
            eprintln!("NOTICE: nginx not found; scale-out test '{name}' skipped (install nginx to run it)");
            return None;
        };
        let gate = Arc::new(Semaphore::new(0));
        let mut addrs = Vec::new();
        for name in REPLICAS {
            let replica = Replica {
                name,
                gate: gate.clone(),
            };
            let extension: Extension = replica
                .extension_builder()
                .description(format!("served by {name}"))
                .build()
                .unwrap();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addrs.push(listener.local_addr().unwrap());
            tokio::spawn(extension.serve_listener(
                listener,
                std::future::pending(),
                ConnectionLimits::default(),
            ));
        }
        let nginx = tokio::task::block_in_place(|| Nginx::start(&binary, &addrs, name));
        Some(Self {
            nginx,
            gate,
            replicas: addrs,
        })
    }

    fn base(&self) -> &str {
        &self.nginx.base_url
    }
}

/// Runs a test body with the overall bound.
async fn bounded<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(TEST_LIMIT, work)
        .await
        .unwrap_or_else(|_| panic!("not done within {TEST_LIMIT:?}"))
}

fn assert_alternates(served: &[String]) {
    assert!(
        served.iter().all(|s| REPLICAS.contains(&s.as_str())),
        "{served:?}"
    );
    for pair in served.windows(2) {
        assert_ne!(
            pair[0], pair[1],
            "consecutive requests must alternate: {served:?}"
        );
    }
}

fn chat_request(updates: u64, gate: bool) -> ChatRequest {
    let serde_json::Value::Object(metadata) = json!({ "updates": updates, "gate": gate }) else {
        unreachable!()
    };
    ChatRequest {
        metadata: Some(metadata),
        ..ChatRequest::new("r", vec![Message::user("who?")])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's nginx (CI installs it and runs these tests with --include-ignored)"]
async fn aep_calls_alternate_between_replicas() {
    let Some(setup) = Setup::start("aep").await else {
        return;
    };
    bounded(async {
        let client = Client::new(setup.base()).unwrap();
        let discover = || async {
            let manifest = client.discover().await.unwrap();
            let description = manifest.extension.description.unwrap();
            description.trim_start_matches("served by ").to_owned()
        };
        let chat = || async {
            let answer = client.chat("replica", &chat_request(3, false)).await.unwrap();
            assert_eq!(answer.all_text(), "012");
            answer.model.unwrap()
        };
        // Each kind of call alone, then both interleaved.
        let mut served = Vec::new();
        for _ in 0..10 {
            served.push(discover().await);
        }
        assert_alternates(&served);
        served.clear();
        for _ in 0..10 {
            served.push(chat().await);
        }
        assert_alternates(&served);
        served.clear();
        for i in 0..10 {
            served.push(if i % 2 == 0 {
                discover().await
            } else {
                chat().await
            });
        }
        assert_alternates(&served);
        assert!(client.health().await.is_ok());
        assert_eq!(client.models("replica").await.unwrap()[0].id, "r");
    })
    .await;
}

/// Reads one stream through nginx; returns the replica that served it.
async fn read_stream(client: &Client, updates: u64) -> Result<String, String> {
    let mut stream = client
        .chat_stream("replica", &chat_request(updates, false))
        .await
        .map_err(|e| e.to_string())?;
    let (mut seen, mut terminals, mut replica) = (0u64, 0, None::<String>);
    while let Some(update) = stream.next().await {
        let update = update.map_err(|e| e.to_string())?;
        let model = update.model.clone().ok_or("update without model")?;
        if replica.get_or_insert_with(|| model.clone()) != &model {
            return Err(format!("one stream from two replicas: {replica:?} and {model}"));
        }
        if update.is_terminal() {
            terminals += 1;
            if seen != updates {
                return Err(format!("terminal update after {seen} of {updates}"));
            }
        } else if update.text_delta() != seen.to_string() {
            return Err(format!("expected {seen}, got '{}'", update.text_delta()));
        } else {
            seen += 1;
        }
    }
    if terminals != 1 {
        return Err(format!("{terminals} terminal updates"));
    }
    replica.ok_or_else(|| "empty stream".to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's nginx (CI installs it and runs these tests with --include-ignored)"]
async fn streams_pass_through_unbuffered_and_whole() {
    let Some(setup) = Setup::start("streams").await else {
        return;
    };
    bounded(async {
        let client = Client::new(setup.base()).unwrap();

        // A stream that stalls after its first update until the test has that update: a
        // buffering proxy would hold it back and this would time out.
        let mut stream = client
            .chat_stream("replica", &chat_request(3, true))
            .await
            .unwrap();
        let first = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("the first update passes nginx before the stream goes on")
            .unwrap()
            .unwrap();
        assert_eq!(first.text_delta(), "0");
        setup.gate.add_permits(1);
        let rest: Vec<_> = stream.map(Result::unwrap).collect().await;
        assert_eq!(rest.len(), 3, "{rest:?}");
        assert!(rest[2].is_terminal());

        // 40 concurrent streams of 500 updates: every update once, in order, one
        // terminal update each; round robin gives each replica half of them.
        let streams = 40;
        let tasks: Vec<_> = (0..streams)
            .map(|_| {
                let client = client.clone();
                tokio::spawn(async move { read_stream(&client, 500).await })
            })
            .collect();
        let mut per_replica = BTreeMap::<String, usize>::new();
        for task in futures::future::join_all(tasks).await {
            let replica = task
                .unwrap()
                .unwrap_or_else(|e| panic!("stream through nginx: {e}"));
            *per_replica.entry(replica).or_default() += 1;
        }
        eprintln!("streams per replica: {per_replica:?}");
        assert_eq!(
            per_replica.values().copied().collect::<Vec<_>>(),
            [streams / 2, streams / 2],
            "{per_replica:?}"
        );
    })
    .await;
}

type McpClient = RunningService<RoleClient, ClientConfig>;

async fn whoami(client: &McpClient) -> String {
    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .expect("tools/call through nginx");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's nginx (CI installs it and runs these tests with --include-ignored)"]
async fn stateless_mcp_calls_alternate_between_replicas() {
    let Some(setup) = Setup::start("mcp-stateless").await else {
        return;
    };
    bounded(async {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", setup.base())),
        );
        let client = ClientConfig::default()
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("stateless MCP client through nginx");
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 1);
        let mut served = Vec::new();
        for _ in 0..20 {
            served.push(whoami(&client).await);
        }
        assert_alternates(&served);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Debian's nginx (CI installs it and runs these tests with --include-ignored)"]
async fn session_mcp_clients_stick_to_one_replica() {
    let Some(setup) = Setup::start("mcp-session").await else {
        return;
    };
    bounded(async {
        // 24 session clients, each from its own loopback address (the balancer's
        // affinity key), connect concurrently; each initializes and makes 10 calls.
        let url = format!("{}/mcp", setup.base());
        let tasks: Vec<_> = (0..24u8)
            .map(|i| {
                let url = url.clone();
                tokio::spawn(async move {
                    let http = reqwest::Client::builder()
                        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 10 + i)))
                        .build()
                        .unwrap();
                    let transport =
                        StreamableHttpClientTransport::with_client(http, StreamableHttpClientTransportConfig::with_uri(url));
                    let client = ClientConfig::default()
                        .serve(transport)
                        .await
                        .expect("MCP initialize through nginx");
                    assert!(client.peer_info().is_some(), "initialized");
                    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
                    let mut served = Vec::new();
                    for _ in 0..10 {
                        served.push(whoami(&client).await);
                    }
                    client.cancel().await.unwrap();
                    served
                })
            })
            .collect();
        let mut sessions_per_replica = BTreeMap::<String, usize>::new();
        for task in futures::future::join_all(tasks).await {
            let served = task.unwrap();
            assert!(
                served.iter().all(|s| s == &served[0]),
                "a session moved between replicas: {served:?}"
            );
            *sessions_per_replica.entry(served[0].clone()).or_default() += 1;
        }
        eprintln!("sessions per replica: {sessions_per_replica:?}");
        assert_eq!(
            sessions_per_replica.len(),
            2,
            "sessions from 24 addresses spread over both replicas: {sessions_per_replica:?}"
        );

        // Why the stickiness: a session lives in the replica that answered `initialize`.
        // Its id means nothing to the other replica.
        let [a, b] = [setup.replicas[0], setup.replicas[1]];
        let http = reqwest::Client::new();
        let post = |addr: SocketAddr, session: Option<&str>, body: &'static str| {
            let mut request = http
                .post(format!("http://{addr}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body);
            if let Some(session) = session {
                request = request
                    .header("mcp-session-id", session)
                    .header("mcp-protocol-version", "2025-11-25");
            }
            request.send()
        };
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let answer = post(a, None, initialize).await.unwrap();
        assert_eq!(answer.status(), 200);
        let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        assert_eq!(post(a, Some(&session), initialized).await.unwrap().status(), 202);
        let elsewhere = post(b, Some(&session), initialized).await.unwrap().status();
        assert_eq!(elsewhere, 404, "the other replica does not know the session");
    })
    .await;
}
