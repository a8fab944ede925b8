// Lays the view model out with lit-html. Rows are keyed by server id, so a
// new snapshot updates text in place and keyboard focus stays where it was.

import { html, nothing, type TemplateResult } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import type { Connection } from './api';
import type { DashboardView, ServerRow } from './model';
import type { Snippet } from './snippets';
import type { ApproveTool, LogsResponse } from './api.gen';
import { editButton, firstRun, serverFormDialog, serversToolbar, type SetupActions, type SetupState } from './setup';
import { heldBlock, type ServerPins } from './held';
import { activitySection, type ActivityState } from './activity';
import { toolsButton, toolsRow, type ToolsActions, type ToolsState } from './tools';
import { searchSection, type SearchActions, type SearchState } from './search';
import { pendingSection, type PendingActions, type PendingState } from './pending';
import { endpointsView } from './endpoints';

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
  link?: { href: string; label: string };
}

export interface PageState {
  view: DashboardView | null;
  connection: Connection;
  connectionDetail: string | null;
  /** Set when the app could not start its hub (passed by the desktop app). */
  startupError: string | null;
  notice: Notice | null;
  /** Actions in flight, by key ("toggle:github"), to disable their buttons. */
  busy: ReadonlySet<string>;
  snippets: Snippet[];
  client: Snippet['client'];
  logs: { id: string; data: LogsResponse | null; error: string | null } | null;
  /** The import offer and the server form (setup.ts). */
  setup: SetupState;
  /** Held, changed and new tools by server id (see held.ts). */
  pins: ReadonlyMap<string, ServerPins>;
  activity: ActivityState;
  /** The tools list of one server (tools.ts). */
  tools: ToolsState;
  /** The catalog search (search.ts). */
  search: SearchState;
  /** The calls waiting for approval (pending.ts). */
  pending: PendingState;
}

export interface Actions {
  copy(text: string, what: string): void;
  refreshAll(): void;
  toggle(id: string, enabled: boolean): void;
  refresh(id: string): void;
  login(id: string): void;
  logout(id: string): void;
  openLogs(id: string): void;
  closeLogs(): void;
  reloadLogs(): void;
  pickClient(client: Snippet['client']): void;
  dismissNotice(): void;
  setup: SetupActions;
  approve(id: string, tools: ApproveTool[] | null): void;
  tools: ToolsActions;
  search: SearchActions;
  pending: PendingActions;
}

const CONNECTION_WORDS: Record<Connection, string> = {
  live: 'Live',
  polling: 'Updating every few seconds',
  offline: 'Not connected',
};

function header(s: PageState, a: Actions): TemplateResult {
  const v = s.view;
  const conn = CONNECTION_WORDS[s.connection];
  return html`<header class="top">
    <div class="brand">
      <span class="dot health-${v?.overall ?? 'unknown'}" aria-hidden="true"></span>
      <h1>Switchboard</h1>
      ${v ? html`<span class="muted version">v${v.version}</span>` : nothing}
    </div>
    ${v
      ? html`<div class="endpoint">
          <span class="label" id="endpoint-label">Endpoint</span>
          <code aria-labelledby="endpoint-label" data-testid="endpoint">${v.endpoint}</code>
          <button type="button" class="small" aria-label="Copy the endpoint URL" @click=${() => a.copy(v.endpoint, 'Endpoint URL')}>
            Copy
          </button>
        </div>
        <div class="totals" data-testid="totals">
          <span>${v.totalsLabel}</span>
          ${v.healthSummary ? html`<span class="muted">${v.healthSummary}</span>` : nothing}
        </div>
        ${endpointsView(v.endpoints)}`
      : nothing}
    <div class="header-actions">
      <span class="conn conn-${s.connection}" role="status" title=${s.connectionDetail ?? conn}>${conn}</span>
      <button type="button" class="primary" ?disabled=${!v || s.busy.has('refreshAll')} @click=${a.refreshAll}>
        ${s.busy.has('refreshAll') ? 'Refreshing…' : 'Refresh all'}
      </button>
    </div>
  </header>`;
}

