// Headless Chromium CORS probe (see ../README.md, "Headless Chromium").
//
//   browser_cors.mjs BASE_URL [MODEL]        (normally via $P/bin/browser-cors)
//
// Serves one blank page from a LOCAL origin (http://localhost:PORT/, bound to 127.0.0.1)
// and one from a FOREIGN origin (http://127.0.0.2:PORT/), opens each in Debian's headless
// Chromium (driven by playwright-core) and, from the page, fetch()es the extension at
// BASE_URL: discovery, a streamed chat, an MCP session (initialize, initialized,
// tools/list, DELETE). The browser applies CORS for real, preflights included; a refused
// request shows up as {"ok":false,"error":"TypeError: Failed to fetch"}.
//
// stdout: ONE JSON object {"local":{...},"foreign":{...},"chromium":"<version>"}.
// Exit 0 when the probes ran (whatever they answered: the caller judges); 2 on a harness
// failure (usage, playwright-core not found, Chromium does not start, page does not load,
// 90 s overall); 3 when 127.0.0.2 cannot be bound.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const CHROMIUM = process.env.AEP_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const SCRIPT_BUDGET_MS = 90_000; // whole run
const PAGE_BUDGET_MS = 30_000; // per page, navigation + all fetches
const FETCH_TIMEOUT_MS = 10_000; // per fetch (AbortSignal in the page)
const BODY_CAP = 64 * 1024; // characters of a response body kept in the output
const MCP_VERSION = '2025-11-25';

function fail(code, msg) {
  process.stderr.write(`browser_cors: ${msg}\n`);
  process.exit(code);
}

// playwright-core lives in <peers>/npm/node_modules, not next to this script: the wrapper
// sets NODE_PATH (honoured by require); without it, try $AEP_PEERS_DIR and <repo>/target/peers.
function loadPlaywright() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bases = [import.meta.url];
  for (const dir of [process.env.AEP_PEERS_DIR, path.resolve(here, '../../../target/peers')]) {
    if (dir) bases.push(path.join(dir, 'npm', 'package.json'));
  }
  for (const base of bases) {
    try {
      return createRequire(base)('playwright-core');
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  fail(2, 'playwright-core not found (run conformance/peers/install.sh, use $P/bin/browser-cors)');
}

const [baseArg, model = 'm', ...extra] = process.argv.slice(2);
if (!baseArg || extra.length || baseArg.startsWith('-')) {
  fail(2, 'usage: browser_cors.mjs BASE_URL [MODEL]   e.g. http://127.0.0.1:8080 echo-1');
}
let BASE;
try {
  BASE = new URL(baseArg).href.replace(/\/+$/, '');
} catch {
  fail(2, `not a URL: ${baseArg}`);
}
const { chromium } = loadPlaywright();

// ---- the two static origins ----------------------------------------------------------
const PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>';
function listen(host) {
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(PAGE);
      } else if (req.url === '/favicon.ico') {
        res.writeHead(204); // keeps a 404 line out of the page's console
        res.end();
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    });
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}
const servers = [];
function closeServers() {
  for (const s of servers.splice(0)) {
    s.closeAllConnections?.();
    s.close();
  }
}

