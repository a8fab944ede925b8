// The desktop app's tray icon and menu, for real: a tray host under Xvfb, the
// icon found in it, its menu opened and clicked with xdotool, the effects
// checked through the status API and the config file. scripts/test.sh runs it as
//   xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- node --test tests/ui/tray.test.mjs
// after `cargo build -p switchboard-app` and the fixture binaries.
//
// The tray host is trayer, an XEmbed system tray. With no StatusNotifier
// watcher on the session bus, libayatana-appindicator (Tauri's tray on Linux)
// falls back to an XEmbed icon, which trayer docks as a child window. The menu
// is a GTK popup: the test reads its lines with OCR (tesseract, on a 3x
// enlarged screenshot) to know where each item is, so a line added to the menu
// later does not shift the clicks. Screenshots of the open menu go to
// tests/artifacts/tray-menu*.png.
//
// Calls waiting for approval: the notification daemon is dunst, on the test's
// session bus. The test sees the app's notification there (dbus-monitor) and
// answers it as a person would, through dunst's context menu (`dunstctl
// context` runs the configured dmenu, a script here that picks the Allow or
// Deny line), so dunst itself sends the click back (ActionInvoked).

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alive, appEnv, artifactPath, bin, eventually, mcpSession, stdioFixture, tempDir } from './harness.mjs';

