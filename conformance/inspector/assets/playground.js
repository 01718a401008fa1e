// The model playground: a chat or a streamed chat, its messages, native options,
// frames, timings and usage.
import { h, field, pretty, table, errorBox, showError } from './dom.js';
import { TIMEOUT, ApiError, Wait, api, events } from './api.js';
import { ToolForm, markIssues, clearMarks } from './forms.js';

// ---- Playground ------------------------------------------------------------------------
function reasoningOf(content) {
  return content.kind === 'structured' && content.mediaType === 'application/vnd.aep.reasoning+json' ? (content.data && content.data.text) || '' : null;
}

export class Playground {
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
    this.nativeSent = h('pre', { 'aria-label': 'Native options sent', tabindex: '0' });
    this.optionSets = [];
    this.temperature = h('input', { type: 'number', min: '0', max: '2', step: '0.1' });
    this.maxTokens = h('input', { type: 'number', min: '1', step: '1' });
    this.streaming = h('input', { type: 'checkbox', checked: true });
    this.stall = h('input', { type: 'number', min: '0.1', max: '600', step: 'any', value: '30' });
    this.send = h('button', { type: 'submit' }, 'Send');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.cancel() }, 'Cancel');
    this.newChat = h('button', { type: 'button', onclick: () => this.resetMessages() }, 'New conversation');
    // The lookups that fill the selects (providers, models, option sets), each
    // cancellable while it is outstanding.
    this.lookups = { providers: new Wait(), models: new Wait(), sets: new Wait() };
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
      h('div', { class: 'actions' }, Object.values(this.lookups).map((w) => w.button)),
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
    this.nativeSentArea = h('section', { 'aria-label': 'Native options envelope', hidden: true }, h('h3', {}, 'Native options sent'), this.nativeSent);
    panel.append(form, this.status, this.errorArea, this.nativeSentArea,
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
      const data = await this.lookups.providers.run('Cancel looking up providers',
        (cancel) => api('GET', `${this.ws.base}/overview`, undefined, { what: 'the providers lookup', cancel }));
      this.providerList = data.manifest.contributions.modelProviders || [];
    } catch (e) {
      showError(this.errorArea, e);
      this.errorArea.append(h('button', { type: 'button', onclick: () => this.fillProviders() }, 'Look up providers again'));
      return;
    }
    this.errorArea.hidden = true;
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
      const data = await this.lookups.sets.run('Cancel looking up option sets',
        (cancel) => api('GET', `${this.ws.base}/configuration`, undefined, { what: 'the option sets lookup', cancel }));
      this.optionSets = data.optionSets || [];
    } catch (e) {
      if (e.code === 'superseded') return;
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
    const data = await api('POST', `${this.ws.base}/configuration/validate`, { optionSet: set.id, version, values }, { what: 'check native options', cancel: this.running && this.running.signal });
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
      models = await this.lookups.models.run(`Cancel looking up models of ${provider.id}`,
        (cancel) => api('GET', `${this.ws.base}/providers/${encodeURIComponent(provider.id)}/models`, undefined, { what: 'models', cancel }));
    } catch (e) {
      if (e.code === 'superseded') return;
      // Fall back to the manifest's list.
      if (e.code === 'cancelled') this.status.textContent = `Cancelled: the models lookup of ${provider.id}; the manifest's list is offered.`;
    }
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
    this.nativeSentArea.hidden = true;
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
        this.nativeSentArea.hidden = false;
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

