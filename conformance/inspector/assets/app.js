// AEP Inspector page. Plain JavaScript, no build step, no dependency: it calls the
// Inspector's own /api, which talks to extensions server-side. Every wait is bounded
// (AbortSignal.timeout) and every long one has a cancel button.
'use strict';

const TIMEOUT = { connect: 45000, short: 20000, chat: 130000, tool: 75000 };
const RECENT_KEY = 'aep-inspector.recent';
const RECENT_MAX = 8;

// ---- small DOM helpers --------------------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function field(id, label, control, hint) {
  control.id = id;
  const parts = [h('label', { for: id }, label), control];
  if (hint) {
    const hintId = `${id}-hint`;
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('small', { id: hintId, class: 'hint' }, hint));
  }
  return h('div', { class: 'field' }, parts);
}

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

function table(caption, headers, rows) {
  if (!rows.length) return h('p', { class: 'empty' }, `${caption}: none`);
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, row.map((cell) => h('td', {}, cell))))));
}

function errorBox(error) {
  const box = h('div', { class: 'error-box', role: 'alert' },
    h('strong', {}, error.code ? `${error.code}: ` : 'Error: '), error.message || String(error));
  if (error.details && error.details.length) {
    box.append(h('ul', {}, error.details.map((d) => h('li', {}, h('code', {}, d)))));
  }
  return box;
}

function showError(container, error) {
  container.replaceChildren(errorBox(error));
  container.hidden = false;
}

// ---- talking to the Inspector ------------------------------------------------------
class ApiError extends Error {
  constructor(body, status) {
    super(body.message || 'request failed');
    this.code = body.code;
    this.details = body.details;
    this.status = status;
  }
}

function describeFailure(e, what, ms) {
  if (e instanceof ApiError) return e;
  if (e && e.name === 'TimeoutError') {
    return new ApiError({ code: 'timed_out', message: `${what}: no answer from the Inspector within ${ms / 1000} s` });
  }
  if (e && e.name === 'AbortError') return new ApiError({ code: 'cancelled', message: `${what}: cancelled` });
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

async function api(method, path, body, { ms = TIMEOUT.short, cancel = null, what = path } = {}) {
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
async function events(path, body, { cancel, idleMs, onEvent, what }) {
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

// ---- recent extensions (URLs only, never tokens) --------------------------------------
function recentUrls() {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) || '[]');
    return Array.isArray(list) ? list.filter((u) => typeof u === 'string') : [];
  } catch {
    return [];
  }
}

function remember(url) {
  const list = [url, ...recentUrls().filter((u) => u !== url)].slice(0, RECENT_MAX);
  try { localStorage.setItem(RECENT_KEY, JSON.stringify(list)); } catch { /* storage off */ }
  renderRecent();
}

function renderRecent() {
  const list = recentUrls();
  document.getElementById('recent-urls').replaceChildren(...list.map((u) => h('option', { value: u })));
  document.getElementById('recent').replaceChildren(...list.map((u) => h('li', {},
    h('button', { type: 'button', class: 'link', onclick: () => connect({ url: u }) }, `Connect to ${u}`))));
  document.getElementById('recent-nav').hidden = list.length === 0;
}

// ---- connecting -----------------------------------------------------------------------
const workspaces = new Map(); // connection id -> Workspace

function sameUrl(a, b) {
  try { return new URL(a).href === new URL(b).href; } catch { return a === b; }
}

let connectCancel = null;

async function connect({ url, token = '', revision = '2026-08-01' }) {
  const status = document.getElementById('connect-status');
  const errorArea = document.getElementById('connect-error');
  const cancelButton = document.getElementById('connect-cancel');
  errorArea.hidden = true;
  errorArea.replaceChildren();
  status.textContent = `Connecting to ${url}…`;
  connectCancel = new AbortController();
  cancelButton.hidden = false;
  try {
    const summary = await api('POST', '/api/connections', { url, token, revision },
      { ms: TIMEOUT.connect, cancel: connectCancel.signal, what: `connect to ${url}` });
    remember(summary.url);
    status.textContent = `Connected to ${summary.extension.name} ${summary.extension.version} at ${summary.url}`;
    const workspace = new Workspace(summary);
    workspaces.set(summary.id, workspace);
    workspace.focus();
    return summary;
  } catch (e) {
    status.textContent = `Could not connect to ${url}`;
    showError(errorArea, e);
    return null;
  } finally {
    cancelButton.hidden = true;
    connectCancel = null;
  }
}

// ---- one connected extension ------------------------------------------------------------
const TABS = [
  ['overview', 'Overview'],
  ['playground', 'Playground'],
  ['tools', 'Tools'],
  ['configuration', 'Configuration'],
  ['conformance', 'Conformance'],
  ['trace', 'Trace'],
];

class Workspace {
  constructor(summary) {
    this.summary = summary;
    this.id = summary.id;
    this.base = `/api/connections/${summary.id}`;
    const ext = summary.extension;
    this.tabs = {};
    this.panels = {};
    const tablist = h('div', { role: 'tablist', 'aria-label': `${ext.name} screens`, onkeydown: (e) => this.keyTabs(e) });
    for (const [key, title] of TABS) {
      const tabId = `${this.id}-tab-${key}`;
      const panelId = `${this.id}-panel-${key}`;
      this.tabs[key] = h('button', {
        type: 'button', role: 'tab', id: tabId, 'aria-controls': panelId, 'aria-selected': 'false', tabindex: '-1',
        onclick: () => this.select(key),
      }, title);
      this.panels[key] = h('div', { role: 'tabpanel', id: panelId, 'aria-labelledby': tabId, hidden: true, tabindex: '0' });
      tablist.append(this.tabs[key]);
    }
    const share = `${location.origin}/?url=${encodeURIComponent(summary.url)}`;
    this.root = h('section', { class: 'workspace', role: 'region', 'aria-label': `${ext.name} at ${summary.url}` },
      h('header', { class: 'workspace-head' },
        h('h2', {}, `${ext.name} `, h('span', { class: 'version' }, ext.version)),
        h('p', { class: 'meta' },
          h('code', {}, summary.url), ` · revision ${summary.revision}`,
          summary.authenticated ? ' · bearer token held by the Inspector' : '',
          ' · ', h('a', { href: share }, 'Link to open it connected')),
        h('button', { type: 'button', class: 'close', onclick: () => this.close() }, `Disconnect ${ext.name}`)),
      tablist,
      Object.values(this.panels));
    document.getElementById('workspaces').append(this.root);
    this.loaded = {};
    this.select('overview');
  }

  focus() {
    this.tabs.overview.focus();
  }

  keyTabs(e) {
    const keys = TABS.map(([k]) => k);
    const current = keys.indexOf(this.current);
    let next = null;
    if (e.key === 'ArrowRight') next = keys[(current + 1) % keys.length];
    else if (e.key === 'ArrowLeft') next = keys[(current + keys.length - 1) % keys.length];
    else if (e.key === 'Home') next = keys[0];
    else if (e.key === 'End') next = keys[keys.length - 1];
    if (next) {
      e.preventDefault();
      this.select(next);
      this.tabs[next].focus();
    }
  }

  select(key) {
    this.current = key;
    for (const [k] of TABS) {
      const on = k === key;
      this.tabs[k].setAttribute('aria-selected', String(on));
      this.tabs[k].tabIndex = on ? 0 : -1;
      this.panels[k].hidden = !on;
    }
    if (!this.loaded[key]) {
      this.loaded[key] = true;
      const screen = { overview: Overview, playground: Playground, tools: Tools, configuration: Configuration, conformance: Conformance, trace: Trace }[key];
      this[key] = new screen(this, this.panels[key]);
    }
  }

  async close() {
    try {
      await api('DELETE', this.base, undefined, { what: 'disconnect' });
    } catch (e) {
      if (e.code !== 'connection_not_found') {
        showError(document.getElementById('connect-error'), e);
        return;
      }
    }
    this.playground?.cancel();
    this.conformance?.cancel();
    workspaces.delete(this.id);
    this.root.remove();
    document.getElementById('connect-status').textContent = `Disconnected from ${this.summary.url}`;
    document.getElementById('connect-url').focus();
  }
}

// ---- HTTP trace ----------------------------------------------------------------------
class Trace {
  constructor(ws, panel) {
    this.ws = ws;
    this.status = h('p', { role: 'status', 'aria-label': 'Trace status' });
    this.area = h('div', { class: 'trace' });
    this.covers = h('p', { class: 'hint' }, 'Every exchange between the Inspector and the extension.');
    this.proxy = h('p', { class: 'hint', 'aria-label': 'Trace proxy' });
    this.bypassed = h('div', { 'aria-label': 'Not traced' });
    panel.append(
      h('h3', {}, 'HTTP trace'),
      this.covers, this.proxy, this.bypassed,
      h('p', { class: 'hint' }, 'Secret headers (Authorization, and any named like token, cookie or key) are shown as <redacted>; bodies are cut to 4 KiB.'),
      h('button', { type: 'button', onclick: () => this.load() }, 'Refresh trace'),
      this.status, this.area);
    this.load();
  }

