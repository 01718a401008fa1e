// The AEP Inspector in a real browser: Debian's headless Chromium driven by
// playwright-core, the page driven by role and label only (no CSS selectors).
//
//   node inspector_browser.mjs CONFIG_JSON
//
// CONFIG_JSON: {"inspector": URL, "utilities": URL, "echo": URL, "models": URL, "orders": URL,
//   "slowHealth": URL, "unreachable": URL, "notAep": URL, "html": URL, "invalid": URL,
//   "halfBroken": URL, "guarded": URL or null, "screenshots": DIR}
// (started by tests/browser.rs). Walks every screen: connect two extensions side by side
// from the page address, the overview, a streamed chat with its frames and timings (and
// later in its HTTP trace), a
// cancelled stream, a stalled stream, option sets (a value refused at its field, a
// migration), tool calls through generated forms (and a field error), resources (one
// read from a template's variables) and a prompt with its arguments, a wait cancelled
// (the health check of an extension whose health never answers), the conformance suite
// (all of it, then two checks ticked in its checklist, and the JSON export downloaded),
// keyboard navigation of the tabs, each bad input, signing in to an OAuth-protected
// extension (`guarded`, trusting oidc-provider: a refused consent, then a login and a
// consent per resource in the popup, its tools called, signing out), and disconnecting.
// Writes a screenshot of each screen.
//
// stdout: ONE JSON object {"chromium": version, "steps": [{name, ms}], "screenshots": [...]}.
// Exit 0 when every step passed; 1 when one did not (stderr says which and why);
// 2 on a harness failure (playwright-core or Chromium missing, 240 s overall).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const CHROMIUM = process.env.AEP_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];
const SCRIPT_BUDGET_MS = 240_000;
const STEP_MS = 15_000; // default bound on one expectation

function fail(code, msg) {
  process.stderr.write(`inspector_browser: ${msg}\n`);
  process.exit(code);
}

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
  return fail(2, 'playwright-core not found (run conformance/peers/install.sh)');
}

let config;
try {
  config = JSON.parse(process.argv[2] || '');
} catch {
  fail(2, 'usage: inspector_browser.mjs CONFIG_JSON');
}
if (!fs.existsSync(CHROMIUM)) fail(2, `${CHROMIUM} not found (apt-get install chromium)`);
const { chromium } = loadPlaywright();
fs.mkdirSync(config.screenshots, { recursive: true });

let browser = null;
const watchdog = setTimeout(async () => {
  process.stderr.write(`inspector_browser: gave up after ${SCRIPT_BUDGET_MS / 1000} s\n`);
  if (browser) await browser.close().catch(() => {});
  process.exit(2);
}, SCRIPT_BUDGET_MS);

class StepFailed extends Error {}
let currentPage = null;
const steps = [];
const screenshots = [];

async function step(name, body) {
  const started = Date.now();
  try {
    await body();
  } catch (e) {
    // What the page showed, to see why (not one of the screenshots the test asks for).
    if (currentPage) await currentPage.screenshot({ path: path.join(config.screenshots, 'failed-step.png'), fullPage: true }).catch(() => {});
    throw new StepFailed(`step "${name}": ${e.message.split('\n').slice(0, 6).join(' | ')}`);
  }
  steps.push({ name, ms: Date.now() - started });
}

async function shot(page, name) {
  const file = path.join(config.screenshots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  screenshots.push(file);
}

async function expectText(locator, pattern, timeout = STEP_MS) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.textContent({ timeout: Math.max(1, deadline - Date.now()) }).catch(() => '')) || '';
    if (typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${pattern} in ${locator}, last saw: ${JSON.stringify(last.slice(0, 400))}`);
}

async function expectCount(locator, count, timeout = STEP_MS) {
  const deadline = Date.now() + timeout;
  let n = -1;
  while (Date.now() < deadline) {
    n = await locator.count();
    if (n === count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${count} of ${locator}, found ${n}`);
}

function region(page, name) {
  return page.getByRole('region', { name: new RegExp(`^${name} at `) });
}

async function connectByForm(page, url) {
  await page.getByLabel('Extension URL', { exact: true }).fill(url);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
}

