import { describe, expect, it } from 'vitest';
import { CLIENT_SNIPPETS } from '../src/clients.gen';
import { FIRST_CLIENT, snippets } from '../src/snippets';

const URL = 'http://127.0.0.1:8420/mcp';
const OTHER = 'http://127.0.0.1:9999/mcp';

describe('connect-a-client snippets', () => {
  const byClient = Object.fromEntries(snippets(OTHER).map((s) => [s.client, s]));

  it('covers every client of the table, each with its own snippet', () => {
    const ids = snippets(URL).map((s) => s.client);
    expect(ids).toEqual(CLIENT_SNIPPETS.map((c) => c.id));
    expect(ids.length).toBeGreaterThanOrEqual(27);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(FIRST_CLIENT);
    for (const id of ['zed', 'cline', 'roo-code', 'continue', 'goose', 'opencode', 'warp', 'vscode-insiders']) {
      expect(ids).toContain(id);
    }
    expect(snippets(URL).every((s) => s.where.length > 0 && s.text.length > 0)).toBe(true);
  });

  it('gives HTTP clients the endpoint in their own dialect', () => {
    expect(JSON.parse(byClient['claude-code']!.text)).toEqual({ mcpServers: { switchboard: { type: 'http', url: OTHER } } });
    expect(byClient['claude-code']!.command).toBe(`claude mcp add --transport http --scope user switchboard ${OTHER}`);
    expect(JSON.parse(byClient.cursor!.text)).toEqual({ mcpServers: { switchboard: { url: OTHER } } });
    expect(JSON.parse(byClient.vscode!.text)).toEqual({ servers: { switchboard: { type: 'http', url: OTHER } } });
    expect(byClient.codex!.text).toBe(`[mcp_servers.switchboard]\nurl = "${OTHER}"\n`);
    expect(byClient.codex!.language).toBe('toml');
    expect(byClient.goose!.language).toBe('yaml');
    expect(byClient.goose!.text).toContain(OTHER);
  });

  it('gives Claude Desktop the stdio bridge, with --url unless the endpoint is the default', () => {
    expect(JSON.parse(byClient['claude-desktop']!.text)).toEqual({
      mcpServers: { switchboard: { command: 'switchboard', args: ['stdio', '--url', OTHER] } },
    });
    const atDefault = snippets(URL).find((s) => s.client === 'claude-desktop')!;
    expect(JSON.parse(atDefault.text)).toEqual({ mcpServers: { switchboard: { command: 'switchboard', args: ['stdio'] } } });
  });

  it('follows the endpoint it is given everywhere', () => {
    expect(snippets(OTHER).every((s) => s.text.includes(':9999/mcp') && !s.text.includes('invalid'))).toBe(true);
  });
});
