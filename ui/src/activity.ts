// The Activity view: the calls clients made through the hub (GET
// /api/v1/activity), newest first. It polls every few seconds for calls newer
// than the newest it has (`after=<seq>`) and keeps at most MAX_ROWS. The log
// needs the dashboard's session, so a page opened without signing in says how
// to see it instead. A code mode run (`switchboard__run_code`) is one row,
// with the calls its script made (same `run` id) right under it, indented.

import { html, nothing, type TemplateResult } from 'lit-html';
import type { ActivityEntry, ActivityResponse } from './api.gen';
import { ago, parseTime } from './format';

/** Rows the view keeps and shows. */
export const MAX_ROWS = 100;

/** Code mode's tool: its entries group the calls of their run. */
export const RUN_CODE = 'switchboard__run_code';

export interface ActivityState {
  /** Newest first. */
  calls: ActivityEntry[];
  dropped: number;
  /** Why the log cannot be shown (not signed in, hub gone); null when it can. */
  error: string | null;
  loaded: boolean;
}

export function emptyActivity(): ActivityState {
  return { calls: [], dropped: 0, error: null, loaded: false };
}

/** One call as the table shows it. */
export interface ActivityRow {
  seq: number;
  when: string;
  at: string;
  client: string;
  server: string;
  name: string;
  duration: string;
  outcome: ActivityEntry['outcome'];
  error: string | null;
  /** A call a code mode script made (shown under its run when that is listed). */
  inner: boolean;
  /** For a run's own row: how many of its calls are listed under it. */
  innerCalls: number;
}

/** Milliseconds for people: "0.4 ms", "12 ms", "3.2 s". */
export function callDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The entries in the order the table shows them: newest first, except that a
 * run's inner calls follow its own entry in the order they were made. Inner
 * calls of a run not listed (still running, or gone from the window) stay
 * where they are, marked inner.
 */
export function groupRuns(calls: readonly ActivityEntry[]): { entry: ActivityEntry; inner: boolean; innerCalls: number }[] {
  const isRun = (c: ActivityEntry) => c.name === RUN_CODE && !!c.run;
  const runs = new Set(calls.filter(isRun).map((c) => c.run));
  const under = new Map<string, ActivityEntry[]>();
  for (const c of calls) {
    if (c.run && !isRun(c) && runs.has(c.run)) under.set(c.run, [...(under.get(c.run) ?? []), c]);
  }
  const out: { entry: ActivityEntry; inner: boolean; innerCalls: number }[] = [];
  for (const c of calls) {
    if (c.run && !isRun(c)) {
      if (!runs.has(c.run)) out.push({ entry: c, inner: true, innerCalls: 0 });
      continue;
    }
    const mine = isRun(c) && c.run ? [...(under.get(c.run) ?? [])].sort((a, b) => a.seq - b.seq) : [];
    out.push({ entry: c, inner: false, innerCalls: mine.length });
    for (const i of mine) out.push({ entry: i, inner: true, innerCalls: 0 });
  }
  return out;
}

export function activityRows(calls: readonly ActivityEntry[], now: number): ActivityRow[] {
  return groupRuns(calls).map(({ entry: c, inner, innerCalls }) => {
    const at = parseTime(c.time);
    return {
      seq: c.seq,
      when: at === null ? c.time : ago(at, now),
      at: c.time,
      client: c.client ?? '—',
      server: c.server ?? '—',
      name: c.name,
      duration: callDuration(c.durationMs),
      outcome: c.outcome,
      error: c.error,
      inner,
      innerCalls,
    };
  });
}

/** Merges a poll's answer (newest first) into the state, newest first, bounded. */
export function mergeCalls(state: ActivityState, answer: ActivityResponse): ActivityState {
  const known = new Set(state.calls.map((c) => c.seq));
  const fresh = answer.calls.filter((c) => !known.has(c.seq));
  const calls = [...fresh, ...state.calls];
  return { calls: calls.slice(0, MAX_ROWS), dropped: answer.dropped, error: null, loaded: true };
}

