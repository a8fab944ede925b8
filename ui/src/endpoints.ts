// The merged MCP endpoints the hub serves (`endpoints` in the snapshot): `/mcp`
// and each profile's `/profiles/<name>/mcp`, with what a client of each gets:
// its tool mode, how many tools its `tools/list` returns and their size in
// tokens. A profile shows its servers and whether it needs a token (never the
// token itself: the snapshot does not carry it). A project file's profile
// (`.switchboard.json`, served on `/mcp` to clients whose roots name its folder)
// shows as "Project <folder>".

import { html, nothing, type TemplateResult } from 'lit-html';
import type { EndpointSnapshot } from './api.gen';
import { plural } from './format';

export interface EndpointRow {
  path: string;
  /** "All servers" for `/mcp`, "Profile <name>" for a profile. */
  title: string;
  /** Mode, tools, tokens, and for a profile its servers and token. */
  detail: string;
}

/** One row per endpoint, in the snapshot's order (`/mcp` first). */
export function endpointRows(endpoints: readonly EndpointSnapshot[] | undefined): EndpointRow[] {
  return (endpoints ?? []).map((e) => {
    const parts = [
      e.toolMode === 'search' ? 'search mode' : e.toolMode === 'code' ? 'code mode' : 'all tools',
      plural(e.tools, 'tool'),
      e.tokensCounted ? `≈${e.toolTokens.toLocaleString('en-US')} tokens` : 'counting tokens…',
    ];
    if (e.profile) {
      parts.push(e.profile.servers.length > 0 ? `servers: ${e.profile.servers.join(', ')}` : 'no servers');
      if (e.profile.project) parts.push('for clients whose roots name this folder');
      else parts.push(e.profile.hasToken ? 'needs its token' : 'no token');
    }
    return {
      path: e.path,
      title: e.profile?.project
        ? `Project ${e.profile.project}`
        : e.profile
          ? `Profile ${e.profile.name}`
          : 'All servers',
      detail: parts.join(' · '),
    };
  });
}

/** The endpoints list; nothing while the snapshot has none. */
export function endpointsView(rows: readonly EndpointRow[]): TemplateResult | typeof nothing {
  if (rows.length === 0) return nothing;
  return html`<ul class="endpoints" data-testid="endpoints" aria-label="Endpoints">
    ${rows.map(
      (r) => html`<li>
        <code>${r.path}</code> <strong>${r.title}</strong>
        <span class="muted">${r.detail}</span>
      </li>`,
    )}
  </ul>`;
}
