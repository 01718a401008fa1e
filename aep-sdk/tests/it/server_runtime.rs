//! Runtime behaviour with purpose-built providers: cancellation reaches the provider,
//! failures and panics after the headers become terminal error updates, nothing
//! follows the terminal update, keep-alives fill silences, and shutdown ends streams.

use std::time::Duration;

use aep_sdk::client::Client;
use aep_sdk::prelude::*;
use aep_sdk::server::{Extension, ModelProvider};
use aep_sdk::testing::{ServeOptions, serve, spawn};
use futures::StreamExt;
use tokio::sync::mpsc;

/// What a scripted provider does.
#[derive(Clone)]
enum Script {
    /// Streams one update every 10 ms forever; reports cancellation and stream drop.
    Endless {
        events: mpsc::UnboundedSender<&'static str>,
    },
    /// Yields `n` updates, then an `Err`.
    FailAfter(usize),
    /// Panics before returning its stream.
    PanicEarly,
    /// Panics while streaming, after one update.
    PanicMidStream,
    /// Yields a terminal update, then more updates that must never be sent.
    DataAfterTerminal,
    /// Yields text and ends without a terminal update.
    NoTerminal,
    /// Waits `ms` before its only update.
    Silent(u64),
}

struct Scripted(Script);

struct DropProbe(mpsc::UnboundedSender<&'static str>);
impl Drop for DropProbe {
    fn drop(&mut self) {
        let _ = self.0.send("stream dropped");
    }
}

impl ModelProvider for Scripted {
    async fn chat_stream(&self, _request: ChatRequest, ctx: RequestContext) -> Result<ChatStream, AepError> {
        match self.0.clone() {
            Script::Endless { events } => {
                let token = ctx.cancellation().clone();
                let watcher = events.clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    let _ = watcher.send("cancelled");
                });
                let probe = DropProbe(events);
                let ticks = tokio_stream_interval(Duration::from_millis(10));
                Ok(ChatStream::new(ticks.map(move |i| {
                    let _keep = &probe;
                    Ok(ChatUpdate::text(format!("{i} ")))
                })))
            }
            Script::FailAfter(n) => {
                let mut items: Vec<Result<ChatUpdate, AepError>> =
                    (0..n).map(|i| Ok(ChatUpdate::text(i.to_string()))).collect();
                items.push(Err(AepError::request_failed("upstream fell over")));
                Ok(ChatStream::new(futures::stream::iter(items)))
            }
            Script::PanicEarly => panic!("provider bug"),
            Script::PanicMidStream => {
                let first = futures::stream::iter([Ok(ChatUpdate::text("a"))]);
                let boom = futures::stream::once(async { panic!("stream bug") });
                Ok(ChatStream::new(first.chain(boom)))
            }
            Script::DataAfterTerminal => Ok(ChatStream::new(futures::stream::iter([
                Ok(ChatUpdate::text("x")),
                Ok(ChatUpdate::finish(FinishReason::Length)),
                Ok(ChatUpdate::text("must not be sent")),
                Ok(ChatUpdate::finish(FinishReason::Stop)),
            ]))),
            Script::NoTerminal => Ok(ChatStream::new(futures::stream::iter([Ok(ChatUpdate::text(
                "partial",
            ))]))),
            Script::Silent(ms) => Ok(ChatStream::new(futures::stream::once(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ChatUpdate {
                    finish_reason: Some(FinishReason::Stop),
                    ..ChatUpdate::text("late")
                })
            }))),
        }
    }
}

fn tokio_stream_interval(period: Duration) -> impl futures::Stream<Item = u64> + Send {
    futures::stream::unfold(0u64, move |i| async move {
        tokio::time::sleep(period).await;
        Some((i, i + 1))
    })
}

fn extension(script: Script) -> aep_sdk::server::ExtensionBuilder {
    Extension::builder("test.scripted", "Scripted", "1.0.0")
        .model_provider(ModelProviderDescriptor::new("p", "P"), Scripted(script))
}

fn request() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("go")])
}

/// The stream route's body as sent (the SSE text, keep-alive comments included).
async fn raw_stream(base: &str) -> String {
    reqwest::Client::new()
        .post(format!("{base}/aep/model-providers/p/chat/stream"))
        .json(&request())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn client_disconnect_cancels_the_provider() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let server = spawn(
        extension(Script::Endless { events: tx })
            .build()
            .unwrap()
            .router(),
    )
    .await;
    let client = Client::new(&server.base_url).unwrap();
    let mut stream = client.chat_stream("p", &request()).await.unwrap();
    for _ in 0..3 {
        stream.next().await.unwrap().unwrap();
    }
    drop(stream);
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("provider saw the disconnect");
        seen.push(event.unwrap());
    }
    seen.sort();
    assert_eq!(seen, ["cancelled", "stream dropped"]);
}

