// Per-server tools in the dashboard (issue #18, "Per-tool switches"): a
// server's last listing with a switch per tool (written to the server's
// `disabledTools` through the control API; the server keeps running) and
// what the definitions cost in tokens. Nothing here starts a server. Each
// tool's row also edits its override (`override_form.ts`).

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import { checkDraft, draftOf, overrideApi, overrideForm, overrideSummary, type OverrideDraft } from './override_form';
import type { HubSnapshot, ReloadResponse, ServerToolsResponse } from './api.gen';

export interface ToolsState {
  /** The server whose tools are shown, if any. */
  open: string | null;
  data: ServerToolsResponse | null;
  error: string | null;
  /** What the open list was loaded for (the server's count and tokens), to reload on change. */
  loadedFor: string | null;
  /** The tool whose override is being edited, its draft and the last refusal. */
  editing: { tool: string; draft: OverrideDraft; error: string | null } | null;
}

export interface ToolsActions {
  /** Shows the tools of `id`, or hides them when they are shown. */
  show(id: string): void;
  /** Shows (`enabled`) or hides one tool of `id` from clients. */
  setEnabled(id: string, tool: string, enabled: boolean): void;
  /** Opens (or closes) the override form of `tool` of the open server. */
  editOverride(tool: string): void;
  changeOverride(draft: OverrideDraft): void;
  /** Checks the draft and saves it into the config file (blank: removes it). */
  saveOverride(id: string): void;
}

/** `n` tokens in few characters: 950 tokens, 1.2k tokens, 109k tokens; "counting" while the hub has no count yet (`null`). */
export function tokensLabel(n: number | null): string {
  if (n === null) return 'counting…';
  if (n < 1000) return `${n} ${n === 1 ? 'token' : 'tokens'}`;
  if (n < 10_000) return `${(Math.round(n / 100) / 10).toString()}k tokens`;
  return `${Math.round(n / 1000)}k tokens`;
}

/** What, in a snapshot, changes when a server's tools do. */
export function toolsKey(snapshot: HubSnapshot, id: string): string | null {
  const s = snapshot.servers.find((x) => x.id === id);
  return s ? `${s.listedAt ?? ''}|${s.toolCount}|${s.toolTokens ?? 0}` : null;
}

const enc = encodeURIComponent;

export const toolsApi = {
  list: (id: string) => call<ServerToolsResponse>('GET', `servers/${enc(id)}/tools`, `read the tools of ${id}`),
  setEnabled: (id: string, tool: string, enabled: boolean) =>
    call<ReloadResponse>(
      'POST',
      `servers/${enc(id)}/tools/${enc(tool)}/${enabled ? 'enable' : 'disable'}`,
      `${enabled ? 'enable' : 'disable'} ${tool} of ${id}`,
    ),
};

/** How often, and how far apart, a list with uncounted tools is asked for again. */
const UNCOUNTED_RETRIES = 20;
const UNCOUNTED_RETRY_MS = 500;

/** The tools part of the page: its state, actions, and what follows snapshots. */
export function createTools(hooks: {
  update(): void;
  run(key: string, work: () => Promise<unknown>, done: string | null): Promise<void>;
}): { state: ToolsState; actions: ToolsActions; observe(snapshot: HubSnapshot): void } {
  const state: ToolsState = { open: null, data: null, error: null, loadedFor: null, editing: null };
  const load = (id: string, retries = UNCOUNTED_RETRIES): void => {
    toolsApi.list(id).then(
      (data) => {
        if (state.open !== id) return;
        state.data = data;
        state.error = null;
        hooks.update();
        // The hub counts a listing moments after it came ("counting…" until
        // then); ask again shortly, a bounded number of times.
        if (retries > 0 && data.tools.some((t) => t.tokens === null)) {
          setTimeout(() => {
            if (state.open === id) load(id, retries - 1);
          }, UNCOUNTED_RETRY_MS);
        }
      },
      (err: unknown) => {
        if (state.open !== id) return;
        state.error = err instanceof Error ? err.message : String(err);
        hooks.update();
      },
    );
  };
  const editOverride = (tool: string): void => {
    const t = state.data?.tools.find((x) => x.name === tool);
    state.editing = !t || state.editing?.tool === tool ? null : { tool, draft: draftOf(t), error: null };
    hooks.update();
  };
  const changeOverride = (draft: OverrideDraft): void => {
    if (state.editing) state.editing = { ...state.editing, draft };
    hooks.update();
  };
  const saveOverride = (id: string): void => {
    const editing = state.editing;
    const t = editing && state.data?.tools.find((x) => x.name === editing.tool);
    if (!editing || !t) return;
    const checked = checkDraft(editing.draft, t);
    if (!checked.ok) {
      state.editing = { ...editing, error: checked.error };
      hooks.update();
      return;
    }
    const tool = editing.tool;
    void hooks.run(
      `override:${id}:${tool}`,
      async () => {
        try {
          if (checked.body) await overrideApi.put(id, tool, checked.body);
          else await overrideApi.remove(id, tool);
        } catch (err) {
          if (state.editing?.tool === tool) {
            state.editing = { ...state.editing, error: err instanceof Error ? err.message : String(err) };
          }
          throw err;
        }
        if (state.editing?.tool === tool) state.editing = null;
        if (state.open === id) load(id);
      },
      checked.body ? `Override of ${tool} saved.` : `Override of ${tool} removed.`,
    );
  };
  const actions: ToolsActions = {
    editOverride,
    changeOverride,
    saveOverride,
    show(id) {
      state.editing = null;
      if (state.open === id) {
        state.open = null;
        state.data = null;
        state.error = null;
        state.loadedFor = null;
      } else {
        state.open = id;
        state.data = null;
        state.error = null;
        state.loadedFor = null;
        load(id);
      }
      hooks.update();
    },
    setEnabled(id, tool, enabled) {
      void hooks.run(
        `tool:${id}:${tool}`,
        async () => {
          await toolsApi.setEnabled(id, tool, enabled);
          if (state.open === id) load(id);
        },
        `${tool} of ${id} ${enabled ? 'enabled' : 'disabled'}.`,
      );
    },
  };
  const observe = (snapshot: HubSnapshot): void => {
    if (!state.open) return;
    const key = toolsKey(snapshot, state.open);
    if (key === null) {
      state.open = null;
      state.data = null;
      return;
    }
    if (state.loadedFor !== null && state.loadedFor !== key) load(state.open);
    state.loadedFor = key;
  };
  return { state, actions, observe };
}

