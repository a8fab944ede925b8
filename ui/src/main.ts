// The dashboard page: follows the hub's snapshot and re-renders on change
// and every few seconds (relative times). Served by the hub itself, so every
// request is same-origin; inside the desktop app it is the same page.

import { render } from 'lit-html';
import { api, ApiError, follow, type Connection } from './api';
import { ChangeTracker, dashboard } from './model';
import { page, type Actions, type Notice, type PageState } from './render';
import { FIRST_CLIENT, snippets } from './snippets';
import { createSetup } from './setup';
import type { HeldDefinition, HubSnapshot } from './api.gen';
import { approvalName, heldApi, pinsKey, pinsOf } from './held';
import { emptyActivity, followActivity } from './activity';
import { createTools } from './tools';
import { createSearch } from './search';
import { createPending } from './pending';
import './style.css';

const root = document.getElementById('app');
// Drop the static "Loading…" text; lit-html owns the container from here on.
if (root) root.textContent = '';
const tracker = new ChangeTracker();
let snapshot: HubSnapshot | null = null;
let noticeTimer: ReturnType<typeof setTimeout> | null = null;
const busy = new Set<string>();
const setup = createSetup({ update: () => update(), notify: (kind, text) => notify(kind, text) });
const tools = createTools({ update: () => update(), run: (key, work, done) => run(key, work, done) });
const search = createSearch({ update: () => update() });
const pending = createPending({ update: () => update() });

const state: PageState = {
  view: null,
  connection: 'polling',
  connectionDetail: null,
  startupError: new URLSearchParams(location.search).get('hubError'),
  notice: null,
  busy,
  snippets: [],
  client: FIRST_CLIENT,
  logs: null,
  setup: setup.state,
  pins: new Map(),
  activity: emptyActivity(),
  tools: tools.state,
  search: search.state,
  pending: pending.state,
};
/** Loaded definitions of held and changed tools, and the key they were loaded for. */
const heldDefs = new Map<string, HeldDefinition[]>();
const heldKeys = new Map<string, string>();
const heldErrors = new Map<string, string>();

function update(): void {
  if (!root) return;
  state.view = snapshot ? dashboard(snapshot, Date.now(), tracker) : null;
  state.snippets = snapshot ? snippets(snapshot.endpoint) : [];
  state.pins = snapshot ? pinsOf(snapshot, heldDefs, heldErrors) : new Map();
  render(page(state, actions), root);
  document.title = snapshot ? `Switchboard · ${state.view?.totalsLabel ?? ''}` : 'Switchboard';
}

function notify(kind: 'ok' | 'error', text: string, link?: Notice['link']): void {
  state.notice = link ? { kind, text, link } : { kind, text };
  if (noticeTimer) clearTimeout(noticeTimer);
  noticeTimer = setTimeout(
    () => {
      state.notice = null;
      update();
    },
    kind === 'error' ? 15000 : 5000,
  );
  update();
}

function message(err: unknown): string {
  return err instanceof ApiError || err instanceof Error ? err.message : String(err);
}

/** Runs an action with its button disabled, reporting the outcome in words. */
async function run(key: string, work: () => Promise<unknown>, done: string | null): Promise<void> {
  if (busy.has(key)) return;
  busy.add(key);
  update();
  try {
    await work();
    if (done) notify('ok', done);
  } catch (err) {
    notify('error', message(err));
  } finally {
    busy.delete(key);
    update();
  }
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Fall through to the selection-based copy.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser did not allow copying; select the text and copy it by hand');
}

async function loadLogs(id: string): Promise<void> {
  try {
    const data = await api.logs(id);
    if (state.logs?.id === id) state.logs = { id, data, error: null };
  } catch (err) {
    if (state.logs?.id === id) state.logs = { id, data: null, error: message(err) };
  }
  update();
}

