// The real desktop app (src-tauri) in a real window. Needs an X display and a
// session bus; scripts/test.sh runs it as
//   xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- node --test tests/ui/desktop.test.mjs
// after `cargo build -p switchboard-app` and `cargo build --workspace --bins`.
// Checks: the app starts its hub on the configured port, the window renders
// the dashboard (a screenshot of the X root window that is not blank and has
// the dashboard's colours), closing the window keeps the app running, a
// second launch hands over to the first (which shows its window again),
// SIGTERM leaves no process behind, and a busy port is explained in the window. The tray icon
// and its menu are tested in a real tray host by tests/ui/tray.test.mjs.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { alive, appEnv, artifactPath, bin, eventually, stdioFixture, tempDir } from './harness.mjs';

/** The dashboard's accent colour (#1f5fd6, the "Refresh all" button) and the healthy green (#1a7f37). */
const ACCENT = [0x1f, 0x5f, 0xd6];
const GREEN = [0x1a, 0x7f, 0x37];
/** The error banner's background (#fdecea). */
const ERROR_BG = [0xfd, 0xec, 0xea];
const HERE = dirname(fileURLToPath(import.meta.url));
const IM = (tool) => `/usr/bin/${tool}`; // ImageMagick itself, not a wrapper earlier on PATH

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Screenshot of the whole X screen: raw RGB pixels plus the PNG written to artifacts. */
function screenshot(name) {
  const png = artifactPath(name);
  execFileSync(IM('import'), ['-window', 'root', png]);
  const rgb = execFileSync(IM('convert'), [png, '-depth', '8', 'rgb:-'], { maxBuffer: 64 * 1024 * 1024 });
  return { png, rgb };
}

