// A tool's override edited from its row in the dashboard, in a real browser:
// the form refuses a hidden argument without a default before sending
// anything, saves a name, defaults and a hidden argument into the config file
// (the rest of the file kept), an MCP client on /mcp then lists the new name
// and a call gets the default filled in; a blank form removes the override.
// Run with `node --test tests/ui/overrides.test.mjs` after
// `cargo build -p switchboard -p switchboard-fixtures --bins` (see browser.test.mjs).

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, eventually, launchChromium, stdioFixture, tempDir } from './harness.mjs';

/** An MCP session on `endpoint` spoken with plain fetch: one JSON-RPC request at a time. */
async function mcpSession(endpoint) {
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const send = async (h, message) => {
    const r = await fetch(endpoint, { method: 'POST', headers: h, body: JSON.stringify(message) });
    const text = await r.text();
    const json = text.trimStart().startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: {'))?.slice(6);
    return { response: r, body: json ? JSON.parse(json) : null };
  };
  const init = await send(headers, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'overrides-test', version: '1' } },
  });
  assert.equal(init.response.status, 200);
  const session = { ...headers, 'mcp-session-id': init.response.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await send(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).response.status, 202);
  let id = 1;
  const request = async (method, params) => (await send(session, { jsonrpc: '2.0', id: id++, method, params })).body;
  return {
    names: async () =>
      (await request('tools/list', {})).result.tools
        .map((t) => t.name)
        .filter((n) => !n.startsWith('switchboard__'))
        .sort(),
    call: async (name, args) => (await request('tools/call', { name, arguments: args })).result,
  };
}

describe('tool overrides in the dashboard', () => {
  let hub;
  let browser;
  let page;
  const pageErrors = [];
  const dir = tempDir('overrides');
  const spec = join(dir, 'spec.json');

  before(async () => {
    writeFileSync(
      spec,
      JSON.stringify({
        tools: [
          {
            name: 'search',
            description: 'Search issues.',
            behavior: 'echo',
            inputSchema: {
              type: 'object',
              properties: { q: { type: 'string' }, project: { type: 'string' } },
              required: ['q', 'project'],
            },
          },
        ],
      }),
    );
    hub = await Hub.start({ mcpServers: { jira: stdioFixture(['--spec', spec]) }, settings: { pollIntervalSecs: 0 } });
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

  it('edits, saves and removes an override from the tool row', async () => {
    const client = await mcpSession(hub.endpoint);
    assert.deepEqual(await client.names(), ['jira__search']);
    const original = readFileSync(hub.configPath, 'utf8');

    const row = page.locator('tbody.server[data-server="jira"]');
    await row.getByRole('button', { name: 'Show the tools of jira' }).click();
    const item = row.locator('li[data-tool="search"]');
    await item.getByRole('button', { name: 'Override search of jira' }).click();
    const form = item.locator('[data-testid="override-form"]');
    await form.waitFor();

    // A hidden argument needs a default: refused in the page, nothing written.
    await form.getByLabel('Name clients see').fill('find_issues');
    await form.getByRole('checkbox', { name: 'project' }).check();
    await form.getByRole('button', { name: 'Save' }).click();
    const error = form.locator('[data-testid="override-error"]');
    await error.waitFor();
    assert.match(await error.innerText(), /"project" is hidden but has no default value/);
    assert.equal(readFileSync(hub.configPath, 'utf8'), original);

    await form.getByLabel('Default arguments (JSON)').fill('{"project": "ACME"}');
    await form.getByLabel('Description').fill('Find ACME issues.');
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually('the new name on /mcp', async () => (await client.names()).join() === 'jira__find_issues');
    assert.deepEqual(hub.configFile().mcpServers.jira.toolOverrides, {
      search: { name: 'find_issues', description: 'Find ACME issues.', arguments: { project: 'ACME' }, hideArguments: ['project'] },
    });
    const echoed = await client.call('jira__find_issues', { q: 'bug' });
    assert.deepEqual(JSON.parse(echoed.content[0].text), { q: 'bug', project: 'ACME' });
    await eventually('the summary in the row', async () =>
      (await item.locator('[data-testid="override-summary"]').innerText()) === 'shown as find_issues · own description · 1 default · hides project',
    );
    await page.screenshot({ path: artifactPath('dashboard-override.png'), fullPage: true });

    // Opened again it shows what is saved; emptied, it removes the override.
    await item.getByRole('button', { name: 'Override search of jira' }).click();
    await form.waitFor();
    assert.equal(await form.getByLabel('Name clients see').inputValue(), 'find_issues');
    await form.getByLabel('Name clients see').fill('');
    await form.getByLabel('Description').fill('');
    await form.getByLabel('Default arguments (JSON)').fill('');
    await form.getByRole('checkbox', { name: 'project' }).uncheck();
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually('the server name back on /mcp', async () => (await client.names()).join() === 'jira__search');
    assert.equal(hub.configFile().mcpServers.jira.toolOverrides, undefined);
    await eventually('the summary gone', async () => (await item.locator('[data-testid="override-summary"]').innerText()) === '');
    assert.deepEqual(pageErrors, []);
  });
});
