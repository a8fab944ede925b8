// "Connect a client": ready-to-paste config pointing each client at the hub,
// one per client of the CLI's table. The texts come from the table itself
// (`clients.gen.ts`, generated from crates/switchboard-clients/src/table.rs):
// each is what `switchboard connect <id> --print` prints for this endpoint.

import { CLIENT_SNIPPETS, DEFAULT_ENDPOINT, ENDPOINT_PLACEHOLDER } from './clients.gen';

/** A client's table id (`connect ID`). */
export type ClientId = string;

export interface Snippet {
  client: ClientId;
  label: string;
  /** Where the text goes, in words. */
  where: string;
  language: 'json' | 'toml' | 'yaml' | 'shell';
  text: string;
  /** An optional one-line command that does the same. */
  command: string | null;
}

/** The client whose snippet shows first. */
export const FIRST_CLIENT: ClientId = 'claude-code';

/** One-line commands of the clients' own CLIs that add the entry. */
function command(id: ClientId, endpoint: string): string | null {
  if (id === 'claude-code') return `claude mcp add --transport http --scope user switchboard ${endpoint}`;
  return null;
}

export function snippets(endpoint: string): Snippet[] {
  return CLIENT_SNIPPETS.map((c) => ({
    client: c.id,
    label: c.name,
    where: c.where,
    language: c.language,
    text: endpoint === DEFAULT_ENDPOINT && c.atDefault !== undefined ? c.atDefault : c.text.split(ENDPOINT_PLACEHOLDER).join(endpoint),
    command: command(c.id, endpoint),
  }));
}
