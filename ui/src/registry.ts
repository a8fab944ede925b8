// The MCP Registry in the "Add a server" dialog: a search (GET
// api/v1/registry?search=), a result's details, and an install form built
// from the values its document declares (secret ones typed as passwords; the
// hub puts them in the OS keyring). Installing (POST api/v1/registry/install)
// fetches and checks the package; the new server is then vetted: its tools
// are held (change "new server") until approved. setup.ts owns the state.

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import type { RegistryInput, RegistryInstallResponse, RegistrySearchResponse, RegistryServer } from './api.gen';

export interface RegistryState {
  query: string;
  searching: boolean;
  answer: RegistrySearchResponse | null;
  error: string | null;
  /** The server picked for the install form. */
  picked: RegistryServer | null;
  id: string;
  values: Record<string, string>;
  installing: boolean;
}

export interface RegistryActions {
  registryQuery(query: string): void;
  registrySearch(): void;
  registryPick(server: RegistryServer | null): void;
  registryValue(name: string, value: string): void;
  registryId(id: string): void;
  registryInstall(): void;
}

export function emptyRegistry(): RegistryState {
  return { query: '', searching: false, answer: null, error: null, picked: null, id: '', values: {}, installing: false };
}

export const registryApi = {
  search: (q: string) =>
    call<RegistrySearchResponse>('GET', `registry?search=${encodeURIComponent(q)}`, 'search the MCP Registry'),
  install: (body: { name: string; id?: string; env?: Record<string, string>; headers?: Record<string, string> }) =>
    call<RegistryInstallResponse>('POST', 'registry/install', `add ${body.name}`, body),
};

/** The id a registry name gets by default (its last part), as the hub makes it. */
export function defaultId(name: string): string {
  const last = name.split('/').pop() ?? name;
  const id = last.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40);
  return id === '' ? 'server' : id;
}

/** The install body for the picked server: values split into env and headers. */
export function installBody(s: RegistryState): {
  name: string;
  id?: string;
  env: Record<string, string>;
  headers: Record<string, string>;
} {
  const picked = s.picked;
  if (!picked) throw new Error('nothing picked');
  const pick = (inputs: RegistryInput[]) =>
    Object.fromEntries(
      inputs.filter((i) => (s.values[i.name] ?? '') !== '').map((i) => [i.name, s.values[i.name] ?? '']),
    );
  const id = s.id.trim();
  return {
    name: picked.name,
    ...(id !== '' && id !== defaultId(picked.name) ? { id } : {}),
    env: pick(picked.env),
    headers: pick(picked.headers),
  };
}

function inputField(input: RegistryInput, value: string, a: RegistryActions): TemplateResult {
  return html`<label class="field">
    <span
      >${input.name}${input.required ? ' (required)' : ''}${input.secret ? ' — kept in the keyring' : ''}</span
    >
    <input
      name=${`registry-${input.name}`}
      type=${input.secret ? 'password' : 'text'}
      autocomplete="off"
      placeholder=${input.default ?? ''}
      .value=${value}
      @input=${(e: Event) => a.registryValue(input.name, (e.target as HTMLInputElement).value)}
    />
    ${input.description ? html`<small class="muted">${input.description}</small>` : nothing}
  </label>`;
}

/** The registry part of the add dialog. */
export function registryPanel(s: RegistryState, a: RegistryActions): TemplateResult {
  const picked = s.picked;
  if (picked) {
    const inputs = [...picked.env, ...picked.headers];
    return html`<section class="registry" data-testid="registry-install">
      <h3>${picked.title ?? picked.name} <span class="muted">${picked.version}</span></h3>
      <p class="muted">${picked.name} · ${picked.transports.join(', ')}</p>
      ${picked.description ? html`<p>${picked.description}</p>` : nothing}
      <label class="field">
        <span>Name</span>
        <input
          name="registry-id"
          type="text"
          placeholder=${defaultId(picked.name)}
          .value=${s.id}
          @input=${(e: Event) => a.registryId((e.target as HTMLInputElement).value)}
        />
      </label>
      ${inputs.map((i) => inputField(i, s.values[i.name] ?? '', a))}
      <p class="muted">
        It is fetched at this exact version and its digest checked. Its first start runs without these values,
        offline and sandboxed, only to list its tools; they stay held until you approve them.
      </p>
      ${s.error ? html`<div class="banner error" role="alert" data-testid="registry-error">${s.error}</div>` : nothing}
      <div class="dialog-actions">
        <button type="button" @click=${() => a.registryPick(null)}>Back</button>
        <span class="spacer"></span>
        <button
          type="button"
          class="primary"
          data-action="registry-install"
          ?disabled=${s.installing}
          @click=${a.registryInstall}
        >
          ${s.installing ? 'Fetching and checking…' : 'Install'}
        </button>
      </div>
    </section>`;
  }
  const servers = s.answer?.servers ?? [];
  return html`<section class="registry" data-testid="registry-search">
    <div class="registry-search">
      <label class="field">
        <span>Find it in the MCP Registry</span>
        <input
          name="registry-query"
          type="search"
          placeholder="memory, github, time…"
          .value=${s.query}
          @input=${(e: Event) => a.registryQuery((e.target as HTMLInputElement).value)}
          @keydown=${(e: KeyboardEvent) => {
            // Enter searches (the dialog's own form would save the definition).
            if (e.key === 'Enter') {
              e.preventDefault();
              a.registrySearch();
            }
          }}
        />
      </label>
      <button type="button" data-action="registry-search" ?disabled=${s.searching} @click=${a.registrySearch}>
        ${s.searching ? 'Searching…' : 'Search'}
      </button>
    </div>
    ${s.error ? html`<div class="banner error" role="alert" data-testid="registry-error">${s.error}</div>` : nothing}
    ${s.answer?.staleSince
      ? html`<p class="muted">The registry cannot be reached; this answer is from ${s.answer.staleSince}.</p>`
      : nothing}
    ${s.answer && servers.length === 0 ? html`<p class="muted">Nothing matches “${s.query}”.</p>` : nothing}
    ${servers.length > 0
      ? html`<ul class="registry-results">
          ${servers.map(
            (r) => html`<li data-testid="registry-result">
              <b>${r.title ?? r.name}</b> <span class="muted">${r.version} · ${r.transports.join(', ')}</span>
              ${r.description ? html`<div class="muted">${r.description}</div>` : nothing}
              ${r.installed
                ? html`<span class="muted">installed as ${r.installedAs ?? '?'}</span>`
                : html`<button type="button" class="small" data-action="registry-pick" @click=${() => a.registryPick(r)}>
                    Add…
                  </button>`}
            </li>`,
          )}
        </ul>`
      : nothing}
  </section>`;
}
