// Talking to the Inspector's own /api: every wait bounded (AbortSignal.timeout), each
// one that reaches the extension cancellable (a Wait's Cancel button, or the screen's own).
import { h } from './dom.js';

export const TIMEOUT = { connect: 45000, short: 20000, chat: 130000, tool: 75000 };

export class ApiError extends Error {
  constructor(body, status) {
    super(body.message || 'request failed');
    this.code = body.code;
    this.details = body.details;
    this.status = status;
  }
}

// One kind of wait the user can end. The bound is api()'s; this adds the cancel:
// `wait.button` shows only while `wait.run(label, work)` is outstanding, says `label`
// ("Cancel health check"), and aborts the AbortSignal that `work` gets (pass it to api()
// as `cancel`): the fetch is dropped, so the Inspector's server drops its request to the
// extension, and api() throws an ApiError `cancelled` that errorBox shows as such. A new
// run aborts one still outstanding; that one throws `superseded`, for the caller to
// ignore (the new run owns the screen).
export class Wait {
  constructor() {
    this.controller = null;
    this.button = h('button', { type: 'button', class: 'cancel', hidden: true, onclick: () => this.cancel() });
  }

  cancel() {
    if (this.controller) this.controller.abort();
  }

  async run(label, work) {
    if (this.controller) {
      this.controller.superseded = true;
      this.controller.abort();
    }
    const controller = new AbortController();
    this.controller = controller;
    this.button.textContent = label;
    this.button.hidden = false;
    try {
      return await work(controller.signal);
    } catch (e) {
      if (controller.superseded) throw new ApiError({ code: 'superseded', message: `${label}: a newer request took its place` });
      throw e;
    } finally {
      if (this.controller === controller) {
        this.controller = null;
        this.button.hidden = true;
      }
    }
  }
}

function describeFailure(e, what, ms) {
  if (e instanceof ApiError) return e;
  if (e && e.name === 'TimeoutError') {
    return new ApiError({ code: 'timed_out', message: `${what}: no answer from the Inspector within ${ms / 1000} s` });
  }
  if (e && e.name === 'AbortError') return new ApiError({ code: 'cancelled', message: `Cancelled: ${what}. Nothing more is awaited from the extension.` });
  return new ApiError({ code: 'inspector_unreachable', message: `${what}: the Inspector did not answer (${e && e.message}); is it still running?` });
}

function signalFor(ms, cancel) {
  const timeout = AbortSignal.timeout(ms);
  return cancel ? AbortSignal.any([timeout, cancel]) : timeout;
}

async function readError(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && body.error) return new ApiError(body.error, response.status);
  } catch { /* not JSON */ }
  return new ApiError({ code: `http_${response.status}`, message: `the Inspector answered HTTP ${response.status}: ${text.slice(0, 200)}` }, response.status);
}

export async function api(method, path, body, { ms = TIMEOUT.short, cancel = null, what = path } = {}) {
  const init = { method, signal: signalFor(ms, cancel), headers: {} };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
    if (!response.ok) throw await readError(response);
    if (response.status === 204) return null;
    return await response.json();
  } catch (e) {
    throw describeFailure(e, what, ms);
  }
}

// Reads an event stream answered by the Inspector: calls onEvent(name, data) per event.
// `idleMs`: give up when the Inspector sends nothing for that long.
export async function events(path, body, { cancel, idleMs, onEvent, what }) {
  const local = new AbortController();
  const signal = AbortSignal.any([local.signal, cancel]);
  let idleTimer = null;
  let idled = false;
  const arm = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => { idled = true; local.abort(); }, idleMs);
  };
  arm();
  try {
    const response = await fetch(path, {
      method: 'POST', signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!response.ok) throw await readError(response);
    const type = response.headers.get('content-type') || '';
    if (!type.startsWith('text/event-stream')) throw new ApiError({ code: 'invalid_response', message: `expected an event stream, got ${type}` });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      arm();
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const raw = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = 'message';
        const data = [];
        for (const line of raw.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) onEvent(name, JSON.parse(data.join('\n')));
      }
    }
  } catch (e) {
    if (idled) throw new ApiError({ code: 'timed_out', message: `${what}: the Inspector sent nothing for ${idleMs / 1000} s` });
    throw describeFailure(e, what, idleMs);
  } finally {
    clearTimeout(idleTimer);
  }
}

