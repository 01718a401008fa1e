//! # aep-inspector
//!
//! A web workbench for any AEP extension: connect (URL, optional bearer token kept
//! server-side, or an OAuth 2.1 sign-in whose tokens stay server-side too, revision), overview (identity, capabilities, providers, tools, MCP
//! servers, option sets, health, both revisions' raw manifests and their diff), a model
//! playground (chat and streamed chat with every SSE frame, its timing and a summary),
//! a tool explorer (tools resolved AEP -> MCP through the host crate, forms from their
//! input schemas, calls), the conformance suite with live progress and export, and an
//! HTTP trace of every exchange with the extension ([`trace`]): the SDK's client, the
//! host's MCP pool and the conformance runner reach it through a recording proxy on a
//! loopback port ([`proxy`]).
//!
//! The page is plain HTML, CSS and JavaScript under `assets/`, embedded at build time
//! ([`assets`]); it calls the JSON API under `/api` ([`api`]), which talks to
//! extensions server-side with the SDK's client, the host's catalog and MCP pool and the
//! conformance runner.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let inspector = std::sync::Arc::new(aep_inspector::Inspector::new(vec!["http://127.0.0.1:8710".into()]));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8720").await?;
//! aep_inspector::serve(listener, inspector).await
//! # }
//! ```
//!
//! Modules depend one way: `error`, `diff`, `sse` and `trace` (the HTTP trace) are leaves; `limits` and `probe`
//! (raw discovery and its diagnosis) use `error`; `proxy` (the recording proxy) uses
//! `trace`; `target` (the URL and revision asked for) uses `error`; `oauth` (signing in)
//! uses `probe` and `target`; `connection` uses `probe`, `proxy`, `target` and `oauth`'s
//! sessions; `store`
//! keeps connections; `stream` (the SSE proxy), `tools`, `surface` (resources and
//! prompts), `configuration` and `suite` work on a connection; `state` holds the store and the sign-ins; `api` (handlers), `callback` (the OAuth
//! redirect's page), `assets` and `guard` sit on
//! those; `app` assembles the router.
#![warn(missing_docs)]

pub mod api;
mod app;
pub mod assets;
pub mod callback;
pub mod configuration;
pub mod connection;
pub mod diff;
pub mod error;
pub mod guard;
pub mod limits;
pub mod oauth;
pub mod probe;
pub mod proxy;
mod sse;
mod state;
pub mod store;
pub mod stream;
pub mod suite;
pub mod surface;
pub mod target;
pub mod tools;
pub mod trace;

pub use app::{router, serve};
pub use error::ApiError;
pub use state::Inspector;