const IM = (tool) => `/usr/bin/${tool}`; // ImageMagick itself, not a wrapper earlier on PATH
/** GTK's (Adwaita) highlight of the menu item under the pointer. */
const HIGHLIGHT = [0x35, 0x84, 0xe4];
/** The app icon's blue (icons/tray-*.png). */
const ICON_BLUE = [0x1f, 0x5f, 0xd6];
/** OCR works on the menu enlarged this many times. */
const SCALE = 3;
/** The menu's check-box column, left of the item labels (pixels). */
const SKIP_LEFT = 26;

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** xdotool's window ids for a search; [] when nothing matches (xdotool exits 1). */
function search(...args) {
  try {
    return execFileSync('xdotool', ['search', ...args], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** {x, y, width, height} of a window, in screen coordinates. */
function geometry(id) {
  const out = execFileSync('xdotool', ['getwindowgeometry', '--shell', id], { encoding: 'utf8' });
  const field = (name) => Number(out.match(new RegExp(`^${name}=(-?\\d+)$`, 'm'))?.[1]);
  return { id, x: field('X'), y: field('Y'), width: field('WIDTH'), height: field('HEIGHT') };
}

/** A rectangle of the screen as raw RGB pixels, and the PNG it came from. */
function grab(rect, name) {
  const png = artifactPath(name);
  execFileSync(IM('import'), ['-window', 'root', '-crop', `${rect.width}x${rect.height}+${rect.x}+${rect.y}`, '+repage', png]);
  const rgb = execFileSync(IM('convert'), [png, '-depth', '8', 'rgb:-'], { maxBuffer: 64 * 1024 * 1024 });
  return { png, rgb };
}

function count(rgb, want) {
  let n = 0;
  for (let i = 0; i + 2 < rgb.length; i += 3) {
    if (rgb[i] === want[0] && rgb[i + 1] === want[1] && rgb[i + 2] === want[2]) n++;
  }
  return n;
}

function distinct(rgb) {
  const colours = new Set();
  for (let i = 0; i + 2 < rgb.length; i += 3) colours.add((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
  return colours.size;
}

/**
 * The text lines of a screenshot of the menu: [{text, x, y}] with x, y the
 * line's centre in screen coordinates (the PNG's origin is at `origin`).
 */
function ocrLines(png, origin, width, height) {
  const big = `${png}.ocr.png`;
  // Without the check-box column and the borders, which OCR reads as letters.
  const crop = `${width - SKIP_LEFT - 4}x${height - 4}+${SKIP_LEFT}+2`;
  execFileSync(IM('convert'), [png, '-crop', crop, '+repage', '-resize', `${SCALE * 100}%`, '-colorspace', 'Gray', big]);
  const tsv = execFileSync('tesseract', [big, '-', '--psm', '6', 'tsv'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  rmSync(big, { force: true });
  const lines = new Map();
  for (const row of tsv.split('\n').slice(1)) {
    const f = row.split('\t');
    if (f.length < 12 || f[11].trim() === '' || Number(f[10]) < 50) continue;
    const key = `${f[2]}.${f[3]}.${f[4]}`;
    const [left, top, width, height] = f.slice(6, 10).map(Number);
    const line = lines.get(key) ?? { words: [], left, right: 0, top, bottom: 0 };
    line.words.push(f[11].trim());
    line.left = Math.min(line.left, left);
    line.right = Math.max(line.right, left + width);
    line.top = Math.min(line.top, top);
    line.bottom = Math.max(line.bottom, top + height);
    lines.set(key, line);
  }
  return [...lines.values()].map((l) => ({
    text: l.words.join(' '),
    x: origin.x + SKIP_LEFT + Math.round((l.left + l.right) / 2 / SCALE),
    y: origin.y + 2 + Math.round((l.top + l.bottom) / 2 / SCALE),
  }));
}

/** A process that exited and waits for its parent to reap it. */
function zombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('the tray under Xvfb, in a real tray host', () => {
  const home = tempDir('tray-home');
  const configPath = join(home, 'config.json');
  const filesSpec = join(home, 'files-spec.json');
  const dunstrc = join(home, 'dunstrc');
  const pickScript = join(home, 'pick-action.sh');
  const choiceFile = join(home, 'choice');
  let monitor;
  const procs = [];
  let app;
  let log = '';
  let base;

  /** Starts a process that the test cleans up; its output collects in `.log`. */
  function start(command, args, env) {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.log = '';
    const collect = (c) => {
      child.log += c.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    procs.push(child);
    return child;
  }

  const status = async () => {
    // The hub may close an idle keep-alive connection just as fetch reuses it: one retry.
    const get = () => fetch(`${base}/api/v1/status`);
    const r = await get().catch(get);
    assert.equal(r.status, 200);
    return r.json();
  };
  const server = async (id) => (await status()).servers.find((s) => s.id === id);

  /** The control token the app's hub keeps in its state directory, wherever that is under `home`. */
  function controlToken() {
    const find = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          const found = find(path);
          if (found) return found;
        } else if (entry.name === 'control-token') return path;
      }
      return null;
    };
    const path = find(home);
    assert.ok(path, 'the control token under the app home');
    return readFileSync(path, 'utf8').trim();
  }
  const api = async (method, path) => {
    const r = await fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${controlToken()}` } });
    assert.equal(r.status, 200, `${method} ${path}`);
    return r.json();
  };

  /** The tray icon's window (docked in trayer). */
  function icon() {
    const ids = search('--classname', '^tray-icon tray app');
    return ids.length > 0 && geometry(ids[0]);
  }

  /** The app's open popup menu: a visible window of the app's class bigger than a placeholder. */
  function menuWindow() {
    const menus = search('--onlyvisible', '--classname', '^switchboard-app$')
      .map(geometry)
      .filter((g) => g.width > 100 && g.height > 100);
    return menus.length === 1 && menus[0];
  }

  /** Clicks the icon; waits for the menu and for its lines to be readable. */
  async function openMenu(shot) {
    const where = await eventually('the tray icon', icon, 30000, 250);
    if (menuWindow()) await closeMenu(); // left open by a failed step

    execFileSync('xdotool', ['mousemove', '--sync', String(where.x + where.width / 2), String(where.y + where.height / 2)]);
    // GTK's tray icon now and then drops a click that comes right after its menu closed:
    // click again after a while, a bounded number of times.
    let menu = false;
    for (let attempt = 1; !menu && attempt <= 4; attempt++) {
      execFileSync('xdotool', ['click', '1']);
      menu = await eventually('the menu to open', menuWindow, 5000, 100).catch((err) => {
        if (attempt === 4) throw err;
        return false;
      });
    }
    return eventually(
      'the menu to paint its items',
      () => {
        const { png, rgb } = grab(menu, shot);
        const lines = ocrLines(png, menu, menu.width, menu.height);
        return lines.some((l) => /Quit/.test(l.text)) && { ...menu, lines, png, rgb };
      },
      20000,
      250,
    );
  }

  /** Clicks the menu line matching `pattern`; the menu closes. */
  async function clickLine(menu, pattern) {
    const line = menu.lines.find((l) => pattern.test(l.text));
    assert.ok(line, `a menu line matching ${pattern} in ${JSON.stringify(menu.lines.map((l) => l.text))}`);
    execFileSync('xdotool', ['mousemove', '--sync', String(line.x), String(line.y)]);
    execFileSync('xdotool', ['click', '1']);
    await eventually('the menu to close', () => !menuWindow(), 20000, 100);
  }

  async function closeMenu() {
    execFileSync('xdotool', ['key', 'Escape']);
    await eventually('the menu to close', () => !menuWindow(), 20000, 100);
  }

  before(async () => {
    assert.ok(process.env.DISPLAY, 'run under xvfb-run (DISPLAY is not set)');
    assert.ok(process.env.DBUS_SESSION_BUS_ADDRESS, 'run under dbus-run-session (no session bus)');
    assert.deepEqual(search('--classname', '^tray-icon tray app'), [], 'no tray icon before the app starts');
    writeFileSync(filesSpec, JSON.stringify({ tools: [{ name: 'delete_file', annotations: { destructiveHint: true } }] }));
    // The notification daemon; its context menu's "dmenu" picks the line naming `choice`.
    writeFileSync(
      pickScript,
      `#!/bin/sh\ntee -a '${join(home, 'menu-lines.txt')}' | grep -m1 -F "$(cat '${choiceFile}')"\n`,
      { mode: 0o755 },
    );
    writeFileSync(dunstrc, `[global]\n    dmenu = ${pickScript}\n`);
    monitor = start('dbus-monitor', ['--session', "interface='org.freedesktop.Notifications'"], process.env);
    const dunst = start('dunst', ['-conf', dunstrc], process.env);
    await eventually('the notification daemon on the session bus', () => {
      assert.equal(dunst.exitCode, null, `dunst exited:\n${dunst.log}`);
      try {
        execFileSync('dunstctl', ['count', 'displayed'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    });
    writeFileSync(
      configPath,
      JSON.stringify(
        {
          mcpServers: {
            alpha: stdioFixture(['--name', 'alpha-server', '--tools', 'search,fetch']),
            beta: stdioFixture(['--name', 'beta-server', '--tools', 'lookup']),
            files: stdioFixture(['--name', 'files-server', '--spec', filesSpec]),
          },
          settings: { confirmCalls: 'destructive' },
        },
        null,
        2,
      ),
    );
    mkdirSync(join(home, '.config'), { recursive: true }); // as in any desktop session
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The tray host: a 32-pixel panel at the top right of the screen.
    const trayer = start('trayer', ['--edge', 'top', '--align', 'right', '--widthtype', 'request', '--height', '32', '--SetDockType', 'true', '--transparent', 'false'], process.env);
    await eventually('the tray host', () => {
      assert.equal(trayer.exitCode, null, `trayer exited:\n${trayer.log}`);
      return search('--classname', '^panel$').length > 0;
    });
    app = start(bin('switchboard-app'), ['--hidden'], appEnv(home, configPath, port));
    await eventually(
      'the hub to answer',
      async () => {
        assert.equal(app.exitCode, null, `the app exited early:\n${app.log}`);
        return (await fetch(`${base}/api/v1/status`)).ok;
      },
      60000,
      250,
    );
  });

  after(async () => {
    for (const child of procs.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
        await once(child, 'exit');
        clearTimeout(timer);
      }
    }
    if (app) writeFileSync(artifactPath('tray-app.log'), app.log);
    rmSync(home, { recursive: true, force: true });
  });

  it('docks its icon in the tray host', async () => {
    const where = await eventually('the tray icon', icon, 30000, 250);
    const panel = geometry(search('--classname', '^panel$')[0]);
    assert.ok(where.width >= 16 && where.height >= 16, `icon size ${JSON.stringify(where)}`);
    assert.ok(
      where.x >= panel.x && where.y >= panel.y && where.x + where.width <= panel.x + panel.width && where.y + where.height <= panel.y + panel.height,
      `the icon ${JSON.stringify(where)} is inside the tray ${JSON.stringify(panel)}`,
    );
    const pixels = await eventually('the icon to paint', () => {
      const { rgb } = grab(where, 'tray-icon.png');
      return count(rgb, ICON_BLUE) > 20 && rgb;
    });
    assert.ok(distinct(pixels) > 5, 'the icon is drawn, not a blank square');
    assert.doesNotMatch(app.log, /no tray icon/);
  });

  it('a click on the icon opens the menu: endpoint, servers, Refresh all, Quit', async () => {
    const menu = await openMenu('tray-menu.png');
    const texts = menu.lines.map((l) => l.text);
    const find = (pattern) => texts.find((t) => pattern.test(t));
    assert.ok(find(new RegExp(`Copy ${base.replace(/\./g, '\\.')}/mcp`)), `the endpoint line in ${JSON.stringify(texts)}`);
    assert.ok(find(/\balpha\b/), `alpha in ${JSON.stringify(texts)}`);
    assert.ok(find(/\bbeta\b/), `beta in ${JSON.stringify(texts)}`);
    for (const item of [/Refresh all/, /Open dashboard/, /Start at login/, /Quit/]) assert.ok(find(item), `${item} in ${JSON.stringify(texts)}`);
    // Top to bottom in the model's order.
    const y = (pattern) => menu.lines.find((l) => pattern.test(l.text)).y;
    assert.ok(y(/Copy/) < y(/\balpha/) && y(/\balpha/) < y(/\bbeta/) && y(/\bbeta/) < y(/Refresh all/) && y(/Refresh all/) < y(/Quit/));
    // A menu's size and colours: mostly the light background, dark text, some lines.
    assert.ok(menu.height > 6 * 18, `menu size ${menu.width}x${menu.height}`);
    assert.ok(distinct(menu.rgb) > 20, 'the menu is drawn, not blank');
    // The item under the pointer lights up.
    const line = menu.lines.find((l) => /Open dashboard/.test(l.text));
    execFileSync('xdotool', ['mousemove', '--sync', String(line.x), String(line.y)]);
    const lit = await eventually('the item under the pointer to light up', () => {
      const { rgb } = grab(menu, 'tray-menu-hover.png');
      return count(rgb, HIGHLIGHT) > 500 && rgb;
    });
    assert.ok(count(lit, HIGHLIGHT) < lit.length / 3 / 2, 'one item lit, not the whole menu');
    await closeMenu();
  });

  it('a server item switches the server off and on: the hub and the config file follow', async () => {
    assert.equal((await server('alpha')).enabled, true);
    await clickLine(await openMenu('tray-menu-toggle.png'), /\balpha\b/);
    const off = await eventually('alpha to be disabled', async () => {
      const s = await server('alpha');
      return s.enabled === false && s.state === 'disabled' && s;
    });
    assert.equal(off.pid ?? null, null, 'a disabled server has no process');
    assert.equal(JSON.parse(readFileSync(configPath, 'utf8')).mcpServers.alpha.enabled, false, 'the config file says so');
    assert.equal((await server('beta')).enabled, true, 'beta is untouched');
    // The menu shows it, and the same item switches it back on.
    const menu = await openMenu('tray-menu-disabled.png');
    assert.ok(menu.lines.some((l) => /\balpha\b.*Disabled/.test(l.text)), JSON.stringify(menu.lines.map((l) => l.text)));
    await clickLine(menu, /\balpha\b/);
    await eventually('alpha to be enabled again', async () => (await server('alpha')).enabled === true);
    assert.notEqual(JSON.parse(readFileSync(configPath, 'utf8')).mcpServers.alpha.enabled, false, 'the config file says so');
  });

  it('Refresh all lists every server again, recorded as a manual refresh', async () => {
    const before = await status();
    for (const s of before.servers) assert.notEqual(s.refreshTrigger, 'manual', `${s.id} was not refreshed by hand yet`);
    await clickLine(await openMenu('tray-menu-refresh.png'), /Refresh all/);
    const after = await eventually('both servers refreshed by hand', async () => {
      const s = await status();
      return s.servers.every((x) => x.refreshTrigger === 'manual' && x.listedAt) && s;
    });
    const tools = Object.fromEntries(after.servers.map((s) => [s.id, s.toolCount]));
    assert.deepEqual(tools, { alpha: 2, beta: 1, files: 1 });
    // The menu shows the fresh lists; this is the screenshot of the open menu kept for people.
    const menu = await openMenu('tray-menu.png');
    const texts = menu.lines.map((l) => l.text);
    assert.ok(texts.some((t) => /\balpha\b.*Running, 2 tools/.test(t)), JSON.stringify(texts));
    assert.ok(texts.some((t) => /\bbeta\b.*Running, 1 tool\b/.test(t)), JSON.stringify(texts));
    await closeMenu();
  });

  it('Start at login writes an autostart entry that starts the app in the tray, and removes it', async () => {
    const dir = join(home, '.config', 'autostart');
    const entries = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.desktop')) : []);
    assert.deepEqual(entries(), [], 'no autostart entry yet');
    await clickLine(await openMenu('tray-menu-autostart.png'), /Start at login/);
    const [file] = await eventually('an autostart entry', () => entries().length === 1 && entries());
    const entry = readFileSync(join(dir, file), 'utf8');
    assert.match(entry, /^\[Desktop Entry\]$/m, entry);
    assert.match(entry, /^Type=Application$/m, entry);
    assert.equal(entry.match(/^Exec=(.*)$/m)?.[1], `${bin('switchboard-app')} --hidden`, entry);
    // The same item turns it off again.
    await clickLine(await openMenu('tray-menu-autostart-on.png'), /Start at login/);
    await eventually('the autostart entry to go', () => entries().length === 0);
    assert.doesNotMatch(app.log, /cannot change start at login/);
  });

  it('a call waiting for approval: the tray line, a notification with Allow and Deny, answered there', async () => {
    const displayed = () => Number(execFileSync('dunstctl', ['count', 'displayed'], { encoding: 'utf8' }).trim());
    const notifies = () => monitor.log.split('method call').filter((m) => /member=Notify\b/.test(m));
    assert.equal(displayed(), 0, 'no notification yet');
    const call = await mcpSession(`${base}/mcp`, 'tray-test');

    // Allow, answered in the notification.
    const allowed = call('files__delete_file', { text: 'notes.txt' });
    const [waiting] = await eventually('the call waiting', async () => {
      const { calls } = await api('GET', '/pending');
      return calls.length === 1 && calls;
    });
    assert.equal(waiting.tool, 'delete_file');
    const notify = await eventually('the notification on the session bus', () => notifies().length === 1 && notifies()[0]);
    assert.match(notify, /string "Allow files → delete_file\?"/);
    assert.match(notify, /tray-test asks to call delete_file of files with \{"text":"notes.txt"\}/);
    assert.match(notify, /string "allow"\s+string "Allow"\s+string "deny"\s+string "Deny"/);
    await eventually('dunst shows it', () => displayed() === 1);
    const menu = await openMenu('tray-menu-pending.png');
    const texts = menu.lines.map((l) => l.text);
    assert.ok(texts.some((t) => /1 call waiting for approval/.test(t)), JSON.stringify(texts));
    await closeMenu();
    writeFileSync(choiceFile, 'Allow');
    execFileSync('dunstctl', ['context']);
    const result = await allowed;
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /notes\.txt/);
    assert.match(monitor.log, /member=ActionInvoked[^]*?string "allow"/);
    assert.deepEqual((await api('GET', '/pending')).calls, []);

    // Deny, answered in the notification: the client is told, the server never sees it.
    const denied = call('files__delete_file', { text: 'other.txt' });
    await eventually('the second notification', () => notifies().length === 2);
    await eventually('dunst shows it', () => displayed() === 1);
    writeFileSync(choiceFile, 'Deny');
    execFileSync('dunstctl', ['context']);
    const refused = await denied;
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.match(refused.content[0].text, /declined/);

    // Decided elsewhere (the control API): the notification is withdrawn.
    const third = call('files__delete_file', { text: 'third.txt' });
    const [pending] = await eventually('the third call waiting', async () => {
      const { calls } = await api('GET', '/pending');
      return calls.length === 1 && calls;
    });
    await eventually('the third notification shown', () => notifies().length === 3 && displayed() === 1);
    await api('POST', `/pending/${pending.id}/allow`);
    assert.notEqual((await third).isError, true);
    await eventually('the notification withdrawn', () => /member=CloseNotification/.test(monitor.log) && displayed() === 0);

    // The activity log names who decided.
    const by = await eventually('the three decisions recorded', async () => {
      const { calls } = await api('GET', '/activity?limit=20');
      const decided = calls.filter((e) => e.name === 'files__delete_file').map((e) => `${e.approval?.decision} by ${e.approval?.by}`);
      return decided.length === 3 && decided.sort();
    });
    assert.deepEqual(by, ['allowed by api', 'allowed by app', 'denied by app']);
    // No call waits any more: the tray line is gone.
    const after = await openMenu('tray-menu-no-pending.png');
    assert.ok(!after.lines.some((l) => /waiting for approval/.test(l.text)), JSON.stringify(after.lines.map((l) => l.text)));
    await closeMenu();
  });

  it('Quit stops the app and its servers', async () => {
    const pids = (await status()).servers.map((s) => s.pid).filter(Boolean);
    assert.equal(pids.length, 3, 'every server runs');
    await clickLine(await openMenu('tray-menu-quit.png'), /Quit/);
    const timer = setTimeout(() => app.kill('SIGKILL'), 30000);
    const [code, signal] = app.exitCode === null ? await once(app, 'exit') : [app.exitCode, app.signalCode];
    clearTimeout(timer);
    assert.equal(signal, null, `the app did not quit by itself:\n${app.log}`);
    assert.equal(code, 0, app.log);
    await assert.rejects(fetch(`${base}/api/v1/status`), 'the port is closed');
    await eventually('the tray icon to go', () => !icon(), 10000, 250);
    await eventually('the servers to stop', () => pids.every((pid) => !alive(pid) || zombie(pid)), 10000, 250);
  });
});
