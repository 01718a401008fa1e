//! `/api/chat`: validation in Ollama's order, reply selection, and the
//! answer (NDJSON stream or single object) with faults applied.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use serde_json::json;

use crate::faults::Fault;
use crate::models::{ModelName, ModelSpec, capability};
use crate::record::ResponseGuard;
use crate::reply::{JSON, abort_response, error_response, respond, sleep_unless_killed, wait_killed_or};
use crate::script::{Chunk, Counters, Pacing, Reply, ToolCallId, split_words};
use crate::validate::{self, ApiError, ChatParams, Think, quote};
use crate::wire::{ChatOut, FunctionOut, MessageOut, ToolCallOut};
use crate::{Shared, lock};

/// Pause before cutting a connection, so what was written is flushed first.
const FLUSH_PAUSE: Duration = Duration::from_millis(5);

/// Synthetic prompt evaluation speed: 50 µs per prompt token.
const PROMPT_NS_PER_TOKEN: u64 = 50_000;

fn assistant() -> MessageOut {
    MessageOut {
        role: "assistant",
        ..MessageOut::default()
    }
}

/// Everything needed to write the answer.
struct Plan {
    model: String,
    chunks: Vec<MessageOut>,
    final_content: String,
    done_reason: String,
    counters: Option<Counters>,
    pacing: Pacing,
    prompt_tokens: u64,
    /// Generated (non-final) chunks, for `eval_count`.
    eval_count: u64,
}

pub(crate) async fn chat(
    shared: Arc<Shared>,
    body: &[u8],
    fault: Option<Fault>,
    mut guard: ResponseGuard,
    started: Instant,
) -> Response {
    let p = match validate_chat(&shared, body) {
        Ok(v) => v,
        Err(e) => {
            guard.finish();
            return error_response(&e);
        }
    };
    let (p, spec, thinking_on) = match p {
        Validated::Generate(b) => *b,
        Validated::Immediate(reason, model) => {
            guard.finish();
            let m = assistant();
            let out = ChatOut::done(&model, &m, reason, Counters::default(), true);
            let mut body = out.line();
            body.pop();
            return respond(200, JSON, body);
        }
    };

    let reply = {
        let queued = lock(&shared.replies).pop_front();
        match queued {
            Some(r) => r,
            None => lock(&shared.default_reply)
                .clone()
                .unwrap_or_else(|| echo_reply(&p, thinking_on)),
        }
    };
    let mut plan = make_plan(&shared, &p, &spec, thinking_on, &reply);
    if let Some(Fault::Slow {
        load_delay,
        chunk_delay,
    }) = &fault
    {
        plan.pacing = Pacing {
            load_delay: *load_delay,
            chunk_delay: *chunk_delay,
        };
    }
    let fault = fault.filter(|f| !matches!(f, Fault::Slow { .. }));

    if p.stream {
        stream_answer(shared, plan, fault, guard, started).await
    } else {
        single_answer(&shared, plan, fault, guard, started).await
    }
}