  async load() {
    this.status.textContent = 'Loading the trace…';
    try {
      const data = await api('GET', `${this.ws.base}/trace`, undefined, { what: 'trace' });
      this.covers.textContent = data.covers;
      this.proxy.textContent = `The SDK's client, the MCP pool and the conformance runner reach the extension through the Inspector's recording proxy at ${data.proxy} (loopback only, stopped when you disconnect).`;
      this.bypassed.replaceChildren(...(data.bypassed.length
        ? [h('div', { class: 'error-box', role: 'note' }, h('strong', {}, 'Not traced: '), 'these MCP endpoints are absolute URLs in the manifest, so the pool reaches them directly:',
          h('ul', {}, data.bypassed.map((u) => h('li', {}, h('code', {}, u)))))]
        : []));
      const list = data.exchanges;
      this.status.textContent = `${list.length} exchanges (newest first, the last ${data.capacity} kept)`;
      const ms = (x) => (typeof x === 'number' ? `${x.toFixed(1)} ms` : '—');
      const pairs = (headers) => headers.map(([k, v]) => `${k}: ${v}`).join('\n');
      const details = (x) => h('details', {},
        h('summary', {}, 'Headers and bodies'),
        h('h4', {}, 'Request headers'), h('pre', {}, pairs(x.requestHeaders) || '—'),
        x.requestBody ? [h('h4', {}, 'Request body'), h('pre', {}, x.requestBody)] : null,
        h('h4', {}, 'Response headers'), h('pre', {}, pairs(x.responseHeaders) || '—'),
        x.responseBody ? [h('h4', {}, 'Response body'), h('pre', {}, x.responseBody)] : null);
      this.area.replaceChildren(table('HTTP exchanges', ['#', 'Sent by', 'Method', 'URL', 'Status', 'Time to headers', 'Total', 'Details'],
        list.map((x) => [String(x.seq), x.via === 'proxy' ? 'SDK client, MCP pool or runner (proxy)' : 'Inspector', x.method, h('code', {}, x.url),
          x.status ? String(x.status) : h('span', { class: 'badge bad' }, x.failure || 'no answer'),
          ms(x.headersMs), ms(x.totalMs),
          [x.failure && x.status ? h('p', {}, x.failure) : null, x.responseBody && x.responseBody.startsWith('streamed,') ? h('p', {}, x.responseBody) : null, details(x)]])));
    } catch (e) {
      this.status.textContent = '';
      showError(this.area, e);
    }
  }
}

// ---- Overview ------------------------------------------------------------------------
class Overview {
  constructor(ws, panel) {
    this.ws = ws;
    this.panel = panel;
    this.body = h('div', { class: 'overview' }, h('p', { role: 'status' }, 'Loading the overview…'));
    this.healthArea = h('div', { class: 'health', 'aria-live': 'polite' });
    this.rawArea = h('div', { class: 'raw' });
    panel.append(
      this.body,
      h('section', { 'aria-label': 'Health' },
        h('h3', {}, 'Health'),
        h('button', { type: 'button', onclick: () => this.health() }, 'Refresh health'),
        this.healthArea),
      h('section', { 'aria-label': 'Raw manifests' },
        h('h3', {}, 'Raw manifests'),
        h('button', { type: 'button', onclick: () => this.raw() }, 'Reload raw manifests'),
        this.rawArea));
    this.load();
    this.health();
    this.raw();
  }

  async load() {
    try {
      const data = await api('GET', `${this.ws.base}/overview`, undefined, { what: 'overview' });
      this.render(data);
    } catch (e) {
      this.body.replaceChildren(errorBox(e));
    }
  }

  render({ manifest, configuration, configurationError }) {
    const ext = manifest.extension;
    const caps = Object.entries(manifest.capabilities || {});
    const providers = manifest.contributions.modelProviders || [];
    const tools = manifest.contributions.tools || [];
    const servers = (manifest.mcp && manifest.mcp.servers) || [];
    const flags = (c) => Object.entries(c || {}).filter(([, v]) => v === true).map(([k]) => k).join(', ') || 'none';
    const parts = [
      h('section', { 'aria-label': 'Identity' },
        h('h3', {}, 'Identity'),
        h('dl', { class: 'pairs' },
          h('dt', {}, 'Id'), h('dd', {}, h('code', {}, ext.id)),
          h('dt', {}, 'Name'), h('dd', {}, ext.name),
          h('dt', {}, 'Version'), h('dd', {}, ext.version),
          h('dt', {}, 'Description'), h('dd', {}, ext.description || '—'),
          h('dt', {}, 'Protocol version'), h('dd', {}, manifest.protocolVersion))),
      table('Capabilities', ['Capability', 'Version', 'Endpoint'],
        caps.map(([name, c]) => [h('code', {}, name), c.version || '', c.endpoint || '—'])),
      table('Model providers', ['Id', 'Display name', 'Capabilities', 'Models'],
        providers.map((p) => [h('code', {}, p.id), p.displayName, flags(p.capabilities), (p.models || []).map((m) => m.id).join(', ') || '—'])),
      table('Tool contributions', ['Id', 'Display name', 'MCP server', 'MCP tool'],
        tools.map((t) => [h('code', {}, t.id), t.displayName, t.mcp.server, h('code', {}, t.mcp.tool)])),
      table('MCP servers', ['Id', 'Endpoint'], servers.map((s) => [h('code', {}, s.id), s.endpoint])),
    ];
    if (configurationError) parts.push(h('h3', {}, 'Option sets'), errorBox(configurationError));
    else if (configuration) {
      const sets = configuration.optionSets || [];
      parts.push(table('Option sets', ['Id', 'Contribution', 'Preferred', 'Versions (digest)', 'Migrations'],
        sets.map((s) => [
          h('code', {}, s.id), `${s.contributionKind} ${s.contributionId}`, s.preferredVersion,
          h('ul', { class: 'plain' }, (s.versions || []).map((v) => h('li', {}, `${v.version}${v.deprecated ? ' (deprecated)' : ''} `, h('code', {}, v.schemaDigest)))),
          (s.migrations || []).map((m) => `${m.fromVersion} → ${m.toVersion}`).join(', ') || '—',
        ])));
    } else parts.push(h('p', { class: 'empty' }, 'Option sets: none (no aep.configuration capability)'));
    this.body.replaceChildren(...parts);
  }

  async health() {
    this.healthArea.replaceChildren(h('p', { role: 'status' }, 'Checking health…'));
    try {
      const data = await api('GET', `${this.ws.base}/health`, undefined, { what: 'health' });
      const show = (outcome) => outcome.error
        ? [h('span', { class: 'badge bad' }, outcome.error.code), ` ${outcome.error.message}`]
        : [h('span', { class: `badge ${outcome.status === 'available' ? 'good' : 'warn'}` }, outcome.status), outcome.details ? ` ${outcome.details}` : ''];
      const rows = [['Extension', show(data.extension)]];
      for (const p of data.providers) rows.push([`Provider ${p.id}`, show(p.health)]);
      this.healthArea.replaceChildren(
        table('Health status', ['What', 'Status and details'], rows),
        h('p', { class: 'meta' }, `Checked at ${new Date(data.checkedAt).toLocaleTimeString()} in ${data.elapsedMs} ms`));
    } catch (e) {
      this.healthArea.replaceChildren(errorBox(e));
    }
  }

  async raw() {
    this.rawArea.replaceChildren(h('p', { role: 'status' }, 'Fetching both discovery routes…'));
    try {
      const data = await api('GET', `${this.ws.base}/manifests`, undefined, { what: 'raw manifests' });
      const docs = data.documents.map((d) => {
        const head = d.status ? `HTTP ${d.status} · ${d.contentType || 'no content type'} · ${d.elapsedMs} ms` : `no answer: ${d.failure}`;
        const body = d.json !== undefined ? pretty(d.json) : (d.text || '');
        return h('figure', {},
          h('figcaption', {}, `Revision ${d.revision}: `, h('code', {}, d.url), ` — ${head}`),
          h('pre', { 'aria-label': `Raw manifest ${d.revision}`, tabindex: '0' }, body));
      });
      let diff;
      if (data.diff === null) diff = h('p', {}, 'No diff: one of the documents is not JSON.');
      else diff = table('Differences between the revisions', ['JSON Pointer', 'Revision 1.0', 'Revision 2026-08-01'],
        data.diff.map((d) => [h('code', {}, d.path || '(whole document)'), h('code', {}, d.left === undefined || d.left === null ? '—' : JSON.stringify(d.left)), h('code', {}, d.right === undefined || d.right === null ? '—' : JSON.stringify(d.right))]));
      this.rawArea.replaceChildren(diff, h('div', { class: 'side-by-side' }, docs));
    } catch (e) {
      this.rawArea.replaceChildren(errorBox(e));
    }
  }
}

// ---- Playground ------------------------------------------------------------------------
function reasoningOf(content) {
  return content.kind === 'structured' && content.mediaType === 'application/vnd.aep.reasoning+json' ? (content.data && content.data.text) || '' : null;
}