/** The button in a server's row that shows its tools. */
export function toolsButton(id: string, state: ToolsState, actions: ToolsActions): TemplateResult {
  const open = state.open === id;
  return html`<button
    type="button"
    class="small"
    data-action="tools"
    aria-expanded=${open ? 'true' : 'false'}
    aria-label=${`${open ? 'Hide' : 'Show'} the tools of ${id}`}
    @click=${() => actions.show(id)}
  >
    Tools
  </button>`;
}

/** The row under a server with its tools, when they are shown. */
export function toolsRow(
  id: string,
  toolTokens: number,
  state: ToolsState,
  busy: ReadonlySet<string>,
  actions: ToolsActions,
): TemplateResult | typeof nothing {
  if (state.open !== id) return nothing;
  const d = state.data;
  return html`<tr class="detail tools-row">
    <td></td>
    <td colspan="7">
      <div class="tools" data-testid="tools">
        <div class="tools-head">
          <b>Tools of ${id}</b>
          <span class="muted" data-testid="tool-tokens">${tokensLabel(toolTokens)} in clients' context</span>
        </div>
        ${state.error
          ? html`<p class="error-text">${state.error}</p>`
          : !d
            ? html`<p class="muted">Loading…</p>`
            : !d.listed
              ? html`<p class="muted">Not listed yet: the tools show once a client uses this server (or after Refresh).</p>`
              : d.tools.length === 0
                ? html`<p class="muted">This server has no tools.</p>`
                : html`<ul class="tool-list">
                    ${d.tools.map((t) => {
                      const key = `tool:${id}:${t.name}`;
                      return html`<li data-tool=${t.name} class=${t.enabled ? '' : 'off'}>
                        <label>
                          <input
                            type="checkbox"
                            .checked=${t.enabled}
                            ?disabled=${busy.has(key)}
                            aria-label=${`${t.enabled ? 'Disable' : 'Enable'} ${t.name} of ${id}`}
                            @change=${(e: Event) => actions.setEnabled(id, t.name, (e.target as HTMLInputElement).checked)}
                          />
                          <code>${t.name}</code>
                        </label>
                        <span class="muted">${t.description}</span>
                        <span class="muted override-summary" data-testid="override-summary">${overrideSummary(t.toolOverride)}</span>
                        <span class="muted tokens">${tokensLabel(t.tokens)}</span>
                        <button
                          type="button"
                          class="small"
                          data-action="override"
                          aria-expanded=${state.editing?.tool === t.name ? 'true' : 'false'}
                          aria-label=${`Override ${t.name} of ${id}`}
                          @click=${() => actions.editOverride(t.name)}
                        >
                          Override
                        </button>
                        ${state.editing?.tool === t.name
                          ? overrideForm(t, state.editing.draft, state.editing.error, busy.has(`override:${id}:${t.name}`), {
                              change: (draft) => actions.changeOverride(draft),
                              save: () => actions.saveOverride(id),
                              cancel: () => actions.editOverride(t.name),
                            })
                          : nothing}
                      </li>`;
                    })}
                  </ul>`}
      </div>
    </td>
  </tr>`;
}