function colourStats(rgb, wanted = ACCENT) {
  const colours = new Set();
  const count = (want) => {
    let n = 0;
    for (let i = 0; i + 2 < rgb.length; i += 3) {
      if (rgb[i] === want[0] && rgb[i + 1] === want[1] && rgb[i + 2] === want[2]) n++;
    }
    return n;
  };
  for (let i = 0; i + 2 < rgb.length; i += 3 * 7) colours.add((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
  return { distinct: colours.size, accent: count(ACCENT), green: count(GREEN), wanted: count(wanted) };
}

/** Every process whose ancestry leads to `root` (via /proc). */
function descendants(root) {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  for (const pid of parent.keys()) {
    let p = parent.get(pid);
    while (p && p !== 1) {
      if (p === root) {
        out.push(pid);
        break;
      }
      p = parent.get(p);
    }
  }
  return out;
}

describe('desktop app under Xvfb', () => {
  let app;
  let log = '';
  let port;
  let base;
  const home = tempDir('app-home');
  const configPath = join(home, 'config.json');
  let env;

  before(async () => {
    assert.ok(process.env.DISPLAY, 'run under xvfb-run (DISPLAY is not set)');
    assert.ok(process.env.DBUS_SESSION_BUS_ADDRESS, 'run under dbus-run-session (no session bus)');
    writeFileSync(
      configPath,
      JSON.stringify({ mcpServers: { alpha: stdioFixture(['--name', 'alpha-server', '--tools', 'search,fetch']) } }, null, 2),
    );
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = appEnv(home, configPath, port);
    const blank = colourStats(screenshot('desktop-before.png').rgb);
    assert.ok(blank.distinct <= 2, `the screen is blank before the app starts (${blank.distinct} colours)`);
    app = spawn(bin('switchboard-app'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    app.stdout.on('data', (c) => {
      log += c.toString();
    });
    app.stderr.on('data', (c) => {
      log += c.toString();
    });
  });

  after(async () => {
    if (app && app.exitCode === null && app.signalCode === null) {
      app.kill('SIGKILL');
      await once(app, 'exit');
    }
    rmSync(home, { recursive: true, force: true });
    writeFileSync(artifactPath('desktop-app.log'), log);
  });

  it('starts its hub on the configured port', async () => {
    const status = await eventually(
      'the hub to answer',
      async () => {
        assert.equal(app.exitCode, null, `the app exited early:\n${log}`);
        const r = await fetch(`${base}/api/v1/status`);
        return r.ok && r.json();
      },
      60000,
    );
    assert.equal(status.endpoint, `${base}/mcp`);
    assert.equal(status.configPath, configPath);
    assert.deepEqual(
      status.servers.map((s) => s.id),
      ['alpha'],
    );
    // The MCP endpoint itself answers an initialize request.
    const init = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desktop-test', version: '0' } },
      }),
    });
    assert.equal(init.status, 200);
    assert.match(await init.text(), /"serverInfo"/);
    // Changes need the control token, which the app keeps where the CLI finds it.
    const url = `${base}/api/v1/servers/alpha/refresh`;
    assert.equal((await fetch(url, { method: 'POST' })).status, 401);
    const token = readFileSync(join(home, '.cache', 'switchboard', 'control-token'), 'utf8').trim();
    // Start alpha, so quitting has a child process to clean up.
    const refreshed = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal(refreshed.status, 200);
  });

  it('renders the dashboard in its window', async () => {
    await eventually('a window named Switchboard', () => visibleWindows().length > 0, 60000, 250);
    // The window opened the dashboard through a one-time sign-in link, so its page may change servers.
    await eventually('the window to sign in to the dashboard', () => /dashboard signed in/.test(log), 60000, 250);
    const stats = await eventually(
      'the dashboard to paint (accent and healthy colours on screen)',
      () => {
        const s = colourStats(screenshot('desktop.png').rgb);
        return s.distinct > 30 && s.accent > 200 && s.green > 50 && s;
      },
      60000,
      500,
    );
    assert.ok(stats.distinct > 30, JSON.stringify(stats));
  });

  it('closing the window keeps the app running in the tray', async () => {
    const ids = visibleWindows();
    assert.ok(ids.length > 0, 'the window is there');
    execFileSync('/usr/bin/python3', [join(HERE, 'wm_close.py'), ...ids]);
    try {
      await eventually('the window to close', () => visibleWindows().length === 0, 20000, 250);
    } catch (err) {
      // Which windows are left, whose they are, and whether the app saw the close.
      const left = visibleWindows().map((id) => `${id} ${windowInfo(id)}`);
      throw new Error(`${err.message}\nasked to close: ${ids.join(' ')} (app pid ${app.pid})\nleft: ${left.join('; ')}\n${log}`);
    }
    assert.equal(app.exitCode, null, `the app quit with its window:\n${log}`);
    assert.equal((await fetch(`${base}/api/v1/status`)).status, 200, 'the hub still serves');
  });

  it('a second launch hands over to the running one, which shows its window again', async () => {
    const second = spawn(bin('switchboard-app'), [], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let secondLog = '';
    second.stderr.on('data', (c) => {
      secondLog += c.toString();
    });
    const timer = setTimeout(() => second.kill('SIGKILL'), 30000);
    const [code, signal] = await once(second, 'exit');
    clearTimeout(timer);
    assert.equal(signal, null, `the second instance did not exit by itself:\n${secondLog}`);
    assert.equal(code, 0, secondLog);
    assert.equal(app.exitCode, null, 'the first instance keeps running');
    await eventually('the first instance to hear of it', () => /launched again: showing the dashboard/.test(log));
    await eventually('the window to be back', () => visibleWindows().length > 0, 30000, 250);
    assert.equal((await fetch(`${base}/api/v1/status`)).status, 200);
  });

  it('SIGTERM stops the hub and leaves no process behind', async () => {
    const alpha = (await (await fetch(`${base}/api/v1/status`)).json()).servers[0];
    assert.ok(alpha.pid, 'alpha runs as a child');
    const family = descendants(app.pid);
    assert.ok(family.includes(alpha.pid), `alpha ${alpha.pid} descends from the app (${family})`);
    app.kill('SIGTERM');
    const timer = setTimeout(() => app.kill('SIGKILL'), 30000);
    const [code, signal] = await once(app, 'exit');
    clearTimeout(timer);
    assert.equal(signal, null, `the app did not exit on SIGTERM by itself:\n${log}`);
    assert.equal(code, 0, log);
    await eventually('every child to be gone', () => family.every((pid) => !alive(pid) || isZombie(pid)), 10000);
    await assert.rejects(fetch(`${base}/api/v1/status`), 'the port is closed');
    assert.match(log, /hub stopped/);
    assert.doesNotMatch(log, /panicked/);
  });

  it('when its port is taken, the window says why and the app keeps running', async () => {
    const blocker = createServer();
    blocker.listen(port, '127.0.0.1');
    await once(blocker, 'listening');
    const second = launch(env);
    try {
      await eventually('the explanation in the log', () => /Is another Switchboard/.test(second.log), 60000);
      await eventually('a window named Switchboard', () => visibleWindows().length > 0, 60000, 250);
      const stats = await eventually(
        'the error banner to paint',
        () => {
          const s = colourStats(screenshot('desktop-port-taken.png').rgb, ERROR_BG);
          return s.wanted > 2000 && s;
        },
        60000,
        500,
      );
      assert.ok(stats.wanted > 2000);
      assert.equal(second.exitCode, null, `the app gave up:\n${second.log}`);
    } finally {
      const [code, signal] = await terminate(second);
      blocker.close();
      assert.equal(signal, null, second.log);
      assert.equal(code, 0, second.log);
    }
  });
});

/** Starts the app with the test's environment; its output collects in `.log`. */
function launch(env) {
  const child = spawn(bin('switchboard-app'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.log = '';
  const collect = (c) => {
    child.log += c.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return child;
}

/** SIGTERM and wait; returns [code, signal]. */
async function terminate(child) {
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
  const result = await once(child, 'exit');
  clearTimeout(timer);
  return result;
}

/** Visible X windows whose title starts with "Switchboard". */
function visibleWindows() {
  try {
    return execFileSync('xdotool', ['search', '--onlyvisible', '--name', '^Switchboard'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // xdotool exits 1 when nothing matches
  }
}

/** A window's name and owner's pid, for a failure message. */
function windowInfo(id) {
  const ask = (what) => {
    try {
      return execFileSync('xdotool', [what, id], { encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  return `'${ask('getwindowname')}' pid ${ask('getwindowpid')}`;
}

function isZombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