class Playground {
  constructor(ws, panel) {
    this.ws = ws;
    this.running = null;
    const p = `${ws.id}-chat`;
    this.prefix = p;
    this.provider = h('select', { onchange: () => { this.loadModels(); this.showNativeSets(); } });
    this.model = h('input', { type: 'text', list: `${p}-models`, autocomplete: 'off' });
    this.models = h('datalist', { id: `${p}-models` });
    this.system = h('textarea', { rows: '2' });
    this.messageList = h('ol', { class: 'messages', 'aria-label': 'Messages' });
    this.messages = [];
    this.addMessage('user', 'Hello from the AEP Inspector');
    this.nativeSet = h('select', { onchange: () => this.showNativeVersions() });
    this.nativeVersion = h('select', { onchange: () => this.showNativeForm() });
    this.nativeArea = h('div', { 'aria-label': 'Native options form', role: 'group' });
    this.nativeSent = h('pre', { 'aria-label': 'Native options sent', tabindex: '0', hidden: true });
    this.optionSets = [];
    this.temperature = h('input', { type: 'number', min: '0', max: '2', step: '0.1' });
    this.maxTokens = h('input', { type: 'number', min: '1', step: '1' });
    this.streaming = h('input', { type: 'checkbox', checked: true });
    this.stall = h('input', { type: 'number', min: '0.1', max: '600', step: 'any', value: '30' });
    this.send = h('button', { type: 'submit' }, 'Send');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.cancel() }, 'Cancel');
    this.newChat = h('button', { type: 'button', onclick: () => this.resetMessages() }, 'New conversation');
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Chat status' });
    this.errorArea = h('div', { hidden: true });
    this.text = h('pre', { class: 'answer', 'aria-label': 'Response text', tabindex: '0' });
    this.reasoning = h('pre', { class: 'reasoning', 'aria-label': 'Reasoning', tabindex: '0' });
    this.toolCalls = h('pre', { 'aria-label': 'Tool calls', tabindex: '0' });
    this.stats = h('dl', { class: 'pairs', 'aria-label': 'Stream statistics' });
    this.chart = h('div', { class: 'chart' });
    this.frames = h('tbody');
    const form = h('form', { 'aria-label': 'Chat request', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.run(); } },
      h('div', { class: 'row' },
        field(`${p}-provider`, 'Provider', this.provider),
        field(`${p}-model`, 'Model', this.model)),
      this.models,
      field(`${p}-system`, 'System prompt', this.system, 'Optional; sent as the first message.'),
      h('fieldset', { class: 'message-editor' }, h('legend', {}, 'Messages'),
        h('p', { class: 'hint' }, 'Sent in this order after the system prompt. An answer is added as an assistant message; edit, remove or add messages before sending again.'),
        this.messageList,
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.addMessage(this.nextRole(), '', true) }, 'Add message'))),
      h('fieldset', { class: 'native-options' }, h('legend', {}, 'Native options'),
        h('p', { class: 'hint' }, 'The provider\'s own options, from its option sets (GET /aep/configuration). They are checked by the Inspector with the configuration screen\'s rules, then sent as options.nativeOptions {optionSet, version, schemaDigest, values}.'),
        h('div', { class: 'row' },
          field(`${p}-native-set`, 'Native option set', this.nativeSet),
          field(`${p}-native-version`, 'Native options version', this.nativeVersion)),
        this.nativeArea),
      h('div', { class: 'row' },
        field(`${p}-temperature`, 'Temperature', this.temperature, 'Blank: the provider default.'),
        field(`${p}-max-tokens`, 'Max output tokens', this.maxTokens, 'Blank: the provider default.'),
        field(`${p}-stall`, 'Stall bound (s)', this.stall, 'Give up when no frame arrives for this long.')),
      h('div', { class: 'check' }, this.streaming, h('label', { for: `${p}-streaming` }, 'Stream (SSE)')),
      h('div', { class: 'actions' }, this.send, this.cancelButton, this.newChat));
    this.streaming.id = `${p}-streaming`;
    panel.append(form, this.status, this.errorArea, this.nativeSent,
      h('div', { class: 'results' },
        h('section', { 'aria-label': 'Answer' }, h('h3', {}, 'Text'), this.text),
        h('section', { 'aria-label': 'Reasoning output' }, h('h3', {}, 'Reasoning'), this.reasoning),
        h('section', { 'aria-label': 'Tool call output' }, h('h3', {}, 'Tool calls'), this.toolCalls)),
      h('section', { 'aria-label': 'Timing' }, h('h3', {}, 'Timing and usage'), this.stats, this.chart),
      h('section', { 'aria-label': 'Raw frames' }, h('h3', {}, 'Raw SSE frames'),
        h('table', { class: 'frames' }, h('caption', {}, 'Frames as the extension sent them'),
          h('thead', {}, h('tr', {}, ['#', 'At (ms)', 'Gap (ms)', 'data'].map((x) => h('th', { scope: 'col' }, x)))), this.frames)));
    this.fillProviders();
  }

  async fillProviders() {
    try {
      const data = await api('GET', `${this.ws.base}/overview`, undefined, { what: 'providers' });
      this.providerList = data.manifest.contributions.modelProviders || [];
    } catch (e) {
      showError(this.errorArea, e);
      return;
    }
    if (!this.providerList.length) {
      this.status.textContent = 'This extension has no model provider.';
      this.send.disabled = true;
    }
    this.provider.replaceChildren(...this.providerList.map((p) => h('option', { value: p.id }, `${p.displayName} (${p.id})`)));
    this.loadModels();
    this.loadOptionSets();
  }

  // ---- the message list
  addMessage(role, text, focus = false) {
    const message = {
      role: h('select', {}, ['system', 'user', 'assistant'].map((r) => h('option', { value: r, selected: r === role }, r))),
      text: h('textarea', { rows: '2' }, text),
    };
    message.remove = h('button', { type: 'button', onclick: () => this.removeMessage(message) });
    message.item = h('li', { class: 'message' });
    this.messages.push(message);
    this.renderMessages();
    if (focus) message.text.focus();
    return message;
  }

  removeMessage(message) {
    this.messages = this.messages.filter((m) => m !== message);
    this.renderMessages();
  }

  nextRole() {
    const last = this.messages[this.messages.length - 1];
    return last && last.role.value === 'user' ? 'assistant' : 'user';
  }

  resetMessages() {
    this.messages = [];
    this.addMessage('user', '', true);
  }

  renderMessages() {
    this.messages.forEach((m, i) => {
      const n = i + 1;
      const roleId = `${this.prefix}-message-${n}-role`;
      const textId = `${this.prefix}-message-${n}-text`;
      m.role.id = roleId;
      m.text.id = textId;
      m.remove.textContent = `Remove message ${n}`;
      m.item.replaceChildren(
        h('div', { class: 'field role' }, h('label', { for: roleId }, `Role of message ${n}`), m.role),
        h('div', { class: 'field grow' }, h('label', { for: textId }, `Text of message ${n}`), m.text),
        m.remove);
    });
    this.messageList.replaceChildren(...this.messages.map((m) => m.item));
  }

  // ---- native options (the provider's option sets)
  async loadOptionSets() {
    try {
      const data = await api('GET', `${this.ws.base}/configuration`, undefined, { what: 'option sets' });
      this.optionSets = data.optionSets || [];
    } catch (e) {
      this.optionSets = [];
      if (e.code !== 'configuration_not_offered') this.nativeArea.replaceChildren(errorBox(e));
    }
    this.showNativeSets();
  }

  showNativeSets() {
    const sets = this.optionSets.filter((s) => s.contributionKind === 'model-provider' && s.contributionId === this.provider.value);
    this.nativeSet.replaceChildren(h('option', { value: '' }, sets.length ? '(none: send no native options)' : '(this provider has no option set)'),
      ...sets.map((s) => h('option', { value: s.id }, s.id)));
    this.showNativeVersions();
  }

  currentNativeSet() {
    return this.optionSets.find((s) => s.id === this.nativeSet.value);
  }

  showNativeVersions() {
    const set = this.currentNativeSet();
    this.nativeVersion.replaceChildren(...(set ? set.versions.map((v) => h('option', { value: v.version }, `${v.version}${v.version === set.preferredVersion ? ' (preferred)' : ''}${v.deprecated ? ' (deprecated)' : ''}`)) : []));
    this.nativeVersion.disabled = !set;
    if (set) this.nativeVersion.value = set.preferredVersion;
    this.showNativeForm();
  }

  showNativeForm() {
    const set = this.currentNativeSet();
    const version = set && set.versions.find((v) => v.version === this.nativeVersion.value);
    this.nativeForm = null;
    if (!version) {
      this.nativeArea.replaceChildren();
      return;
    }
    this.nativeForm = new ToolForm(`${this.prefix}-native-${set.versions.indexOf(version)}`, version.schema, 'This version\'s schema has no properties.');
    this.nativeArea.replaceChildren(this.nativeForm.root);
  }

  // The nativeOptions envelope (checked by the Inspector), null when none is chosen, or
  // undefined when the values are refused (each problem shown at its field).
  async nativeOptions() {
    const set = this.currentNativeSet();
    if (!set || !this.nativeForm) return null;
    const values = this.nativeForm.values();
    if (!values) return undefined;
    const version = this.nativeVersion.value;
    const data = await api('POST', `${this.ws.base}/configuration/validate`, { optionSet: set.id, version, values }, { what: 'check native options' });
    if (!data.valid) {
      markIssues(this.nativeForm, data.issues);
      showError(this.errorArea, { code: 'invalid_options', message: `The native options do not match ${set.id} version ${version}; nothing was sent.`, details: data.issues.map((i) => `${i.path}: ${i.message}`) });
      return undefined;
    }
    return { optionSet: data.optionSet, version: data.version, schemaDigest: data.schemaDigest, values };
  }

  async loadModels() {
    const provider = (this.providerList || []).find((p) => p.id === this.provider.value);
    if (!provider) return;
    let models = provider.models || [];
    try {
      models = await api('GET', `${this.ws.base}/providers/${encodeURIComponent(provider.id)}/models`, undefined, { what: 'models' });
    } catch { /* fall back to the manifest's list */ }
    this.models.replaceChildren(...models.map((m) => h('option', { value: m.id }, m.displayName || m.id)));
    if (models.length && !this.model.value) this.model.value = models[0].id;
  }

  request(nativeOptions) {
    const messages = [];
    if (this.system.value.trim()) messages.push({ role: 'system', contents: [{ kind: 'text', text: this.system.value }] });
    for (const m of this.messages) messages.push({ role: m.role.value, contents: [{ kind: 'text', text: m.text.value }] });
    const options = {};
    if (this.temperature.value !== '') options.temperature = Number(this.temperature.value);
    if (this.maxTokens.value !== '') options.maxOutputTokens = Number(this.maxTokens.value);
    if (nativeOptions) options.nativeOptions = nativeOptions;
    const request = { model: this.model.value, messages };
    if (Object.keys(options).length) request.options = options;
    return request;
  }

  reset() {
    this.errorArea.hidden = true;
    this.nativeSent.hidden = true;
    if (this.nativeForm) clearMarks(this.nativeForm);
    this.text.textContent = '';
    this.reasoning.textContent = '';
    this.toolCalls.textContent = '';
    this.stats.replaceChildren();
    this.chart.replaceChildren();
    this.frames.replaceChildren();
  }

  busy(on) {
    this.send.disabled = on;
    this.cancelButton.disabled = !on;
  }

  cancel() {
    if (this.running) this.running.abort();
  }

  async run() {
    if (!this.model.value.trim()) {
      showError(this.errorArea, { code: 'missing_model', message: 'Choose or type a model.' });
      this.model.focus();
      return;
    }
    if (!this.messages.length) {
      showError(this.errorArea, { code: 'missing_message', message: 'Add a message to send.' });
      return;
    }
    this.reset();
    const provider = this.provider.value;
    this.running = new AbortController();
    this.busy(true);
    try {
      const nativeOptions = await this.nativeOptions();
      if (nativeOptions === undefined) {
        this.status.textContent = 'Fix the native options.';
        return;
      }
      const request = this.request(nativeOptions);
      if (nativeOptions) {
        this.nativeSent.textContent = pretty(nativeOptions);
        this.nativeSent.hidden = false;
      }
      if (this.streaming.checked) await this.runStream(provider, request);
      else await this.runOnce(provider, request);
      this.addMessage('assistant', this.text.textContent);
    } catch (e) {
      if (e.code === 'cancelled') this.status.textContent = `Cancelled after ${this.frames.children.length} frames.`;
      else {
        this.status.textContent = 'The chat failed.';
        showError(this.errorArea, e);
      }
    } finally {
      this.busy(false);
      this.running = null;
    }
  }

  async runOnce(provider, request) {
    this.status.textContent = 'Waiting for the answer…';
    const data = await api('POST', `${this.ws.base}/chat`, { provider, request }, { ms: TIMEOUT.chat, cancel: this.running.signal, what: 'chat' });
    const r = data.response;
    let text = '';
    let reasoning = '';
    const calls = [];
    for (const m of r.messages || []) {
      for (const c of m.contents || []) {
        const thought = reasoningOf(c);
        if (thought !== null) reasoning += thought;
        else if (c.kind === 'text') text += c.text || '';
        else if (c.kind === 'toolCall') calls.push(c.toolCall);
      }
    }
    this.text.textContent = text;
    this.reasoning.textContent = reasoning;
    this.toolCalls.textContent = calls.length ? pretty(calls) : '';
    this.showStats({ finishReason: r.finishReason, usage: r.usage, model: r.model, totalMs: data.elapsedMs });
    this.frames.append(h('tr', {}, h('td', {}, '1'), h('td', {}, String(data.elapsedMs)), h('td', {}, '—'), h('td', {}, h('code', {}, JSON.stringify(r)))));
    this.status.textContent = `Answered in ${data.elapsedMs} ms (not streamed).`;
  }

  async runStream(provider, request) {
    this.status.textContent = 'Streaming…';
    const stallSeconds = Number(this.stall.value) || 30;
    let ended = null;
    await events(`${this.ws.base}/chat/stream`, { provider, request, stallSeconds }, {
      cancel: this.running.signal,
      idleMs: (stallSeconds + 15) * 1000,
      what: 'streamed chat',
      onEvent: (name, data) => {
        if (name === 'frame') this.addFrame(data);
        else if (name === 'end') ended = data;
        else if (name === 'failure') {
          this.showStats(data.summary);
          throw new ApiError({ code: data.code, message: data.message });
        }
      },
    });
    if (!ended) throw new ApiError({ code: 'invalid_response', message: 'the Inspector ended the stream without a summary' });
    this.showStats(ended);
    this.status.textContent = `Stream finished: ${ended.frames} frames in ${ended.totalMs.toFixed(1)} ms, finish reason ${ended.finishReason}.`;
  }

  addFrame(frame) {
    const update = frame.update;
    if (update) {
      for (const c of update.contents || []) {
        const thought = reasoningOf(c);
        if (thought !== null) this.reasoning.textContent += thought;
        else if (c.kind === 'text') this.text.textContent += c.text || '';
        else if (c.kind === 'toolCall') this.toolCalls.textContent += `${JSON.stringify(c.toolCall)}\n`;
      }
    }
    this.frames.append(h('tr', {},
      h('td', {}, String(frame.index)), h('td', {}, String(frame.atMs)), h('td', {}, frame.gapMs === null ? '—' : String(frame.gapMs)),
      h('td', {}, h('code', {}, frame.data), frame.problem ? h('span', { class: 'badge bad' }, frame.problem) : '')));
  }

  showStats(s) {
    const usage = s.usage ? `${s.usage.inputTokens ?? '?'} in, ${s.usage.outputTokens ?? '?'} out, ${s.usage.totalTokens ?? '?'} total` : '—';
    const pairs = [
      ['Finish reason', s.finishReason || '—'],
      ['Model', s.model || '—'],
      ['Usage', usage],
      ['Time to first token', s.timeToFirstTokenMs === undefined || s.timeToFirstTokenMs === null ? '—' : `${s.timeToFirstTokenMs} ms`],
      ['Total', s.totalMs === undefined ? '—' : `${s.totalMs} ms`],
      ['Frames', s.frames === undefined ? '—' : String(s.frames)],
    ];
    if (s.gapsMs && s.gapsMs.length) {
      const max = Math.max(...s.gapsMs);
      pairs.push(['Inter-frame gaps', `${s.gapsMs.length} gaps, largest ${max.toFixed(2)} ms, mean ${(s.gapsMs.reduce((a, b) => a + b, 0) / s.gapsMs.length).toFixed(2)} ms`]);
      this.chart.replaceChildren(gapChart(s.gapsMs));
    }
    this.stats.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  }
}