function banners(s: PageState, a: Actions): TemplateResult {
  const v = s.view;
  return html`
    ${s.startupError
      ? html`<div class="banner error" role="alert" data-testid="startup-error">
          <strong>Switchboard could not start its hub.</strong> ${s.startupError}
        </div>`
      : nothing}
    ${s.connection === 'offline' && !s.startupError
      ? html`<div class="banner error" role="alert" data-testid="offline">
          ${s.connectionDetail ?? 'Switchboard is not answering.'} The page reconnects by itself.
        </div>`
      : nothing}
    ${v?.configError
      ? html`<div class="banner error" role="alert" data-testid="config-error">${v.configError}</div>`
      : nothing}
    ${v && v.reloadNotes.length > 0
      ? html`<div class="banner warn" role="status">
          The last config reload said: ${v.reloadNotes.join('; ')}
        </div>`
      : nothing}
    <div class="notice-slot" aria-live="polite">
      ${s.notice
        ? html`<div class="banner notice ${s.notice.kind === 'error' ? 'error' : 'ok'}" data-testid="notice">
            <span
              >${s.notice.text}
              ${s.notice.link
                ? html`<a href=${s.notice.link.href} target="_blank" rel="noopener noreferrer">${s.notice.link.label}</a>`
                : nothing}</span
            >
            <button type="button" class="small" aria-label="Dismiss this message" @click=${a.dismissNotice}>×</button>
          </div>`
        : nothing}
    </div>
  `;
}

function toggle(row: ServerRow, s: PageState, a: Actions): TemplateResult {
  const busy = s.busy.has(`toggle:${row.id}`);
  return html`<button
    type="button"
    class="switch"
    role="switch"
    aria-checked=${row.enabled ? 'true' : 'false'}
    aria-label=${`${row.id} enabled`}
    title=${row.enabled ? `Disable ${row.id}` : `Enable ${row.id}`}
    ?disabled=${busy}
    data-action="toggle"
    @click=${() => a.toggle(row.id, !row.enabled)}
  >
    <span class="knob" aria-hidden="true"></span>
  </button>`;
}

function changeLine(row: ServerRow): TemplateResult | typeof nothing {
  const c = row.lastChange;
  if (!c) return nothing;
  const names = c.summary
    ? html`${c.summary}`
    : html`${c.added.map((n) => html`<span class="added">+${n}</span> `)}${c.removed.map(
        (n) => html`<span class="removed">−${n}</span> `,
      )}${c.modified.map((n) => html`<span class="modified">~${n}</span> `)}${c.added.length +
        c.removed.length +
        c.modified.length ===
      0
        ? 'lists changed'
        : nothing}`;
  return html`<div class="change" data-testid="last-change" title=${row.lastChangeLabel ?? ''}>
    ${row.recentlyChanged ? html`<span class="badge recent-badge">Changed</span>` : nothing}
    Last change ${c.when}${c.how ? ` (found ${c.how})` : ''}: ${names}
  </div>`;
}

