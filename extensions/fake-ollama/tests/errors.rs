//! Validation errors: statuses and texts as Ollama answers them.

mod common;

use common::*;
use fake_ollama::FakeOllama;
use serde_json::{Value, json};

async fn err(fake: &FakeOllama, body: Value) -> (u16, String) {
    let (status, ct, text) = chat(&fake.base_url(), body).await;
    assert!(ct.starts_with("application/json"), "errors are JSON: {ct}");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), 1, "only an error field: {text}");
    (status, v["error"].as_str().unwrap().to_string())
}

fn user(content: &str) -> Value {
    json!([{"role": "user", "content": content}])
}

#[tokio::test]
async fn chat_validation_like_ollama() {
    let fake = FakeOllama::start().await;
    let f = &fake;

    assert_eq!(
        err(f, json!({"model": "Nope:7b", "messages": user("x")})).await,
        (404, "model 'Nope:7b' not found".into())
    );
    assert_eq!(
        err(
            f,
            json!({"model": "llama3.2", "think": true, "messages": user("x")})
        )
        .await,
        (400, "\"llama3.2\" does not support thinking".into())
    );
    assert_eq!(
        err(
            f,
            json!({"model": "llama3.2", "think": "high", "messages": user("x")})
        )
        .await,
        (400, "\"llama3.2\" does not support thinking".into())
    );
    assert_eq!(
        err(f, json!({"model": "gemma3:4b", "messages": user("x"), "tools": [{"type": "function", "function": {"name": "f"}}]})).await,
        (400, "registry.ollama.ai/library/gemma3:4b does not support tools".into())
    );
    assert_eq!(
        err(f, json!({"model": "nomic-embed-text", "messages": user("x")})).await,
        (400, "\"nomic-embed-text\" does not support chat".into())
    );
    assert_eq!(
        err(
            f,
            json!({"model": "llama3.2", "messages": user("x"), "options": {"stop": "\n"}})
        )
        .await,
        (500, "option \"stop\" must be of type array".into())
    );
    assert_eq!(
        err(
            f,
            json!({"model": "llama3.2", "messages": user("x"), "options": {"num_ctx": "big"}})
        )
        .await,
        (500, "option \"num_ctx\" must be of type integer".into())
    );
    assert_eq!(
        err(f, json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x", "images": ["data:image/png;base64,iVBORw0KGgo="]}]})).await,
        (400, "illegal base64 data at input byte 4".into())
    );
    assert_eq!(
        err(
            f,
            json!({"model": "llama3.2", "messages": user("x"), "keep_alive": "300"})
        )
        .await,
        (400, "time: missing unit in duration \"300\"".into())
    );
    let (status, _) = err(
        f,
        json!({"model": "llama3.2", "messages": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{\"a\":1}"}}]},
            {"role": "tool", "content": "r", "tool_name": "f"}
        ]}),
    )
    .await;
    assert_eq!(status, 400, "string arguments in history are rejected");
    let (status, msg) = err(
        f,
        json!({"model": "llama3.2", "messages": user("x"), "stream": "yes"}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(msg.contains("cannot unmarshal string"), "{msg}");
    assert_eq!(
        err(f, json!({"messages": user("x")})).await,
        (400, "model is required".into())
    );
    assert_eq!(
        err(f, json!({"model": "bad name!", "messages": user("x")})).await,
        (400, "invalid model name".into())
    );

    let r = client()
        .post(format!("{}/api/chat", fake.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"error": "missing request body"})
    );
    let r = client()
        .post(format!("{}/api/chat", fake.base_url()))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // Validation failures consume no scripted reply.
    assert_eq!(fake.pending_replies(), 0);
}

#[tokio::test]
async fn accepted_variants() {
    let fake = FakeOllama::start().await;
    let ok = |body: Value| {
        let base = fake.base_url();
        async move {
            let (status, _, text) = chat(&base, body).await;
            assert_eq!(status, 200, "{text}");
        }
    };
    // think:false on a model without thinking is fine (only a truthy think is rejected).
    ok(json!({"model": "llama3.2", "think": false, "messages": user("x")})).await;
    // Unknown option keys are ignored; numbers of any shape are accepted for ints.
    ok(json!({"model": "llama3.2", "messages": user("x"), "options": {"frobnicate": true, "num_ctx": 4096.0, "stop": ["\n"], "temperature": 0}})).await;
    // keep_alive as a number of seconds or a Go duration.
    ok(json!({"model": "llama3.2", "messages": user("x"), "keep_alive": 300})).await;
    ok(json!({"model": "llama3.2", "messages": user("x"), "keep_alive": "10m"})).await;
    ok(json!({"model": "llama3.2", "messages": user("x"), "keep_alive": -1})).await;
    // Raw base64 images.
    ok(json!({"model": "gemma3:4b", "messages": [{"role": "user", "content": "x", "images": ["iVBORw0KGgo="]}]})).await;
    // Object arguments in replayed history, tool results with tool_name.
    ok(json!({"model": "llama3.2", "messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_abc", "function": {"index": 0, "name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "content": "r", "tool_name": "f"}
    ], "tools": [{"type": "function", "function": {"name": "f"}}]}))
    .await;
    // Model names: case-insensitive, implicit :latest, full form.
    ok(json!({"model": "LLAMA3.2:latest", "messages": user("x")})).await;
    ok(json!({"model": "registry.ollama.ai/library/llama3.2", "messages": user("x")})).await;
    // think levels on a thinking model.
    ok(json!({"model": "qwen3:8b", "think": "low", "messages": user("x")})).await;
}