async function main() {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  const context = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
  const page = await context.newPage();
  currentPage = page;
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    // A refused /api call is logged by Chromium itself ("Failed to load resource");
    // anything else logged as an error is the page's fault.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
  });

  const address = `${config.inspector}/?url=${encodeURIComponent(config.utilities)}&url=${encodeURIComponent(config.echo)}`;
  const utilities = region(page, 'Utilities');
  const echo = region(page, 'Echo');

  await step('open two extensions side by side from the page address', async () => {
    await page.goto(address, { waitUntil: 'load', timeout: STEP_MS });
    await expectCount(page.getByRole('region', { name: / at http/ }), 2);
    await expectText(page.getByRole('status', { name: 'Connection status' }), 'Connected to');
  });

  await step('overview: identity, contributions, health, raw manifests and their diff', async () => {
    await expectText(utilities.getByRole('table', { name: 'Tool contributions' }), 'hash.compute');
    await expectText(utilities.getByRole('table', { name: 'MCP servers' }), 'utilities');
    await expectText(utilities.getByRole('table', { name: 'Health status' }), 'available');
    await expectText(utilities.getByRole('table', { name: 'Differences between the revisions' }), '/protocolVersion');
    await expectText(utilities.getByLabel('Raw manifest 1.0', { exact: true }), '"protocolVersion": "1.0"');
    await expectText(echo.getByRole('table', { name: 'Model providers' }), 'echo-1');
    await utilities.getByRole('button', { name: 'Refresh health' }).click();
    await expectText(utilities.getByRole('table', { name: 'Health status' }), 'available');
    await shot(page, 'overview');
  });

  await step('keyboard: arrow keys move between the screens', async () => {
    const overviewTab = echo.getByRole('tab', { name: 'Overview' });
    await overviewTab.focus();
    await page.keyboard.press('ArrowRight');
    const playground = echo.getByRole('tab', { name: 'Playground' });
    if ((await playground.getAttribute('aria-selected')) !== 'true') throw new Error('ArrowRight did not select Playground');
    const focused = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
    if (focused !== 'Playground') throw new Error(`focus is on ${focused}`);
  });

  await step('playground: a streamed chat with its frames, timings and usage', async () => {
    await echo.getByRole('tab', { name: 'Playground' }).click();
    await expectText(echo.getByLabel('Provider', { exact: true }), 'Echo (echo)');
    const model = echo.getByLabel('Model', { exact: true });
    const deadline = Date.now() + STEP_MS;
    while ((await model.inputValue()) !== 'echo-1' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await echo.getByLabel('Text of message 1', { exact: true }).fill('hello from chromium');
    await echo.getByRole('button', { name: 'Send' }).click();
    await expectText(echo.getByRole('status', { name: 'Chat status' }), /Stream finished: 4 frames in [\d.]+ ms, finish reason stop/);
    await expectText(echo.getByLabel('Response text'), 'hello from chromium');
    await expectCount(echo.getByRole('table', { name: 'Frames as the extension sent them' }).getByRole('row'), 5);
    const stats = await expectText(echo.getByLabel('Stream statistics'), 'Time to first token');
    for (const want of ['stop', 'echo-1', '3 in, 3 out', 'Inter-frame gaps']) {
      if (!stats.includes(want)) throw new Error(`statistics lack ${want}: ${stats}`);
    }
    await echo.getByRole('img', { name: /Inter-frame gaps chart/ }).waitFor({ timeout: STEP_MS });
    // The answer joined the message list as an assistant message.
    if ((await echo.getByLabel('Role of message 2', { exact: true }).inputValue()) !== 'assistant') throw new Error('message 2 is not the assistant\'s');
    if ((await echo.getByLabel('Text of message 2', { exact: true }).inputValue()) !== 'hello from chromium') throw new Error('the answer is not message 2');
    await shot(page, 'playground');
  });

  await step('playground: a message list with roles, added, edited and removed', async () => {
    await echo.getByRole('button', { name: 'Add message' }).click();
    if ((await echo.getByLabel('Role of message 3', { exact: true }).inputValue()) !== 'user') throw new Error('a message after the assistant\'s is not the user\'s');
    await echo.getByLabel('Text of message 3', { exact: true }).fill('second question');
    await echo.getByRole('button', { name: 'Add message' }).click();
    await echo.getByLabel('Role of message 4', { exact: true }).selectOption('system');
    await echo.getByLabel('Text of message 4', { exact: true }).fill('a message to remove');
    await echo.getByRole('button', { name: 'Remove message 4' }).click();
    await expectCount(echo.getByRole('list', { name: 'Messages' }).getByRole('listitem'), 3);
    await echo.getByLabel('Text of message 1', { exact: true }).fill('edited first');
    await echo.getByRole('button', { name: 'Send' }).click();
    await expectText(echo.getByRole('status', { name: 'Chat status' }), /Stream finished: 3 frames/);
    await expectText(echo.getByLabel('Response text'), 'second question');
    await expectCount(echo.getByRole('list', { name: 'Messages' }).getByRole('listitem'), 4);
  });

  const models = region(page, 'Test models');
  await step('connect a third extension with the form', async () => {
    await connectByForm(page, config.models);
    await expectCount(page.getByRole('region', { name: / at http/ }), 3);
    await models.getByRole('tab', { name: 'Playground' }).click();
    await expectText(models.getByLabel('Provider', { exact: true }), 'stall');
  });

  await step('playground: cancel a stream', async () => {
    await models.getByLabel('Provider', { exact: true }).selectOption('stall');
    await models.getByLabel('Model', { exact: true }).fill('stall-1');
    await models.getByLabel('Stall bound (s)', { exact: true }).fill('60');
    await models.getByRole('button', { name: 'Send' }).click();
    await expectText(models.getByLabel('Response text'), 'first');
    await models.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expectText(models.getByRole('status', { name: 'Chat status' }), 'Cancelled after 1 frames.');
    if (!(await models.getByRole('button', { name: 'Send' }).isEnabled())) throw new Error('Send stays disabled');
  });

  await step('bad input: a stalled stream ends with a message within its bound', async () => {
    await models.getByLabel('Stall bound (s)', { exact: true }).fill('1');
    const started = Date.now();
    await models.getByRole('button', { name: 'Send' }).click();
    await expectText(models.getByRole('alert').filter({ hasText: 'stream_stalled' }), 'no SSE frame from the extension for 1 s', 10_000);
    if (Date.now() - started > 8000) throw new Error(`took ${Date.now() - started} ms`);
    await shot(page, 'stalled-stream');
  });

  await step('playground: reasoning and tool calls apart from the text', async () => {
    await models.getByLabel('Provider', { exact: true }).selectOption('thinker');
    await models.getByLabel('Model', { exact: true }).fill('think-1');
    await models.getByLabel('Stall bound (s)', { exact: true }).fill('30');
    await models.getByRole('button', { name: 'Send' }).click();
    await expectText(models.getByLabel('Reasoning', { exact: true }), 'Let me think. Done thinking.');
    await expectText(models.getByLabel('Response text'), 'The answer is 42.');
    await expectText(models.getByLabel('Tool calls', { exact: true }), '"name":"hash_compute"');
    await expectText(models.getByLabel('Stream statistics'), 'toolCalls');
  });

  await step('playground: native options from the option set\'s schema, refused at the field, then sent', async () => {
    const playground = models.getByRole('tabpanel', { name: 'Playground' });
    await playground.getByLabel('Provider', { exact: true }).selectOption('drip');
    await playground.getByLabel('Model', { exact: true }).fill('drip-1');
    await playground.getByLabel('Native option set', { exact: true }).selectOption('test.models/drip-profile');
    if ((await playground.getByLabel('Native options version', { exact: true }).inputValue()) !== '2') throw new Error('the preferred version is not chosen');
    const temperature = playground.getByRole('group', { name: 'Native options form' }).getByLabel('temperature (required)', { exact: true });
    await temperature.fill('3');
    await playground.getByRole('button', { name: 'Send' }).click();
    await expectText(playground.getByRole('alert').filter({ hasText: 'invalid_options' }), 'nothing was sent');
    await expectText(playground.getByRole('group', { name: 'Native options form' }), 'must be at most 2');
    if ((await temperature.getAttribute('aria-invalid')) !== 'true') throw new Error('the refused value is not marked at its field');
    await temperature.fill('1.5');
    await playground.getByRole('group', { name: 'Native options form' }).getByLabel('mode (optional)', { exact: true }).selectOption('careful');
    await playground.getByRole('button', { name: 'Send' }).click();
    await expectText(playground.getByRole('status', { name: 'Chat status' }), /Stream finished: 11 frames/);
    const sent = await expectText(playground.getByLabel('Native options sent', { exact: true }), '"schemaDigest": "sha256:');
    if (!sent.includes('"mode": "careful"') || !sent.includes('"optionSet": "test.models/drip-profile"')) throw new Error(`sent ${sent}`);
    await shot(page, 'native-options');
  });

  await step('configuration: versions and digests, a value refused at its field, a migration', async () => {
    await models.getByRole('tab', { name: 'Configuration' }).click();
    const panel = models.getByRole('tabpanel', { name: 'Configuration' });
    await expectText(panel.getByRole('table', { name: 'Option set versions' }), '2 (preferred)');
    await expectText(panel.getByRole('table', { name: 'Option set versions' }), 'matches');
    await expectText(panel.getByRole('table', { name: 'Option sets' }), '1 → 2');
    if ((await panel.getByLabel('Version', { exact: true }).inputValue()) !== '2') throw new Error('the preferred version is not chosen');
    await panel.getByLabel('temperature (required)', { exact: true }).fill('3');
    await panel.getByLabel('mode (optional)', { exact: true }).selectOption('fast');
    await panel.getByRole('button', { name: 'Check values' }).click();
    await expectText(panel.getByRole('status', { name: 'Configuration status' }), '1 problem against test.models/drip-profile version 2.');
    await expectText(panel.getByRole('list', { name: 'Problems' }), "values.temperature Value at 'values.temperature' must be at most 2.");
    const invalid = await panel.getByLabel('temperature (required)', { exact: true }).getAttribute('aria-invalid');
    if (invalid !== 'true') throw new Error('the refused value is not marked at its field');
    await panel.getByLabel('temperature (required)', { exact: true }).fill('1.5');
    await panel.getByRole('button', { name: 'Check values' }).click();
    await expectText(panel.getByRole('status', { name: 'Configuration status' }), 'Valid for test.models/drip-profile version 2.');
    await expectText(panel.getByLabel('Native options', { exact: true }), '"schemaDigest": "sha256:');
    await panel.getByLabel('Version', { exact: true }).selectOption('1');
    await panel.getByLabel('temp (optional)', { exact: true }).fill('0.4');
    if ((await panel.getByLabel('Migrate to version', { exact: true }).inputValue()) !== '2') throw new Error('the migration target is not 2');
    await panel.getByRole('button', { name: 'Migrate values' }).click();
    await expectText(panel.getByRole('status', { name: 'Configuration status' }), /Migrated from 1 to 2 in [\d.]+ ms/);
    await expectText(panel.getByLabel('Migrated values', { exact: true }), '"mode": "careful"');
    await expectText(panel.getByRole('region', { name: 'Configuration result' }), 'valid against version 2');
    await shot(page, 'configuration');
  });

  await step('tools: a call through the generated form shows the structured result', async () => {
    await utilities.getByRole('tab', { name: 'Tools' }).click();
    const tool = utilities.getByLabel('Tool', { exact: true });
    await expectText(tool, 'Text statistics (text.stats)');
    await tool.selectOption('text.stats');
    await utilities.getByLabel('text (required)', { exact: true }).fill('two words\n\nand more');
    await utilities.getByLabel('skip_blank_lines (optional)', { exact: true }).selectOption('true');
    await utilities.getByRole('button', { name: 'Call tool' }).click();
    await expectText(utilities.getByLabel('Structured content', { exact: true }), '"lines": 2');
    await expectText(utilities.getByRole('region', { name: 'Tool result' }), 'valid against the output schema');
    await expectText(utilities.getByRole('region', { name: 'Tool result' }), 'false');
    await utilities.getByLabel('Edit arguments as JSON').check();
    const json = await utilities.getByLabel('Arguments (JSON)').inputValue();
    if (!json.includes('"skip_blank_lines": true')) throw new Error(`JSON mode shows ${json}`);
    await shot(page, 'tools');
  });

  await step('tools: an enum from a select, and a required field left empty', async () => {
    await utilities.getByLabel('Tool', { exact: true }).selectOption('text.case');
    await utilities.getByLabel('text (required)', { exact: true }).fill('abc');
    await utilities.getByLabel('case (required)', { exact: true }).selectOption('upper');
    await utilities.getByRole('button', { name: 'Call tool' }).click();
    await expectText(utilities.getByLabel('Text content', { exact: true }), 'ABC');
    await utilities.getByLabel('Tool', { exact: true }).selectOption('text.count_slowly');
    await utilities.getByRole('button', { name: 'Call tool' }).click();
    await expectText(utilities.getByRole('alert').filter({ hasText: 'required' }), 'to is required');
    const invalid = await utilities.getByLabel('to (required)', { exact: true }).getAttribute('aria-invalid');
    if (invalid !== 'true') throw new Error('the empty field is not marked invalid');
  });

  const orders = region(page, 'Orders');
  await step('tools: nested objects and arrays as sub-forms, optional fields told apart from empty ones, JSON mode in sync', async () => {
    await connectByForm(page, config.orders);
    await orders.getByRole('tab', { name: 'Tools' }).click();
    await expectText(orders.getByLabel('Tool', { exact: true }), 'Place an order (order.place)');
    await orders.getByLabel('customer.name (required)', { exact: true }).fill('Ada');
    for (const [sku, quantity] of [['a-1', '2'], ['x-9', '7'], ['b-2', '3']]) {
      await orders.getByRole('button', { name: 'Add to items' }).click();
      const n = await orders.getByRole('list', { name: 'Items of items' }).getByRole('listitem').count();
      await orders.getByLabel(`items[${n}].sku (required)`, { exact: true }).fill(sku);
      await orders.getByLabel(`items[${n}].quantity (required)`, { exact: true }).fill(quantity);
    }
    await orders.getByRole('button', { name: 'Remove items[2]' }).click();
    await expectCount(orders.getByRole('list', { name: 'Items of items' }).getByRole('listitem'), 2);
    if ((await orders.getByLabel('items[2].sku (required)', { exact: true }).inputValue()) !== 'b-2') throw new Error('the items after a removed one did not move up');
    if (await orders.getByLabel('Send tags', { exact: true }).isChecked()) throw new Error('an optional array is sent before it is touched');
    await orders.getByRole('button', { name: 'Add to tags' }).click();
    await orders.getByLabel('tags[1]', { exact: true }).fill('gift');
    if (!(await orders.getByLabel('Send tags', { exact: true }).isChecked())) throw new Error('adding a tag did not include tags');
    // An empty optional text is sent only when asked for: "Send note" with nothing typed.
    await orders.getByLabel('Send note', { exact: true }).check();
    await orders.getByRole('button', { name: 'Call tool' }).click();
    const structured = await expectText(orders.getByLabel('Structured content', { exact: true }), '"quantity": 5');
    for (const want of ['"lines": 2', '"note": ""', '"weight": null', '"gift"', '"name": "Ada"']) {
      if (!structured.includes(want)) throw new Error(`the result lacks ${want}: ${structured}`);
    }
    await expectText(orders.getByRole('region', { name: 'Tool result' }), 'valid against the output schema');
    // JSON mode carries the arguments across, both ways.
    await orders.getByLabel('Edit arguments as JSON').check();
    const json = JSON.parse(await orders.getByLabel('Arguments (JSON)').inputValue());
    if (JSON.stringify(json.items) !== JSON.stringify([{ sku: 'a-1', quantity: 2 }, { sku: 'b-2', quantity: 3 }]) || json.note !== '' || 'weights' in json) {
      throw new Error(`JSON mode shows ${JSON.stringify(json)}`);
    }
    json.customer.name = 'Grace';
    json.weights = [1.5, 2];
    delete json.note;
    await orders.getByLabel('Arguments (JSON)').fill(JSON.stringify(json));
    await orders.getByLabel('Edit arguments as JSON').uncheck();
    if ((await orders.getByLabel('customer.name (required)', { exact: true }).inputValue()) !== 'Grace') throw new Error('the form did not take the JSON');
    if ((await orders.getByLabel('weights[2]', { exact: true }).inputValue()) !== '2') throw new Error('the weights did not reach the form');
    if (await orders.getByLabel('Send note', { exact: true }).isChecked()) throw new Error('a member removed in JSON is still sent');
    await orders.getByRole('button', { name: 'Call tool' }).click();
    await expectText(orders.getByLabel('Structured content', { exact: true }), '"weight": 3.5');
    await shot(page, 'nested-tool');
    // JSON the form cannot show keeps JSON mode on, with a message.
    await orders.getByLabel('Edit arguments as JSON').check();
    await orders.getByLabel('Arguments (JSON)').fill('{"customer": {"name": "Ada"}, "items": [], "colour": "red"}');
    await orders.getByLabel('Edit arguments as JSON').click();
    await expectText(orders.getByRole('status', { name: 'Tool call status' }), 'cannot show');
    if (!(await orders.getByLabel('Edit arguments as JSON').isChecked())) throw new Error('JSON mode was left');
    await page.getByRole('button', { name: 'Disconnect Orders' }).click();
    await expectCount(page.getByRole('region', { name: / at http/ }), 3);
  });

  await step('tools: resources, a template filled from its variables, a prompt with its arguments', async () => {
    const server = utilities.getByRole('group', { name: 'MCP server utilities' });
    await expectText(server.getByRole('table', { name: 'Resources' }), 'docs://utilities/readme');
    await server.getByRole('button', { name: 'Read docs://utilities/readme' }).click();
    await expectText(server.getByRole('region', { name: 'Resource result of utilities' }), /Read docs:\/\/utilities\/readme in [\d.]+ ms: 1 content item/);
    await expectText(server.getByLabel('Resource contents', { exact: true }), 'hash.compute');
    await server.getByLabel('Variable text', { exact: true }).fill('abc');
    await expectText(server.getByLabel('Expanded URI', { exact: true }), 'hash://sha256/abc');
    await server.getByRole('button', { name: 'Read resource' }).click();
    await expectText(server.getByLabel('Resource contents', { exact: true }), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    await expectText(server.getByLabel('Prompt', { exact: true }), 'Summarize a text (summarize)');
    await server.getByRole('button', { name: 'Get prompt' }).click();
    await expectText(server.getByRole('alert').filter({ hasText: 'required' }), 'text is required');
    await server.getByLabel('Argument text (required)', { exact: true }).fill('A long story.');
    await server.getByLabel('Argument style (optional)', { exact: true }).fill('bullets');
    await server.getByRole('button', { name: 'Get prompt' }).click();
    await expectText(server.getByRole('list', { name: 'Prompt messages' }), 'as a bulleted list of its main points');
    await expectText(server.getByRole('region', { name: 'Prompt result of utilities' }), /summarize answered in [\d.]+ ms with 1 message/);
    await shot(page, 'resources-prompts');
  });

  await step('a wait cancelled: the health check of an extension whose health never answers', async () => {
    await connectByForm(page, config.slowHealth);
    const slow = region(page, 'Slow health');
    const health = slow.getByRole('region', { name: 'Health', exact: true });
    await expectText(health, 'Checking health…');
    await slow.getByRole('button', { name: 'Cancel health check' }).click();
    await expectText(health.getByRole('status'), 'Cancelled: the health check. Nothing more is awaited from the extension.');
    await expectCount(slow.getByRole('button', { name: 'Cancel health check' }), 0);
    // The cancel reached the extension: its health request was dropped (before the
    // disconnect below, and well before the Inspector's own 15 s bound).
    const deadline = Date.now() + 5000;
    let dropped = [];
    while (!dropped.length && Date.now() < deadline) {
      dropped = await (await fetch(`${config.slowHealth}/_test/dropped`)).json();
      if (!dropped.length) await new Promise((r) => setTimeout(r, 100));
    }
    if (dropped.length !== 1 || !(dropped[0] < 10000)) throw new Error(`the extension saw its health requests dropped after ${JSON.stringify(dropped)} ms`);
    // The rest of the overview is there, and the raw manifests were not held up.
    await expectText(slow.getByRole('region', { name: 'Identity' }), 'test.slow-health');
    await expectText(slow.getByLabel('Raw manifest 2026-08-01', { exact: true }), '"Slow health"');
    await shot(page, 'cancelled-wait');
    await page.getByRole('button', { name: 'Disconnect Slow health' }).click();
    await expectCount(page.getByRole('region', { name: / at http/ }), 3);
  });

  await step('conformance: run the suite and see it pass', async () => {
    await utilities.getByRole('tab', { name: 'Conformance' }).click();
    await expectText(utilities.getByRole('status', { name: 'Checks chosen' }), /^(\d+) of \1 checks chosen/);
    await utilities.getByRole('button', { name: 'Run conformance suite' }).click();
    await expectText(utilities.getByRole('status', { name: 'Conformance status' }), /^PASS: \d+ passed, 0 failed/, 120_000);
    await expectText(utilities.getByRole('table', { name: 'Conformance report' }), '1.discovery.v1');
    await utilities.getByRole('link', { name: 'Export JUnit' }).waitFor({ timeout: STEP_MS });
    const max = await utilities.getByRole('progressbar', { name: 'Conformance progress' }).getAttribute('max');
    if (!(Number(max) > 10)) throw new Error(`progress max ${max}`);
  });

  await step('conformance: tick two checks in the list, run exactly those, download the JSON report', async () => {
    const panel = utilities.getByRole('tabpanel', { name: 'Conformance' });
    const chosen = panel.getByRole('status', { name: 'Checks chosen' });
    const all = Number((await expectText(chosen, /^(\d+) of \1 checks chosen/)).split(' ')[0]);
    await panel.getByRole('button', { name: 'Select none' }).click();
    await expectText(chosen, `0 of ${all} checks chosen.`);
    // A pattern ticks what it selects, as the CLI's --only does.
    await panel.getByLabel('Checks by pattern', { exact: true }).fill('6.tools');
    await panel.getByRole('button', { name: 'Tick matching', exact: true }).click();
    await expectText(chosen, `4 of ${all} checks chosen.`);
    await panel.getByRole('button', { name: 'Untick matching' }).click();
    await expectText(chosen, `0 of ${all} checks chosen.`);
    const chosenIds = ['1.health', '5.config.migrate'];
    await panel.getByRole('group', { name: /^Section 1: discovery, manifest, health/ }).getByLabel('1.health', { exact: true }).check();
    await panel.getByLabel('5.config.migrate', { exact: true }).check();
    await expectText(chosen, `2 of ${all} checks chosen.`);
    await panel.getByRole('button', { name: 'Run conformance suite' }).click();
    const status = await expectText(panel.getByRole('status', { name: 'Conformance status' }), /^(PASS|FAIL): \d+ passed, \d+ failed, \d+ warned, \d+ skipped/, 60_000);
    const counted = status.match(/(\d+) passed, (\d+) failed, (\d+) warned, (\d+) skipped/).slice(1).map(Number);
    if (counted.reduce((a, b) => a + b, 0) !== 2) throw new Error(`the run counted ${status}`);
    const rows = (await panel.getByRole('table', { name: 'Conformance report' }).getByRole('row').allTextContents()).slice(1);
    const ran = rows.map((r) => chosenIds.find((id) => r.startsWith(id)) || r);
    if (JSON.stringify(ran) !== JSON.stringify(chosenIds) || rows.some((r) => r.startsWith('5.config.migrate.errors'))) throw new Error(`the report holds ${rows.join(' | ')}`);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_MS }),
      panel.getByRole('link', { name: 'Export JSON' }).click(),
    ]);
    if (download.suggestedFilename() !== 'aep-conformance.json') throw new Error(`downloaded ${download.suggestedFilename()}`);
    const report = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    const exported = report.results.map((r) => r.id);
    if (JSON.stringify(exported) !== JSON.stringify(chosenIds)) throw new Error(`the JSON export holds ${exported.join(', ')}`);
    if (report.counts.passed + report.counts.failed + report.counts.warned + report.counts.skipped !== 2) throw new Error(`the JSON export counts ${JSON.stringify(report.counts)}`);
    await shot(page, 'conformance');
  });

  await step('trace: the Inspector\'s own exchanges with statuses, timings and redacted headers', async () => {
    await echo.getByRole('tab', { name: 'Trace' }).click();
    const exchanges = echo.getByRole('table', { name: 'HTTP exchanges' });
    await expectText(exchanges, '/chat/stream');
    await expectText(exchanges, '/.well-known/aep');
    await echo.getByRole('button', { name: 'Refresh trace' }).click();
    await expectText(echo.getByRole('status', { name: 'Trace status' }), /^\d+ exchanges \(newest first, the last 200 kept\)/);
    const rows = await exchanges.getByRole('row').count();
    if (rows < 3) throw new Error(`the trace has ${rows - 1} rows`);
    await expectText(exchanges, 'streamed, 4 frames');
    await expectText(exchanges, 'SDK client (proxy)');
    await expectText(echo.getByLabel('Trace proxy'), /recording proxy at http:\/\/127\.0\.0\.1:\d+/);
    // The utilities' conformance run and MCP sessions went through the proxy too.
    await utilities.getByRole('tab', { name: 'Trace' }).click();
    const utilitiesExchanges = utilities.getByRole('table', { name: 'HTTP exchanges' });
    await expectText(utilitiesExchanges, '/.well-known/agentstration');
    await expectText(utilitiesExchanges, `${config.utilities}/mcp`);
    await expectText(utilitiesExchanges, 'MCP pool (proxy)');
    await expectText(utilitiesExchanges, 'Conformance runner (proxy)');
    await utilities.getByLabel('Show exchanges sent by', { exact: true }).selectOption('mcp');
    await expectText(utilities.getByRole('status', { name: 'Trace status' }), /sent by MCP pool \(proxy\)$/);
    const senders = await utilitiesExchanges.getByRole('row').allTextContents();
    if (senders.slice(1).some((r) => !r.includes('MCP pool (proxy)'))) throw new Error(`the filter let through ${senders.join(' | ')}`);
    await echo.getByRole('tab', { name: 'Trace' }).click();
    await shot(page, 'trace');
  });

  const bad = [
    ['an unreachable URL', config.unreachable, 'extension_unreachable'],
    ['a server that is not AEP', config.notAep, 'not_an_aep_extension'],
    ['an HTML error page', config.html, 'HTML page ("502 Bad Gateway")'],
    ['a manifest that fails validation', config.invalid, 'aep_descriptor_invalid'],
    ['a URL that is not HTTP', 'ftp://example.com', 'endpoint_invalid'],
  ];
  for (const [what, url, message] of bad) {
    await step(`bad input: ${what}`, async () => {
      await connectByForm(page, url);
      await expectText(page.getByRole('alert').filter({ hasText: message }), message, 20_000);
      await expectText(page.getByRole('status', { name: 'Connection status' }), 'Could not connect');
      if (what === 'an HTML error page') await shot(page, 'bad-input');
    });
  }

  await step('bad input: connect anyway to a manifest that fails validation, and explore it', async () => {
    await connectByForm(page, config.halfBroken);
    await expectText(page.getByRole('alert').filter({ hasText: 'aep_descriptor_invalid' }), 'fails validation');
    await page.getByRole('button', { name: `Connect anyway to ${config.halfBroken}` }).click();
    const broken = region(page, 'Half broken');
    await expectText(broken.getByRole('region', { name: 'Validation problems' }), /Connected anyway: the manifest fails validation \(\d+ problems?\)/);
    await expectText(page.getByRole('status', { name: 'Connection status' }), 'Connected anyway to Half broken');
    // The message stays where it was.
    await expectText(page.getByRole('alert').filter({ hasText: 'aep_descriptor_invalid' }), 'fails validation');
    await expectText(broken.getByRole('table', { name: 'Tool contributions' }), 'Case');
    await expectText(broken.getByLabel('Raw manifest 2026-08-01', { exact: true }), '"Half broken"');
    await expectText(broken.getByRole('table', { name: 'Health status' }), 'available');
    // Its MCP server's tools, listed and called as they are.
    await broken.getByRole('tab', { name: 'Tools' }).click();
    await expectText(broken.getByRole('tabpanel', { name: 'Tools' }), 'does not resolve its 2 tool contributions');
    await broken.getByLabel('Tool', { exact: true }).selectOption('utilities/text_stats');
    await broken.getByLabel('text (required)', { exact: true }).fill('still usable');
    await broken.getByRole('button', { name: 'Call tool' }).click();
    await expectText(broken.getByLabel('Structured content', { exact: true }), '"words": 2');
    await shot(page, 'connect-anyway');
    await page.getByRole('button', { name: 'Disconnect Half broken' }).click();
    await expectCount(page.getByRole('region', { name: / at http/ }), 3);
  });

  if (config.guarded) await signInSteps(page);

  await step('disconnect', async () => {
    await page.getByRole('button', { name: 'Disconnect Echo' }).click();
    await expectCount(page.getByRole('region', { name: / at http/ }), 2);
  });

  if (pageErrors.length) throw new StepFailed(`the page logged errors: ${pageErrors.join(' | ')}`);
  return { chromium: browser.version(), steps, screenshots };
}

