// The dashboard's list of calls waiting for approval (settings.confirmCalls)
// in Chromium (Debian's, via playwright-core) against a real `switchboard
// serve`: a destructive call made through the hub shows up with its server,
// tool and redacted arguments; Allow lets it reach the server, Deny gives the
// client a result saying the user declined, and the activity log says the
// dashboard decided. Run with `node --test tests/ui/pending.test.mjs` after
// building the binaries.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hub, artifactPath, eventually, launchChromium, mcpSession, stdioFixture, tempDir } from './harness.mjs';

describe('the pending calls in Chromium', () => {
  let hub;
  let browser;
  const pageErrors = [];

  before(async () => {
    const dir = tempDir('spec');
    const spec = join(dir, 'spec.json');
    writeFileSync(
      spec,
      JSON.stringify({ tools: [{ name: 'delete_file', annotations: { destructiveHint: true } }] }),
    );
    hub = await Hub.start({
      mcpServers: { files: stdioFixture(['--spec', spec]) },
      settings: { confirmCalls: 'destructive' },
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    const code = await hub?.stop();
    assert.equal(code, 0, `the hub exited with ${code}; its log:\n${hub?.log}`);
  });

  it('lists a waiting call with its arguments, and Allow and Deny decide it', async () => {
    const page = await browser.context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(await hub.signInUrl());
    await page.getByTestId('endpoint').waitFor();
    assert.equal(await page.getByTestId('pending').count(), 0, 'a pending list with nothing waiting');

    const call = await mcpSession(hub.endpoint);
    const allowed = call('files__delete_file', { text: 'bye', apiKey: 'sk-live-abcdef123456' });
    const item = page.getByTestId('pending-call');
    await item.waitFor({ timeout: 20000 });
    const shown = await item.innerText();
    assert.match(shown, /files/);
    assert.match(shown, /delete_file/);
    assert.match(shown, /pending-test/);
    const args = await item.getByTestId('pending-arguments').innerText();
    assert.equal(args, '{"text":"bye","apiKey":"***"}');
    await page.screenshot({ path: artifactPath('dashboard-pending.png'), fullPage: true });
    await item.getByRole('button', { name: 'Allow', exact: true }).click();
    const result = await allowed;
    assert.equal(result.content[0].text, 'bye');
    assert.notEqual(result.isError, true);
    await eventually('the list empties', async () => (await page.getByTestId('pending').count()) === 0);

    const denied = call('files__delete_file', { text: 'again' });
    await item.waitFor({ timeout: 20000 });
    await item.getByRole('button', { name: 'Deny' }).click();
    const refused = await denied;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /declined/);

    const decided = await eventually('the decisions in the activity log', async () => {
      const { calls } = await hub.get('/api/v1/activity');
      const by = calls.filter((c) => c.approval).map((c) => [c.approval.decision, c.approval.by]);
      return by.length === 2 ? by : null;
    });
    assert.deepEqual(decided, [
      ['denied', 'dashboard'],
      ['allowed', 'dashboard'],
    ]);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