function gapChart(gaps) {
  const ns = 'http://www.w3.org/2000/svg';
  const width = 320;
  const height = 60;
  const max = Math.max(1, ...gaps);
  const bar = width / gaps.length;
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `Inter-frame gaps chart: ${gaps.length} gaps, largest ${max.toFixed(2)} ms`);
  gaps.forEach((gap, i) => {
    const rect = document.createElementNS(ns, 'rect');
    const hgt = Math.max(1, (gap / max) * (height - 2));
    rect.setAttribute('x', String(i * bar));
    rect.setAttribute('y', String(height - hgt));
    rect.setAttribute('width', String(Math.max(1, bar - 1)));
    rect.setAttribute('height', String(hgt));
    const title = document.createElementNS(ns, 'title');
    title.textContent = `gap ${i + 1}: ${gap} ms`;
    rect.append(title);
    svg.append(rect);
  });
  return svg;
}

// ---- Tools ----------------------------------------------------------------------------------
// The values a schema allows when it lists them: `enum`, or `oneOf`/`anyOf` branches that
// are each one `const` (or one-value `enum`), as schemars writes documented enum variants.
// Each is {value, label}.
function choicesOf(schema) {
  if (Array.isArray(schema.enum)) return schema.enum.filter((v) => v !== null).map((v) => ({ value: v, label: String(v) }));
  for (const key of ['oneOf', 'anyOf']) {
    const branches = (schema[key] || []).filter((b) => b.type !== 'null');
    if (!branches.length) continue;
    const single = branches.map((b) => ('const' in b ? [b.const] : Array.isArray(b.enum) && b.enum.length === 1 ? b.enum : null));
    if (single.every(Boolean)) {
      return single.map(([v], i) => ({ value: v, label: branches[i].description ? `${v} — ${branches[i].description}` : String(v) }));
    }
    if (branches.length === 1) return choicesOf(branches[0]);
  }
  return null;
}

// The form control kind of a property: enum, boolean, integer, number, string, or json
// (arrays, objects, unions: edited as JSON), with null (optional) taken out.
function schemaType(schema) {
  if (choicesOf(schema)) return 'enum';
  let type = schema.type;
  if (Array.isArray(type)) {
    const rest = type.filter((t) => t !== 'null');
    type = rest.length === 1 ? rest[0] : null;
  }
  if (!type && Array.isArray(schema.anyOf)) {
    const rest = schema.anyOf.filter((s) => s.type !== 'null');
    if (rest.length === 1) return schemaType(rest[0]);
  }
  return ['boolean', 'integer', 'number', 'string'].includes(type) ? type : 'json';
}