enum Validated {
    Generate(Box<(ChatParams, ModelSpec, bool)>),
    /// `done_reason` for a `messages: []` request, and the model as sent.
    Immediate(&'static str, String),
}

fn validate_chat(shared: &Shared, body: &[u8]) -> Result<Validated, ApiError> {
    let p = validate::decode_chat(body)?;
    if p.model.is_empty() {
        return Err(ApiError::new(400, "model is required"));
    }
    let name = ModelName::parse(&p.model);
    if !name.is_valid() {
        return Err(ApiError::new(400, "invalid model name"));
    }
    let Some(spec) = shared.find_model(&name) else {
        return Err(ApiError::new(404, format!("model '{}' not found", p.model)));
    };
    if p.messages.is_empty() && p.keep_alive_ns == Some(0) {
        return Ok(Validated::Immediate("unload", p.model));
    }
    let thinking_on = if spec.has(capability::THINKING) {
        !matches!(p.think, Think::Bool(false))
    } else {
        if p.think.enabled() {
            return Err(ApiError::new(
                400,
                format!("{} does not support thinking", quote(&p.model)),
            ));
        }
        false
    };
    if !spec.has(capability::COMPLETION) {
        return Err(ApiError::new(
            400,
            format!("{} does not support chat", quote(&p.model)),
        ));
    }
    if p.tools_len > 0 && !spec.has(capability::TOOLS) {
        return Err(ApiError::new(
            400,
            format!("{} does not support tools", ModelName::parse(&spec.name).full()),
        ));
    }
    validate::check_options(&p.options)?;
    if p.messages.is_empty() {
        return Ok(Validated::Immediate("load", p.model));
    }
    Ok(Validated::Generate(Box::new((p, spec, thinking_on))))
}

/// The default reply: echo the last user message.
fn echo_reply(p: &ChatParams, thinking_on: bool) -> Reply {
    let last_user = p
        .messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map(|m| m.content.as_str())
        .unwrap_or("");
    let text = if p.format.is_some() {
        json!({ "echo": last_user }).to_string()
    } else {
        last_user.to_string()
    };
    let mut r = Reply::text(&text);
    if thinking_on {
        r = r.thinking(&format!("The user said: {last_user}"));
    }
    let num_predict = p
        .options
        .get("num_predict")
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0) as i64;
    if num_predict > 0 && r.content.len() > num_predict as usize {
        r.content.truncate(num_predict as usize);
        r = r.done_reason("length");
    }
    r
}

fn gen_id(shared: &Shared) -> String {
    // xorshift64*, deterministic per server.
    let mut x = shared.id_state.load(Ordering::Relaxed);
    loop {
        let mut n = x;
        n ^= n >> 12;
        n ^= n << 25;
        n ^= n >> 27;
        match shared
            .id_state
            .compare_exchange(x, n, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {
                x = n.wrapping_mul(0x2545_F491_4F6C_DD1D);
                break;
            }
            Err(cur) => x = cur,
        }
    }
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut s = String::from("call_");
    for i in 0..8 {
        s.push(ALPHABET[((x >> (i * 8)) % 36) as usize] as char);
    }
    s
}

fn make_plan(shared: &Shared, p: &ChatParams, _spec: &ModelSpec, thinking_on: bool, reply: &Reply) -> Plan {
    let mut index = 0usize;
    let mut chunks = Vec::new();
    for c in reply.chunks() {
        let Chunk {
            content,
            thinking,
            tool_calls,
            images,
        } = c;
        let had_thinking = !thinking.is_empty();
        let thinking = if thinking_on { thinking } else { String::new() };
        if had_thinking
            && thinking.is_empty()
            && content.is_empty()
            && tool_calls.is_empty()
            && images.is_empty()
        {
            continue;
        }
        let tool_calls = tool_calls
            .into_iter()
            .map(|tc| {
                let i = tc.index.unwrap_or(index);
                index += 1;
                ToolCallOut {
                    id: match tc.id {
                        ToolCallId::Generated => Some(gen_id(shared)),
                        ToolCallId::Fixed(s) => Some(s),
                        ToolCallId::Omitted => None,
                    },
                    function: FunctionOut {
                        index: i,
                        name: tc.name,
                        arguments: tc.arguments,
                    },
                }
            })
            .collect();
        chunks.push(MessageOut {
            role: "assistant",
            content,
            thinking,
            images,
            tool_calls,
        });
    }
    let prompt_tokens = p
        .messages
        .iter()
        .map(|m| split_words(&m.content).len() as u64 + 3)
        .sum();
    Plan {
        model: p.model.clone(),
        eval_count: chunks.len() as u64,
        chunks,
        final_content: reply.final_content.clone(),
        done_reason: reply.done_reason.clone().unwrap_or_else(|| "stop".into()),
        counters: reply.counters,
        pacing: reply.pacing,
        prompt_tokens,
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1)
}

