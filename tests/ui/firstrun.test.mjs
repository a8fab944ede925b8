// First run without JSON, in a real browser (Debian's Chromium via
// playwright-core) against a real `switchboard serve`: a hub with an empty
// config and a fake HOME whose Claude Desktop and Cursor configs list fixture
// servers offers them, one click imports them and they list tools; then a
// server is added with the form, a refused one shows the hub's words next to
// the form, one is edited and one removed, and the config file keeps every
// byte the edits did not touch. Run with
//   node --test tests/ui/firstrun.test.mjs
// after building `switchboard` and `switchboard-fixture`.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, bin, eventually, launchChromium, stdioFixture, tempDir } from './harness.mjs';

describe('first run in Chromium', () => {
  let hub;
  let browser;
  let page;
  const pageErrors = [];
  const home = tempDir('home');

  const row = (id) => page.locator(`tbody.server[data-server="${id}"]`);
  const configText = () => readFileSync(hub.configPath, 'utf8');

  before(async () => {
    mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { claudefix: stdioFixture(['--tools', 'hello,bye']) } }, null, 2),
    );
    mkdirSync(join(home, '.cursor'), { recursive: true });
    writeFileSync(
      join(home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { cursorfix: stdioFixture(['--tools', 'one']) } }),
    );
    hub = await Hub.start({}, { env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') } });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(await hub.signInUrl());
    await page.evaluate(() => {
      window.__noReload = true;
    });
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    rmSync(home, { recursive: true, force: true });
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('offers the AI clients\' servers and imports them with one click', async () => {
    const offer = page.getByTestId('import-offer');
    await offer.waitFor();
    const text = await offer.innerText();
    assert.match(text, /Import 2 servers found in Claude Desktop, Cursor/);
    assert.match(text, /claudefix/);
    assert.match(text, /cursorfix/);
    await page.screenshot({ path: artifactPath('firstrun-offer.png'), fullPage: true });

    await offer.getByRole('button', { name: 'Import them' }).click();
    await row('claudefix').waitFor();
    await row('cursorfix').waitFor();
    assert.deepEqual(Object.keys(hub.configFile().mcpServers), ['claudefix', 'cursorfix']);
    // They list their tools.
    await page.getByRole('button', { name: 'Refresh all' }).click();
    await eventually('the imported servers listed', async () =>
      /2 tools/.test(await row('claudefix').getByTestId('counts').innerText()),
    );
    await eventually('cursorfix listed', async () => /1 tool/.test(await row('cursorfix').getByTestId('counts').innerText()));
  });

  it('adds a server with the form', async () => {
    const before = configText();
    await page.locator('[data-action="add-server"]').click();
    const form = page.locator('#server-form');
    await form.locator('input[name="id"]').fill('added');
    await form.locator('input[name="command"]').fill(bin('switchboard-fixture'));
    await form.locator('textarea[name="args"]').fill('--tools\nadded_tool');
    await form.locator('textarea[name="env"]').fill('ADDED_API_KEY=sk-form-0123456789abcdef');
    await page.screenshot({ path: artifactPath('firstrun-form.png'), fullPage: true });
    await form.locator('[data-action="save"]').click();
    await row('added').waitFor();
    assert.equal(await form.evaluate((d) => d.open), false, 'the dialog closes');
    const after = configText();
    // Only the new member is new text: the file before it is a prefix.
    const tail = before.lastIndexOf('\n  }');
    assert.ok(after.startsWith(before.slice(0, tail)), after);
    assert.ok(after.endsWith(before.slice(tail)), after);
    assert.deepEqual(hub.configFile().mcpServers.added.args, ['--tools', 'added_tool']);
    await row('added').getByRole('button', { name: 'Refresh added' }).click();
    await eventually('added listed', async () => /1 tool/.test(await row('added').getByTestId('counts').innerText()));
  });

  it('shows the hub\'s refusal next to the form and writes nothing', async () => {
    const before = configText();
    await page.locator('[data-action="add-server"]').click();
    const form = page.locator('#server-form');
    await form.locator('input[name="id"]').fill('bad.name');
    await form.locator('input[name="command"]').fill('x');
    await form.locator('[data-action="save"]').click();
    const error = form.getByTestId('form-error');
    await error.waitFor();
    assert.match(await error.innerText(), /invalid server id 'bad\.name'/);
    // A definition the loader refuses: its words.
    await form.locator('input[name="id"]').fill('bad');
    await form.getByLabel('A remote URL').check();
    await form.locator('input[name="url"]').fill('');
    await form.locator('[data-action="save"]').click();
    await eventually('the form\'s own check', async () => /Give the server's URL/.test(await error.innerText()));
    await form.locator('input[name="url"]').fill('ftp://example.com/mcp');
    await form.locator('[data-action="save"]').click();
    await eventually('the loader\'s refusal', async () => /must start with http/.test(await error.innerText()));
    await form.locator('input[name="url"]').fill('http://127.0.0.1:9/mcp');
    await form.locator('textarea[name="headers"]').fill('X-Team: ***');
    await form.locator('[data-action="save"]').click();
    await eventually('the refusal about ***', async () => /headers\.X-Team/.test(await error.innerText()));
    await page.screenshot({ path: artifactPath('firstrun-refused.png'), fullPage: true });
    assert.equal(configText(), before);
    await form.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await form.evaluate((d) => d.open), false);
  });

  it('edits a server, keeping its hidden secret', async () => {
    await row('added').getByRole('button', { name: 'Edit added' }).click();
    const form = page.locator('#server-form');
    const env = form.locator('textarea[name="env"]');
    await env.waitFor();
    assert.equal(await env.inputValue(), 'ADDED_API_KEY=***');
    assert.equal(await form.locator('input[name="id"]').getAttribute('readonly'), '');
    await form.locator('textarea[name="args"]').fill('--tools\nadded_tool,second');
    await form.locator('[data-action="save"]').click();
    await eventually('the edit written', async () => hub.configFile().mcpServers.added.args[1] === 'added_tool,second');
    assert.equal(hub.configFile().mcpServers.added.env.ADDED_API_KEY, 'sk-form-0123456789abcdef');
    await row('added').getByRole('button', { name: 'Refresh added' }).click();
    await eventually('added re-listed', async () => /2 tools/.test(await row('added').getByTestId('counts').innerText()));
  });

  it('removes a server after a confirmation', async () => {
    await row('cursorfix').getByRole('button', { name: 'Edit cursorfix' }).click();
    const form = page.locator('#server-form');
    const remove = form.locator('[data-action="remove"]');
    await remove.click();
    assert.match(await remove.innerText(), /Really remove cursorfix\?/);
    assert.ok(hub.configFile().mcpServers.cursorfix, 'the first click removes nothing');
    await remove.click();
    await row('cursorfix').waitFor({ state: 'detached' });
    assert.deepEqual(Object.keys(hub.configFile().mcpServers), ['claudefix', 'added']);
    assert.equal(await page.evaluate(() => window.__noReload), true, 'the page never reloaded');
    assert.deepEqual(pageErrors, []);
    assert.doesNotMatch(hub.log, /sk-form-0123456789abcdef/);
  });
});
