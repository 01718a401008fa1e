//! Endpoints and the `/api/chat` framing over real loopback HTTP.

mod common;

use std::time::{Duration, Instant};

use common::*;
use fake_ollama::{Chunk, Counters, FakeOllama, ModelSpec, Reply, ToolCall, capability};
use serde_json::{Value, json};

#[tokio::test]
async fn root_version_tags_ps_and_404() {
    let fake = FakeOllama::start().await;
    let base = fake.base_url();
    assert!(base.starts_with("http://127.0.0.1:"));

    let r = client().get(format!("{base}/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(content_type(&r).starts_with("text/plain"));
    assert_eq!(r.text().await.unwrap(), "Ollama is running");

    let v: Value = client()
        .get(format!("{base}/api/version"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v, json!({"version": "0.12.0"}));

    let v: Value = client()
        .get(format!("{base}/api/tags"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), ModelSpec::defaults().len());
    let m = &models[0];
    for k in ["name", "model", "modified_at", "size", "digest", "details"] {
        assert!(m.get(k).is_some(), "missing {k} in {m}");
    }
    for k in [
        "format",
        "family",
        "families",
        "parameter_size",
        "quantization_level",
    ] {
        assert!(m["details"].get(k).is_some(), "missing details.{k}");
    }
    assert_eq!(m["name"], "llama3.2:latest");
    assert_eq!(m["digest"].as_str().unwrap().len(), 64);

    let v: Value = client()
        .get(format!("{base}/api/ps"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v, json!({"models": []}));

    let r = client().get(format!("{base}/api/nope")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.text().await.unwrap(), "404 page not found");
}

#[tokio::test]
async fn show_details_capabilities_and_counting() {
    let fake = FakeOllama::start().await;
    let base = fake.base_url();
    let r = post(&base, "/api/show", json!({"model": "qwen3:8b"})).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["capabilities"], json!(["completion", "tools", "thinking"]));
    assert_eq!(v["model_info"]["qwen3.context_length"], 40960);
    assert_eq!(v["model_info"]["general.architecture"], "qwen3");
    assert_eq!(v["details"]["family"], "qwen3");

    let r = post(&base, "/api/show", json!({"model": "llama3.2"})).await;
    assert_eq!(r.status(), 200);
    post(&base, "/api/show", json!({"name": "llama3.2:latest"})).await;

    let r = post(&base, "/api/show", json!({"model": "ghost"})).await;
    assert_eq!(r.status(), 404);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v, json!({"error": "model 'ghost:latest' not found"}));

    let r = post(&base, "/api/show", json!({})).await;
    assert_eq!(r.status(), 400);

    assert_eq!(fake.show_calls("llama3.2"), 2);
    assert_eq!(fake.show_calls("registry.ollama.ai/library/llama3.2:latest"), 2);
    assert_eq!(fake.show_calls("qwen3:8b"), 1);
    assert_eq!(fake.show_calls("ghost"), 1);
    assert_eq!(fake.request_count("/api/show"), 5);
}

#[tokio::test]
async fn stream_is_the_default_and_lines_are_ndjson() {
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::text_in("Hello world, friend", 3));
    let (status, ct, body) = chat(
        &fake.base_url(),
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(ct, "application/x-ndjson");
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 4, "3 deltas + done: {body}");
    let mut text = String::new();
    for l in &lines[..3] {
        assert_eq!(l["model"], "llama3.2", "model as sent");
        assert!(l["created_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(l["done"], false);
        assert_eq!(l["message"]["role"], "assistant");
        let msg = l["message"].as_object().unwrap();
        assert!(msg.contains_key("content"));
        assert!(!msg.contains_key("thinking"), "no empty thinking");
        assert!(!msg.contains_key("tool_calls"), "no empty tool_calls");
        assert!(!msg.contains_key("images"), "no empty images");
        assert!(l.get("done_reason").is_none());
        assert!(l.get("eval_count").is_none());
        text.push_str(l["message"]["content"].as_str().unwrap());
    }
    assert_eq!(text, "Hello world, friend");
    let done = &lines[3];
    assert_eq!(done["done"], true);
    assert_eq!(done["done_reason"], "stop");
    assert_eq!(done["message"], json!({"role": "assistant", "content": ""}));
    for k in [
        "total_duration",
        "load_duration",
        "prompt_eval_count",
        "prompt_eval_duration",
        "eval_count",
        "eval_duration",
    ] {
        assert!(done[k].as_u64().unwrap() > 0, "{k} in {done}");
    }
    assert_eq!(done["eval_count"], 3);
}

#[tokio::test]
async fn zero_counters_are_omitted_and_final_chunk_may_carry_content() {
    let fake = FakeOllama::start().await;
    fake.enqueue(
        Reply::deltas(["a", "b"])
            .final_content("c")
            .done_reason("length")
            .counters(Counters {
                prompt_eval_count: 7,
                eval_count: 3,
                ..Counters::default()
            }),
    );
    let (_, _, body) = chat(
        &fake.base_url(),
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    let lines = ndjson(&body);
    let done = lines.last().unwrap();
    assert_eq!(done["message"]["content"], "c");
    assert_eq!(done["done_reason"], "length");
    let keys: Vec<&str> = done.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "model",
            "created_at",
            "message",
            "done",
            "done_reason",
            "prompt_eval_count",
            "eval_count"
        ]
    );
}

#[tokio::test]
async fn non_streaming_concatenates() {
    let fake = FakeOllama::start().await;
    fake.enqueue(
        Reply::text("The answer is 42.")
            .thinking("Let me think.")
            .counters(Counters {
                eval_count: 5,
                total_duration: 1_000,
                ..Counters::default()
            }),
    );
    let (status, ct, body) = chat(
        &fake.base_url(),
        json!({"model": "qwen3:8b", "stream": false, "messages": [{"role": "user", "content": "q"}]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(ct, "application/json; charset=utf-8");
    assert!(!body.contains('\n'), "one object, no NDJSON: {body:?}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["message"]["content"], "The answer is 42.");
    assert_eq!(v["message"]["thinking"], "Let me think.");
    assert_eq!(v["done"], true);
    assert_eq!(v["done_reason"], "stop");
    assert_eq!(v["eval_count"], 5);
    assert_eq!(v["total_duration"], 1000);
    assert!(v.get("load_duration").is_none());
}

#[tokio::test]
async fn load_and_unload() {
    let fake = FakeOllama::start().await;
    let (status, ct, body) = chat(&fake.base_url(), json!({"model": "llama3.2", "messages": []})).await;
    assert_eq!(status, 200);
    assert!(ct.starts_with("application/json"));
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["done_reason"], "load");
    assert_eq!(v["done"], true);
    assert_eq!(v["message"], json!({"role": "assistant", "content": ""}));

    let (_, _, body) = chat(&fake.base_url(), json!({"model": "llama3.2", "keep_alive": 0})).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["done_reason"], "unload");
}

#[tokio::test]
async fn default_reply_echoes_and_thinking_models_think_by_default() {
    let fake = FakeOllama::start().await;
    let base = fake.base_url();
    let msgs = json!([{"role": "user", "content": "first"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "say this back"}]);

    let (_, _, body) = chat(&base, json!({"model": "llama3.2", "messages": msgs})).await;
    let lines = ndjson(&body);
    let text: String = lines
        .iter()
        .filter_map(|l| l["message"]["content"].as_str())
        .collect();
    assert_eq!(text, "say this back");
    assert!(lines.iter().all(|l| l["message"].get("thinking").is_none()));

    // qwen3 has the thinking capability: `think` omitted means thinking.
    let (_, _, body) = chat(&base, json!({"model": "qwen3:8b", "messages": msgs})).await;
    let lines = ndjson(&body);
    let first_content = lines
        .iter()
        .position(|l| !l["message"]["content"].as_str().unwrap().is_empty())
        .unwrap();
    let last_thinking = lines
        .iter()
        .rposition(|l| l["message"].get("thinking").is_some())
        .unwrap();
    assert!(last_thinking < first_content, "thinking comes before content");
    for l in &lines[..=last_thinking] {
        assert_eq!(l["message"]["content"], "", "thinking chunks have empty content");
    }
    let thinking: String = lines
        .iter()
        .filter_map(|l| l["message"]["thinking"].as_str())
        .collect();
    assert_eq!(thinking, "The user said: say this back");

    // think:false stops thinking chunks.
    let (_, _, body) = chat(
        &base,
        json!({"model": "qwen3:8b", "think": false, "messages": msgs}),
    )
    .await;
    assert!(
        ndjson(&body)
            .iter()
            .all(|l| l["message"].get("thinking").is_none())
    );

    // Scripted thinking is dropped as well when thinking is off.
    fake.enqueue(Reply::text("x").thinking("hidden"));
    let (_, _, body) = chat(
        &base,
        json!({"model": "qwen3:8b", "think": false, "messages": msgs}),
    )
    .await;
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 2);
    assert!(!body.contains("hidden"));

    // num_predict caps the echo with done_reason "length".
    let (_, _, body) = chat(
        &base,
        json!({"model": "llama3.2", "options": {"num_predict": 2}, "messages": [{"role": "user", "content": "one two three four"}]}),
    )
    .await;
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["done_reason"], "length");

    // format: the echo is a JSON text.
    let (_, _, body) = chat(
        &base,
        json!({"model": "llama3.2", "stream": false, "format": "json", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    let v: Value = serde_json::from_str(&body).unwrap();
    let inner: Value = serde_json::from_str(v["message"]["content"].as_str().unwrap()).unwrap();
    assert_eq!(inner, json!({"echo": "hi"}));
}

fn is_call_id(s: &str) -> bool {
    s.len() == 13
        && s.starts_with("call_")
        && s[5..]
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

#[tokio::test]
async fn tool_calls_in_one_chunk_or_spread() {
    let fake = FakeOllama::start().await;
    let base = fake.base_url();
    let req = json!({
        "model": "qwen3:8b", "think": false,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    });

    fake.enqueue(
        Reply::new()
            .tool_call(ToolCall::new("get_weather", json!({"city": "Paris"})))
            .tool_call(ToolCall::new("get_weather", json!({"city": "Lyon"})).with_id("call_fixed01")),
    );
    let (_, _, body) = chat(&base, req.clone()).await;
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 2);
    let calls = lines[0]["message"]["tool_calls"].as_array().unwrap();
    assert_eq!(lines[0]["message"]["content"], "");
    assert_eq!(lines[0]["done"], false);
    assert_eq!(calls.len(), 2);
    assert!(is_call_id(calls[0]["id"].as_str().unwrap()), "{}", calls[0]);
    assert_eq!(
        calls[0]["function"],
        json!({"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}})
    );
    assert_eq!(calls[1]["id"], "call_fixed01");
    assert_eq!(calls[1]["function"]["index"], 1);
    assert_eq!(lines[1]["done"], true);
    assert_eq!(lines[1]["done_reason"], "stop", "Ollama never says tool_calls");

    // Spread over chunks, without ids (older Ollama), after some text.
    fake.enqueue(
        Reply::text("Checking.")
            .tool_call_chunk(vec![ToolCall::new("a", json!({})).without_id()])
            .tool_call_chunk(vec![ToolCall::new("b", json!({"x": 1})).without_id()]),
    );
    let (_, _, body) = chat(&base, req.clone()).await;
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["message"]["content"], "Checking.");
    for (i, l) in lines[1..3].iter().enumerate() {
        let c = &l["message"]["tool_calls"][0];
        assert!(c.get("id").is_none());
        assert_eq!(c["function"]["index"], i);
    }

    // Non-streaming gathers every call.
    fake.enqueue(
        Reply::new()
            .tool_call_chunk(vec![ToolCall::new("a", json!({}))])
            .tool_call_chunk(vec![ToolCall::new("b", json!({}))]),
    );
    let mut r = req.clone();
    r["stream"] = json!(false);
    let (_, _, body) = chat(&base, r).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = v["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(v["message"]["content"], "");
}

#[tokio::test]
async fn raw_chunks_and_default_reply() {
    let fake = FakeOllama::start().await;
    fake.set_default_reply(Some(Reply::from_chunks(vec![
        Chunk::content("mixed"),
        Chunk {
            content: "and".into(),
            tool_calls: vec![ToolCall::new("t", json!({"k": "v"}))],
            ..Chunk::default()
        },
    ])));
    for _ in 0..2 {
        let (_, _, body) = chat(
            &fake.base_url(),
            json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "t"}}]}),
        )
        .await;
        let lines = ndjson(&body);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["message"]["content"], "and");
        assert_eq!(lines[1]["message"]["tool_calls"][0]["function"]["name"], "t");
    }
    fake.set_default_reply(None);
    fake.enqueue(Reply::text("queued"));
    assert_eq!(fake.pending_replies(), 1);
    let (_, _, body) = chat(
        &fake.base_url(),
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "e"}]}),
    )
    .await;
    assert!(body.contains("queued"));
    let (_, _, body) = chat(
        &fake.base_url(),
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "echo me"}]}),
    )
    .await;
    assert!(body.contains("\"echo\""));
    assert!(body.contains(" me"));
}

