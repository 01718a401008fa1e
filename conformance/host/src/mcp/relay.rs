//! Relaying what a server sends during one `tools/call` back to whoever asked for it
//! (the gateway's MCP clients): its progress notifications, its log messages, and the
//! caller's cancellation on to the server.
//!
//! Progress is routed exactly: rmcp gives each request its own progress token, and the
//! server echoes it. Log messages name no request (MCP's `notifications/message` has no
//! request id), so a message goes to every relayed call in flight on that server's
//! connection when it arrives: exact with one call at a time, shared otherwise. A server
//! sends its log messages on its session's own stream and the answer on the call's, so a
//! message sent just before the answer may arrive after it: with no call in flight, it
//! goes to the call that ended last, if that was within [`LINGER`].
//!
//! rmcp marks logging deprecated (SEP-2577, the 2026-07-28 revision); the 2025-11-25
//! revision the gateway's clients speak has it, hence the `allow`s.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a server sent during a relayed call.
#[derive(Debug, Clone, PartialEq)]
pub enum Relayed {
    /// `notifications/progress` for the call (the server's token replaced by none: the
    /// receiver puts its own caller's token back).
    Progress {
        /// Progress so far.
        progress: f64,
        /// The total, when known.
        total: Option<f64>,
        /// A message, if any.
        message: Option<String>,
    },
    /// `notifications/message`, as the server sent it.
    Log(LoggingMessageNotificationParam),
}

/// How long after its answer a call still gets the log messages that arrive while no
/// call is in flight (see the module's notes); its receiver should listen that long.
pub const LINGER: Duration = Duration::from_millis(500);

/// How one `tools/call` is relayed: where its notifications go, and the token that
/// cancels it (the server then gets `notifications/cancelled`).
#[derive(Debug, Clone)]
pub struct Relay {
    /// Receives the call's notifications; a closed receiver only stops the relaying.
    pub events: mpsc::UnboundedSender<Relayed>,
    /// Cancelling it abandons the call and tells the server.
    pub cancel: CancellationToken,
}

/// A connection's relayed calls in flight, shared with its client handler.
#[derive(Debug, Default)]
pub(crate) struct Relays {
    next: AtomicU64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    calls: HashMap<u64, Entry>,
    /// Progress for a token no call has claimed yet: rmcp picks a request's token as it
    /// sends it, so the server's first progress can arrive before [`Registered::claim`].
    unclaimed: VecDeque<(Instant, ProgressNotificationParam)>,
}

/// At most this many unclaimed progress notifications are kept (for [`LINGER`]).
const MAX_UNCLAIMED: usize = 256;

#[derive(Debug)]
struct Entry {
    /// The request's progress token, once it was sent.
    token: Option<ProgressToken>,
    events: mpsc::UnboundedSender<Relayed>,
    /// When the call ended; `None` while it is in flight.
    ended: Option<Instant>,
}

fn relayed(param: &ProgressNotificationParam) -> Relayed {
    Relayed::Progress {
        progress: param.progress,
        total: param.total,
        message: param.message.clone(),
    }
}

impl Relays {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a call about to be sent, so that log messages sent as soon as the
    /// server has it reach it; [`Registered::claim`] then names its progress token.
    /// Dropping the guard ends the call.
    pub(crate) fn register(&self, events: mpsc::UnboundedSender<Relayed>) -> Registered<'_> {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let mut state = self.state();
        let now = Instant::now();
        state
            .calls
            .retain(|_, e| e.ended.is_none_or(|t| now - t < LINGER));
        state.calls.insert(
            key,
            Entry {
                token: None,
                events,
                ended: None,
            },
        );
        drop(state);
        Registered { relays: self, key }
    }

    /// A server's progress: to the call with that token, else kept until one claims it.
    pub(crate) fn progress(&self, param: &ProgressNotificationParam) {
        let mut state = self.state();
        let token = Some(&param.progress_token);
        if let Some(entry) = state.calls.values().find(|e| e.token.as_ref() == token) {
            let _ = entry.events.send(relayed(param));
            return;
        }
        let now = Instant::now();
        state.unclaimed.retain(|(at, _)| now - *at < LINGER);
        if state.unclaimed.len() == MAX_UNCLAIMED {
            state.unclaimed.pop_front();
        }
        state.unclaimed.push_back((now, param.clone()));
    }

    /// A server's log message: to every relayed call in flight, else to the last one that
    /// ended, within [`LINGER`] (see the module's notes). Returns how many received it.
    pub(crate) fn log(&self, param: &LoggingMessageNotificationParam) -> usize {
        let mut state = self.state();
        let now = Instant::now();
        state
            .calls
            .retain(|_, e| !e.events.is_closed() && e.ended.is_none_or(|t| now - t < LINGER));
        let in_flight: Vec<&Entry> = state.calls.values().filter(|e| e.ended.is_none()).collect();
        let to = if in_flight.is_empty() {
            state.calls.values().max_by_key(|e| e.ended).into_iter().collect()
        } else {
            in_flight
        };
        to.iter()
            .filter(|e| e.events.send(Relayed::Log(param.clone())).is_ok())
            .count()
    }
}

/// A registered call; ended on drop.
pub(crate) struct Registered<'a> {
    relays: &'a Relays,
    key: u64,
}

impl Registered<'_> {
    /// The call was sent with progress token `token`: progress for it that came first is
    /// relayed now, in the order it came, and the rest as it comes.
    pub(crate) fn claim(&self, token: ProgressToken) {
        let mut state = self.relays.state();
        let State { calls, unclaimed } = &mut *state;
        let Some(entry) = calls.get_mut(&self.key) else {
            return;
        };
        unclaimed.retain(|(_, param)| {
            let mine = param.progress_token == token;
            if mine {
                let _ = entry.events.send(relayed(param));
            }
            !mine
        });
        entry.token = Some(token);
    }
}

impl Drop for Registered<'_> {
    /// The call ended: it lingers (see [`Relays::log`], which forgets it after [`LINGER`]).
    fn drop(&mut self) {
        if let Some(entry) = self.relays.state().calls.get_mut(&self.key) {
            entry.ended = Some(Instant::now());
        }
    }
}
