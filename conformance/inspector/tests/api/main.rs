//! The Inspector's JSON API against real extensions on loopback ports, a module per
//! screen: connecting (overview, tokens, manifests that fail validation, every kind of
//! bad input, the page itself), the model playground (the streamed chat proxy: frames,
//! timings, stall, cancellation; native options), tools resolved AEP -> MCP with
//! resources and prompts, option sets, the conformance suite, the trace, and signing in
//! with OAuth.

#[path = "../common/mod.rs"]
mod common;

mod configuration;
mod conformance;
mod connections;
mod playground;
mod sign_in;
mod tools;
mod trace;

use serde_json::{Value, json};

/// A chat with `provider`: one user message `text` to `model`.
fn chat(provider: &str, model: &str, text: &str) -> Value {
    json!({"provider": provider, "request": {"model": model, "messages": [{"role": "user", "contents": [{"kind": "text", "text": text}]}]}})
}

/// Values of version `version` of the fixtures' drip option set, to check.
fn drip_values(version: &str, values: Value) -> Value {
    json!({"optionSet": common::fixtures::DRIP_SET, "version": version, "values": values})
}

/// The `id` of each object in `list`.
fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect()
}

/// The object in `list` whose `id` is `id`.
fn with_id<'a>(list: &'a Value, id: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {list}"))
}

/// The exchanges of a trace, newest first.
fn exchanges(trace: &Value) -> std::slice::Iter<'_, Value> {
    trace["exchanges"].as_array().unwrap().iter()
}
