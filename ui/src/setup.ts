// First run without JSON, and servers edited from the page: the import offer
// (what `switchboard import --dry-run` finds in the AI clients' configs,
// imported with one click), the add/edit server form (server_form.ts) and
// removing a server. The hub checks every definition with its config loader
// and writes only the member concerned (the file keeps its formatting); its
// refusal is shown next to the form. main.ts creates this once
// (`createSetup`) and hands state and actions to render.ts.

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import type { HubSnapshot, ImportOffer, ImportResponse, ReloadResponse, ServerDefinition } from './api.gen';
import { definitionFromForm, emptyForm, formFromDefinition, type ServerForm } from './server_form';
import { emptyRegistry, installBody, registryApi, registryPanel, type RegistryActions, type RegistryState } from './registry';

export interface SetupState {
  /** The import offer; null until asked (or when the hub has none). */
  offer: ImportOffer | null;
  /** Why there is no offer (a hub without an import source, a read error). */
  offerError: string | null;
  importing: boolean;
  form: ServerForm | null;
  /** The registry search of the add dialog (registry.ts). */
  registry: RegistryState;
}

export interface SetupActions extends RegistryActions {
  importAll(): void;
  openAdd(): void;
  openEdit(id: string): void;
  edit(change: Partial<ServerForm>): void;
  save(): void;
  remove(): void;
  closeForm(): void;
}

const enc = encodeURIComponent;

export const serversApi = {
  offer: () => call<ImportOffer>('GET', 'import', 'look for servers in your AI clients'),
  importIds: (ids: string[]) => call<ImportResponse>('POST', 'import', 'import the servers', { ids }),
  definition: (id: string) => call<ServerDefinition>('GET', `servers/${enc(id)}/config`, `read ${id}'s settings`),
  put: (id: string, definition: Record<string, unknown>) =>
    call<ReloadResponse>('PUT', `servers/${enc(id)}`, `save ${id}`, definition),
  remove: (id: string) => call<ReloadResponse>('DELETE', `servers/${enc(id)}`, `remove ${id}`),
};

