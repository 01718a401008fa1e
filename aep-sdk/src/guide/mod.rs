//! The guide: how to write, test, serve and operate an AEP extension with this SDK.
//!
//! Each chapter answers one task; read [`getting_started`] first, then the chapter for
//! what you are doing. Every Rust example here compiles, and most run, as doc tests
//! (`cargo test -p aep-sdk --doc --features full`). Items of a cargo feature are marked
//! with it on docs.rs.
//!
//! Writing an extension:
//! - [`getting_started`]: a first extension from the template in five minutes, and what
//!   it consists of.
//! - [`tools`]: MCP tools from `async fn`s: parameters, schemas, results, errors,
//!   progress, cancellation, timeouts, switching tools on and off.
//! - [`model_providers`]: chat and streamed chat, models, health, cancellation.
//! - [`resources_prompts`]: MCP resources, resource templates, prompts and completion.
//! - [`configuration`]: versioned provider options (option sets), their schemas and
//!   migrations.
//! - [`runtime`]: the same extension without the macro: the builder, the router, any
//!   rmcp server.
//!
//! Running it:
//! - [`serving`]: the serving options, limits, browsers, shutdown, and replicas behind a
//!   load balancer.
//! - [`authorization`]: bearer tokens and the OAuth 2.1 resource server; scopes.
//! - [`operations`]: logs, Prometheus metrics, OpenTelemetry traces and metrics, a
//!   dashboard.
//! - [`testing`]: testing an extension: in-process servers, the conformance suite in
//!   `cargo test`, peers nobody here wrote.
//! - [`protocol_revisions`]: the AEP and MCP revisions served, and what differs.
//!
//! The rest of the workspace:
//! - [`bundled`]: the bundled extensions (Ollama, llama.cpp, LocalAI, OpenAI-compatible,
//!   rig, utilities), the reference host and the gateway.
//! - [`conformance`]: the conformance runner, the Inspector and the official MCP suite.
//! - [`performance`]: the latest figures against hand-written baselines, and how to
//!   reproduce them.

pub mod getting_started {
    #![doc = include_str!("getting_started.md")]
}

pub mod tools {
    #![doc = include_str!("tools.md")]
}

pub mod model_providers {
    #![doc = include_str!("model_providers.md")]
}

pub mod resources_prompts {
    #![doc = include_str!("resources_prompts.md")]
}

pub mod configuration {
    #![doc = include_str!("configuration.md")]
}

pub mod runtime {
    #![doc = include_str!("runtime.md")]
}

pub mod serving {
    #![doc = include_str!("serving.md")]
}

pub mod authorization {
    #![doc = include_str!("authorization.md")]
}

pub mod operations {
    #![doc = include_str!("operations.md")]
}

pub mod testing {
    #![doc = include_str!("testing.md")]
}

pub mod protocol_revisions {
    #![doc = include_str!("protocol_revisions.md")]
}

pub mod bundled {
    #![doc = include_str!("bundled.md")]
}

pub mod conformance {
    #![doc = include_str!("conformance.md")]
}

pub mod performance {
    #![doc = include_str!("performance.md")]
}