const actions: Actions = {
  copy(text, what) {
    copyText(text).then(
      () => notify('ok', `${what} copied.`),
      (err: unknown) => notify('error', `Could not copy: ${message(err)}`),
    );
  },
  refreshAll() {
    void run(
      'refreshAll',
      async () => {
        const result = await api.refreshAll();
        const failed = result.servers.filter((s) => !s.ok);
        if (failed.length > 0) {
          throw new Error(
            `Refreshed ${result.servers.length - failed.length} of ${result.servers.length} servers; ` +
              failed.map((f) => `${f.id}: ${f.error ?? 'failed'}`).join('; '),
          );
        }
      },
      'All servers refreshed.',
    );
  },
  toggle(id, enabled) {
    void run(`toggle:${id}`, () => api.setEnabled(id, enabled), `${id} ${enabled ? 'enabled' : 'disabled'}.`);
  },
  refresh(id) {
    void run(`refresh:${id}`, () => api.refresh(id), `${id} refreshed.`);
  },
  login(id) {
    void run(
      `login:${id}`,
      async () => {
        const started = await api.login(id);
        // In a browser this opens a tab; the desktop app hands it to the system browser.
        window.open(started.authorizationUrl, '_blank', 'noopener,noreferrer');
        notify('ok', `Log-in to ${id} started: finish it in your browser.`, {
          href: started.authorizationUrl,
          label: 'Open the login page again',
        });
      },
      null,
    );
  },
  logout(id) {
    void run(`logout:${id}`, () => api.logout(id), `Logged out of ${id}.`);
  },
  openLogs(id) {
    state.logs = { id, data: null, error: null };
    update();
    const dialog = document.getElementById('logs');
    if (dialog instanceof HTMLDialogElement && !dialog.open) dialog.showModal();
    void loadLogs(id);
  },
  closeLogs() {
    const dialog = document.getElementById('logs');
    if (dialog instanceof HTMLDialogElement && dialog.open) dialog.close();
    if (state.logs) {
      const id = state.logs.id;
      state.logs = null;
      update();
      document.querySelector<HTMLElement>(`[data-server="${CSS.escape(id)}"] [data-action="logs"]`)?.focus();
    }
  },
  reloadLogs() {
    if (state.logs) void loadLogs(state.logs.id);
  },
  approve(id, tools) {
    const names = tools?.map(approvalName);
    void run(
      `approve:${id}:${names ? names.join(',') : '*'}`,
      () => heldApi.approve(id, tools),
      `Approved ${names ? names.join(', ') : 'the tools'} of ${id}.`,
    );
  },
  dismissNotice() {
    if (noticeTimer) clearTimeout(noticeTimer);
    state.notice = null;
    update();
  },
  pickClient(client) {
    state.client = client;
    update();
  },
  setup: setup.actions,
  tools: tools.actions,
  search: search.actions,
  pending: pending.actions,
};

/** Loads both definitions of each server's held or changed tools when they change. */
function loadHeldDefinitions(next: HubSnapshot): void {
  const pins = pinsOf(next, heldDefs);
  for (const id of [...heldKeys.keys()]) {
    if (!pins.has(id)) {
      heldKeys.delete(id);
      heldDefs.delete(id);
      heldErrors.delete(id);
    }
  }
  for (const [id, p] of pins) {
    const key = pinsKey(p);
    if (key === '' || heldKeys.get(id) === key) continue;
    heldKeys.set(id, key);
    heldErrors.delete(id);
    heldApi.held(id).then(
      (answer) => {
        if (heldKeys.get(id) !== key) return;
        heldDefs.set(id, answer.tools);
        update();
      },
      (err: unknown) => {
        // Shown in place of the diff; tried again when the held tools change.
        if (heldKeys.get(id) !== key) return;
        heldErrors.set(id, message(err));
        update();
      },
    );
  }
}

function onSnapshot(next: HubSnapshot): void {
  tracker.observe(next, Date.now());
  snapshot = next;
  setup.observe(next);
  loadHeldDefinitions(next);
  tools.observe(next);
  update();
}

function onConnection(connection: Connection, why?: string): void {
  if (state.connection !== connection || state.connectionDetail !== (why ?? null)) {
    state.connection = connection;
    state.connectionDetail = why ?? null;
    update();
  }
}

// Inside the desktop app, a hub that could not start is reported through the URL
// (the page then comes from the app itself and there is no hub to follow).
if (state.startupError) {
  state.connection = 'offline';
} else {
  follow(onSnapshot, onConnection);
  pending.follow();
  followActivity(
    () => state.activity,
    (next) => {
      state.activity = next;
      update();
    },
  );
}

// Relative times ("2 min ago") move on by themselves.
setInterval(update, 5000);
update();
