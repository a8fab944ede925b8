// The dashboard's catalog search (issue #18): the ranking an agent's
// `switchboard__search_tools` uses, over every enabled server's last known
// listing, so a person can see what an agent would find. Nothing is started.

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import type { SearchMatch, SearchResponse, SearchedTool } from './api.gen';

export interface SearchState {
  query: string;
  results: SearchedTool[] | null;
  error: string | null;
  busy: boolean;
}

export interface SearchActions {
  search(query: string): void;
}

/** Results shown for one search. */
export const SEARCH_LIMIT = 10;

/** The control API path of a search (relative to `/api/v1`). */
export function searchPath(query: string, limit: number = SEARCH_LIMIT): string {
  return `search?q=${encodeURIComponent(query.trim())}&limit=${limit}`;
}

/** The first line of a description, cut to `max` characters. */
export function firstLine(text: string, max = 160): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Why a result was found, as the dashboard says it (the API's `matched`). */
export function matchedLabel(matched: SearchMatch | undefined): { text: string; title: string } {
  switch (matched) {
    case 'semantic':
      return { text: 'by meaning', title: 'Found by meaning: the tool shares no words with the request' };
    case 'both':
      return { text: 'words + meaning', title: 'Found by its words and by meaning' };
    default:
      return { text: 'by words', title: "Found by the request's words in the tool's name or description" };
  }
}

export function createSearch(hooks: { update(): void }): { state: SearchState; actions: SearchActions } {
  const state: SearchState = { query: '', results: null, error: null, busy: false };
  let asked = 0;
  const actions: SearchActions = {
    search(query) {
      state.query = query;
      if (query.trim() === '') {
        state.results = null;
        state.error = null;
        hooks.update();
        return;
      }
      const mine = ++asked;
      state.busy = true;
      hooks.update();
      call<SearchResponse>('GET', searchPath(query), 'search the tools').then(
        (answer) => {
          if (mine !== asked) return;
          state.results = answer.tools;
          state.error = null;
          state.busy = false;
          hooks.update();
        },
        (err: unknown) => {
          if (mine !== asked) return;
          state.error = err instanceof Error ? err.message : String(err);
          state.busy = false;
          hooks.update();
        },
      );
    },
  };
  return { state, actions };
}

function matchedBadge(matched: SearchMatch | undefined): TemplateResult {
  const label = matchedLabel(matched);
  return html`<span class="badge matched" data-matched=${matched ?? 'lexical'} title=${label.title}>${label.text}</span>`;
}

export function searchSection(s: SearchState, a: SearchActions): TemplateResult {
  return html`<section class="search" aria-labelledby="search-h">
    <h2 id="search-h">Find a tool</h2>
    <form
      role="search"
      @submit=${(e: Event) => {
        e.preventDefault();
        const input = (e.target as HTMLFormElement).elements.namedItem('q');
        if (input instanceof HTMLInputElement) a.search(input.value);
      }}
    >
      <input
        type="search"
        name="q"
        aria-label="Search the tools of every server"
        placeholder="What should the tool do? e.g. read a file"
        .value=${s.query}
      />
      <button type="submit" class="small" ?disabled=${s.busy}>${s.busy ? 'Searching…' : 'Search'}</button>
    </form>
    <p class="muted">What an agent's <code>switchboard__search_tools</code> would find: every enabled server's tools, running or not.</p>
    ${s.error ? html`<p class="error-text" role="alert">${s.error}</p>` : nothing}
    ${s.results === null
      ? nothing
      : s.results.length === 0
        ? html`<p class="muted" data-testid="search-empty">No tool matches.</p>`
        : html`<ol class="search-results" data-testid="search-results">
            ${s.results.map(
              (t) => html`<li data-tool=${t.name}>
                <code>${t.name}</code>
                <span class="pill">${t.server}</span>
                ${t.running ? html`<span class="badge">running</span>` : nothing}
                ${matchedBadge(t.matched)}
                <div class="muted">${firstLine(t.description)}</div>
              </li>`,
            )}
          </ol>`}
  </section>`;
}