class ToolForm {
  constructor(prefix, schema, empty = 'This tool takes no arguments.') {
    this.schema = schema || {};
    this.inputs = [];
    this.root = h('div', { class: 'tool-form' });
    const props = this.schema.properties || {};
    const required = new Set(this.schema.required || []);
    const names = Object.keys(props);
    if (!names.length) this.root.append(h('p', { class: 'empty' }, empty));
    names.forEach((name, i) => {
      const prop = props[name] || {};
      const type = schemaType(prop);
      const isRequired = required.has(name);
      const id = `${prefix}-arg-${i}`;
      const label = `${name}${isRequired ? ' (required)' : ' (optional)'}`;
      const jsonKind = Array.isArray(prop.type) ? prop.type.join(' or ') : prop.type || 'value';
      const hint = [prop.description, type === 'json' ? `JSON ${jsonKind}` : ''].filter(Boolean).join(' · ');
      let control;
      if (type === 'enum') {
        control = h('select', {}, isRequired ? null : h('option', { value: '' }, '(not set)'),
          choicesOf(prop).map((c) => h('option', { value: String(c.value) }, c.label)));
      } else if (type === 'boolean' && isRequired) {
        control = h('input', { type: 'checkbox' });
      } else if (type === 'boolean') {
        control = h('select', {}, h('option', { value: '' }, '(not set)'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
      } else if (type === 'integer' || type === 'number') {
        control = h('input', { type: 'number', step: type === 'integer' ? '1' : 'any', min: prop.minimum, max: prop.maximum });
      } else if (type === 'string') {
        control = prop.maxLength && prop.maxLength < 200 ? h('input', { type: 'text' }) : h('textarea', { rows: '2' });
      } else {
        control = h('textarea', { rows: '3', class: 'json' }, prop.default !== undefined ? JSON.stringify(prop.default) : '');
      }
      if (isRequired && control.type !== 'checkbox') control.setAttribute('aria-required', 'true');
      const errorId = `${id}-error`;
      const error = h('small', { id: errorId, class: 'field-error', role: 'alert' });
      const wrap = type === 'boolean' && isRequired
        ? h('div', { class: 'check' }, control, h('label', { for: id }, label))
        : field(id, label, control, hint);
      control.id = id;
      wrap.append(error);
      this.root.append(wrap);
      this.inputs.push({ name, type, isRequired, control, error, choices: type === 'enum' ? choicesOf(prop) : null });
    });
  }

  // The arguments, or null (with each problem shown at its field).
  values() {
    const args = {};
    let ok = true;
    for (const { name, type, isRequired, control, error, choices } of this.inputs) {
      error.textContent = '';
      control.removeAttribute('aria-invalid');
      const fail = (message) => {
        error.textContent = message;
        control.setAttribute('aria-invalid', 'true');
        ok = false;
      };
      if (control.type === 'checkbox') {
        args[name] = control.checked;
        continue;
      }
      const raw = control.value;
      if (raw === '') {
        if (isRequired && type !== 'string') fail(`${name} is required`);
        else if (isRequired) args[name] = '';
        continue;
      }
      if (type === 'enum') args[name] = choices.find((c) => String(c.value) === raw).value;
      else if (type === 'boolean') args[name] = raw === 'true';
      else if (type === 'integer' || type === 'number') {
        const n = Number(raw);
        if (!Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) fail(`${name} must be ${type === 'integer' ? 'a whole number' : 'a number'}`);
        else args[name] = n;
      } else if (type === 'string') args[name] = raw;
      else {
        try { args[name] = JSON.parse(raw); } catch (e) { fail(`${name}: not JSON (${e.message})`); }
      }
    }
    return ok ? args : null;
  }

  fill(args) {
    for (const { name, type, control } of this.inputs) {
      const v = args[name];
      if (control.type === 'checkbox') control.checked = v === true;
      else if (v === undefined) control.value = '';
      else if (['enum', 'string', 'integer', 'number', 'boolean'].includes(type)) control.value = String(v);
      else control.value = JSON.stringify(v);
    }
  }
}

// Puts each validation issue at its field (the first member of its path), when the form
// shows it.
function markIssues(form, issues) {
  for (const input of form.inputs) {
    const mine = issues.filter((i) => i.path.replace(/^values\.?/, '').split(/[.[]/)[0] === input.name);
    if (!mine.length) continue;
    input.error.textContent = mine.map((i) => i.message).join(' ');
    input.control.setAttribute('aria-invalid', 'true');
  }
}

function clearMarks(form) {
  for (const input of form.inputs) {
    input.error.textContent = '';
    input.control.removeAttribute('aria-invalid');
  }
}

class Tools {
  constructor(ws, panel) {
    this.ws = ws;
    this.panel = panel;
    this.tools = [];
    this.running = null;
    const p = `${ws.id}-tools`;
    this.prefix = p;
    this.select = h('select', { onchange: () => this.show() });
    this.details = h('div', { class: 'tool-details' });
    this.formArea = h('div');
    this.jsonMode = h('input', { type: 'checkbox', id: `${p}-json-mode`, onchange: () => this.toggleJson() });
    this.jsonArgs = h('textarea', { rows: '6', class: 'json' });
    this.jsonField = field(`${p}-json`, 'Arguments (JSON)', this.jsonArgs);
    this.jsonField.hidden = true;
    this.callButton = h('button', { type: 'submit' }, 'Call tool');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.running && this.running.abort() }, 'Cancel call');
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Tool call status' });
    this.result = h('div', { class: 'tool-result', 'aria-label': 'Tool result', role: 'region' });
    this.listArea = h('div', {}, h('p', { role: 'status' }, 'Resolving tools through AEP → MCP…'));
    panel.append(this.listArea);
    this.load();
    this.surface = new McpSurface(ws, panel);
  }

  async load() {
    let data;
    try {
      data = await api('GET', `${this.ws.base}/tools`, undefined, { what: 'tools', ms: TIMEOUT.tool });
    } catch (e) {
      this.listArea.replaceChildren(errorBox(e), h('button', { type: 'button', onclick: () => this.load() }, 'Try again'));
      return;
    }
    this.tools = data.tools;
    const failures = data.failures.map((f) => errorBox(f));
    if (!this.tools.length) {
      this.listArea.replaceChildren(h('p', { class: 'empty' }, 'This extension has no tools that resolve.'), ...failures);
      return;
    }
    this.select.replaceChildren(...this.tools.map((t) => h('option', { value: t.id }, `${t.displayName} (${t.id})`)));
    const form = h('form', { 'aria-label': 'Tool call', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.call(); } },
      field(`${this.prefix}-tool`, 'Tool', this.select),
      this.details,
      h('h3', {}, 'Arguments'),
      h('div', { class: 'check' }, this.jsonMode, h('label', { for: this.jsonMode.id }, 'Edit arguments as JSON')),
      this.formArea, this.jsonField,
      h('div', { class: 'actions' }, this.callButton, this.cancelButton));
    this.listArea.replaceChildren(...failures, form, this.status, this.result);
    this.show();
  }

  current() {
    return this.tools.find((t) => t.id === this.select.value);
  }

  show() {
    const tool = this.current();
    if (!tool) return;
    const hints = Object.entries(tool.hints || {}).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
    this.details.replaceChildren(
      h('dl', { class: 'pairs' },
        h('dt', {}, 'Description'), h('dd', {}, tool.description || '—'),
        h('dt', {}, 'MCP'), h('dd', {}, `server ${tool.origin.mcpServer || '—'}, tool `, h('code', {}, tool.origin.mcpTool), ' at ', h('code', {}, tool.origin.mcpUrl)),
        h('dt', {}, 'Annotations'), h('dd', {}, hints),
        h('dt', {}, 'AEP metadata'), h('dd', {}, h('code', {}, JSON.stringify(tool.metadata)))),
      h('details', {}, h('summary', {}, 'Input schema'), h('pre', { 'aria-label': 'Input schema' }, pretty(tool.inputSchema))),
      tool.outputSchema ? h('details', {}, h('summary', {}, 'Output schema'), h('pre', { 'aria-label': 'Output schema' }, pretty(tool.outputSchema))) : '');
    this.form = new ToolForm(`${this.prefix}-${this.tools.indexOf(tool)}`, tool.inputSchema);
    this.formArea.replaceChildren(this.form.root);
    this.jsonMode.checked = false;
    this.toggleJson();
    this.result.replaceChildren();
    this.status.textContent = '';
  }

  toggleJson() {
    const json = this.jsonMode.checked;
    if (json) {
      const args = this.form.values();
      this.jsonArgs.value = pretty(args || {});
    } else if (this.jsonArgs.value.trim()) {
      try { this.form.fill(JSON.parse(this.jsonArgs.value)); } catch { /* keep the form as it was */ }
    }
    this.formArea.hidden = json;
    this.jsonField.hidden = !json;
  }

