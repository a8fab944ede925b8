import { describe, expect, it } from 'vitest';
import { snippets } from '../src/snippets';

const URL = 'http://127.0.0.1:8420/mcp';

describe('connect-a-client snippets', () => {
  const byClient = Object.fromEntries(snippets(URL).map((s) => [s.client, s]));

  it('covers the five clients in order', () => {
    expect(snippets(URL).map((s) => s.label)).toEqual(['Claude Code', 'Cursor', 'VS Code', 'Codex', 'Claude Desktop']);
  });

  it('gives HTTP clients the endpoint in their own dialect', () => {
    expect(JSON.parse(byClient.claudeCode!.text)).toEqual({ mcpServers: { switchboard: { type: 'http', url: URL } } });
    expect(byClient.claudeCode!.command).toBe(`claude mcp add --transport http --scope user switchboard ${URL}`);
    expect(JSON.parse(byClient.cursor!.text)).toEqual({ mcpServers: { switchboard: { url: URL } } });
    expect(JSON.parse(byClient.vscode!.text)).toEqual({ servers: { switchboard: { type: 'http', url: URL } } });
    expect(byClient.codex!.text).toBe(`[mcp_servers.switchboard]\nurl = "${URL}"\n`);
  });

  it('gives Claude Desktop the stdio bridge', () => {
    expect(JSON.parse(byClient.claudeDesktop!.text)).toEqual({
      mcpServers: { switchboard: { command: 'switchboard', args: ['stdio'] } },
    });
  });

  it('follows the endpoint it is given', () => {
    const other = snippets('http://127.0.0.1:9999/mcp');
    expect(other.every((s) => s.client === 'claudeDesktop' || s.text.includes(':9999/mcp'))).toBe(true);
  });
});
