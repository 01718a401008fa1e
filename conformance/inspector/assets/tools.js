// The tool explorer: tools resolved AEP -> MCP, calls through generated forms; and each
// MCP server's resources, templates and prompts.
import { h, field, pretty, table, errorBox } from './dom.js';
import { TIMEOUT, Wait, api } from './api.js';
import { ToolForm, FormOrJson } from './forms.js';

// ---- Tools ----------------------------------------------------------------------------------
export class Tools {
  constructor(ws, panel) {
    this.ws = ws;
    this.panel = panel;
    this.tools = [];
    this.running = null;
    const p = `${ws.id}-tools`;
    this.prefix = p;
    this.select = h('select', { onchange: () => this.show() });
    this.details = h('div', { class: 'tool-details' });
    this.callButton = h('button', { type: 'submit' }, 'Call tool');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.running && this.running.abort() }, 'Cancel call');
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', 'aria-label': 'Tool call status' });
    this.edit = new FormOrJson(p, 'arguments', this.status);
    this.result = h('div', { class: 'tool-result', 'aria-label': 'Tool result', role: 'region' });
    this.listArea = h('div');
    this.listWait = new Wait();
    panel.append(this.listArea);
    this.load();
    this.surface = new McpSurface(ws, panel);
  }

  cancel() {
    this.listWait.cancel();
    if (this.running) this.running.abort();
    this.surface.cancel();
  }

  async load() {
    this.listArea.replaceChildren(h('p', { role: 'status' }, 'Resolving tools through AEP → MCP…'), this.listWait.button);
    let data;
    try {
      data = await this.listWait.run('Cancel resolving tools',
        (cancel) => api('GET', `${this.ws.base}/tools`, undefined, { what: 'the tool list', ms: TIMEOUT.tool, cancel }));
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
      this.edit.switch, this.edit.area, this.edit.textField,
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
    this.edit.show(new ToolForm(`${this.prefix}-${this.tools.indexOf(tool)}`, tool.inputSchema));
    this.result.replaceChildren();
    this.status.textContent = '';
  }

  async call() {
    const tool = this.current();
    const args = this.edit.values(this.result);
    if (args === undefined) return;
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
    // One wait for the list, and one per server for its reads and one for its prompts
    // (a new read of a server supersedes the one outstanding).
    this.waits = [new Wait()];
    this.area = h('section', { 'aria-label': 'Resources and prompts' });
    panel.append(this.area);
    this.load();
  }

  cancel() {
    for (const wait of this.waits) wait.cancel();
  }

  async load() {
    const [listWait] = this.waits;
    this.area.replaceChildren(h('h3', {}, 'Resources and prompts'),
      h('p', { role: 'status' }, 'Asking each MCP server what it offers…'), listWait.button);
    let data;
    try {
      data = await listWait.run('Cancel asking the MCP servers',
        (cancel) => api('GET', `${this.ws.base}/mcp`, undefined, { what: 'the MCP servers\' resources and prompts', ms: TIMEOUT.tool, cancel }));
    } catch (e) {
      this.area.replaceChildren(h('h3', {}, 'Resources and prompts'), errorBox(e),
        h('button', { type: 'button', onclick: () => this.load() }, 'Ask again'));
      return;
    }
    for (const wait of this.waits.splice(1)) wait.cancel();
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
    const wait = new Wait();
    this.waits.push(wait);
    const read = async (uri) => {
      result.replaceChildren(h('p', { role: 'status' }, `Reading ${uri}…`), wait.button);
      try {
        const data = await wait.run(`Cancel reading ${uri}`,
          (cancel) => api('POST', `${this.ws.base}/mcp/resources/read`, { server: server.id, uri }, { what: `reading ${uri}`, ms: TIMEOUT.tool, cancel }));
        result.replaceChildren(h('p', { class: 'status' }, `Read `, h('code', {}, uri), ` in ${data.durationMs.toFixed(1)} ms: ${data.result.contents.length} content item(s).`),
          ...contentBlocks(data.result.contents, 'Resource contents'));
      } catch (e) {
        if (e.code !== 'superseded') result.replaceChildren(errorBox(e));
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
    const wait = new Wait();
    this.waits.push(wait);
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
      result.replaceChildren(h('p', { role: 'status' }, `Getting ${prompt.name}…`), wait.button);
      try {
        const data = await wait.run(`Cancel getting ${prompt.name}`,
          (cancel) => api('POST', `${this.ws.base}/mcp/prompts/get`, { server: server.id, name: prompt.name, arguments: args }, { what: `getting prompt ${prompt.name}`, ms: TIMEOUT.tool, cancel }));
        const messages = data.result.messages || [];
        result.replaceChildren(
          h('p', { class: 'status' }, `${prompt.name} answered in ${data.durationMs.toFixed(1)} ms with ${messages.length} message(s)${data.result.description ? `: ${data.result.description}` : '.'}`),
          h('ol', { 'aria-label': 'Prompt messages', class: 'transcript' }, messages.map((m) => h('li', {}, h('strong', {}, `${m.role}: `),
            m.content && m.content.type === 'text' ? h('pre', {}, m.content.text) : h('pre', {}, pretty(m.content))))));
      } catch (e) {
        if (e.code !== 'superseded') result.replaceChildren(errorBox(e));
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