impl Plan {
    /// Counters for the final chunk: scripted, or computed from timings.
    fn counters(&self, started: Instant, loaded: Instant, first: Instant) -> Counters {
        if let Some(c) = self.counters {
            return c;
        }
        let now = Instant::now();
        Counters {
            total_duration: nanos(now.saturating_duration_since(started)),
            load_duration: nanos(loaded.saturating_duration_since(started)),
            prompt_eval_count: self.prompt_tokens,
            prompt_eval_duration: self.prompt_tokens * PROMPT_NS_PER_TOKEN,
            eval_count: self.eval_count,
            eval_duration: nanos(now.saturating_duration_since(first)),
        }
    }

    fn done_message(&self) -> MessageOut {
        MessageOut {
            content: self.final_content.clone(),
            ..assistant()
        }
    }
}

// ---- non-streaming -------------------------------------------------------

async fn single_answer(
    shared: &Shared,
    plan: Plan,
    fault: Option<Fault>,
    mut guard: ResponseGuard,
    started: Instant,
) -> Response {
    match &fault {
        Some(Fault::StallAfter(_)) => {
            wait_killed_or(shared, shared.hang_limit).await;
            guard.finish();
            return abort_response();
        }
        Some(Fault::ErrorLineAfter { message, .. }) => {
            guard.finish();
            return error_response(&ApiError::new(500, message.clone()));
        }
        _ => {}
    }
    if !sleep_unless_killed(shared, plan.pacing.load_delay).await {
        guard.finish();
        return abort_response();
    }
    let loaded = Instant::now();
    let gen_time = plan.pacing.chunk_delay.saturating_mul(plan.chunks.len() as u32);
    if !sleep_unless_killed(shared, gen_time).await {
        guard.finish();
        return abort_response();
    }
    guard.finish();
    if matches!(fault, Some(Fault::DropAfter(_))) {
        // Ollama sends nothing before the whole answer: a crash means no
        // answer at all.
        return abort_response();
    }
    let mut msg = plan.done_message();
    let mut content = String::new();
    let mut thinking = String::new();
    for c in &plan.chunks {
        content.push_str(&c.content);
        thinking.push_str(&c.thinking);
        msg.tool_calls.extend(c.tool_calls.iter().cloned());
    }
    content.push_str(&plan.final_content);
    msg.content = content;
    msg.thinking = thinking;
    let counters = plan.counters(started, loaded, loaded);
    let mut body = ChatOut::done(&plan.model, &msg, &plan.done_reason, counters, true).line();
    body.pop();
    if matches!(fault, Some(Fault::MalformedLineAfter(_))) {
        body.truncate(body.len() / 2);
    }
    guard.headers_sent = true;
    respond(200, JSON, body)
}

// ---- streaming -----------------------------------------------------------

enum Step {
    Chunk(MessageOut),
    Done,
    Malformed,
    ErrorLine(String),
    Drop,
    Stall,
}

struct StreamState {
    shared: Arc<Shared>,
    plan: Plan,
    steps: VecDeque<Step>,
    guard: ResponseGuard,
    started: Instant,
    loaded: Instant,
    first_at: Option<Instant>,
    ended: bool,
}