function serverRows(row: ServerRow, s: PageState, a: Actions): TemplateResult {
  const refreshing = s.busy.has(`refresh:${row.id}`);
  const pins = s.pins.get(row.id);
  const hasDetail = row.error || row.breaker || row.unverified || row.authNote || pins || row.notes.length > 0;
  return html`<tbody
    class="server health-${row.health} ${row.recentlyChanged ? 'recent' : ''} ${row.enabled ? '' : 'off'}"
    data-server=${row.id}
    data-state=${row.state}
  >
    <tr>
      <td class="c-toggle">${toggle(row, s, a)}</td>
      <th scope="row" class="c-name">
        <span class="name">${row.id}</span>
        ${row.sandbox
          ? html`<span
              class="shield shield-${row.sandbox.level}"
              data-testid="sandbox"
              title=${row.sandbox.hint}
              aria-label=${row.sandbox.label}
              >${row.sandbox.symbol}<span class="shield-label">${row.sandbox.level === 'contained' ? '' : ` ${row.sandbox.label}`}</span></span
            >`
          : nothing}
        ${row.serverInfo ? html`<span class="muted info">${row.serverInfo}</span>` : nothing}
      </th>
      <td class="c-transport"><span class="pill">${row.transport}</span></td>
      <td class="c-state" data-testid="state" title=${row.stateHint}>${row.stateLabel}</td>
      <td class="c-health" data-testid="health">
        <span class="sym health-${row.health}" aria-hidden="true">${row.healthSymbol}</span> ${row.healthLabel}
      </td>
      <td class="c-counts">
        <span data-testid="counts">${row.countsLabel}</span>
        ${row.otherCountsLabel ? html`<span class="muted other-counts">${row.otherCountsLabel}</span>` : nothing}
      </td>
      <td class="c-fresh">
        <div data-testid="staleness" class=${row.stale ? 'stale' : ''} title=${row.stalenessDetail}>${row.staleness}</div>
        ${changeLine(row)}
      </td>
      <td class="c-actions">
        <button
          type="button"
          class="small"
          ?disabled=${!row.enabled || refreshing}
          aria-label=${`Refresh ${row.id}`}
          data-action="refresh"
          @click=${() => a.refresh(row.id)}
        >
          ${refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
        ${row.canLogin
          ? html`<button
              type="button"
              class="small primary"
              aria-label=${`Log in to ${row.id}`}
              ?disabled=${row.loginPending || s.busy.has(`login:${row.id}`)}
              @click=${() => a.login(row.id)}
            >
              ${row.loginPending ? 'Waiting for login…' : 'Log in'}
            </button>`
          : nothing}
        ${row.canLogout
          ? html`<button type="button" class="small" aria-label=${`Log out of ${row.id}`} @click=${() => a.logout(row.id)}>
              Log out
            </button>`
          : nothing}
        <button type="button" class="small" aria-label=${`Show logs of ${row.id}`} data-action="logs" @click=${() => a.openLogs(row.id)}>
          Logs
        </button>
        ${editButton(row.id, a.setup)} ${toolsButton(row.id, s.tools, a.tools)}
      </td>
    </tr>
    ${toolsRow(row.id, row.toolTokens, s.tools, s.busy, a.tools)}
    ${hasDetail
      ? html`<tr class="detail">
          <td></td>
          <td colspan="7">
            ${row.authNote ? html`<div class="auth-note" data-testid="auth">${row.authNote}</div>` : nothing}
            ${row.error ? html`<div class="error-text" data-testid="error" role="note" title=${row.fullError ?? ''}>${row.error}</div>` : nothing}
            ${row.breaker ? html`<div class="breaker" data-testid="breaker">${row.breaker}</div>` : nothing}
            ${row.unverified
              ? html`<div class="muted">Not verified yet: the lists shown come from an earlier run.</div>`
              : nothing}
            ${row.notes.map((note) => html`<div class="muted" data-testid="listing-note" role="note">${note}</div>`)}
            ${heldBlock(row.id, pins, s.busy, a.approve)}
          </td>
        </tr>`
      : nothing}
  </tbody>`;
}

function table(s: PageState, a: Actions): TemplateResult {
  const v = s.view;
  if (!v) {
    if (s.startupError) return html``;
    return html`<p class="muted" data-testid="loading">${s.connection === 'offline' ? 'Waiting for Switchboard…' : 'Loading…'}</p>`;
  }
  if (v.servers.length === 0) {
    return firstRun(s.setup, a.setup);
  }
  return html`${serversToolbar(a.setup)}<div class="table-wrap">
    <table class="servers" aria-describedby="servers-h">
      <thead>
        <tr>
          <th scope="col"><span class="sr-only">Enabled</span></th>
          <th scope="col">Server</th>
          <th scope="col">Transport</th>
          <th scope="col">State</th>
          <th scope="col">Health</th>
          <th scope="col">Capabilities</th>
          <th scope="col">Freshness</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      ${repeat(v.servers, (row) => row.id, (row) => serverRows(row, s, a))}
    </table>
  </div>`;
}

