// The dashboard in a real browser (Debian's Chromium via playwright-core)
// against a real `switchboard serve` with fixture servers. Run with
//   node --test tests/ui/browser.test.mjs
// after `cargo build --workspace --bins` (SWITCHBOARD_BIN_DIR or
// CARGO_TARGET_DIR tell where the binaries are). Screenshots go to
// tests/artifacts/.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, bin, eventually, launchChromium, spawnUntil, stdioFixture, tempDir } from './harness.mjs';

describe('dashboard in Chromium', () => {
  let hub;
  let remote;
  let browser;
  let page;
  const pageErrors = [];
  const controlDir = tempDir('control');
  const betaControl = join(controlDir, 'beta.json');

  /** The row of one server. */
  const row = (id) => page.locator(`tbody.server[data-server="${id}"]`);
  const rowText = (id, testid) => row(id).locator(`[data-testid="${testid}"]`).first().innerText();

  before(async () => {
    // A Streamable HTTP server, as a remote one would be.
    const started = await spawnUntil(
      bin('switchboard-fixture'),
      ['--http', '127.0.0.1:0', '--name', 'docs-search', '--tools', 'search_docs,get_page,list_spaces'],
      /listening on (http:\/\/\S+\/mcp)/,
      'the HTTP fixture',
    );
    remote = started.child;
    const remoteUrl = started.match[1];
    hub = await Hub.start({
      mcpServers: {
        docs: { url: remoteUrl },
        alpha: stdioFixture(['--name', 'alpha-server', '--tools', 'search,fetch']),
        beta: stdioFixture(['--tools', 'a', '--control', betaControl]),
        crashy: stdioFixture(['--tools', 'x', '--exit-after-ms', '1500']),
        broken: stdioFixture(['--exit-at-start', '3']),
      },
    });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // Signed in the way `switchboard dashboard` does it: a one-time link that
    // leaves a session cookie and lands on the dashboard.
    await page.goto(await hub.signInUrl());
    assert.equal(page.url(), `${hub.base}/`);
    // A marker that a reload would wipe: every later check runs without one.
    await page.evaluate(() => {
      window.__noReload = true;
    });
  });

  after(async () => {
    await browser?.close();
    remote?.kill('SIGTERM');
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('shows a row per server, the endpoint and the connect panel', async () => {
    await page.locator('tbody.server').nth(4).waitFor();
    const ids = await page.locator('tbody.server').evaluateAll((els) => els.map((e) => e.dataset.server));
    assert.deepEqual(ids, ['docs', 'alpha', 'beta', 'crashy', 'broken']);
    assert.equal(await page.getByTestId('endpoint').innerText(), hub.endpoint);
    assert.match(await page.getByTestId('totals').innerText(), /5 servers/);
    // The endpoints: `/mcp`, with its mode and tool count.
    assert.match(await page.getByTestId('endpoints').innerText(), /\/mcp\s+All servers\s+all tools · \d+ tools/);
    assert.match(await page.getByTestId('snippet-text').innerText(), new RegExp(hub.endpoint.replace(/[.]/g, '\\.')));
    await page.getByRole('tab', { name: 'Claude Desktop' }).click();
    // The bridge is told this hub's endpoint (not the default port).
    assert.match(await page.getByTestId('snippet-text').innerText(), /"args": \[\s*"stdio",\s*"--url",\s*"http:\/\/127\.0\.0\.1:\d+\/mcp"\s*\]/);
    // Every client of the table has its own tab and snippet, e.g. Zed's `context_servers`.
    assert.ok((await page.getByRole('tab').count()) >= 27);
    await page.getByRole('tab', { name: 'Zed' }).click();
    assert.match(await page.getByTestId('snippet-text').innerText(), /"context_servers"/);
  });

  it('"Refresh all" lists every server', async () => {
    await page.getByRole('button', { name: 'Refresh all' }).click();
    for (const [id, counts] of [
      ['alpha', '2 tools'],
      ['beta', '1 tool'],
      ['docs', '3 tools'],
    ]) {
      await eventually(`${id} listed in the page`, async () => (await rowText(id, 'counts')) === counts);
    }
    assert.equal(await row('docs').locator('.c-transport').innerText(), 'http');
    // Counts may come from an earlier listing; the refresh itself shows in the freshness line.
    await eventually('alpha to say it was refreshed by hand', async () =>
      /^Listed (just now|\d+ s ago) by a manual refresh · fresh for/.test(await rowText('alpha', 'staleness')),
    );
    assert.match(await rowText('alpha', 'health'), /Healthy/);
  });

  it('toggling a server disables it in the hub and in the config file, by keyboard too', async () => {
    const toggle = row('alpha').getByRole('switch', { name: 'alpha enabled' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');
    await toggle.click();
    await eventually('the switch to turn off', async () => (await toggle.getAttribute('aria-checked')) === 'false');
    const s = await hub.server('alpha');
    assert.equal(s.enabled, false);
    assert.equal(s.state, 'disabled');
    assert.equal(hub.configFile().mcpServers.alpha.enabled, false);
    assert.equal(await rowText('alpha', 'state'), 'Disabled');

    // Back on with the keyboard: focus the switch and press Space.
    await eventually('the switch to be usable again', () => toggle.isEnabled());
    await toggle.focus();
    await page.keyboard.press('Space');
    await eventually('the switch to turn on', async () => (await toggle.getAttribute('aria-checked')) === 'true');
    assert.equal((await hub.server('alpha')).enabled, true);
    assert.notEqual(hub.configFile().mcpServers.alpha.enabled, false);
  });

  it('refreshing a row re-lists the server', async () => {
    await hub.post('/api/v1/servers/alpha/refresh');
    const before = (await hub.server('alpha')).listedAt;
    assert.ok(before, 'alpha was listed');
    await row('alpha').getByRole('button', { name: 'Refresh alpha' }).click();
    const afterListed = await eventually('listedAt to move', async () => {
      const s = await hub.server('alpha');
      return s.listedAt !== before && s.listedAt;
    });
    assert.ok(Date.parse(afterListed) > Date.parse(before));
    await eventually('the row to say so', async () => /by a manual refresh/.test(await rowText('alpha', 'staleness')));
  });

  it('a server that changes its tools shows the change live, without a reload', async () => {
    writeFileSync(betaControl, JSON.stringify({ tools: [{ name: 'a' }, { name: 'b2' }], notify: true }));
    await eventually('beta to list 2 tools', async () => (await rowText('beta', 'counts')) === '2 tools');
    const snapshot = await hub.server('beta');
    assert.ok('lastChange' in snapshot, 'the hub sends lastChange');
    const change = row('beta').getByTestId('last-change');
    await eventually('the last change line', async () => /\+b2/.test(await change.innerText()));
    assert.match(await change.innerText(), /Changed\s+Last change (just now|\d+ s ago) \(found after the server announced a change\): \+b2/);
    assert.match((await row('beta').getAttribute('class')) ?? '', /\brecent\b/, 'the row is marked as recently changed');
    assert.equal(await page.evaluate(() => window.__noReload), true, 'the page was not reloaded');
  });

  it('a crashed server shows its error in words, and its logs', async () => {
    await eventually('crashy to fail', async () => (await hub.server('crashy')).state === 'failed', 20000);
    await eventually('the error in the row', async () => (await row('crashy').getByTestId('error').count()) > 0);
    const error = await rowText('crashy', 'error');
    assert.match(error, /crashy/);
    assert.match(error, /exiting after 1500 ms with code 4/);
    assert.doesNotMatch(error, /INFO serve_inner/, 'stderr noise stays in the logs');
    assert.match(await rowText('broken', 'health'), /Down/);
    assert.match(await rowText('broken', 'error'), /code 3/);

    await row('crashy').getByRole('button', { name: 'Show logs of crashy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Logs: crashy' });
    await dialog.waitFor();
    await eventually('stderr in the logs', async () => /code 4/.test(await dialog.getByTestId('log-stderr').innerText()));
    await page.screenshot({ path: artifactPath('dashboard-logs.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Show logs of crashy',
      'focus returns to the button that opened the logs',
    );
  });

  it('takes screenshots in light and dark mode', async () => {
    // Messages are dismissible (and the screenshot is nicer without them).
    for (const dismiss of await page.getByRole('button', { name: 'Dismiss this message' }).all()) await dismiss.click();
    await page.getByTestId('notice').waitFor({ state: 'detached' });
    await page.screenshot({ path: artifactPath('dashboard.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(15, 18, 22)', 'dark colours apply');
    await page.screenshot({ path: artifactPath('dashboard-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a broken config file is reported with file, line and column, and fixing it clears it', async () => {
    const good = readFileSync(hub.configPath, 'utf8');
    writeFileSync(hub.configPath, '{\n  "mcpServers": {\n    "alpha": { "command": 42 }\n  }\n}\n');
    const banner = page.getByTestId('config-error');
    await banner.waitFor({ timeout: 20000 });
    const text = await banner.innerText();
    assert.match(text, /keeps running the last good configuration/);
    assert.match(text, new RegExp(`${hub.configPath.replace(/[.]/g, '\\.')}:3:\\d+ \\(line 3, column \\d+\\): invalid type`), text);
    await page.screenshot({ path: artifactPath('dashboard-config-error.png'), fullPage: true });
    writeFileSync(hub.configPath, good);
    await banner.waitFor({ state: 'detached', timeout: 20000 });
  });

  it('a failing action is explained in words', async () => {
    await row('broken').getByRole('button', { name: 'Refresh broken' }).click();
    const notice = page.getByTestId('notice');
    await eventually('the failure notice', async () => /^Could not refresh broken: /.test(await notice.innerText()));
    assert.match(await notice.innerText(), /broken/);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  });
});

describe('OAuth log in and log out from the dashboard', () => {
  let auth;
  let hub;
  let browser;
  let page;
  const row = () => page.locator('tbody.server[data-server="secure"]');

  before(async () => {
    // A fake authorization server and the MCP server it protects; it approves every login.
    const started = await spawnUntil(
      bin('switchboard-auth-fixture'),
      ['--tools', 'echo'],
      /listening on (http:\/\/\S+\/mcp)/,
      'the auth fixture',
    );
    auth = started.child;
    const url = started.match[1];
    hub = await Hub.start({ mcpServers: { secure: { url } } }, { env: { SWITCHBOARD_TOKEN_STORE: 'memory' } });
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(await hub.signInUrl());
  });

  after(async () => {
    await browser?.close();
    auth?.kill('SIGTERM');
    await hub?.stop();
  });

  it('a server that needs a login offers it, and the login in the browser completes it', async () => {
    await hub.post('/api/v1/refresh');
    const login = row().getByRole('button', { name: 'Log in to secure' });
    await login.waitFor({ timeout: 20000 });
    assert.equal(await row().getByTestId('state').innerText(), 'Login needed');
    // The page opens the authorization URL in a new tab; the fixture approves and
    // redirects to the hub's loopback callback.
    const [tab] = await Promise.all([browser.context.waitForEvent('page'), login.click()]);
    await tab.waitForLoadState();
    await eventually('the hub to hold tokens and list the tools', async () => {
      const server = await hub.server('secure');
      return server.auth?.loggedIn === true && server.state === 'ready' && server.toolCount === 1;
    });
    await row().getByRole('button', { name: 'Log out of secure' }).waitFor();
    assert.match(await page.getByTestId('notice').innerText(), /Log-in to secure started/);
    // The page renders each snapshot it is sent: one may show the server
    // running before the one with its listing arrives.
    await eventually('the row to show it running with its tool', async () =>
      (await row().getByTestId('state').innerText()) === 'Running' &&
      (await row().getByTestId('counts').innerText()) === '1 tool');
    assert.equal(await row().getByTestId('counts').innerText(), '1 tool');
    await page.screenshot({ path: artifactPath('dashboard-oauth.png'), fullPage: true });
  });

  it('log out forgets the tokens', async () => {
    await row().getByRole('button', { name: 'Log out of secure' }).click();
    await eventually('the tokens to be gone', async () => (await hub.server('secure')).auth?.loggedIn === false);
    await row().getByRole('button', { name: 'Log out of secure' }).waitFor({ state: 'detached' });
  });
});

describe('only the owner\'s page changes the hub (access control)', () => {
  let hub;
  let browser;
  let attacker;
  let attackerUrl;
  const toggleOf = (page) =>
    page.locator('tbody.server[data-server="alpha"]').getByRole('switch', { name: 'alpha enabled' });

  /** What a page on another loopback port tries against the hub's control API. */
  const attackPage = (base) => `<!doctype html><title>another app</title>
<form id="f" method="POST" action="${base}/api/v1/servers/alpha/disable" target="sink" enctype="text/plain">
  <input name="x" value="y"></form>
<iframe name="sink"></iframe>
<script>
(async () => {
  const target = '${base}/api/v1/servers/alpha/disable';
  const results = [];
  const attempts = [
    { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: 'x' },
    { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: 'x' },
    { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: '{}' },
  ];
  for (const options of attempts) {
    try {
      const r = await fetch(target, options);
      results.push(r.type + ':' + r.status);
    } catch (err) {
      results.push('failed');
    }
  }
  try {
    const r = await fetch('${base}/api/v1/dashboard', { method: 'POST', credentials: 'include' });
    results.push('link:' + r.status + ':' + (await r.text()));
  } catch (err) {
    results.push('link failed');
  }
  window.__results = results;
  document.getElementById('f').submit();
})();
</script>`;

  before(async () => {
    hub = await Hub.start({ mcpServers: { alpha: stdioFixture(['--tools', 'x']) } });
    // Another web app on another loopback port (same site as the hub for cookies).
    attacker = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(attackPage(hub.base));
    });
    await new Promise((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${attacker.address().port}/`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve()));
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('the dashboard opened without the sign-in link shows status but cannot change servers', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${hub.base}/`);
    const toggle = toggleOf(page);
    await toggle.waitFor();
    await toggle.click();
    const notice = page.getByTestId('notice');
    await eventually('the refusal in words', async () => /switchboard dashboard/.test(await notice.innerText()));
    assert.match(await notice.innerText(), /^Could not disable alpha: /);
    assert.equal((await hub.server('alpha')).enabled, true);
    await page.close();
  });

  it('a page on another loopback port cannot change anything, even with the owner signed in', async () => {
    const owner = await browser.context.newPage();
    await owner.goto(await hub.signInUrl());
    await toggleOf(owner).waitFor();
    const configBefore = readFileSync(hub.configPath, 'utf8');

    const page = await browser.context.newPage();
    await page.goto(attackerUrl);
    const results = await eventually('the page to finish its attempts', () => page.evaluate(() => window.__results));
    // no-cors: the request went out, the answer is hidden; the others die in CORS.
    assert.equal(results[0], 'opaque:0', JSON.stringify(results));
    assert.deepEqual(results.slice(1, 3), ['failed', 'failed'], JSON.stringify(results));
    assert.equal(results[3], 'link failed', 'the page cannot read a sign-in link');
    // The form POST reached the hub and was refused for its Origin.
    const sink = page.frame({ name: 'sink' });
    await eventually('the form answer in the frame', async () => /is not allowed/.test(await sink.content()));
    assert.match(await sink.content(), new RegExp(`Origin .*127\\.0\\.0\\.1:${attacker.address().port}`));

    assert.equal((await hub.server('alpha')).enabled, true, 'alpha is still enabled');
    assert.equal(readFileSync(hub.configPath, 'utf8'), configBefore, 'the config file is unchanged');

    // The owner's page still toggles it.
    const toggle = toggleOf(owner);
    await toggle.click();
    await eventually('the switch to turn off', async () => (await toggle.getAttribute('aria-checked')) === 'false');
    assert.equal((await hub.server('alpha')).enabled, false);
    await toggle.click();
    await eventually('the switch to turn on', async () => (await toggle.getAttribute('aria-checked')) === 'true');
    assert.equal((await hub.server('alpha')).enabled, true);
  });
});