// Signing in to the extension at config.guarded, whose authorization server is
// oidc-provider with its development login and consent pages.
async function signInSteps(page) {
  const url = config.guarded;
  const signIn = page.getByRole('region', { name: 'Sign in', exact: true });
  const leaks = [];
  // No answer of the Inspector's to the page may hold a token (every JWT starts so).
  const watch = async (response) => {
    if (!response.url().startsWith(config.inspector)) return;
    const text = await response.text().catch(() => '');
    if (text.includes('eyJ')) leaks.push(response.url());
  };
  page.on('response', watch);
  const openPopup = async () => {
    const [popup] = await Promise.all([
      page.waitForEvent('popup', { timeout: STEP_MS }),
      signIn.getByRole('button', { name: `Sign in to ${url}` }).click(),
    ]);
    await popup.waitForURL(/\/interaction\//, { waitUntil: 'domcontentloaded', timeout: STEP_MS });
    return popup;
  };

  await step('sign in: an OAuth-protected extension offers a sign-in, and a refused one says so', async () => {
    await connectByForm(page, url);
    await expectText(page.getByRole('alert').filter({ hasText: 'sign_in_required' }), 'OAuth 2.1 protected resource; sign in to connect');
    const popup = await openPopup();
    await popup.getByRole('link', { name: '[ Cancel ]' }).click();
    await popup.waitForURL(/\/oauth\/callback/, { waitUntil: 'domcontentloaded', timeout: STEP_MS });
    await expectText(popup.getByRole('alert'), 'access_denied: End-User aborted interaction');
    await expectText(signIn.getByRole('alert'), /authorization_failed: .* refused the authorization: access_denied/);
    await expectText(signIn.getByRole('status', { name: 'Sign-in status' }), `Could not sign in to ${url}.`);
    await popup.close();
    await shot(page, 'sign-in-refused');
  });

  await step('sign in: log in and consent in the popup, land back connected, the tools are listed and called', async () => {
    const popup = await openPopup();
    await popup.getByPlaceholder('Enter any login').fill('ada');
    await popup.getByPlaceholder('and password').fill('any password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    // One consent per resource (the AEP routes, each MCP server); the login is remembered.
    let consents = 0;
    const deadline = Date.now() + 60_000;
    while (!new URL(popup.url()).pathname.startsWith('/oauth/callback')) {
      if (Date.now() > deadline) throw new Error(`the popup never came back, it is at ${popup.url()}`);
      const proceed = popup.getByRole('button', { name: 'Continue' });
      if (await proceed.isVisible().catch(() => false)) {
        const before = popup.url();
        await proceed.click();
        consents += 1;
        await popup.waitForURL((u) => u.href !== before, { waitUntil: 'domcontentloaded', timeout: STEP_MS });
      } else await new Promise((r) => setTimeout(r, 100));
    }
    await expectText(popup.getByRole('status'), 'Signed in to AEP routes');
    if (consents !== 3) throw new Error(`${consents} consents, expected one per resource (3)`);
    if ((await popup.content()).includes('eyJ')) throw new Error('the callback page holds a token');
    await popup.close();
    const guarded = region(page, 'Guarded');
    await expectCount(guarded, 1);
    await expectText(page.getByRole('status', { name: 'Connection status' }), `Connected to Guarded 0.1.0 at ${url}`);
    await expectText(guarded, 'signed in with OAuth, tokens held by the Inspector');
    await guarded.getByRole('tab', { name: 'Tools' }).click();
    const tool = guarded.getByLabel('Tool', { exact: true });
    await expectText(tool, 'Who am I (guarded.whoami)');
    await expectText(tool, 'Who am I (admin) (guarded.admin_whoami)');
    await tool.selectOption('guarded.admin_whoami');
    await guarded.getByRole('button', { name: 'Call tool' }).click();
    const seen = await expectText(guarded.getByLabel('Structured content', { exact: true }), '"subject": "ada"');
    if (!seen.includes('"server": "admin"')) throw new Error(`the admin server saw ${seen}`);
    if ((await page.content()).includes('eyJ')) throw new Error('the page holds a token');
    await shot(page, 'signed-in');
  });

  await step('sign out: the tokens are forgotten and the connection closed', async () => {
    await page.getByRole('button', { name: 'Sign out of Guarded' }).click();
    await expectCount(region(page, 'Guarded'), 0);
    await expectText(page.getByRole('status', { name: 'Connection status' }), /^Signed out of http:\S+: the Inspector forgot its tokens$/);
    await connectByForm(page, url);
    await expectText(page.getByRole('alert').filter({ hasText: 'sign_in_required' }), 'sign in to connect');
    page.off('response', watch);
    if (leaks.length) throw new Error(`answers holding a token: ${leaks.join(', ')}`);
  });
}

let code = 0;
try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (e) {
  code = e instanceof StepFailed ? 1 : 2;
  process.stderr.write(`inspector_browser: ${e.message}\n`);
  process.stdout.write(`${JSON.stringify({ steps, screenshots, failed: e.message })}\n`);
}
if (browser) await browser.close().catch(() => {});
clearTimeout(watchdog);
process.exitCode = code;
