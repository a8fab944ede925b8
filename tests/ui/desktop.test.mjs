// The real desktop app (src-tauri) in a real window. Needs an X display and a
// session bus; scripts/test.sh runs it as
//   xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- node --test tests/ui/desktop.test.mjs
// after `cargo build -p switchboard-app` and `cargo build --workspace --bins`.
// Checks: the app starts its hub on the configured port, the window renders
// the dashboard (a screenshot of the X root window that is not blank and has
// the dashboard's colours), a second launch hands over to the first, and
// SIGTERM leaves no process behind. The tray menu logic is unit-tested in Rust
// (src-tauri/src/tray_model.rs): Xvfb has no tray host.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alive, artifactPath, bin, eventually, stdioFixture, tempDir } from './harness.mjs';

/** The dashboard's accent colour (#1f5fd6, the "Refresh all" button) and the healthy green (#1a7f37). */
const ACCENT = [0x1f, 0x5f, 0xd6];
const GREEN = [0x1a, 0x7f, 0x37];
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

function colourStats(rgb) {
  const colours = new Set();
  const count = (want) => {
    let n = 0;
    for (let i = 0; i + 2 < rgb.length; i += 3) {
      if (rgb[i] === want[0] && rgb[i + 1] === want[1] && rgb[i + 2] === want[2]) n++;
    }
    return n;
  };
  for (let i = 0; i + 2 < rgb.length; i += 3 * 7) colours.add((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
  return { distinct: colours.size, accent: count(ACCENT), green: count(GREEN) };
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
    env = {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      SWITCHBOARD_CONFIG: configPath,
      SWITCHBOARD_LISTEN: `127.0.0.1:${port}`,
      RUST_LOG: 'info',
      // Software rendering: Xvfb has no GPU.
      WEBKIT_DISABLE_DMABUF_RENDERER: '1',
      LIBGL_ALWAYS_SOFTWARE: '1',
    };
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
    // Start alpha, so quitting has a child process to clean up.
    const refreshed = await fetch(`${base}/api/v1/servers/alpha/refresh`, { method: 'POST' });
    assert.equal(refreshed.status, 200);
  });

  it('renders the dashboard in its window', async () => {
    const windows = await eventually(
      'a window named Switchboard',
      () => {
        try {
          return execFileSync('xdotool', ['search', '--onlyvisible', '--name', '^Switchboard'], { encoding: 'utf8' }).trim();
        } catch {
          return false;
        }
      },
      60000,
      250,
    );
    assert.ok(windows.length > 0);
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

  it('a second launch hands over to the running one and exits', async () => {
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
});

function isZombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