let context = null;
let userDataDir = null;
async function closeBrowser() {
  const c = context;
  context = null;
  if (c) {
    await Promise.race([c.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  }
  if (userDataDir) {
    fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    userDataDir = null;
  }
}
async function cleanup() {
  closeServers();
  await closeBrowser();
}

const watchdog = setTimeout(async () => {
  process.stderr.write(`browser_cors: gave up after ${SCRIPT_BUDGET_MS / 1000} s\n`);
  await cleanup(); // playwright also kills the browser on process exit
  process.exit(2);
}, SCRIPT_BUDGET_MS);

// ---- in the page ---------------------------------------------------------------------
// Runs inside Chromium (serialized by playwright): a plain fetch from the page's origin.
async function pageFetch({ url, method, headers, body, timeoutMs, cap }) {
  try {
    const r = await fetch(url, {
      method, headers, body, mode: 'cors', credentials: 'omit', cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    return {
      ok: true,
      status: r.status,
      headers: Object.fromEntries(r.headers), // only what CORS lets the page read
      body: text.length > cap ? text.slice(0, cap) : text,
    };
  } catch (e) {
    return { ok: false, error: String(e) };
  }
}

// JSON-RPC messages of a body that is either JSON or an SSE stream (data: lines).
function jsonRpcMessages(text) {
  const out = [];
  const push = (s) => {
    try {
      const v = JSON.parse(s);
      out.push(...(Array.isArray(v) ? v : [v]));
    } catch { /* not JSON */ }
  };
  if (/^\s*[[{]/.test(text)) {
    push(text);
    return out;
  }
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
    if (data.length) push(data.join('\n'));
  }
  return out;
}

async function probe(page, origin) {
  const deadline = Date.now() + PAGE_BUDGET_MS;
  const out = { origin };
  const consoleLines = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleLines.push(m.text());
  });
  page.on('pageerror', (e) => consoleLines.push(String(e)));

  try {
    await page.goto(`${origin}/`, { timeout: PAGE_BUDGET_MS, waitUntil: 'load' });
  } catch (e) {
    throw new Error(`could not load ${origin}/: ${e.message.split('\n')[0]}`);
  }

  const step = async (method, url, headers, body) => {
    const left = deadline - Date.now();
    if (left <= 500) return { ok: false, error: `skipped: page budget of ${PAGE_BUDGET_MS / 1000} s used up` };
    const timeoutMs = Math.min(FETCH_TIMEOUT_MS, left);
    const inPage = page.evaluate(pageFetch, { url, method, headers, body, timeoutMs, cap: BODY_CAP });
    let timer;
    const bound = new Promise((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: `timeout: no answer in the page after ${timeoutMs + 2000} ms` }), timeoutMs + 2000);
    });
    try {
      return await Promise.race([inPage, bound]);
    } catch (e) {
      return { ok: false, error: `evaluate failed: ${e.message.split('\n')[0]}` };
    } finally {
      clearTimeout(timer);
    }
  };

  // (a) discovery
  const a = await step('GET', `${BASE}/.well-known/aep`, {});
  if (a.ok) {
    try {
      a.extensionId = JSON.parse(a.body)?.extension?.id ?? null;
    } catch {
      a.extensionId = null;
    }
  }
  out.well_known = a;

  // (b) streamed chat
  out.chat_stream = await step('POST', `${BASE}/aep/model-providers/echo/chat/stream`,
    { 'content-type': 'application/json' },
    JSON.stringify({ model, messages: [{ role: 'user', contents: [{ kind: 'text', text: 'hi' }] }] }));

  // (c) MCP session
  const mcp = `${BASE}/mcp`;
  const mcpHeaders = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MCP_VERSION,
  };
  const init = await step('POST', mcp, mcpHeaders, JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: MCP_VERSION, capabilities: {}, clientInfo: { name: 'chromium', version: '1' } },
  }));
  const sessionId = init.ok ? init.headers['mcp-session-id'] ?? null : null;
  if (init.ok) init.sessionId = sessionId;
  out.mcp_initialize = init;

  if (sessionId) {
    const withSession = { ...mcpHeaders, 'mcp-session-id': sessionId };
    out.mcp_initialized = await step('POST', mcp, withSession,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const list = await step('POST', mcp, withSession,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }));
    if (list.ok) {
      const reply = jsonRpcMessages(list.body).find((m) => m && m.id === 2);
      list.tools = Array.isArray(reply?.result?.tools) ? reply.result.tools.map((t) => t?.name) : null;
    }
    out.mcp_tools_list = list;
    // (d) end the session
    out.mcp_delete = await step('DELETE', mcp,
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': MCP_VERSION });
  } else {
    const skipped = { skipped: 'no mcp-session-id readable by the page' };
    out.mcp_initialized = skipped;
    out.mcp_tools_list = skipped;
    out.mcp_delete = skipped;
  }
  out.console = consoleLines;
  return out;
}

// ---- main ----------------------------------------------------------------------------
async function main() {
  const local = await listen('127.0.0.1');
  servers.push(local);
  let foreign;
  try {
    foreign = await listen('127.0.0.2');
  } catch (e) {
    await cleanup();
    fail(3, `cannot bind 127.0.0.2 for the foreign origin (${e.code || e.message}); ` +
      'this needs the whole 127.0.0.0/8 routed to loopback, as Linux does');
  }
  servers.push(foreign);
  const localOrigin = `http://localhost:${local.address().port}`;
  const foreignOrigin = `http://127.0.0.2:${foreign.address().port}`;

  if (!fs.existsSync(CHROMIUM)) fail(2, `${CHROMIUM} not found (apt-get install chromium)`);
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aep-browser-cors-'));
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000,
    });
  } catch (e) {
    throw new Error(`Chromium did not start: ${e.message.split('\n').slice(0, 3).join(' | ')}`);
  }
  const version = context.browser()?.version() ?? null;

  const result = {};
  for (const [name, origin] of [['local', localOrigin], ['foreign', foreignOrigin]]) {
    const page = await context.newPage();
    try {
      result[name] = await probe(page, origin);
    } finally {
      await page.close().catch(() => {});
    }
  }
  result.chromium = version;
  return result;
}

let code = 0;
let result;
try {
  result = await main();
} catch (e) {
  process.stderr.write(`browser_cors: ${e.message}\n`);
  code = 2;
}
await cleanup();
clearTimeout(watchdog);
if (result) process.stdout.write(JSON.stringify(result) + '\n');
process.exitCode = code;