function connectPanel(s: PageState, a: Actions): TemplateResult {
  const current = s.snippets.find((x) => x.client === s.client) ?? s.snippets[0];
  if (!current) return html``;
  return html`<section class="connect" aria-labelledby="connect-h">
    <h2 id="connect-h">Connect a client</h2>
    <div class="tabs" role="tablist" aria-label="Client">
      ${s.snippets.map(
        (sn) => html`<button
          type="button"
          role="tab"
          id=${`tab-${sn.client}`}
          aria-selected=${sn.client === current.client ? 'true' : 'false'}
          aria-controls="snippet-panel"
          tabindex=${sn.client === current.client ? '0' : '-1'}
          @click=${() => a.pickClient(sn.client)}
          @keydown=${(e: KeyboardEvent) => tabKeys(e, s, a)}
        >
          ${sn.label}
        </button>`,
      )}
    </div>
    <div id="snippet-panel" role="tabpanel" aria-labelledby=${`tab-${current.client}`} data-testid="snippet">
      <p class="muted">${current.where}.</p>
      ${current.command
        ? html`<div class="snippet">
            <pre><code>${current.command}</code></pre>
            <button type="button" class="small" aria-label=${`Copy the ${current.label} command`} @click=${() => a.copy(current.command ?? '', `${current.label} command`)}>Copy</button>
          </div>`
        : nothing}
      <div class="snippet">
        <pre><code data-testid="snippet-text">${current.text}</code></pre>
        <button type="button" class="small" aria-label=${`Copy the ${current.label} config`} @click=${() => a.copy(current.text, `${current.label} config`)}>Copy</button>
      </div>
    </div>
  </section>`;
}

function tabKeys(e: KeyboardEvent, s: PageState, a: Actions): void {
  const ids = s.snippets.map((x) => x.client);
  const at = ids.indexOf(s.client);
  let next = at;
  if (e.key === 'ArrowRight') next = (at + 1) % ids.length;
  else if (e.key === 'ArrowLeft') next = (at - 1 + ids.length) % ids.length;
  else if (e.key === 'Home') next = 0;
  else if (e.key === 'End') next = ids.length - 1;
  else return;
  e.preventDefault();
  const id = ids[next];
  if (id) {
    a.pickClient(id);
    queueMicrotask(() => document.getElementById(`tab-${id}`)?.focus());
  }
}

function logsDialog(s: PageState, a: Actions): TemplateResult {
  const l = s.logs;
  return html`<dialog id="logs" aria-labelledby="logs-h" @close=${a.closeLogs}>
    ${l
      ? html`<div class="dialog-head">
            <h2 id="logs-h">Logs: ${l.id}</h2>
            <button type="button" class="small" @click=${a.reloadLogs}>Reload</button>
            <button type="button" class="small" aria-label="Close the logs" @click=${a.closeLogs}>Close</button>
          </div>
          ${l.error ? html`<div class="banner error" role="alert">${l.error}</div>` : nothing}
          ${l.data
            ? html`<h3>Events</h3>
                ${l.data.events.length === 0
                  ? html`<p class="muted">No events yet.</p>`
                  : html`<ul class="events" data-testid="log-events">
                      ${l.data.events.map(
                        (e) => html`<li class="level-${e.level}"><time>${e.at}</time> <b>${e.level}</b> ${e.message}</li>`,
                      )}
                    </ul>`}
                <h3>Standard error</h3>
                ${l.data.stderr.length === 0
                  ? html`<p class="muted">Nothing on stderr.</p>`
                  : html`<pre class="stderr" data-testid="log-stderr">${l.data.stderr.join('\n')}</pre>`}`
            : l.error
              ? nothing
              : html`<p class="muted">Loading…</p>`}`
      : nothing}
  </dialog>`;
}

export function page(s: PageState, a: Actions): TemplateResult {
  return html`${header(s, a)}
    <main>
      ${banners(s, a)} ${s.view ? pendingSection(s.pending, a.pending) : nothing}
      <section aria-labelledby="servers-h">
        <h2 id="servers-h" class="sr-only">Servers</h2>
        ${table(s, a)}
      </section>
      ${s.view && s.view.servers.length > 0 ? searchSection(s.search, a.search) : nothing}
      ${s.view ? activitySection(s.activity, Date.now()) : nothing}
      ${s.view ? connectPanel(s, a) : nothing}
    </main>
    ${logsDialog(s, a)} ${serverFormDialog(s.setup, a.setup)}`;
}