  async call() {
    const tool = this.current();
    let args;
    if (this.jsonMode.checked) {
      try { args = JSON.parse(this.jsonArgs.value || '{}'); } catch (e) {
        this.result.replaceChildren(errorBox({ code: 'invalid_json', message: `Arguments: not JSON (${e.message})` }));
        return;
      }
    } else {
      args = this.form.values();
      if (!args) {
        this.status.textContent = 'Fix the highlighted fields.';
        return;
      }
    }
    this.running = new AbortController();
    this.callButton.disabled = true;
    this.cancelButton.disabled = false;
    this.status.textContent = `Calling ${tool.id}…`;
    this.result.replaceChildren();
    try {
      const data = await api('POST', `${this.ws.base}/tools/call`, { tool: tool.id, arguments: args },
        { ms: TIMEOUT.tool, cancel: this.running.signal, what: `call ${tool.id}` });
      this.render(data);
      this.status.textContent = `${tool.id} answered in ${data.durationMs.toFixed(1)} ms${data.output.isError ? ' with a tool error' : ''}.`;
    } catch (e) {
      this.status.textContent = e.code === 'cancelled' ? 'Call cancelled.' : `${tool.id} failed.`;
      if (e.code !== 'cancelled') this.result.replaceChildren(errorBox(e));
    } finally {
      this.running = null;
      this.callButton.disabled = false;
      this.cancelButton.disabled = true;
    }
  }

  render({ output, durationMs, outputCheck }) {
    const parts = [
      h('dl', { class: 'pairs' },
        h('dt', {}, 'isError'), h('dd', {}, h('span', { class: `badge ${output.isError ? 'bad' : 'good'}` }, String(output.isError))),
        h('dt', {}, 'Duration'), h('dd', {}, `${durationMs.toFixed(1)} ms`)),
      h('h4', {}, 'Content'),
    ];
    for (const block of output.content) {
      if (block.type === 'text') parts.push(h('pre', { 'aria-label': 'Text content' }, block.text));
      else if (block.type === 'image' && block.data) parts.push(h('img', { alt: 'Image content', src: `data:${block.mimeType};base64,${block.data}` }));
      else parts.push(h('pre', { 'aria-label': `${block.type} content` }, pretty(block)));
    }
    if (output.structured !== undefined) {
      parts.push(h('h4', {}, 'Structured content'), h('pre', { 'aria-label': 'Structured content' }, pretty(output.structured)));
      if (outputCheck) {
        parts.push(outputCheck.valid
          ? h('p', {}, h('span', { class: 'badge good' }, 'valid'), ' against the output schema')
          : h('div', { class: 'error-box' }, h('strong', {}, 'Does not match the output schema:'), h('ul', {}, outputCheck.issues.map((i) => h('li', {}, i)))));
      }
    }
    this.result.replaceChildren(...parts);
  }
}

// ---- Resources and prompts (in the Tools screen) ------------------------------------------
// The expressions of a URI template (RFC 6570): [{operator, names}] for each {...}.
function templateExpressions(template) {
  return [...template.matchAll(/\{([+#./;?&]?)([^}]*)\}/g)].map((m) => ({
    operator: m[1],
    names: m[2].split(',').map((v) => v.replace(/(\*|:\d+)$/, '').trim()).filter(Boolean),
  }));
}

function templateVariables(template) {
  return [...new Set(templateExpressions(template).flatMap((e) => e.names))];
}

// Expands a URI template (simple values, every operator of RFC 6570 levels 1 to 3).
function expandTemplate(template, values) {
  return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op, list) => {
    const names = list.split(',').map((v) => v.replace(/(\*|:\d+)$/, '').trim()).filter(Boolean);
    const set = names.filter((n) => values[n] !== undefined && values[n] !== '');
    const enc = op === '+' || op === '#' ? encodeURI : encodeURIComponent;
    if (!set.length) return '';
    const named = op === ';' || op === '?' || op === '&';
    const parts = set.map((n) => (named ? `${n}=${enc(values[n])}` : enc(values[n])));
    const first = { '': '', '+': '', '#': '#', '.': '.', '/': '/', ';': ';', '?': '?', '&': '&' }[op];
    const sep = { '': ',', '+': ',', '#': ',', '.': '.', '/': '/', ';': ';', '?': '&', '&': '&' }[op];
    return first + parts.join(sep);
  });
}

function contentBlocks(blocks, what) {
  return (blocks || []).map((c) => {
    const head = h('p', { class: 'meta' }, h('code', {}, c.uri || ''), c.mimeType ? ` · ${c.mimeType}` : '');
    if (typeof c.text === 'string') return h('div', {}, head, h('pre', { 'aria-label': what, tabindex: '0' }, c.text));
    if (typeof c.blob === 'string') return h('div', {}, head, h('p', {}, `binary, ${Math.floor((c.blob.length * 3) / 4)} bytes (base64)`));
    return h('pre', { 'aria-label': what }, pretty(c));
  });
}

class McpSurface {
  constructor(ws, panel) {
    this.ws = ws;
    this.area = h('section', { 'aria-label': 'Resources and prompts' },
      h('h3', {}, 'Resources and prompts'),
      h('p', { role: 'status' }, 'Asking each MCP server what it offers…'));
    panel.append(this.area);
    this.load();
  }

  async load() {
    let data;
    try {
      data = await api('GET', `${this.ws.base}/mcp`, undefined, { what: 'resources and prompts', ms: TIMEOUT.tool });
    } catch (e) {
      this.area.replaceChildren(h('h3', {}, 'Resources and prompts'), errorBox(e),
        h('button', { type: 'button', onclick: () => this.load() }, 'Ask again'));
      return;
    }
    const parts = [h('h3', {}, 'Resources and prompts')];
    if (!data.servers.length) parts.push(h('p', { class: 'empty' }, 'The manifest declares no MCP server.'));
    data.servers.forEach((server, i) => parts.push(this.server(server, `${this.ws.id}-mcp-${i}`)));
    this.area.replaceChildren(...parts);
  }

  server(server, p) {
    const box = h('div', { class: 'mcp-server', role: 'group', 'aria-label': `MCP server ${server.id}` },
      h('h4', {}, `MCP server ${server.id} `, h('code', {}, server.url || server.endpoint)));
    if (server.error) {
      box.append(errorBox(server.error));
      return box;
    }
    const result = h('div', { role: 'region', 'aria-label': `Resource result of ${server.id}` });
    const read = async (uri) => {
      result.replaceChildren(h('p', { role: 'status' }, `Reading ${uri}…`));
      try {
        const data = await api('POST', `${this.ws.base}/mcp/resources/read`, { server: server.id, uri }, { what: `read ${uri}`, ms: TIMEOUT.tool });
        result.replaceChildren(h('p', { class: 'status' }, `Read `, h('code', {}, uri), ` in ${data.durationMs.toFixed(1)} ms: ${data.result.contents.length} content item(s).`),
          ...contentBlocks(data.result.contents, 'Resource contents'));
      } catch (e) {
        result.replaceChildren(errorBox(e));
      }
    };
    if (!server.resources) box.append(h('p', { class: 'empty' }, 'Resources: not offered (the server does not advertise the resources capability).'));
    else {
      const { resources, templates } = server.resources;
      if (resources.error) box.append(errorBox(resources.error));
      else {
        box.append(table('Resources', ['URI', 'Name', 'Type', 'Description', ''],
          resources.map((r) => [h('code', {}, r.uri), r.title || r.name, r.mimeType || '—', r.description || '—',
            h('button', { type: 'button', onclick: () => read(r.uri) }, `Read ${r.uri}`)])));
      }
      if (templates.error) box.append(errorBox(templates.error));
      else if (!templates.length) box.append(h('p', { class: 'empty' }, 'Resource templates: none'));
      else box.append(this.templates(templates, p, read));
      box.append(result);
    }
    if (!server.prompts) box.append(h('p', { class: 'empty' }, 'Prompts: not offered (the server does not advertise the prompts capability).'));
    else if (server.prompts.error) box.append(errorBox(server.prompts.error));
    else if (!server.prompts.length) box.append(h('p', { class: 'empty' }, 'Prompts: none'));
    else box.append(this.prompts(server, p));
    return box;
  }

