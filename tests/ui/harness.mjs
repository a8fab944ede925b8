// Shared helpers for the browser and desktop tests: run the real binaries
// with a temporary config, talk to the control API, drive Debian's Chromium
// through playwright-core (never a downloaded browser).

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
    const proc = spawn(bin('switchboard'), ['serve', '--config', configPath, '--listen', '127.0.0.1:0'], {
      env: { ...process.env, RUST_LOG: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const hub = new Hub(dir, configPath, proc);
    const [, endpoint] = await waitForLine(proc.stdout, /listening on (http:\/\/\S+\/mcp)/, 'the hub to listen');
    hub.endpoint = endpoint;
    hub.base = endpoint.replace(/\/mcp$/, '');
    return hub;
  }

  constructor(dir, configPath, proc) {
    this.dir = dir;
    this.configPath = configPath;
    this.proc = proc;
    this.log = '';
    proc.stderr.on('data', (c) => {
      this.log += c.toString();
    });
  }

  async get(path) {
    const r = await fetch(`${this.base}${path}`);
    if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return r.json();
  }

  async post(path) {
    const r = await fetch(`${this.base}${path}`, { method: 'POST' });
    return { status: r.status, body: await r.json().catch(() => null) };
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

export function artifactPath(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
