// Shared helpers for the browser and desktop tests: run the real binaries
// with a temporary config, talk to the control API, drive Debian's Chromium
// through playwright-core (never a downloaded browser).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');

/** Where cargo put the binaries (the same rule as tests/src/lib.rs). */
export function binDir() {
  if (process.env.SWITCHBOARD_BIN_DIR) return process.env.SWITCHBOARD_BIN_DIR;
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target');
  return join(target, 'debug');
}

export const bin = (name) => join(binDir(), name);

/** A stdio fixture server entry for the config file. */
export function stdioFixture(args) {
  return { command: bin('switchboard-fixture'), args };
}

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `switchboard-${prefix}-`));
}

/** Polls `check` until it returns a truthy value; fails after `timeoutMs` with `what`. */
export async function eventually(what, check, timeoutMs = 20000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads lines from a child's stream until one matches. */
export function waitForLine(stream, pattern, what, timeoutMs = 30000) {
  return new Promise((resolvePromise, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(new Error(`timed out waiting for ${what}; output so far:\n${buffer}`));
    }, timeoutMs);
    const onData = (chunk) => {
      buffer += chunk.toString();
      const m = buffer.match(pattern);
      if (m) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolvePromise(m);
      }
    };
    stream.on('data', onData);
  });
}

/**
 * Spawns `command` and waits for a stdout line matching `pattern`; fails at once
 * (not after a timeout) when the binary is missing or exits first.
 */
export async function spawnUntil(command, args, pattern, what, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  child.log = '';
  child.stderr.on('data', (c) => {
    child.log += c.toString();
  });
  const failed = new Promise((_, reject) => {
    child.once('error', (err) => reject(new Error(`cannot start ${what} (${command}): ${err.message}`)));
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${signal ?? code}) before it was ready:\n${child.log}`)),
    );
  });
  failed.catch(() => {});
  const match = await Promise.race([waitForLine(child.stdout, pattern, what), failed]);
  return { child, match };
}

/** Is a process with this pid still there? */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running `switchboard serve` on a free loopback port with `config` as its file. */
export class Hub {
  static async start(config, { env = {} } = {}) {
    const dir = tempDir('hub');
    const configPath = join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const { child: proc, match } = await spawnUntil(
      bin('switchboard'),
      ['serve', '--config', configPath, '--listen', '127.0.0.1:0'],
      /listening on (http:\/\/\S+\/mcp)/,
      'the hub',
      // Each hub keeps its state (warm catalog, control token) in its own folder.
      { env: { ...process.env, RUST_LOG: 'info', SWITCHBOARD_CACHE_DIR: join(dir, 'cache'), ...env } },
    );
    const hub = new Hub(dir, configPath, proc);
    hub.stateDir = env.SWITCHBOARD_CACHE_DIR ?? join(dir, 'cache');
    hub.endpoint = match[1];
    hub.base = hub.endpoint.replace(/\/mcp$/, '');
    return hub;
  }

  constructor(dir, configPath, proc) {
    this.dir = dir;
    this.configPath = configPath;
    this.proc = proc;
  }

  /** What the hub wrote to stderr so far. */
  get log() {
    return this.proc.log;
  }

  /** The control token the hub keeps in its state directory (what the CLI sends). */
  token() {
    return readFileSync(join(this.stateDir, 'control-token'), 'utf8').trim();
  }

  get auth() {
    return { authorization: `Bearer ${this.token()}` };
  }

  async get(path) {
    const r = await fetch(`${this.base}${path}`, { headers: this.auth });
    if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return r.json();
  }

  async post(path) {
    const r = await fetch(`${this.base}${path}`, { method: 'POST', headers: this.auth });
    return { status: r.status, body: await r.json().catch(() => null) };
  }

  /** A one-time link that signs a browser in to the dashboard (`switchboard dashboard`). */
  async signInUrl() {
    const { status, body } = await this.post('/api/v1/dashboard');
    if (status !== 200) throw new Error(`POST /api/v1/dashboard: HTTP ${status} ${JSON.stringify(body)}`);
    return body.url;
  }

  status() {
    return this.get('/api/v1/status');
  }

  async server(id) {
    const s = (await this.status()).servers.find((x) => x.id === id);
    if (!s) throw new Error(`no server ${id} in the snapshot`);
    return s;
  }

  configFile() {
    return JSON.parse(readFileSync(this.configPath, 'utf8'));
  }

  /** SIGTERM, then wait for the exit; returns the exit code. */
  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 20000);
      await once(this.proc, 'exit');
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
    return this.proc.exitCode;
  }
}

/** Debian's Chromium under playwright-core, with a fresh profile. */
export async function launchChromium() {
  const require = createRequire(join(ROOT, 'ui', 'package.json'));
  const { chromium } = require('playwright-core');
  const profile = tempDir('chromium');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/**
 * The environment of the desktop app under test: `home` as its HOME and XDG dirs,
 * its config file and listen port, and software rendering (Xvfb has no GPU).
 */
export function appEnv(home, configPath, port) {
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    SWITCHBOARD_CONFIG: configPath,
    SWITCHBOARD_LISTEN: `127.0.0.1:${port}`,
    RUST_LOG: 'info',
    WEBKIT_DISABLE_DMABUF_RENDERER: '1',
    LIBGL_ALWAYS_SOFTWARE: '1',
  };
}

export function artifactPath(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/**
 * One MCP session on the merged endpoint, spoken with plain fetch: resolves to
 * `call(name, args)`, which resolves to the call's result.
 */
export async function mcpSession(endpoint, clientName = 'pending-test') {
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const init = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  await init.text();
  const session = init.headers.get('mcp-session-id');
  const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  const initialized = await fetch(endpoint, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  let id = 1;
  return async (name, args) => {
    const r = await fetch(endpoint, {
      method: 'POST',
      headers: withSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }),
    });
    const text = await r.text();
    // JSON, or an event stream whose last data line is the answer.
    const json = text.trim().startsWith('{')
      ? text
      : text
          .split('\n')
          .filter((l) => l.startsWith('data:') && l.length > 6)
          .pop()
          .slice(5);
    return JSON.parse(json).result;
  };
}
