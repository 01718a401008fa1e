// Small DOM helpers shared by the Inspector's screens.
export function h(tag, attrs, ...children) {
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

export function field(id, label, control, hint) {
  control.id = id;
  const parts = [h('label', { for: id }, label), control];
  if (hint) {
    const hintId = `${id}-hint`;
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('small', { id: hintId, class: 'hint' }, hint));
  }
  return h('div', { class: 'field' }, parts);
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

export function table(caption, headers, rows) {
  if (!rows.length) return h('p', { class: 'empty' }, `${caption}: none`);
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, row.map((cell) => h('td', {}, cell))))));
}

// A failure as a message (an alert); a cancelled wait as a status, since the user asked
// for it.
export function errorBox(error) {
  if (error.code === 'cancelled') {
    return h('p', { class: 'cancelled', role: 'status' }, h('span', { class: 'badge muted' }, 'cancelled'), ' ', error.message);
  }
  const box = h('div', { class: 'error-box', role: 'alert' },
    h('strong', {}, error.code ? `${error.code}: ` : 'Error: '), error.message || String(error));
  if (error.details && error.details.length) {
    box.append(h('ul', {}, error.details.map((d) => h('li', {}, h('code', {}, d)))));
  }
  return box;
}

export function showError(container, error) {
  container.replaceChildren(errorBox(error));
  container.hidden = false;
}

