// AEP Inspector page. Plain JavaScript, no build step, no dependency: it calls the
// Inspector's own /api, which talks to extensions server-side. Every wait is bounded
// (AbortSignal.timeout) and every one that reaches the extension has a Cancel button.

// The page is a few plain ES modules: this one (connecting, the workspace of each
// extension, overview, conformance, trace), dom.js, api.js, forms.js (forms generated
// from JSON Schemas), playground.js, tools.js, configuration.js and signin.js (OAuth).
import { h, field, pretty, table, errorBox, showError } from './dom.js';
import { TIMEOUT, ApiError, Wait, api, events } from './api.js';
import { Playground } from './playground.js';
import { Tools } from './tools.js';
import { Configuration } from './configuration.js';
import { offerSignIn, signOut } from './signin.js';

const RECENT_KEY = 'aep-inspector.recent';
const RECENT_MAX = 8;

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

// `anyway`: connect even when the manifest fails validation (the message stays, and the
// workspace lists the problems).
async function connect({ url, token = '', revision = '2026-08-01', anyway = false }) {
  const status = document.getElementById('connect-status');
  const errorArea = document.getElementById('connect-error');
  const cancelButton = document.getElementById('connect-cancel');
  if (!anyway) {
    errorArea.hidden = true;
    errorArea.replaceChildren();
  }
  status.textContent = `Connecting to ${url}${anyway ? ' anyway' : ''}…`;
  connectCancel = new AbortController();
  cancelButton.hidden = false;
  try {
    const summary = await api('POST', '/api/connections', { url, token, revision, anyway },
      { ms: TIMEOUT.connect, cancel: connectCancel.signal, what: `connect to ${url}` });
    remember(summary.url);
    if (anyway) errorArea.querySelector('p.anyway')?.remove();
    status.textContent = summary.invalid
      ? `Connected anyway to ${summary.extension.name} ${summary.extension.version} at ${summary.url}: its manifest fails validation`
      : `Connected to ${summary.extension.name} ${summary.extension.version} at ${summary.url}`;
    const workspace = new Workspace(summary);
    workspaces.set(summary.id, workspace);
    workspace.focus();
    return summary;
  } catch (e) {
    status.textContent = `Could not connect to ${url}`;
    showError(errorArea, e);
    if (e.code === 'sign_in_required' && !anyway) {
      offerSignIn(errorArea, { url, revision }, () => connect({ url, revision }));
    }
    if (e.code === 'aep_descriptor_invalid' && !anyway) {
      errorArea.append(h('p', { class: 'anyway' }, 'You can still explore what does not need a valid manifest (identity, health, raw manifests, chat, configuration, the conformance report, the trace); the host\'s tool catalog refuses it. ',
        h('button', { type: 'button', onclick: () => connect({ url, token, revision, anyway: true }) }, `Connect anyway to ${url}`)));
    }
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
          { bearer: ' · bearer token held by the Inspector', oauth: ' · signed in with OAuth, tokens held by the Inspector' }[summary.auth] || '',
          ' · ', h('a', { href: share }, 'Link to open it connected')),
        summary.signIn ? h('button', { type: 'button', onclick: () => this.signOut() }, `Sign out of ${ext.name}`) : null,
        h('button', { type: 'button', class: 'close', onclick: () => this.close() }, `Disconnect ${ext.name}`)),
      summary.invalid ? h('section', { class: 'error-box', 'aria-label': 'Validation problems' },
        h('strong', {}, `Connected anyway: the manifest fails validation (${summary.invalid.length} problem${summary.invalid.length === 1 ? '' : 's'}).`),
        ' A host refuses it with aep_descriptor_invalid; here, what does not need a valid manifest still works.',
        h('ul', {}, summary.invalid.map((p) => h('li', {}, h('code', {}, p))))) : null,
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
    this.remove();
    document.getElementById('connect-status').textContent = `Disconnected from ${this.summary.url}`;
  }

  // Forgets the sign-in's tokens; every connection that used them is closed.
  async signOut() {
    let closed;
    try {
      closed = await signOut(this.summary.signIn);
    } catch (e) {
      if (e.code !== 'sign_in_not_found') {
        showError(document.getElementById('connect-error'), e);
        return;
      }
      // Replaced by a newer sign-in: this connection goes on its own.
      await this.close();
      return;
    }
    for (const id of closed) workspaces.get(id)?.remove();
    this.remove();
    document.getElementById('connect-status').textContent = `Signed out of ${this.summary.url}: the Inspector forgot its tokens`;
  }

  remove() {
    for (const screen of ['overview', 'playground', 'tools', 'configuration', 'conformance']) this[screen]?.cancel();
    workspaces.delete(this.id);
    this.root.remove();
    document.getElementById('connect-url').focus();
  }
}

