// The dashboard's Activity view in Chromium (Debian's, via playwright-core)
// against a real `switchboard serve`: calls made through the hub show up as
// rows (tool, server, outcome, the error of a failed call) without a reload,
// and a page opened without signing in says how to see them instead.
// Run with `node --test tests/ui/activity.test.mjs` after building the binaries.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, eventually, launchChromium, mcpSession, stdioFixture } from './harness.mjs';

describe('the Activity view in Chromium', () => {
  let hub;
  let browser;
  const pageErrors = [];

  before(async () => {
    hub = await Hub.start({ mcpServers: { alpha: stdioFixture(['--tools', 'echo']) } });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('shows each call as it happens, failed ones with their error', async () => {
    const page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(await hub.signInUrl());
    await page.getByTestId('activity-empty').waitFor();

    const call = await mcpSession(hub.endpoint, 'activity-test');
    await call('alpha__echo', { text: 'hello' });
    await call('alpha__missing', {});

    const rows = page.locator('[data-testid="activity"] tbody tr');
    await eventually('two rows in the Activity view', async () => (await rows.count()) === 2, 20000);
    // Newest first.
    const failed = rows.nth(0);
    assert.match(await failed.innerText(), /alpha__missing/);
    assert.equal(await failed.locator('.pill').innerText(), 'error');
    assert.match(await failed.locator('.error-text').innerText(), /unknown tool 'alpha__missing'/);
    const ok = rows.nth(1);
    const cells = await ok.locator('td').allInnerTexts();
    assert.deepEqual(cells.slice(1, 4), ['activity-test', 'alpha', 'alpha__echo']);
    assert.equal(cells[5].trim(), 'ok');
    await page.screenshot({ path: artifactPath('dashboard-activity.png'), fullPage: true });
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  it('a page that is not signed in says how to see the activity', async () => {
    // Forget the session the first test signed in with.
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${hub.base}/`);
    const hint = page.getByTestId('activity-error');
    await hint.waitFor();
    assert.match(await hint.innerText(), /switchboard dashboard/);
    assert.equal(await page.locator('[data-testid="activity"] tbody tr').count(), 0);
    await page.close();
  });
});

describe('a code mode run in the Activity view', () => {
  let hub;
  let browser;

  before(async () => {
    hub = await Hub.start({
      mcpServers: { alpha: stdioFixture(['--tools', 'echo,shout']) },
      settings: { toolMode: 'code' },
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('shows the calls of a run under it', async () => {
    const page = await browser.context.newPage();
    await page.goto(await hub.signInUrl());
    await page.getByTestId('activity-empty').waitFor();
    const call = await mcpSession(hub.endpoint, 'code-test');
    await call('switchboard__run_code', {
      code: 'const a = await tools.alpha.echo({text: "x"});\nconst b = await tools.alpha.shout({text: a});\nreturn b;',
    });
    const run = page.getByTestId('code-run');
    await run.waitFor({ timeout: 20000 });
    assert.match(await run.innerText(), /switchboard__run_code \(2 calls\)/);
    const rows = page.locator('[data-testid="activity"] tbody tr');
    const texts = await rows.allInnerTexts();
    // The run, then its two calls in the order the script made them.
    assert.match(texts[0], /switchboard__run_code/);
    assert.match(texts[1], /alpha__echo/);
    assert.match(texts[2], /alpha__shout/);
    assert.equal(await page.getByTestId('inner-call').count(), 2);
    await page.screenshot({ path: artifactPath('dashboard-activity-code-run.png'), fullPage: true });
    await page.close();
  });
});
