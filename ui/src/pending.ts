// The calls waiting for a person's approval (settings.confirmCalls; GET
// /api/v1/pending), shown above the servers with their (redacted) arguments
// and Allow / Always / Deny. Polled every second while the page is open; the
// first decision wins wherever it is made (the CLI, the calling client), so
// a call decided elsewhere just leaves the list. Needs the dashboard's
// session, like the activity log: a page opened without signing in shows
// nothing here.

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import type { PendingCall, PendingResponse } from './api.gen';

export interface PendingState {
  calls: PendingCall[];
  /** Why the last decision failed; null when it did not. */
  error: string | null;
  /** Ids with a decision in flight. */
  deciding: Set<string>;
}

export type Choice = 'allow' | 'always' | 'deny';

export interface PendingActions {
  decide(id: string, choice: Choice): void;
}

/** The control API request for a choice: path (relative to /api/v1) and body. */
export function decision(id: string, choice: Choice): { path: string; body: unknown } {
  const target = `pending/${encodeURIComponent(id)}`;
  if (choice === 'deny') return { path: `${target}/deny`, body: undefined };
  return { path: `${target}/allow`, body: choice === 'always' ? { always: true } : undefined };
}

/** Arguments as one line of JSON, cut to `max` characters. */
export function argumentText(args: unknown, max = 300): string {
  const text = JSON.stringify(args ?? {});
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function pendingSection(s: PendingState, a: PendingActions): TemplateResult | typeof nothing {
  if (s.calls.length === 0 && !s.error) return nothing;
  const n = s.calls.length;
  return html`<section class="pending" aria-labelledby="pending-h" data-testid="pending">
    <h2 id="pending-h">${n === 1 ? '1 call waits' : `${n} calls wait`} for your approval</h2>
    ${s.error ? html`<p class="error-text" role="alert">${s.error}</p>` : nothing}
    <ul class="pending-list">
      ${s.calls.map((c) => {
        const busy = s.deciding.has(c.id);
        return html`<li data-testid="pending-call" data-id=${c.id}>
          <div>
            <strong>${c.server}</strong> · <code>${c.tool}</code>
            <span class="muted">from ${c.client ?? 'an unnamed client'}</span>
          </div>
          <pre class="arguments" data-testid="pending-arguments">${argumentText(c.arguments)}</pre>
          <div class="buttons">
            <button ?disabled=${busy} @click=${() => a.decide(c.id, 'allow')}>Allow</button>
            <button ?disabled=${busy} title="Allow, and stop asking for this tool (adds it to allowTools)"
              @click=${() => a.decide(c.id, 'always')}>Always</button>
            <button ?disabled=${busy} class="danger" @click=${() => a.decide(c.id, 'deny')}>Deny</button>
          </div>
        </li>`;
      })}
    </ul>
  </section>`;
}

/** The pending list's state and actions; `follow()` starts polling. */
export function createPending(hooks: { update(): void }): {
  state: PendingState;
  actions: PendingActions;
  follow(everyMs?: number): void;
} {
  const state: PendingState = { calls: [], error: null, deciding: new Set() };
  const poll = async () => {
    try {
      const answer = await call<PendingResponse>('GET', 'pending', 'list the calls waiting');
      state.calls = answer.calls;
    } catch {
      // Not signed in, or the hub is gone: nothing to decide here.
      state.calls = [];
    }
    hooks.update();
  };
  const actions: PendingActions = {
    decide(id, choice) {
      const { path, body } = decision(id, choice);
      state.deciding.add(id);
      hooks.update();
      call('POST', path, `${choice} the call`, body).then(
        () => {
          state.error = null;
          state.calls = state.calls.filter((c) => c.id !== id);
          state.deciding.delete(id);
          hooks.update();
        },
        (err: unknown) => {
          state.error = err instanceof Error ? err.message : String(err);
          state.deciding.delete(id);
          void poll();
        },
      );
    },
  };
  return {
    state,
    actions,
    follow(everyMs = 1000) {
      void poll();
      setInterval(() => void poll(), everyMs);
    },
  };
}