interface Host {
  update(): void;
  notify(kind: 'ok' | 'error', text: string): void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function dialog(): HTMLDialogElement | null {
  const d = document.getElementById('server-form');
  return d instanceof HTMLDialogElement ? d : null;
}

/** The first-run and server-form state and actions, bound to the page. */
export function createSetup(host: Host): {
  state: SetupState;
  actions: SetupActions;
  observe(snapshot: HubSnapshot): void;
} {
  const state: SetupState = { offer: null, offerError: null, importing: false, form: null, registry: emptyRegistry() };
  let asked = false;

  const loadOffer = async () => {
    try {
      state.offer = await serversApi.offer();
      state.offerError = null;
    } catch (err) {
      state.offer = null;
      state.offerError = message(err);
    }
    host.update();
  };

  const showForm = (form: ServerForm) => {
    state.form = form;
    host.update();
    const d = dialog();
    if (d && !d.open) d.showModal();
    queueMicrotask(() => d?.querySelector<HTMLInputElement>('input:not([readonly])')?.focus());
  };

  const actions: SetupActions = {
    importAll() {
      const ids = state.offer?.candidates.map((c) => c.id) ?? [];
      if (state.importing || ids.length === 0) return;
      state.importing = true;
      host.update();
      serversApi
        .importIds(ids)
        .then(
          (done) => {
            host.notify('ok', `Imported ${done.added.join(', ')}.`);
            return loadOffer();
          },
          (err: unknown) => host.notify('error', message(err)),
        )
        .finally(() => {
          state.importing = false;
          host.update();
        });
    },
    openAdd() {
      state.registry = emptyRegistry();
      showForm(emptyForm());
    },
    registryQuery(query) {
      state.registry = { ...state.registry, query };
      host.update();
    },
    registrySearch() {
      const r = state.registry;
      if (r.searching) return;
      state.registry = { ...r, searching: true, error: null };
      host.update();
      registryApi.search(r.query).then(
        (answer) => {
          state.registry = { ...state.registry, searching: false, answer };
          host.update();
        },
        (err: unknown) => {
          state.registry = { ...state.registry, searching: false, answer: null, error: message(err) };
          host.update();
        },
      );
    },
    registryPick(server) {
      state.registry = { ...state.registry, picked: server, id: '', values: {}, error: null };
      host.update();
    },
    registryValue(name, value) {
      state.registry = { ...state.registry, values: { ...state.registry.values, [name]: value } };
      host.update();
    },
    registryId(id) {
      state.registry = { ...state.registry, id };
      host.update();
    },
    registryInstall() {
      const r = state.registry;
      if (!r.picked || r.installing) return;
      const body = installBody(r);
      state.registry = { ...r, installing: true, error: null };
      host.update();
      registryApi.install(body).then(
        (done) => {
          host.notify('ok', `${done.id} added; its tools are held until you approve them.`);
          state.registry = emptyRegistry();
          actions.closeForm();
        },
        (err: unknown) => {
          state.registry = { ...state.registry, installing: false, error: message(err) };
          host.update();
        },
      );
    },
    openEdit(id) {
      serversApi.definition(id).then(
        (shown) => showForm(formFromDefinition(id, shown.definition)),
        (err: unknown) => host.notify('error', message(err)),
      );
    },
    edit(change) {
      if (!state.form) return;
      state.form = { ...state.form, ...change, confirmRemove: false };
      host.update();
    },
    save() {
      const form = state.form;
      if (!form || form.busy) return;
      const built = definitionFromForm(form);
      if (!built.ok) {
        state.form = { ...form, error: built.error };
        host.update();
        return;
      }
      state.form = { ...form, busy: true, error: null };
      host.update();
      serversApi.put(built.id, built.definition).then(
        () => {
          host.notify('ok', `${built.id} saved.`);
          actions.closeForm();
        },
        (err: unknown) => {
          if (state.form) state.form = { ...state.form, busy: false, error: message(err) };
          host.update();
        },
      );
    },
    remove() {
      const form = state.form;
      if (!form || form.mode !== 'edit' || form.busy) return;
      if (!form.confirmRemove) {
        state.form = { ...form, confirmRemove: true };
        host.update();
        return;
      }
      state.form = { ...form, busy: true, error: null };
      host.update();
      serversApi.remove(form.id).then(
        () => {
          host.notify('ok', `${form.id} removed.`);
          actions.closeForm();
        },
        (err: unknown) => {
          if (state.form) state.form = { ...state.form, busy: false, confirmRemove: false, error: message(err) };
          host.update();
        },
      );
    },
    closeForm() {
      const d = dialog();
      if (d?.open) d.close();
      if (state.form) {
        state.form = null;
        host.update();
      }
    },
  };

  return {
    state,
    actions,
    observe(snapshot) {
      // The offer is asked for when there are no servers (again after they are all removed).
      const empty = snapshot.servers.length === 0;
      if (empty && !asked) void loadOffer();
      asked = empty;
    },
  };
}

/** What shows instead of the server table when there are no servers. */
export function firstRun(s: SetupState, a: SetupActions): TemplateResult {
  const offer = s.offer;
  const clients = offer ? [...new Set(offer.candidates.map((c) => c.client ?? 'a config file'))] : [];
  return html`<div class="first-run" data-testid="first-run">
    <p class="empty">No servers yet.</p>
    ${offer && offer.candidates.length > 0
      ? html`<div class="import-offer" data-testid="import-offer">
          <p>
            Import ${offer.candidates.length === 1 ? '1 server' : `${offer.candidates.length} servers`} found in
            ${clients.join(', ')}:
          </p>
          <ul>
            ${offer.candidates.map(
              (c) => html`<li data-candidate=${c.id}>
                <b>${c.id}</b> <span class="muted">${c.client ?? c.file}</span>
                ${c.notes.length > 0 ? html`<span class="muted">(${c.notes.join('; ')})</span>` : nothing}
              </li>`,
            )}
          </ul>
          <button type="button" class="primary" data-action="import" ?disabled=${s.importing} @click=${a.importAll}>
            ${s.importing ? 'Importing…' : `Import ${offer.candidates.length === 1 ? 'it' : 'them'}`}
          </button>
        </div>`
      : offer
        ? html`<p class="muted" data-testid="import-none">
            No servers to import from your AI clients${offer.lookedAt.length > 0 ? ` (looked at ${offer.lookedAt.join('; ')})` : ''}.
          </p>`
        : nothing}
    ${s.offerError ? html`<p class="muted" data-testid="import-error">${s.offerError}</p>` : nothing}
    ${offer && offer.problems.length > 0
      ? html`<p class="muted">Could not read: ${offer.problems.join('; ')}</p>`
      : nothing}
    <button type="button" data-action="add-server" @click=${a.openAdd}>Add a server</button>
  </div>`;
}

/** The "Add a server" button above a non-empty table. */
export function serversToolbar(a: SetupActions): TemplateResult {
  return html`<div class="servers-toolbar">
    <button type="button" class="small" data-action="add-server" @click=${a.openAdd}>Add a server</button>
  </div>`;
}

/** A row's "Edit" button. */
export function editButton(id: string, a: SetupActions): TemplateResult {
  return html`<button type="button" class="small" aria-label=${`Edit ${id}`} data-action="edit" @click=${() => a.openEdit(id)}>
    Edit
  </button>`;
}

function field(
  label: string,
  name: string,
  value: string,
  onInput: (v: string) => void,
  opts: { multiline?: boolean; readonly?: boolean; placeholder?: string } = {},
): TemplateResult {
  const input = (e: Event) => onInput((e.target as HTMLInputElement | HTMLTextAreaElement).value);
  return html`<label class="field">
    <span>${label}</span>
    ${opts.multiline
      ? html`<textarea name=${name} rows="3" placeholder=${opts.placeholder ?? ''} .value=${value} @input=${input}></textarea>`
      : html`<input
          name=${name}
          type="text"
          placeholder=${opts.placeholder ?? ''}
          ?readonly=${opts.readonly ?? false}
          .value=${value}
          @input=${input}
        />`}
  </label>`;
}

/** The add/edit dialog (always in the page; opened by the actions). */
export function serverFormDialog(s: SetupState, a: SetupActions): TemplateResult {
  const f = s.form;
  return html`<dialog id="server-form" aria-labelledby="server-form-h" @close=${a.closeForm}>
    ${f
      ? html`<form
          method="dialog"
          @submit=${(e: Event) => {
            e.preventDefault();
            a.save();
          }}
        >
          <h2 id="server-form-h">${f.mode === 'add' ? 'Add a server' : `Edit ${f.id}`}</h2>
          ${f.mode === 'add' ? registryPanel(s.registry, a) : nothing}
          ${f.mode === 'add' ? html`<p class="muted">Or write its definition:</p>` : nothing}
          ${field('Name', 'id', f.id, (id) => a.edit({ id }), { readonly: f.mode === 'edit', placeholder: 'github' })}
          <fieldset class="transport">
            <legend>Runs as</legend>
            <label
              ><input
                type="radio"
                name="transport"
                value="stdio"
                .checked=${f.transport === 'stdio'}
                @change=${() => a.edit({ transport: 'stdio' })}
              />
              A command on this computer</label
            >
            <label
              ><input
                type="radio"
                name="transport"
                value="http"
                .checked=${f.transport === 'http'}
                @change=${() => a.edit({ transport: 'http' })}
              />
              A remote URL</label
            >
          </fieldset>
          ${f.transport === 'stdio'
            ? html`${field('Command', 'command', f.command, (command) => a.edit({ command }), { placeholder: 'npx' })}
              ${field('Arguments (one per line)', 'args', f.args, (args) => a.edit({ args }), { multiline: true })}
              ${field('Environment (NAME=value, one per line)', 'env', f.env, (env) => a.edit({ env }), { multiline: true })}`
            : html`${field('URL', 'url', f.url, (url) => a.edit({ url }), { placeholder: 'https://…/mcp' })}
              ${field('Headers (Name: value, one per line)', 'headers', f.headers, (headers) => a.edit({ headers }), {
                multiline: true,
              })}`}
          <label class="check"
            ><input
              type="checkbox"
              name="enabled"
              .checked=${f.enabled}
              @change=${(e: Event) => a.edit({ enabled: (e.target as HTMLInputElement).checked })}
            />
            Enabled</label
          >
          ${f.mode === 'edit'
            ? html`<p class="muted">Values shown as *** are kept as they are unless you type new ones.</p>`
            : nothing}
          ${f.error ? html`<div class="banner error" role="alert" data-testid="form-error">${f.error}</div>` : nothing}
          <div class="dialog-actions">
            ${f.mode === 'edit'
              ? html`<button type="button" class="danger" data-action="remove" ?disabled=${f.busy} @click=${a.remove}>
                  ${f.confirmRemove ? `Really remove ${f.id}?` : 'Remove'}
                </button>`
              : nothing}
            <span class="spacer"></span>
            <button type="button" @click=${a.closeForm}>Cancel</button>
            <button type="submit" class="primary" data-action="save" ?disabled=${f.busy}>${f.busy ? 'Saving…' : 'Save'}</button>
          </div>
        </form>`
      : nothing}
  </dialog>`;
}