// ---- HTTP trace ----------------------------------------------------------------------
// Who sent an exchange (`via`): the Inspector's own client, or a client going through the
// recording proxy.
const SENDERS = {
  inspector: 'Inspector',
  sdk: 'SDK client (proxy)',
  mcp: 'MCP pool (proxy)',
  runner: 'Conformance runner (proxy)',
  proxy: 'Unnamed client (proxy)',
};

class Trace {
  constructor(ws, panel) {
    this.ws = ws;
    this.status = h('p', { role: 'status', 'aria-label': 'Trace status' });
    this.area = h('div', { class: 'trace' });
    this.covers = h('p', { class: 'hint' }, 'Every exchange between the Inspector and the extension.');
    this.proxy = h('p', { class: 'hint', 'aria-label': 'Trace proxy' });
    this.bypassed = h('div', { 'aria-label': 'Not traced' });
    this.sender = h('select', { onchange: () => this.load() }, h('option', { value: '' }, 'Everyone'),
      Object.entries(SENDERS).map(([k, v]) => h('option', { value: k }, v)));
    panel.append(
      h('h3', {}, 'HTTP trace'),
      this.covers, this.proxy, this.bypassed,
      h('p', { class: 'hint' }, 'Secret headers (Authorization, and any named like token, cookie or key) are shown as <redacted>; bodies are cut to 4 KiB.'),
      h('div', { class: 'row' },
        field(`${ws.id}-trace-sender`, 'Show exchanges sent by', this.sender),
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.load() }, 'Refresh trace'))),
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
      const list = data.exchanges.filter((x) => !this.sender.value || x.via === this.sender.value);
      const shown = this.sender.value ? `, ${list.length} sent by ${SENDERS[this.sender.value]}` : '';
      this.status.textContent = `${data.exchanges.length} exchanges (newest first, the last ${data.capacity} kept)${shown}`;
      const ms = (x) => (typeof x === 'number' ? `${x.toFixed(1)} ms` : '—');
      const pairs = (headers) => headers.map(([k, v]) => `${k}: ${v}`).join('\n');
      const details = (x) => h('details', {},
        h('summary', {}, 'Headers and bodies'),
        h('h4', {}, 'Request headers'), h('pre', {}, pairs(x.requestHeaders) || '—'),
        x.requestBody ? [h('h4', {}, 'Request body'), h('pre', {}, x.requestBody)] : null,
        h('h4', {}, 'Response headers'), h('pre', {}, pairs(x.responseHeaders) || '—'),
        x.responseBody ? [h('h4', {}, 'Response body'), h('pre', {}, x.responseBody)] : null);
      this.area.replaceChildren(table('HTTP exchanges', ['#', 'Sent by', 'Method', 'URL', 'Status', 'Time to headers', 'Total', 'Details'],
        list.map((x) => [String(x.seq), SENDERS[x.via] || x.via, x.method, h('code', {}, x.url),
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
    this.body = h('div', { class: 'overview' });
    this.loadWait = new Wait();
    this.healthArea = h('div', { class: 'health', 'aria-live': 'polite' });
    this.rawArea = h('div', { class: 'raw' });
    this.healthWait = new Wait();
    this.rawWait = new Wait();
    panel.append(
      this.body,
      h('section', { 'aria-label': 'Health' },
        h('h3', {}, 'Health'),
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.health() }, 'Refresh health'), this.healthWait.button),
        this.healthArea),
      h('section', { 'aria-label': 'Raw manifests' },
        h('h3', {}, 'Raw manifests'),
        h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => this.raw() }, 'Reload raw manifests'), this.rawWait.button),
        this.rawArea));
    this.load();
    this.health();
    this.raw();
  }

  async load() {
    this.body.replaceChildren(h('p', { role: 'status' }, 'Loading the overview…'), this.loadWait.button);
    try {
      const data = await this.loadWait.run('Cancel loading the overview',
        (cancel) => api('GET', `${this.ws.base}/overview`, undefined, { what: 'the overview', cancel }));
      this.render(data);
    } catch (e) {
      this.body.replaceChildren(errorBox(e), h('button', { type: 'button', onclick: () => this.load() }, 'Load the overview again'));
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

  cancel() {
    this.loadWait.cancel();
    this.healthWait.cancel();
    this.rawWait.cancel();
  }

  async health() {
    this.healthArea.replaceChildren(h('p', { role: 'status' }, 'Checking health…'));
    try {
      const data = await this.healthWait.run('Cancel health check',
        (cancel) => api('GET', `${this.ws.base}/health`, undefined, { what: 'the health check', cancel }));
      const show = (outcome) => outcome.error
        ? [h('span', { class: 'badge bad' }, outcome.error.code), ` ${outcome.error.message}`]
        : [h('span', { class: `badge ${outcome.status === 'available' ? 'good' : 'warn'}` }, outcome.status), outcome.details ? ` ${outcome.details}` : ''];
      const rows = [['Extension', show(data.extension)]];
      for (const p of data.providers) rows.push([`Provider ${p.id}`, show(p.health)]);
      this.healthArea.replaceChildren(
        table('Health status', ['What', 'Status and details'], rows),
        h('p', { class: 'meta' }, `Checked at ${new Date(data.checkedAt).toLocaleTimeString()} in ${data.elapsedMs} ms`));
    } catch (e) {
      if (e.code !== 'superseded') this.healthArea.replaceChildren(errorBox(e));
    }
  }

  async raw() {
    this.rawArea.replaceChildren(h('p', { role: 'status' }, 'Fetching both discovery routes…'));
    try {
      const data = await this.rawWait.run('Cancel fetching raw manifests',
        (cancel) => api('GET', `${this.ws.base}/manifests`, undefined, { what: 'the raw manifests', cancel }));
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
      if (e.code !== 'superseded') this.rawArea.replaceChildren(errorBox(e));
    }
  }
}

// ---- Conformance ---------------------------------------------------------------------------
// Whether `pattern` selects check `id`, as the runner's --only and --skip do: the exact id,
// or a prefix of whole segments (`3.stream` selects `3.stream.framing`).
function selects(pattern, id) {
  const p = pattern.trim().replace(/\.\*$/, '').replace(/\.+$/, '');
  return p !== '' && (id === p || id.startsWith(`${p}.`));
}

class Conformance {
  constructor(ws, panel) {
    this.ws = ws;
    this.running = null;
    const p = `${ws.id}-suite`;
    this.prefix = p;
    this.boxes = []; // [{id, box}] in the catalogue's (the run's) order
    this.pattern = h('input', { type: 'text', placeholder: '3.stream, 1.discovery.v1' });
    this.strict = h('input', { type: 'checkbox', id: `${p}-strict` });
    this.runButton = h('button', { type: 'submit' }, 'Run conformance suite');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.cancel() }, 'Cancel run');
    this.chosen = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Checks chosen' });
    this.checklist = h('div', { class: 'checklist' }, h('p', { role: 'status' }, 'Reading the runner\'s checks…'));
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
    const tick = (on) => this.tickMatching(on);
    panel.append(
      h('form', { 'aria-label': 'Conformance run', onsubmit: (e) => { e.preventDefault(); this.run(); } },
        h('fieldset', { class: 'choose' }, h('legend', {}, 'Checks to run'),
          h('div', { class: 'actions' },
            h('button', { type: 'button', onclick: () => this.tickAll(true) }, 'Select all'),
            h('button', { type: 'button', onclick: () => this.tickAll(false) }, 'Select none')),
          h('div', { class: 'row' },
            field(`${p}-pattern`, 'Checks by pattern', this.pattern, 'Ids or prefixes (3.stream selects every 3.stream check), comma-separated, as the CLI\'s --only and --skip take them.'),
            h('div', { class: 'actions' },
              h('button', { type: 'button', onclick: () => tick(true) }, 'Tick matching'),
              h('button', { type: 'button', onclick: () => tick(false) }, 'Untick matching'))),
          this.chosen,
          this.checklist),
        h('div', { class: 'check' }, this.strict, h('label', { for: this.strict.id }, 'Strict (recommended checks fail the run)')),
        h('div', { class: 'actions' }, this.runButton, this.cancelButton)),
      this.progress, this.status, this.errorArea, this.exports, this.table);
    this.loadChecks();
  }

  // The runner's catalogue as a checklist, one group per section of the AEP contract
  // (the first segment of the ids), every check ticked.
  async loadChecks() {
    let checks;
    try {
      checks = (await api('GET', '/api/checks', undefined, { what: 'the list of checks' })).checks;
    } catch (e) {
      this.checklist.replaceChildren(errorBox(e), h('button', { type: 'button', onclick: () => this.loadChecks() }, 'Read the checks again'));
      return;
    }
    const groups = new Map();
    for (const check of checks) {
      const section = check.id.split('.')[0];
      if (!groups.has(section)) groups.set(section, []);
      groups.get(section).push(check);
    }
    this.boxes = [];
    const sets = [];
    for (const [section, list] of groups) {
      const areas = [...new Set(list.map((c) => c.id.split('.')[1] || c.id))].join(', ');
      sets.push(h('fieldset', { class: 'section' }, h('legend', {}, `Section ${section}: ${areas} (${list.length})`),
        h('ul', { class: 'plain checks' }, list.map((check) => {
          const i = this.boxes.length;
          const box = h('input', { type: 'checkbox', id: `${this.prefix}-check-${i}`, checked: true, 'aria-describedby': `${this.prefix}-check-${i}-what`, onchange: () => this.count() });
          this.boxes.push({ id: check.id, box });
          return h('li', { class: 'check' }, box,
            h('label', { for: box.id }, h('code', {}, check.id)),
            h('span', { id: `${this.prefix}-check-${i}-what`, class: 'hint' }, check.description,
              check.level === 'recommended' ? ' (recommended)' : '', ` · § ${check.section}`));
        }))));
    }
    this.checklist.replaceChildren(...sets);
    this.count();
  }

  tickAll(on) {
    for (const { box } of this.boxes) box.checked = on;
    this.count();
  }

  tickMatching(on) {
    const patterns = this.pattern.value.split(',').map((x) => x.trim()).filter(Boolean);
    const unknown = patterns.filter((pat) => !this.boxes.some(({ id }) => selects(pat, id)));
    if (!patterns.length || unknown.length) {
      this.chosen.textContent = patterns.length ? `No check matches ${unknown.join(', ')}.` : 'Type an id or a prefix first.';
      this.pattern.setAttribute('aria-invalid', 'true');
      return;
    }
    this.pattern.removeAttribute('aria-invalid');
    for (const { id, box } of this.boxes) if (patterns.some((pat) => selects(pat, id))) box.checked = on;
    this.count();
  }

  ticked() {
    return this.boxes.filter(({ box }) => box.checked).map(({ id }) => id);
  }

  count() {
    this.chosen.textContent = `${this.ticked().length} of ${this.boxes.length} checks chosen.`;
  }

  cancel() {
    if (this.running) this.running.abort();
  }

  async run() {
    const checks = this.ticked();
    if (!this.boxes.length || !checks.length) {
      this.status.textContent = this.boxes.length ? 'Choose at least one check to run.' : 'The list of checks is not loaded.';
      return;
    }
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
      await events(`${this.ws.base}/conformance`, { checks, strict: this.strict.checked }, {
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