  templates(templates, p, read) {
    const select = h('select');
    select.append(...templates.map((t, i) => h('option', { value: String(i) }, `${t.title || t.name} (${t.uriTemplate})`)));
    const fields = h('div', { class: 'row' });
    const uri = h('output', { 'aria-label': 'Expanded URI' });
    let inputs = [];
    const expand = () => {
      const t = templates[Number(select.value)];
      const values = Object.fromEntries(inputs.map(({ name, control }) => [name, control.value]));
      uri.textContent = expandTemplate(t.uriTemplate, values);
      return inputs.every(({ control }) => control.value !== '');
    };
    const show = () => {
      const t = templates[Number(select.value)];
      inputs = templateVariables(t.uriTemplate).map((name, i) => ({ name, control: h('input', { type: 'text', oninput: expand }) }));
      fields.replaceChildren(...inputs.map(({ name, control }, i) => field(`${p}-var-${select.value}-${i}`, `Variable ${name}`, control)));
      expand();
    };
    select.addEventListener('change', show);
    const status = h('small', { class: 'field-error', role: 'alert' });
    const form = h('form', { 'aria-label': 'Read a resource template', onsubmit: (e) => {
      e.preventDefault();
      status.textContent = '';
      if (!expand()) {
        status.textContent = 'Fill every variable of the template.';
        return;
      }
      read(uri.textContent);
    } },
    table('Resource templates', ['URI template', 'Name', 'Type', 'Description'],
      templates.map((t) => [h('code', {}, t.uriTemplate), t.title || t.name, t.mimeType || '—', t.description || '—'])),
    field(`${p}-template`, 'Resource template', select),
    fields,
    h('p', {}, 'URI: ', h('code', {}, uri)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Read resource')), status);
    show();
    return form;
  }

  prompts(server, p) {
    const prompts = server.prompts;
    const select = h('select');
    select.append(...prompts.map((x, i) => h('option', { value: String(i) }, `${x.title || x.name} (${x.name})`)));
    const details = h('p', { class: 'hint' });
    const fields = h('div');
    const result = h('div', { role: 'region', 'aria-label': `Prompt result of ${server.id}` });
    let inputs = [];
    const show = () => {
      const prompt = prompts[Number(select.value)];
      details.textContent = prompt.description || '';
      inputs = (prompt.arguments || []).map((a, i) => {
        const control = h('input', { type: 'text' });
        if (a.required) control.setAttribute('aria-required', 'true');
        const error = h('small', { class: 'field-error', role: 'alert' });
        const wrap = field(`${p}-prompt-${select.value}-${i}`, `Argument ${a.name}${a.required ? ' (required)' : ' (optional)'}`, control, a.description);
        wrap.append(error);
        return { arg: a, control, error, wrap };
      });
      if (!inputs.length) fields.replaceChildren(h('p', { class: 'empty' }, 'This prompt takes no arguments.'));
      else fields.replaceChildren(...inputs.map((x) => x.wrap));
      result.replaceChildren();
    };
    select.addEventListener('change', show);
    const get = async () => {
      const prompt = prompts[Number(select.value)];
      const args = {};
      let ok = true;
      for (const { arg, control, error } of inputs) {
        error.textContent = '';
        control.removeAttribute('aria-invalid');
        if (control.value !== '') args[arg.name] = control.value;
        else if (arg.required) {
          error.textContent = `${arg.name} is required`;
          control.setAttribute('aria-invalid', 'true');
          ok = false;
        }
      }
      if (!ok) return;
      result.replaceChildren(h('p', { role: 'status' }, `Getting ${prompt.name}…`));
      try {
        const data = await api('POST', `${this.ws.base}/mcp/prompts/get`, { server: server.id, name: prompt.name, arguments: args }, { what: `get ${prompt.name}`, ms: TIMEOUT.tool });
        const messages = data.result.messages || [];
        result.replaceChildren(
          h('p', { class: 'status' }, `${prompt.name} answered in ${data.durationMs.toFixed(1)} ms with ${messages.length} message(s)${data.result.description ? `: ${data.result.description}` : '.'}`),
          h('ol', { 'aria-label': 'Prompt messages', class: 'transcript' }, messages.map((m) => h('li', {}, h('strong', {}, `${m.role}: `),
            m.content && m.content.type === 'text' ? h('pre', {}, m.content.text) : h('pre', {}, pretty(m.content))))));
      } catch (e) {
        result.replaceChildren(errorBox(e));
      }
    };
    const form = h('form', { 'aria-label': 'Get a prompt', novalidate: true, onsubmit: (e) => { e.preventDefault(); get(); } },
      table('Prompts', ['Name', 'Title', 'Arguments', 'Description'],
        prompts.map((x) => [h('code', {}, x.name), x.title || '—', (x.arguments || []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ') || '—', x.description || '—'])),
      field(`${p}-prompt`, 'Prompt', select), details, fields,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Get prompt')), result);
    show();
    return form;
  }
}

// ---- Configuration -------------------------------------------------------------------------
// Option sets (spec section 5): versions and digests, values checked against a version's
// schema (by the Inspector, with the SDK's rules), and migrations run by the extension.
class Configuration {
  constructor(ws, panel) {
    this.ws = ws;
    this.panel = panel;
    this.sets = [];
    const p = `${ws.id}-config`;
    this.prefix = p;
    this.setSelect = h('select', { onchange: () => this.showSet() });
    this.versionSelect = h('select', { onchange: () => this.showVersion() });
    this.targetSelect = h('select');
    this.formArea = h('div');
    this.jsonMode = h('input', { type: 'checkbox', id: `${p}-json-mode`, onchange: () => this.toggleJson() });
    this.jsonValues = h('textarea', { rows: '6', class: 'json' });
    this.jsonField = field(`${p}-json`, 'Values (JSON)', this.jsonValues);
    this.jsonField.hidden = true;
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Configuration status' });
    this.result = h('div', { role: 'region', 'aria-label': 'Configuration result' });
    this.listArea = h('div', {}, h('p', { role: 'status' }, 'Reading the option sets…'));
    panel.append(this.listArea);
    this.load();
  }

  async load() {
    let data;
    try {
      data = await api('GET', `${this.ws.base}/configuration`, undefined, { what: 'option sets' });
    } catch (e) {
      if (e.code === 'configuration_not_offered') {
        this.listArea.replaceChildren(h('p', { class: 'empty' }, 'This extension publishes no option set (no aep.configuration capability).'));
      } else {
        this.listArea.replaceChildren(errorBox(e), h('button', { type: 'button', onclick: () => this.load() }, 'Try again'));
      }
      return;
    }
    this.sets = data.optionSets || [];
    if (!this.sets.length) {
      this.listArea.replaceChildren(h('p', { class: 'empty' }, 'The extension\'s catalog lists no option set.'));
      return;
    }
    const versions = [];
    for (const s of this.sets) {
      for (const v of s.versions) {
        const check = v.digestCheck.matches
          ? h('span', { class: 'badge good' }, 'matches')
          : [h('span', { class: 'badge bad' }, 'differs'), ' computed ', h('code', {}, v.digestCheck.computed)];
        versions.push([h('code', {}, s.id), `${v.version}${v.version === s.preferredVersion ? ' (preferred)' : ''}${v.deprecated ? ' (deprecated)' : ''}`, h('code', {}, v.schemaDigest), check]);
      }
    }
    this.setSelect.replaceChildren(...this.sets.map((s) => h('option', { value: s.id }, `${s.id} (${s.contributionKind} ${s.contributionId})`)));
    const form = h('form', { 'aria-label': 'Option values', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.validate(); } },
      h('div', { class: 'row' },
        field(`${this.prefix}-set`, 'Option set', this.setSelect),
        field(`${this.prefix}-version`, 'Version', this.versionSelect)),
      h('div', { class: 'check' }, this.jsonMode, h('label', { for: this.jsonMode.id }, 'Edit values as JSON')),
      this.formArea, this.jsonField,
      h('div', { class: 'actions' },
        h('button', { type: 'submit' }, 'Check values')),
      h('div', { class: 'row' },
        field(`${this.prefix}-target`, 'Migrate to version', this.targetSelect),
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.migrate() }, 'Migrate values'))));
    this.listArea.replaceChildren(
      table('Option sets', ['Id', 'Contribution', 'Scope', 'Preferred', 'Migrations'],
        this.sets.map((s) => [h('code', {}, s.id), `${s.contributionKind} ${s.contributionId}`, s.scope, s.preferredVersion,
          (s.migrations || []).map((m) => `${m.fromVersion} → ${m.toVersion}`).join(', ') || '—'])),
      table('Option set versions', ['Option set', 'Version', 'Published digest', 'Digest of the schema as read'], versions),
      h('h3', {}, 'Check and migrate values'),
      h('p', { class: 'hint' }, 'Values are checked by the Inspector against the version\'s schema with the SDK\'s rules (those an AEP SDK extension applies to nativeOptions). Migrations are run by the extension (POST /aep/configuration/migrate).'),
      form, this.status, this.result);
    this.showSet();
  }

  currentSet() {
    return this.sets.find((s) => s.id === this.setSelect.value);
  }

  currentVersion() {
    const set = this.currentSet();
    return set && set.versions.find((v) => v.version === this.versionSelect.value);
  }

  showSet() {
    const set = this.currentSet();
    if (!set) return;
    this.versionSelect.replaceChildren(...set.versions.map((v) => h('option', { value: v.version }, `${v.version}${v.deprecated ? ' (deprecated)' : ''}`)));
    this.versionSelect.value = set.preferredVersion;
    this.showVersion();
  }

  showVersion() {
    const set = this.currentSet();
    const version = this.currentVersion();
    if (!version) return;
    this.targetSelect.replaceChildren(...set.versions.filter((v) => v.version !== version.version)
      .map((v) => h('option', { value: v.version }, v.version)));
    const reachable = (set.migrations || []).find((m) => m.fromVersion === version.version);
    if (reachable) this.targetSelect.value = reachable.toVersion;
    this.form = new ToolForm(`${this.prefix}-${set.versions.indexOf(version)}`, version.schema, 'This version\'s schema has no properties: edit the values as JSON.');
    this.formArea.replaceChildren(this.form.root, h('details', {}, h('summary', {}, 'Schema'), h('pre', { 'aria-label': 'Option schema' }, pretty(version.schema))));
    this.jsonMode.checked = false;
    this.jsonValues.value = '';
    this.toggleJson();
    this.result.replaceChildren();
    this.status.textContent = '';
  }

  toggleJson() {
    const json = this.jsonMode.checked;
    if (json) this.jsonValues.value = pretty(this.form.values() || {});
    else if (this.jsonValues.value.trim()) {
      try { this.form.fill(JSON.parse(this.jsonValues.value)); } catch { /* keep the form as it was */ }
    }
    this.formArea.hidden = json;
    this.jsonField.hidden = !json;
  }

  // The values, or null (the problem shown at its field or in the result).
  values() {
    if (this.jsonMode.checked) {
      try { return JSON.parse(this.jsonValues.value || '{}'); } catch (e) {
        this.result.replaceChildren(errorBox({ code: 'invalid_json', message: `Values: not JSON (${e.message})` }));
        return null;
      }
    }
    const values = this.form.values();
    if (!values) this.status.textContent = 'Fix the highlighted fields.';
    return values;
  }

  issueList(issues) {
    return h('ul', { 'aria-label': 'Problems' }, issues.map((i) => h('li', {}, h('code', {}, i.path), ` ${i.message} `, h('span', { class: 'badge muted' }, i.code))));
  }

  async validate() {
    const set = this.currentSet();
    const version = this.currentVersion();
    this.result.replaceChildren();
    const values = this.values();
    if (!values) return;
    this.status.textContent = `Checking values against ${set.id} ${version.version}…`;
    try {
      const data = await api('POST', `${this.ws.base}/configuration/validate`, { optionSet: set.id, version: version.version, values }, { what: 'check values' });
      if (data.valid) {
        this.status.textContent = `Valid for ${data.optionSet} version ${data.version}${data.deprecated ? ' (deprecated)' : ''}.`;
        this.result.replaceChildren(h('p', {}, h('span', { class: 'badge good' }, 'valid'), ' nativeOptions to send: '),
          h('pre', { 'aria-label': 'Native options' }, pretty({ optionSet: data.optionSet, version: data.version, schemaDigest: data.schemaDigest, values })));
      } else {
        this.status.textContent = `${data.issues.length} problem${data.issues.length === 1 ? '' : 's'} against ${data.optionSet} version ${data.version}.`;
        if (!this.jsonMode.checked) markIssues(this.form, data.issues);
        this.result.replaceChildren(h('div', { class: 'error-box' }, h('strong', {}, 'The values do not match the schema:'), this.issueList(data.issues)));
      }
    } catch (e) {
      this.status.textContent = 'The check failed.';
      this.result.replaceChildren(errorBox(e));
    }
  }

  async migrate() {
    const set = this.currentSet();
    const version = this.currentVersion();
    const target = this.targetSelect.value;
    this.result.replaceChildren();
    if (!target) {
      this.status.textContent = 'This option set has only one version: there is nothing to migrate to.';
      return;
    }
    const values = this.values();
    if (!values) return;
    this.status.textContent = `Migrating from ${version.version} to ${target}…`;
    try {
      const data = await api('POST', `${this.ws.base}/configuration/migrate`,
        { optionSet: set.id, fromVersion: version.version, toVersion: target, values }, { what: 'migrate values' });
      const parts = [
        h('h4', {}, 'Migrated values'),
        h('pre', { 'aria-label': 'Migrated values' }, pretty(data.options.values)),
        h('h4', {}, 'Migrated options (the envelope to send)'),
        h('pre', { 'aria-label': 'Migrated options' }, pretty(data.options)),
      ];
      if (data.check) {
        parts.push(data.check.valid
          ? h('p', {}, h('span', { class: 'badge good' }, 'valid'), ` against version ${data.options.version}`)
          : h('div', { class: 'error-box' }, h('strong', {}, `The result does not match version ${data.options.version}:`), this.issueList(data.check.issues)));
      }
      this.result.replaceChildren(...parts);
      this.status.textContent = `Migrated from ${version.version} to ${data.options.version} in ${data.elapsedMs.toFixed(1)} ms.`;
    } catch (e) {
      this.status.textContent = 'The extension did not migrate the values.';
      this.result.replaceChildren(errorBox(e));
    }
  }
}

// ---- Conformance ---------------------------------------------------------------------------
class Conformance {
  constructor(ws, panel) {
    this.ws = ws;
    this.running = null;
    const p = `${ws.id}-suite`;
    this.only = h('input', { type: 'text', placeholder: '3.stream, 1.discovery.v1' });
    this.skip = h('input', { type: 'text' });
    this.strict = h('input', { type: 'checkbox', id: `${p}-strict` });
    this.runButton = h('button', { type: 'submit' }, 'Run conformance suite');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.cancel() }, 'Cancel run');
    this.progress = h('progress', { max: '1', value: '0', 'aria-label': 'Conformance progress' });
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Conformance status' });
    this.errorArea = h('div', { hidden: true });
    this.exports = h('p', { class: 'exports', hidden: true },
      h('a', { href: `${ws.base}/conformance/report.json`, download: 'aep-conformance.json' }, 'Export JSON'), ' · ',
      h('a', { href: `${ws.base}/conformance/report.xml`, download: 'aep-conformance.xml' }, 'Export JUnit'));
    this.rows = h('tbody');
    this.table = h('table', { class: 'report', hidden: true },
      h('caption', {}, 'Conformance report'),
      h('thead', {}, h('tr', {}, ['Check', 'Level', 'Section', 'Status', 'Reason', 'ms'].map((x) => h('th', { scope: 'col' }, x)))),
      this.rows);
    panel.append(
      h('form', { 'aria-label': 'Conformance run', onsubmit: (e) => { e.preventDefault(); this.run(); } },
        h('div', { class: 'row' },
          field(`${p}-only`, 'Only checks', this.only, 'Comma-separated ids or prefixes; blank runs all.'),
          field(`${p}-skip`, 'Skip checks', this.skip, 'Comma-separated ids or prefixes.')),
        h('div', { class: 'check' }, this.strict, h('label', { for: this.strict.id }, 'Strict (recommended checks fail the run)')),
        h('div', { class: 'actions' }, this.runButton, this.cancelButton)),
      this.progress, this.status, this.errorArea, this.exports, this.table);
  }

  cancel() {
    if (this.running) this.running.abort();
  }

  async run() {
    const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
    this.running = new AbortController();
    this.runButton.disabled = true;
    this.cancelButton.disabled = false;
    this.errorArea.hidden = true;
    this.exports.hidden = true;
    this.table.hidden = true;
    this.rows.replaceChildren();
    this.progress.value = 0;
    this.status.textContent = 'Starting the suite…';
    let report = null;
    let done = 0;
    try {
      await events(`${this.ws.base}/conformance`, { only: list(this.only.value), skip: list(this.skip.value), strict: this.strict.checked }, {
        cancel: this.running.signal,
        idleMs: 90000,
        what: 'conformance run',
        onEvent: (name, data) => {
          if (name === 'progress') {
            this.progress.max = data.total;
            if (data.status) {
              done += 1;
              this.progress.value = done;
              this.status.textContent = `${done} of ${data.total}: ${data.id} ${data.status}`;
            } else this.status.textContent = `${done} of ${data.total}: running ${data.id}…`;
          } else if (name === 'report') report = data;
        },
      });
      if (!report) throw new ApiError({ code: 'invalid_response', message: 'the run ended without a report' });
      this.render(report);
    } catch (e) {
      this.status.textContent = e.code === 'cancelled' ? `Run cancelled after ${done} checks.` : 'The run failed.';
      if (e.code !== 'cancelled') showError(this.errorArea, e);
    } finally {
      this.running = null;
      this.runButton.disabled = false;
      this.cancelButton.disabled = true;
    }
  }

  render(report) {
    const c = report.counts;
    this.status.textContent = `${report.success ? 'PASS' : 'FAIL'}: ${c.passed} passed, ${c.failed} failed, ${c.warned} warned, ${c.skipped} skipped in ${report.durationMs} ms (revisions ${report.revisions.join(', ')}${report.strict ? ', strict' : ''}).`;
    this.rows.replaceChildren(...report.results.map((r) => h('tr', { class: r.status },
      h('td', {}, h('code', {}, r.id)), h('td', {}, r.level), h('td', {}, r.section),
      h('td', {}, h('span', { class: `badge ${{ passed: 'good', failed: 'bad', warned: 'warn', skipped: 'muted' }[r.status]}` }, r.status)),
      h('td', {}, r.reason || r.description), h('td', {}, String(r.durationMs)))));
    this.table.hidden = false;
    this.exports.hidden = false;
  }
}

// ---- start --------------------------------------------------------------------------------
async function start() {
  renderRecent();
  const form = document.getElementById('connect-form');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const url = document.getElementById('connect-url').value.trim();
    if (!url) {
      showError(document.getElementById('connect-error'), { code: 'missing_url', message: 'Type the extension\'s base URL, e.g. http://127.0.0.1:8710' });
      document.getElementById('connect-url').focus();
      return;
    }
    connect({ url, token: document.getElementById('connect-token').value, revision: document.getElementById('connect-revision').value });
  });
  document.getElementById('connect-cancel').addEventListener('click', () => connectCancel && connectCancel.abort());

  let open = [];
  let startup = [];
  try {
    open = await api('GET', '/api/connections', undefined, { what: 'open connections' });
    startup = (await api('GET', '/api/config', undefined, { what: 'configuration' })).urls;
  } catch (e) {
    showError(document.getElementById('connect-error'), e);
  }
  for (const summary of open) workspaces.set(summary.id, new Workspace(summary));
  const wanted = [...startup, ...new URLSearchParams(location.search).getAll('url')];
  for (const url of wanted) {
    if (open.some((s) => sameUrl(s.url, url)) || [...workspaces.values()].some((w) => sameUrl(w.summary.url, url))) continue;
    document.getElementById('connect-url').value = url;
    await connect({ url });
  }
}

start();