export function activitySection(s: ActivityState, now: number): TemplateResult {
  const rows = activityRows(s.calls, now);
  return html`<section class="activity" aria-labelledby="activity-h" data-testid="activity">
    <h2 id="activity-h">Activity</h2>
    ${s.error
      ? html`<p class="muted" data-testid="activity-error">${s.error}</p>`
      : !s.loaded
        ? html`<p class="muted">Loading…</p>`
        : rows.length === 0
          ? html`<p class="muted" data-testid="activity-empty">No calls yet. Tool calls, prompts and resource reads through Switchboard show up here.</p>`
          : html`<div class="table-wrap">
              <table class="servers activity-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Client</th>
                    <th scope="col">Server</th>
                    <th scope="col">Tool</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    (r) => html`<tr
                      data-seq=${r.seq}
                      class=${`outcome-${r.outcome}${r.inner ? ' inner-call' : ''}`}
                      data-testid=${r.inner ? 'inner-call' : r.innerCalls > 0 ? 'code-run' : nothing}
                    >
                      <td><time datetime=${r.at} title=${r.at}>${r.when}</time></td>
                      <td>${r.client}</td>
                      <td>${r.server}</td>
                      <td>
                        ${r.inner ? html`<span class="inner-mark" aria-label="called by the script above">↳ </span>` : nothing}<code
                          >${r.name}</code
                        >${r.innerCalls > 0
                          ? html` <span class="muted">(${r.innerCalls} ${r.innerCalls === 1 ? 'call' : 'calls'})</span>`
                          : nothing}
                      </td>
                      <td>${r.duration}</td>
                      <td data-testid="outcome">
                        <span class=${`pill outcome-${r.outcome}`}>${r.outcome}</span>
                        ${r.error ? html`<div class="error-text">${r.error}</div>` : nothing}
                      </td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>`}
    ${s.dropped > 0
      ? html`<p class="muted">${s.dropped} calls were not recorded because the recorder was behind.</p>`
      : nothing}
  </section>`;
}

/** Why the log could not be read, for people. */
function failure(status: number | null, body: unknown): string {
  if (status === 401 || status === 403) {
    return 'Sign in to see what clients called: open the dashboard with `switchboard dashboard` (or from the Switchboard app).';
  }
  if (status === null) return 'Switchboard is not answering.';
  const detail =
    body && typeof body === 'object' && 'error' in body ? String((body as { error: unknown }).error) : null;
  return detail ? `Could not read the activity: ${detail}` : `Could not read the activity (HTTP ${status}).`;
}

/**
 * Polls the activity log every `everyMs`, calling `onChange` with the new
 * state after each answer. Returns a function that stops it.
 */
export function followActivity(
  get: () => ActivityState,
  onChange: (next: ActivityState) => void,
  everyMs = 3000,
): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const poll = async () => {
    timer = null;
    const current = get();
    const newest = current.calls[0]?.seq;
    const query = newest === undefined ? `limit=${MAX_ROWS}` : `limit=${MAX_ROWS}&after=${newest}`;
    let status: number | null = null;
    let body: unknown = null;
    try {
      const response = await fetch(`api/v1/activity?${query}`, {
        headers: { Accept: 'application/json' },
        cache: 'no-store',
      });
      status = response.status;
      body = await response.json().catch(() => null);
      if (response.ok && body && typeof body === 'object' && Array.isArray((body as ActivityResponse).calls)) {
        onChange(mergeCalls(get(), body as ActivityResponse));
      } else {
        onChange({ ...get(), error: failure(status, body), loaded: true });
      }
    } catch {
      onChange({ ...get(), error: failure(null, null), loaded: true });
    }
    if (!stopped) timer = setTimeout(() => void poll(), everyMs);
  };
  void poll();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
