// The MCP Registry in the dashboard, in a real browser (Debian's Chromium via
// playwright-core) against a real `switchboard serve` whose
// `settings.registryUrl` is the fake registry (`switchboard-registry-fixture`)
// serving a remote server's document, whose endpoint is a real fixture MCP
// server: "Add a server" searches the registry, shows the result's details,
// builds the install form from the document's headers (the secret one as a
// password field), and installing writes the entry with its header in the
// keyring and holds the new server's tools. Run with
//   node --test tests/ui/registry.test.mjs
// after building `switchboard` and `switchboard-fixtures`.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, bin, eventually, launchChromium, spawnUntil, tempDir } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));

describe('the MCP Registry in Chromium', () => {
  let hub;
  let browser;
  let page;
  let registry;
  let upstream;
  const pageErrors = [];
  const docs = tempDir('docs');
  const packages = tempDir('packages');

  before(async () => {
    mkdirSync(docs, { recursive: true });
    copyFileSync(join(here, '../../crates/switchboard-fixtures/registry/notes-remote-1.2.0.json'), join(docs, 'notes.json'));
    const started = await spawnUntil(
      bin('switchboard-fixture'),
      ['--http', '127.0.0.1:0', '--tools', 'echo'],
      /listening on (http:\/\/\S+)\/mcp/,
      'the remote fixture',
    );
    upstream = started.child;
    const base = started.match[1];
    const reg = await spawnUntil(
      bin('switchboard-registry-fixture'),
      ['--docs', docs, '--remote-base', base],
      /listening on (http:\/\/\S+)/,
      'the registry fixture',
    );
    registry = reg.child;
    hub = await Hub.start(
      { mcpServers: {}, settings: { registryUrl: reg.match[1] } },
      { env: { SWITCHBOARD_TOKEN_STORE: 'memory', SWITCHBOARD_PACKAGES_DIR: packages } },
    );
    hub.remoteUrl = `${base}/mcp`;
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(await hub.signInUrl());
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    registry?.kill();
    upstream?.kill();
    rmSync(docs, { recursive: true, force: true });
    rmSync(packages, { recursive: true, force: true });
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('searches the registry and installs a remote server from the form', async () => {
    await page.locator('[data-action="add-server"]').click();
    const form = page.locator('#server-form');
    await form.locator('input[name="registry-query"]').fill('notes');
    await form.locator('[data-action="registry-search"]').click();
    const result = form.getByTestId('registry-result');
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /Notes/);
    assert.match(text, /1\.2\.0 · streamable-http/);
    assert.match(text, /A hosted notes server/);
    await result.locator('[data-action="registry-pick"]').click();
    const key = form.locator('input[name="registry-X-Notes-Key"]');
    assert.equal(await key.getAttribute('type'), 'password', 'a secret is typed as a password');
    assert.match(await form.getByTestId('registry-install').innerText(), /X-Notes-Key \(required\) — kept in the keyring/);
    await page.screenshot({ path: artifactPath('registry-install-form.png'), fullPage: true });
    await key.fill('key-1618');
    await form.locator('input[name="registry-id"]').fill('notes');
    await form.locator('[data-action="registry-install"]').click();
    await eventually('the server in the config', async () => hub.configFile().mcpServers?.notes !== undefined);
    assert.deepEqual(hub.configFile().mcpServers.notes, {
      url: hub.remoteUrl,
      headers: { 'X-Notes-Key': { keyring: 'notes-X-Notes-Key' } },
    });
    assert.ok(!readFileSync(hub.configPath, 'utf8').includes('key-1618'), 'the secret is not in the file');
    await page.locator('tbody.server[data-server="notes"]').waitFor();
    assert.deepEqual(pageErrors, []);
  });

  it('says what went wrong when the registry has nothing or is gone', async () => {
    await page.locator('[data-action="add-server"]').click();
    const form = page.locator('#server-form');
    await form.locator('input[name="registry-query"]').fill('nothing-like-this');
    await form.locator('[data-action="registry-search"]').click();
    await form.getByText('Nothing matches “nothing-like-this”.').waitFor();
    registry.kill();
    await eventually('the registry gone', async () => registry.exitCode !== null || registry.signalCode !== null);
    await form.locator('input[name="registry-query"]').fill('other');
    await form.locator('[data-action="registry-search"]').click();
    const error = form.getByTestId('registry-error');
    await error.waitFor();
    assert.match(await error.innerText(), /Could not search the MCP Registry: the MCP Registry at http:\/\/127\.0\.0\.1:\d+ cannot be reached/);
  });
});
