// Forms generated from a JSON Schema (a tool's input schema, an option set version's
// schema): a field per property, nested objects as sub-forms, arrays of strings, numbers,
// booleans, enums or objects as lists with add and remove, unions and anything else as
// JSON text. An optional field that is not set is not sent, and is told apart from an
// empty one: its "Send" box says whether it goes out.
import { h, field, pretty, errorBox } from './dom.js';

// The values a schema allows when it lists them: `enum`, or `oneOf`/`anyOf` branches that
// are each one `const` (or one-value `enum`), as schemars writes documented enum variants.
// Each is {value, label}.
export function choicesOf(schema) {
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

// The schema with `null` taken out (`type: [T, "null"]`, `anyOf: [S, {type: null}]`).
function unwrap(schema) {
  if (!schema || typeof schema !== 'object') return {};
  if (Array.isArray(schema.type)) {
    const rest = schema.type.filter((t) => t !== 'null');
    if (rest.length === 1) return { ...schema, type: rest[0] };
  }
  if (!schema.type && Array.isArray(schema.anyOf)) {
    const rest = schema.anyOf.filter((s) => s.type !== 'null');
    if (rest.length === 1) return { ...schema, anyOf: undefined, ...unwrap(rest[0]) };
  }
  return schema;
}

// The form control kind of a schema: enum, boolean, integer, number, string, object
// (with properties), array (of a kind the form can edit), or json (unions and the rest,
// edited as JSON text).
export function schemaType(schema) {
  if (choicesOf(schema)) return 'enum';
  const s = unwrap(schema);
  if (choicesOf(s)) return 'enum';
  if (['boolean', 'integer', 'number', 'string'].includes(s.type)) return s.type;
  if (s.type === 'object' && s.properties && Object.keys(s.properties).length) return 'object';
  if (s.type === 'array' && s.items && !Array.isArray(s.items) && schemaType(s.items) !== 'json') return 'array';
  return 'json';
}

// ---- fields --------------------------------------------------------------------------------
// Every field has: root (its element), read() -> {ok, present, value} (marking problems
// at itself), write(value) -> whether the value fits the form, and registers
// {path, control, error} in ctx.marks, for problems found by a server.
function errorLine(id) {
  return h('small', { id, class: 'field-error', role: 'alert' });
}

function fail(mark, message) {
  mark.error.textContent = message;
  mark.control.setAttribute('aria-invalid', 'true');
}

function clear(mark) {
  mark.error.textContent = '';
  mark.control.removeAttribute('aria-invalid');
}

// Label text: the top level says (required) or (optional); nested ones read as a path.
function labelOf(label, required, optional) {
  if (!optional && required === null) return label;
  return `${label}${required ? ' (required)' : ' (optional)'}`;
}

function leafField(ctx, schema, { path, label, required, optional }) {
  const s = unwrap(schema);
  const type = schemaType(schema);
  const id = ctx.id();
  const name = labelOf(label, required, optional);
  const hint = [s.description, type === 'json' ? `JSON ${Array.isArray(s.type) ? s.type.join(' or ') : s.type || 'value'}` : ''].filter(Boolean).join(' · ');
  const choices = type === 'enum' ? (choicesOf(schema) || choicesOf(s)) : null;
  let control;
  if (type === 'enum') {
    control = h('select', {}, optional ? h('option', { value: '' }, '(not set)') : null,
      choices.map((c) => h('option', { value: String(c.value) }, c.label)));
  } else if (type === 'boolean' && !optional) {
    control = h('input', { type: 'checkbox' });
  } else if (type === 'boolean') {
    control = h('select', {}, h('option', { value: '' }, '(not set)'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
  } else if (type === 'integer' || type === 'number') {
    control = h('input', { type: 'number', step: type === 'integer' ? '1' : 'any', min: s.minimum, max: s.maximum });
  } else if (type === 'string') {
    control = s.maxLength && s.maxLength < 200 ? h('input', { type: 'text' }) : h('textarea', { rows: '2' });
  } else {
    control = h('textarea', { rows: '3', class: 'json' }, s.default !== undefined && s.default !== null ? JSON.stringify(s.default) : '');
  }
  control.id = id;
  if (!optional && control.type !== 'checkbox') control.setAttribute('aria-required', 'true');
  const error = errorLine(`${id}-error`);
  // An optional text, number or JSON field: sent only when its box is checked, which
  // typing checks (and emptying unchecks); check it by hand to send an empty text.
  const selectable = type === 'enum' || type === 'boolean';
  const send = optional && !selectable ? h('input', { type: 'checkbox', id: `${id}-send` }) : null;
  if (send) control.addEventListener('input', () => { send.checked = control.value !== ''; });
  let root;
  if (type === 'boolean' && !optional) root = h('div', { class: 'check' }, control, h('label', { for: id }, name));
  else {
    root = field(id, name, control, hint);
    if (send) root.append(h('div', { class: 'check send' }, send, h('label', { for: send.id }, `Send ${label}`)));
  }
  root.append(error);
  const mark = { path, control, error };
  ctx.marks.push(mark);
  return {
    root,
    read() {
      clear(mark);
      if (control.type === 'checkbox') return { ok: true, present: true, value: control.checked };
      const raw = control.value;
      if (send && !send.checked) return { ok: true, present: false };
      if (type === 'string') return { ok: true, present: true, value: raw };
      if (raw === '') {
        if (selectable && optional) return { ok: true, present: false };
        fail(mark, `${label} is required`);
        return { ok: false };
      }
      if (type === 'enum') return { ok: true, present: true, value: choices.find((c) => String(c.value) === raw).value };
      if (type === 'boolean') return { ok: true, present: true, value: raw === 'true' };
      if (type === 'integer' || type === 'number') {
        const n = Number(raw);
        if (!Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) {
          fail(mark, `${label} must be ${type === 'integer' ? 'a whole number' : 'a number'}`);
          return { ok: false };
        }
        return { ok: true, present: true, value: n };
      }
      try {
        return { ok: true, present: true, value: JSON.parse(raw) };
      } catch (e) {
        fail(mark, `${label}: not JSON (${e.message})`);
        return { ok: false };
      }
    },
    write(v) {
      if (send) send.checked = v !== undefined;
      if (control.type === 'checkbox') {
        control.checked = v === true;
        return v === undefined || typeof v === 'boolean';
      }
      if (v === undefined) {
        control.value = '';
        return true;
      }
      if (type === 'enum') {
        const known = choices.some((c) => c.value === v);
        control.value = known ? String(v) : '';
        return known;
      }
      if (type === 'json') {
        control.value = JSON.stringify(v);
        return true;
      }
      control.value = String(v);
      return type === 'string' ? typeof v === 'string' : type === 'boolean' ? typeof v === 'boolean' : typeof v === 'number';
    },
  };
}

// A group (object or array) that may be left out: its "Send" box, in its legend.
function groupHead(ctx, name, label, optional) {
  const id = ctx.id();
  const send = optional ? h('input', { type: 'checkbox', id: `${id}-send` }) : null;
  const legend = h('legend', {}, h('span', { id: `${id}-name` }, name),
    send ? [' ', send, h('label', { for: send.id }, `Send ${label}`)] : null);
  return { id, send, legend };
}

// A group's fieldset around `body`: typing in it checks its "Send" box. Registers the
// group's mark, and answers its root and a read() that says "not sent" while the box is
// unchecked, else reads the members with `readBody`.
function groupBox(ctx, s, path, { id, send, legend }, error, body, readBody) {
  const root = h('fieldset', { class: 'sub-form', 'aria-labelledby': `${id}-name` }, legend,
    s.description ? h('p', { class: 'hint' }, s.description) : null,
    body, error);
  if (send) root.addEventListener('input', (e) => { if (e.target !== send) send.checked = true; });
  ctx.marks.push({ path, control: root, error });
  const read = () => {
    error.textContent = '';
    if (send && !send.checked) return { ok: true, present: false };
    return readBody();
  };
  return { root, read };
}

function objectField(ctx, schema, { path, label, required, optional }) {
  const s = unwrap(schema);
  const name = labelOf(label, required, optional);
  const head = groupHead(ctx, name, label, optional);
  const { id, send } = head;
  const requiredSet = new Set(s.required || []);
  const children = Object.entries(s.properties).map(([key, sub]) => [key, makeField(ctx, sub || {}, {
    path: path ? `${path}.${key}` : key,
    label: label ? `${label}.${key}` : key,
    required: requiredSet.has(key),
    optional: !requiredSet.has(key),
    nested: true,
  })]);
  const error = errorLine(`${id}-error`);
  const { root, read } = groupBox(ctx, s, path, head, error, children.map(([, child]) => child.root), () => {
    const value = {};
    let ok = true;
    for (const [key, child] of children) {
      const got = child.read();
      if (!got.ok) ok = false;
      else if (got.present) value[key] = got.value;
    }
    return ok ? { ok: true, present: true, value } : { ok: false };
  });
  return {
    root,
    read,
    write(v) {
      if (send) send.checked = v !== undefined && v !== null;
      if (v === undefined || v === null) {
        for (const [, child] of children) child.write(undefined);
        return v === undefined || optional;
      }
      if (typeof v !== 'object' || Array.isArray(v)) return false;
      let fits = Object.keys(v).every((k) => children.some(([key]) => key === k));
      for (const [key, child] of children) fits = child.write(v[key]) && fits;
      return fits;
    },
  };
}

function arrayField(ctx, schema, { path, label, required, optional }) {
  const s = unwrap(schema);
  const name = labelOf(label, required, optional);
  const head = groupHead(ctx, name, label, optional);
  const { id, send } = head;
  const list = h('ol', { class: 'items', 'aria-label': `Items of ${label}` });
  const error = errorLine(`${id}-error`);
  let items = [];
  const render = () => {
    items.forEach((item, i) => {
      item.remove.textContent = `Remove ${label}[${i + 1}]`;
    });
    list.replaceChildren(...items.map((item) => item.li));
  };
  // An item's field keeps the label it was made with; relabelled by rebuilding.
  const rebuild = (values) => {
    items = [];
    values.forEach((v) => add(v));
    render();
  };
  const add = (v) => {
    const i = items.length;
    const child = makeField(ctx, s.items, { path: `${path}[${i}]`, label: `${label}[${i + 1}]`, required: null, optional: false, nested: true });
    if (v !== undefined) child.write(v);
    const item = { child };
    item.remove = h('button', { type: 'button', class: 'remove', onclick: () => {
      const keep = items.filter((x) => x !== item).map((x) => x.child.read());
      rebuild(keep.map((x) => (x.ok && x.present ? x.value : undefined)));
      if (send) send.checked = true;
    } });
    item.li = h('li', {}, child.root, item.remove);
    items.push(item);
    return child;
  };
  const addButton = h('button', { type: 'button', onclick: () => {
    add(undefined);
    render();
    if (send) send.checked = true;
    const focusable = items[items.length - 1].li.querySelector('input, select, textarea');
    if (focusable) focusable.focus();
  } }, `Add to ${label}`);
  const { root, read } = groupBox(ctx, s, path, head, error, [list, h('div', { class: 'actions' }, addButton)], () => {
    const value = [];
    let ok = true;
    for (const item of items) {
      const got = item.child.read();
      if (!got.ok) ok = false;
      else value.push(got.present ? got.value : null);
    }
    return ok ? { ok: true, present: true, value } : { ok: false };
  });
  return {
    root,
    read,
    write(v) {
      if (send) send.checked = Array.isArray(v);
      if (v === undefined) {
        rebuild([]);
        return true;
      }
      if (!Array.isArray(v)) return false;
      rebuild(v);
      return true;
    },
  };
}

function makeField(ctx, schema, options) {
  const type = schemaType(schema);
  if (type === 'object') return objectField(ctx, schema, options);
  if (type === 'array') return arrayField(ctx, schema, options);
  return leafField(ctx, schema, options);
}

// ---- the whole form -------------------------------------------------------------------------
export class ToolForm {
  constructor(prefix, schema, empty = 'This tool takes no arguments.') {
    this.schema = schema || {};
    let n = 0;
    this.ctx = { id: () => `${prefix}-arg-${n++}`, marks: [] };
    this.root = h('div', { class: 'tool-form' });
    const props = this.schema.properties || {};
    const required = new Set(this.schema.required || []);
    const names = Object.keys(props);
    if (!names.length) this.root.append(h('p', { class: 'empty' }, empty));
    this.fields = names.map((name) => {
      const f = makeField(this.ctx, props[name] || {}, { path: name, label: name, required: required.has(name), optional: !required.has(name) });
      this.root.append(f.root);
      return [name, f];
    });
  }

  // Every place a problem can be shown: {path, control, error}.
  get marks() {
    return this.ctx.marks;
  }

  // The arguments, or null (with each problem shown at its field).
  values() {
    const args = {};
    let ok = true;
    for (const [name, f] of this.fields) {
      const got = f.read();
      if (!got.ok) ok = false;
      else if (got.present) args[name] = got.value;
    }
    return ok ? args : null;
  }

  // Fills the form from `args`; false when some of it does not fit (an unknown member,
  // a value of another type): the form then shows what did.
  fill(args) {
    if (!args || typeof args !== 'object' || Array.isArray(args)) return false;
    let fits = Object.keys(args).every((k) => this.fields.some(([name]) => name === k));
    for (const [name, f] of this.fields) fits = f.write(args[name]) && fits;
    return fits;
  }
}

// ---- form or JSON ---------------------------------------------------------------------------
// A ToolForm and a switch to edit the same `noun` ('arguments', 'values') as one JSON
// document, carrying them across: the form's values become the JSON, and the JSON fills
// the form (it stays in JSON mode when the text is not JSON or has what the form cannot
// show). What goes wrong is told in `status`. Place `switch`, `area` and `textField`.
export class FormOrJson {
  constructor(prefix, noun, status) {
    this.noun = noun;
    this.Noun = `${noun[0].toUpperCase()}${noun.slice(1)}`;
    this.status = status;
    this.form = null;
    this.area = h('div');
    this.mode = h('input', { type: 'checkbox', id: `${prefix}-json-mode`, onchange: () => this.toggle() });
    this.text = h('textarea', { rows: '6', class: 'json' });
    this.textField = field(`${prefix}-json`, `${this.Noun} (JSON)`, this.text);
    this.textField.hidden = true;
    this.switch = h('div', { class: 'check' }, this.mode, h('label', { for: this.mode.id }, `Edit ${noun} as JSON`));
  }

  // Whether the JSON is edited (not the form).
  get json() {
    return this.mode.checked;
  }

  // Shows `form` (followed by `extra`), in form mode with the JSON emptied.
  show(form, ...extra) {
    this.form = form;
    this.area.replaceChildren(form.root, ...extra);
    this.mode.checked = false;
    this.text.value = '';
    this.toggle();
  }

  toggle() {
    const json = this.mode.checked;
    if (json) {
      const values = this.form.values();
      if (!values) {
        this.mode.checked = false;
        this.status.textContent = 'Fix the highlighted fields before switching to JSON.';
        return;
      }
      this.text.value = pretty(values);
    } else if (this.text.value.trim()) {
      let parsed;
      try { parsed = JSON.parse(this.text.value); } catch (e) {
        this.mode.checked = true;
        this.status.textContent = `The ${this.noun} are not JSON (${e.message}); fix them to go back to the form.`;
        return;
      }
      if (!this.form.fill(parsed)) {
        this.mode.checked = true;
        this.status.textContent = 'The JSON has members or types the form cannot show: keep editing it as JSON.';
        return;
      }
    }
    this.status.textContent = '';
    this.area.hidden = json;
    this.textField.hidden = !json;
  }

  // The JSON as parsed or the form's values; undefined when they cannot be read (text
  // that is not JSON is told in `result`, the form's problems at their fields).
  values(result) {
    if (this.mode.checked) {
      try { return JSON.parse(this.text.value || '{}'); } catch (e) {
        result.replaceChildren(errorBox({ code: 'invalid_json', message: `${this.Noun}: not JSON (${e.message})` }));
        return undefined;
      }
    }
    const values = this.form.values();
    if (values) return values;
    this.status.textContent = 'Fix the highlighted fields.';
    return undefined;
  }
}

// Puts each problem a server found at its field: the field whose path is the longest
// prefix of the problem's (`values.items[0].sku` -> `items[0].sku`, else `items[0]`, ...).
export function markIssues(form, issues) {
  const marks = form.marks;
  for (const issue of issues) {
    const path = issue.path.replace(/^(values|arguments)\.?/, '');
    let best = null;
    for (const mark of marks) {
      const under = path === mark.path || path.startsWith(`${mark.path}.`) || path.startsWith(`${mark.path}[`);
      if (under && (!best || mark.path.length > best.path.length)) best = mark;
    }
    if (!best) continue;
    best.error.textContent = best.error.textContent ? `${best.error.textContent} ${issue.message}` : issue.message;
    best.control.setAttribute('aria-invalid', 'true');
  }
}

export function clearMarks(form) {
  for (const mark of form.marks) clear(mark);
}