#[tokio::test]
async fn headers_leave_with_the_first_chunk() {
    let fake = FakeOllama::start().await;
    fake.enqueue(
        Reply::deltas(["a", "b", "c"])
            .load_delay(Duration::from_millis(400))
            .chunk_delay(Duration::from_millis(100)),
    );
    let t0 = Instant::now();
    let r = post(
        &fake.base_url(),
        "/api/chat",
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    let headers_after = t0.elapsed();
    assert!(
        headers_after >= Duration::from_millis(400),
        "headers came after {headers_after:?}"
    );
    assert_eq!(r.status(), 200);
    let (lines, failed) = read_until_end(r).await;
    assert!(!failed);
    assert_eq!(lines.len(), 4);
    assert!(
        t0.elapsed() >= Duration::from_millis(700),
        "3 more chunks paced by 100 ms"
    );
    let done: Value = serde_json::from_str(&lines[3]).unwrap();
    assert!(done["load_duration"].as_u64().unwrap() >= 400_000_000);
    assert!(done["total_duration"].as_u64().unwrap() >= 700_000_000);
}

#[tokio::test]
async fn recording() {
    let fake = FakeOllama::start().await;
    let body = json!({"model": "llama3.2", "messages": [{"role": "user", "content": "rec"}], "options": {"temperature": 0.1}});
    chat(&fake.base_url(), body.clone()).await;
    client()
        .get(format!("{}/api/tags?x=1", fake.base_url()))
        .send()
        .await
        .unwrap();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/api/chat");
    assert_eq!(reqs[0].body.as_ref(), Some(&body));
    assert!(
        reqs[0]
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(reqs[1].path, "/api/tags");
    assert_eq!(reqs[1].query.as_deref(), Some("x=1"));
    assert_eq!(fake.last_chat(), Some(body));
    assert_eq!(fake.chat_requests().len(), 1);
    fake.clear_requests();
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn custom_catalogue() {
    let fake = FakeOllama::builder()
        .models(vec![
            ModelSpec::new("acme/tiny:1b")
                .family("tiny")
                .capabilities([capability::COMPLETION])
                .context_length(1024),
        ])
        .version("0.13.1")
        .start()
        .await;
    let v: Value = client()
        .get(format!("{}/api/version", fake.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["version"], "0.13.1");
    let v: Value = post(&fake.base_url(), "/api/show", json!({"model": "acme/tiny:1b"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["model_info"]["tiny.context_length"], 1024);
    fake.add_model(ModelSpec::new("other"));
    assert_eq!(fake.models().len(), 2);
    fake.remove_model("acme/tiny:1b");
    let v: Value = client()
        .get(format!("{}/api/tags", fake.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["models"][0]["name"], "other:latest");
}

/// Byte-level view: no byte at all during a slow load, then the status line
/// and the first chunk together, chunked NDJSON, a clean terminator.
#[tokio::test]
async fn raw_bytes_on_the_wire() {
    use std::io::{Read, Write};
    let fake = FakeOllama::start().await;
    fake.enqueue(Reply::deltas(["a", "b"]).load_delay(Duration::from_millis(500)));
    let addr = fake.addr();
    let out = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let body = r#"{"model":"llama3.2","messages":[{"role":"user","content":"x"}]}"#;
        write!(
            s,
            "POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        s.set_read_timeout(Some(Duration::from_millis(250))).unwrap();
        let mut buf = [0u8; 1];
        let early = s.read(&mut buf);
        assert!(early.is_err(), "nothing may arrive during the load: {early:?}");
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut all = Vec::new();
        s.read_to_end(&mut all).unwrap();
        String::from_utf8(all).unwrap()
    })
    .await
    .unwrap();
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains("content-type: application/x-ndjson\r\n"), "{out}");
    assert!(out.contains("transfer-encoding: chunked\r\n"), "{out}");
    assert!(out.contains(r#""message":{"role":"assistant","content":"a"},"done":false}"#));
    assert!(out.ends_with("0\r\n\r\n"), "clean chunked terminator: {out:?}");
}