async fn stream_answer(
    shared: Arc<Shared>,
    mut plan: Plan,
    fault: Option<Fault>,
    mut guard: ResponseGuard,
    started: Instant,
) -> Response {
    let chunks = std::mem::take(&mut plan.chunks);
    let n = chunks.len();
    let mut steps: VecDeque<Step> = VecDeque::with_capacity(n + 2);
    let mut chunks = chunks.into_iter().map(Step::Chunk);
    match fault {
        Some(Fault::DropAfter(k)) => {
            let k = k.min(n);
            if k == 0 {
                // Nothing has been written (headers go with the first chunk).
                if !sleep_unless_killed(&shared, plan.pacing.load_delay).await {
                    guard.finish();
                    return abort_response();
                }
                guard.finish();
                return abort_response();
            }
            steps.extend(chunks.by_ref().take(k));
            steps.push_back(Step::Drop);
        }
        Some(Fault::StallAfter(k)) => {
            let k = k.min(n);
            if k == 0 {
                wait_killed_or(&shared, shared.hang_limit).await;
                guard.finish();
                return abort_response();
            }
            steps.extend(chunks.by_ref().take(k));
            steps.push_back(Step::Stall);
        }
        Some(Fault::MalformedLineAfter(k)) => {
            steps.extend(chunks.by_ref().take(k.min(n)));
            steps.push_back(Step::Malformed);
            steps.extend(chunks);
            steps.push_back(Step::Done);
        }
        Some(Fault::ErrorLineAfter { after, message }) => {
            let k = after.min(n);
            if k == 0 {
                // Ollama: an error before anything was written gets a real
                // status.
                if !sleep_unless_killed(&shared, plan.pacing.load_delay).await {
                    guard.finish();
                    return abort_response();
                }
                guard.finish();
                return error_response(&ApiError::new(500, message));
            }
            steps.extend(chunks.by_ref().take(k));
            steps.push_back(Step::ErrorLine(message));
        }
        _ => {
            steps.extend(chunks);
            steps.push_back(Step::Done);
        }
    }
    // Slow model load: no status line until the first chunk exists.
    if !sleep_unless_killed(&shared, plan.pacing.load_delay).await {
        guard.finish();
        return abort_response();
    }
    let loaded = Instant::now();
    guard.headers_sent = true;
    let state = StreamState {
        shared,
        plan,
        steps,
        guard,
        started,
        loaded,
        first_at: None,
        ended: false,
    };
    let stream = futures::stream::unfold(state, next_line);
    let mut r = Response::new(Body::from_stream(stream));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    r
}

fn cut(msg: &str) -> io::Error {
    io::Error::other(format!("fake-ollama: {msg}"))
}

async fn next_line(mut st: StreamState) -> Option<(Result<Bytes, io::Error>, StreamState)> {
    if st.ended {
        st.guard.finish();
        return None;
    }
    let Some(step) = st.steps.pop_front() else {
        st.guard.finish();
        return None;
    };
    if st.first_at.is_some() && !sleep_unless_killed(&st.shared, st.plan.pacing.chunk_delay).await {
        st.guard.finish();
        st.ended = true;
        return Some((Err(cut("server stopped")), st));
    }
    let first = *st.first_at.get_or_insert_with(Instant::now);
    let line = match step {
        Step::Chunk(m) => ChatOut::chunk(&st.plan.model, &m).line(),
        Step::Done => {
            let counters = st.plan.counters(st.started, st.loaded, first);
            let msg = st.plan.done_message();
            st.ended = true;
            ChatOut::done(&st.plan.model, &msg, &st.plan.done_reason, counters, true).line()
        }
        Step::Malformed => format!(
            "{{\"model\":{},\"created_at\":\"{}\",\"message\":{{\"role\":\"assistant\",\"content\":\"\n",
            quote(&st.plan.model),
            crate::wire::now_rfc3339()
        )
        .into_bytes(),
        Step::ErrorLine(message) => {
            st.ended = true;
            let mut l = crate::wire::error_body(&message);
            l.push(b'\n');
            l
        }
        Step::Drop => {
            tokio::time::sleep(FLUSH_PAUSE).await;
            st.guard.finish();
            st.ended = true;
            return Some((Err(cut("connection dropped on purpose")), st));
        }
        Step::Stall => {
            tokio::time::sleep(FLUSH_PAUSE).await;
            let limit = st.shared.hang_limit;
            wait_killed_or(&st.shared, limit).await;
            st.guard.finish();
            st.ended = true;
            return Some((Err(cut("stalled stream closed")), st));
        }
    };
    st.guard.chunks_sent += 1;
    Some((Ok(Bytes::from(line)), st))
}
