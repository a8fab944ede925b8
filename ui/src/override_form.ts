// A tool's override edited from its row in the tools list (issue #34): the
// name and description clients see, default argument values, arguments
// hidden from clients (which then always take their default). Saved into the
// config file's `mcpServers.<id>.toolOverrides.<tool>` through the control API
// (`PUT`/`DELETE /api/v1/servers/<id>/tools/<tool>/override`), which edits only
// that member and checks it against the tool's schema. The checks here are
// the ones a person gets before anything is sent; the hub's answer is shown
// as it is when it refuses.

import { html, type TemplateResult } from 'lit-html';
import { call } from './api';
import type { ReloadResponse, ServerTool, ToolOverride } from './api.gen';

/** What the form holds while a person edits it. */
export interface OverrideDraft {
  name: string;
  description: string;
  /** The default values as JSON object text (`{"limit": 5}`), or blank. */
  defaults: string;
  /** The arguments to hide. */
  hidden: string[];
}

/** What a draft becomes: the body to send (`null`: remove the override), or why not. */
export type OverrideCheck = { ok: true; body: ToolOverride | null } | { ok: false; error: string };

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The form's starting values for `tool` (its override, or blank). */
export function draftOf(tool: ServerTool): OverrideDraft {
  const o = tool.toolOverride;
  const args = o?.arguments;
  return {
    name: o?.name ?? '',
    description: o?.description ?? '',
    defaults: args && Object.keys(args).length > 0 ? JSON.stringify(args) : '',
    hidden: [...(o?.hideArguments ?? [])],
  };
}

/** Checks a draft for `tool` and builds the body; a blank draft removes the override. */
export function checkDraft(draft: OverrideDraft, tool: ServerTool): OverrideCheck {
  const name = draft.name.trim();
  if (name !== '' && !NAME.test(name)) {
    return {
      ok: false,
      error: `The name "${name}" may only have letters, digits, "_", "-" and "." (1 to 64 of them).`,
    };
  }
  let defaults: Record<string, unknown> = {};
  if (draft.defaults.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft.defaults);
    } catch {
      return { ok: false, error: 'The default values must be a JSON object, e.g. {"limit": 5}.' };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { ok: false, error: 'The default values must be a JSON object, e.g. {"limit": 5}.' };
    }
    defaults = parsed as Record<string, unknown>;
  }
  const known = new Set(tool.arguments);
  const unknown = Object.keys(defaults).find((k) => known.size > 0 && !known.has(k));
  if (unknown !== undefined) {
    return {
      ok: false,
      error: `"${unknown}" is no argument of ${tool.name} (its arguments: ${tool.arguments.join(', ')}).`,
    };
  }
  const hidden = [...new Set(draft.hidden)].sort();
  const bare = hidden.find((h) => !(h in defaults));
  if (bare !== undefined) {
    return {
      ok: false,
      error: `"${bare}" is hidden but has no default value: a hidden argument always takes its default.`,
    };
  }
  const body: ToolOverride = {};
  if (name !== '') body.name = name;
  if (draft.description.trim() !== '') body.description = draft.description.trim();
  if (Object.keys(defaults).length > 0) body.arguments = defaults;
  if (hidden.length > 0) body.hideArguments = hidden;
  return { ok: true, body: Object.keys(body).length > 0 ? body : null };
}

/** A short line for a tool's row: what its override changes; "" without one. */
export function overrideSummary(o: ToolOverride | undefined): string {
  if (!o) return '';
  const parts: string[] = [];
  if (o.name) parts.push(`shown as ${o.name}`);
  if (o.description) parts.push('own description');
  const n = Object.keys(o.arguments ?? {}).length;
  if (n > 0) parts.push(`${n} ${n === 1 ? 'default' : 'defaults'}`);
  if (o.hideArguments && o.hideArguments.length > 0) parts.push(`hides ${o.hideArguments.join(', ')}`);
  return parts.join(' · ');
}

const enc = encodeURIComponent;

export const overrideApi = {
  put: (id: string, tool: string, body: ToolOverride) =>
    call<ReloadResponse>('PUT', `servers/${enc(id)}/tools/${enc(tool)}/override`, `save the override of ${tool}`, body),
  remove: (id: string, tool: string) =>
    call<ReloadResponse>('DELETE', `servers/${enc(id)}/tools/${enc(tool)}/override`, `remove the override of ${tool}`),
};

/** What the form needs from the tools list. */
export interface OverrideFormHooks {
  change(draft: OverrideDraft): void;
  save(): void;
  cancel(): void;
}

/** The form under a tool's row. */
export function overrideForm(
  tool: ServerTool,
  draft: OverrideDraft,
  error: string | null,
  busy: boolean,
  hooks: OverrideFormHooks,
): TemplateResult {
  const set = (patch: Partial<OverrideDraft>) => hooks.change({ ...draft, ...patch });
  const value = (e: Event) => (e.target as HTMLInputElement | HTMLTextAreaElement).value;
  return html`<form
    class="override-form"
    data-testid="override-form"
    aria-label=${`Override of ${tool.name}`}
    @submit=${(e: Event) => {
      e.preventDefault();
      hooks.save();
    }}
  >
    <label>Name clients see <input name="name" .value=${draft.name} placeholder=${tool.name}
      @input=${(e: Event) => set({ name: value(e) })} /></label>
    <label>Description <input name="description" .value=${draft.description} placeholder=${tool.description}
      @input=${(e: Event) => set({ description: value(e) })} /></label>
    <label>Default arguments (JSON) <textarea name="defaults" rows="2" .value=${draft.defaults}
      placeholder='{"limit": 5}' @input=${(e: Event) => set({ defaults: value(e) })}></textarea></label>
    ${tool.arguments.length > 0
      ? html`<fieldset>
          <legend>Hide from clients</legend>
          ${tool.arguments.map(
            (a) => html`<label class="inline"><input type="checkbox" name="hide" value=${a}
                .checked=${draft.hidden.includes(a)}
                @change=${(e: Event) => {
                  const on = (e.target as HTMLInputElement).checked;
                  set({ hidden: on ? [...draft.hidden, a] : draft.hidden.filter((h) => h !== a) });
                }} /> <code>${a}</code></label>`,
          )}
        </fieldset>`
      : ''}
    ${error ? html`<p class="error-text" role="alert" data-testid="override-error">${error}</p>` : ''}
    <div class="actions">
      <button type="submit" ?disabled=${busy} data-action="save-override">Save</button>
      <button type="button" ?disabled=${busy} @click=${() => hooks.cancel()}>Cancel</button>
    </div>
    <p class="muted">Saved in the config file; a blank form removes the override.</p>
  </form>`;
}
