// Per-tool switches and the catalog search in the dashboard, in a real
// browser: the tools of a server are listed with their token counts,
// unticking one hides it from an MCP client's `tools/list` on /mcp (and the
// config file says so), and the search box finds a tool by what it does.
// (Switchboard's own tools are left out of the names compared.) Run with `node --test tests/ui/tools.test.mjs` after
// `cargo build -p switchboard -p switchboard-fixtures --bins` (see browser.test.mjs).

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, eventually, launchChromium, stdioFixture, tempDir } from './harness.mjs';

/** An MCP session on `endpoint` spoken with plain fetch: `tools/list` names, sorted. */
async function mcpSession(endpoint) {
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const init = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tools-test', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  await init.text();
  const withSession = {
    ...headers,
    'mcp-session-id': init.headers.get('mcp-session-id'),
    'mcp-protocol-version': '2025-06-18',
  };
  const initialized = await fetch(endpoint, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  let id = 1;
  return async () => {
    const r = await fetch(endpoint, {
      method: 'POST',
      headers: withSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/list', params: {} }),
    });
    const text = await r.text();
    // A JSON answer, or one SSE event carrying it.
    const json = text.trimStart().startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: {'))?.slice(6);
    return JSON.parse(json ?? 'null')
      .result.tools.map((t) => t.name)
      .filter((n) => !n.startsWith('switchboard__'))
      .sort();
  };
}

describe('tools and search in the dashboard', () => {
  let hub;
  let browser;
  let page;
  const pageErrors = [];
  const dir = tempDir('tools');
  const spec = join(dir, 'spec.json');

  before(async () => {
    writeFileSync(
      spec,
      JSON.stringify({
        tools: [
          { name: 'read_file', description: 'Read the contents of a file from disk.' },
          { name: 'send_email', description: 'Send an email message to a recipient.' },
        ],
      }),
    );
    hub = await Hub.start({
      mcpServers: { files: stdioFixture(['--spec', spec]), other: stdioFixture(['--tools', 'x']) },
      settings: { pollIntervalSecs: 0 },
    });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(await hub.signInUrl());
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('lists the tools, hides one from a client, and searches the catalog', async () => {
    const list = await mcpSession(hub.endpoint);
    assert.deepEqual(await list(), ['files__read_file', 'files__send_email', 'other__x']);
    const pid = (await hub.server('files')).pid;

    const row = page.locator('tbody.server[data-server="files"]');
    await row.getByRole('button', { name: 'Show the tools of files' }).click();
    const tools = row.locator('[data-testid="tools"]');
    await tools.locator('li[data-tool="send_email"]').waitFor();
    // Counted by the hub moments after the listing ("counting…" until then).
    await eventually('the tool counted', async () => /Read the contents of a file from disk\.\s+\d+ tokens/.test(await tools.locator('li[data-tool="read_file"]').innerText()));
    await eventually('the token total', async () => /^\d+ tokens in clients' context$/.test(await tools.locator('[data-testid="tool-tokens"]').innerText()) && !/^0 /.test(await tools.locator('[data-testid="tool-tokens"]').innerText()));
    const before = await tools.locator('[data-testid="tool-tokens"]').innerText();

    await tools.getByRole('checkbox', { name: 'Disable send_email of files' }).click();
    await eventually('the tool gone from the client', async () => (await list()).join() === 'files__read_file,other__x');
    const config = JSON.parse(readFileSync(hub.configPath, 'utf8'));
    assert.deepEqual(config.mcpServers.files.disabledTools, ['send_email']);
    assert.equal((await hub.server('files')).pid, pid, 'the server was restarted');
    await tools.getByRole('checkbox', { name: 'Enable send_email of files' }).waitFor();
    await eventually('fewer tokens shown', async () => (await tools.locator('[data-testid="tool-tokens"]').innerText()) !== before);
    await page.screenshot({ path: artifactPath('dashboard-tools.png'), fullPage: true });

    // The search box: best match first; the disabled tool is not found.
    await page.getByRole('searchbox', { name: 'Search the tools of every server' }).fill('read a file');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.locator('[data-testid="search-results"] li');
    await results.first().waitFor();
    assert.equal(await results.first().getAttribute('data-tool'), 'files__read_file');
    // Why it matched: the request's words and its meaning both point at it.
    const why = results.first().locator('.badge.matched');
    assert.equal(await why.getAttribute('data-matched'), 'both');
    assert.equal(await why.innerText(), 'words + meaning');
    await page.getByRole('searchbox', { name: 'Search the tools of every server' }).fill('send an email');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    // The button says "Searching…" until the answer is shown.
    await page.getByRole('button', { name: 'Search', exact: true }).waitFor();
    const names = await page.locator('[data-testid="search-results"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')));
    assert.ok(!names.includes('files__send_email'), `a disabled tool was found: ${names}`);
    // read_file shares no word with "send an email": only its meaning ranks it.
    const readFile = page.locator('[data-testid="search-results"] li[data-tool="files__read_file"] .badge.matched');
    assert.equal(await readFile.getAttribute('data-matched'), 'semantic');
    assert.equal(await readFile.innerText(), 'by meaning');
    assert.deepEqual(pageErrors, []);
  });
});