#[tokio::test]
async fn failure_after_headers_is_a_terminal_error_update() {
    let server = spawn(extension(Script::FailAfter(2)).build().unwrap().router()).await;
    let body = raw_stream(&server.base_url).await;
    let events: Vec<&str> = body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.len(), 3, "{body}");
    assert_eq!(
        events[2],
        r#"data: {"contents":[],"finishReason":"error","error":{"code":"request_failed","message":"upstream fell over"}}"#
    );
    // The client surfaces it as an error; the non-streaming route as a 502.
    let client = Client::new(&server.base_url).unwrap();
    let items: Vec<_> = client.chat_stream("p", &request()).await.unwrap().collect().await;
    let error = items.last().unwrap().clone().unwrap_err();
    assert_eq!(error.remote_code(), Some("request_failed"));
    let error = client.chat("p", &request()).await.unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(502));
}

#[tokio::test]
async fn panics_never_take_the_server_down() {
    let server = spawn(extension(Script::PanicEarly).build().unwrap().router()).await;
    let response = reqwest::Client::new()
        .post(format!("{}/aep/model-providers/p/chat/stream", server.base_url))
        .json(&request())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal_error");
    let client = Client::new(&server.base_url).unwrap();
    assert!(client.health().await.is_ok(), "still serving after a panic");

    let server = spawn(extension(Script::PanicMidStream).build().unwrap().router()).await;
    let body = raw_stream(&server.base_url).await;
    assert!(body.ends_with("\"finishReason\":\"error\",\"error\":{\"code\":\"internal_error\",\"message\":\"the model provider failed unexpectedly\"}}\n\n"), "{body}");
    let error = Client::new(&server.base_url)
        .unwrap()
        .chat("p", &request())
        .await
        .unwrap_err();
    assert_eq!(error.status.map(|s| s.as_u16()), Some(500));
}

#[tokio::test]
async fn nothing_follows_the_terminal_update() {
    let server = spawn(extension(Script::DataAfterTerminal).build().unwrap().router()).await;
    let body = raw_stream(&server.base_url).await;
    assert!(!body.contains("must not be sent"), "{body}");
    assert!(
        body.ends_with("data: {\"contents\":[],\"finishReason\":\"length\"}\n\n"),
        "{body}"
    );
    let response = Client::new(&server.base_url)
        .unwrap()
        .chat("p", &request())
        .await
        .unwrap();
    assert_eq!(response.all_text(), "x");
    assert_eq!(response.finish_reason, Some(FinishReason::Length));
}

#[tokio::test]
async fn a_stream_without_terminal_update_ends_with_stop() {
    let server = spawn(extension(Script::NoTerminal).build().unwrap().router()).await;
    let body = raw_stream(&server.base_url).await;
    assert!(
        body.ends_with("data: {\"contents\":[],\"finishReason\":\"stop\"}\n\n"),
        "{body}"
    );
}

#[tokio::test]
async fn keep_alive_comments_fill_silences_and_readers_ignore_them() {
    let router = extension(Script::Silent(250))
        .keep_alive(Duration::from_millis(40))
        .build()
        .unwrap()
        .router();
    let server = spawn(router).await;
    let body = raw_stream(&server.base_url).await;
    assert!(body.starts_with(": keep-alive\n\n: keep-alive\n\n"), "{body}");
    assert!(body.ends_with("\"finishReason\":\"stop\"}\n\n"), "{body}");
    let response = Client::new(&server.base_url)
        .unwrap()
        .chat("p", &request())
        .await
        .unwrap();
    assert_eq!(response.all_text(), "late");
}

#[tokio::test]
async fn shutdown_ends_open_streams_with_a_terminal_update() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let extension = extension(Script::Endless { events: tx }).build().unwrap();
    let options = ServeOptions::new().shutdown_grace(Duration::from_millis(200));
    let mut server = serve(extension, options);
    let client = Client::new(&server.base_url).unwrap();
    let mut stream = client.chat_stream("p", &request()).await.unwrap();
    stream.next().await.unwrap().unwrap();
    server.shutdown();
    // New connections are refused while the open stream drains.
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(server.addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(refused, "the listener closes at the shutdown signal");
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(10), stream.collect::<Vec<_>>())
        .await
        .expect("stream ended");
    let last = rest.last().unwrap().clone().unwrap_err();
    assert_eq!(last.remote_code(), Some("shutting_down"));
    // The serve loop returns, with Ok, once.
    tokio::time::timeout(Duration::from_secs(10), server.stopped())
        .await
        .expect("server stopped")
        .unwrap();
    // New connections are refused once it stopped.
    assert!(client.health().await.is_err());
}
