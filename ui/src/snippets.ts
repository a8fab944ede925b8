// "Connect a client": ready-to-paste config pointing each client at the hub.
// Same shapes as the CLI's `switchboard connect --print` (crates/switchboard/src/clients/connect.rs).

export type ClientId = 'claudeCode' | 'cursor' | 'vscode' | 'codex' | 'claudeDesktop';

export interface Snippet {
  client: ClientId;
  label: string;
  /** Where the text goes, in words. */
  where: string;
  language: 'json' | 'toml' | 'shell';
  text: string;
  /** An optional one-line command that does the same. */
  command: string | null;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** TOML basic string: JSON string escaping is valid TOML for the characters a URL holds. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function snippets(endpoint: string): Snippet[] {
  return [
    {
      client: 'claudeCode',
      label: 'Claude Code',
      where: 'Run the command, or add this to .mcp.json in your project (or ~/.claude.json)',
      language: 'json',
      text: json({ mcpServers: { switchboard: { type: 'http', url: endpoint } } }),
      command: `claude mcp add --transport http --scope user switchboard ${endpoint}`,
    },
    {
      client: 'cursor',
      label: 'Cursor',
      where: 'Add this to ~/.cursor/mcp.json',
      language: 'json',
      text: json({ mcpServers: { switchboard: { url: endpoint } } }),
      command: null,
    },
    {
      client: 'vscode',
      label: 'VS Code',
      where: 'Add this to .vscode/mcp.json in your workspace (or your user mcp.json)',
      language: 'json',
      text: json({ servers: { switchboard: { type: 'http', url: endpoint } } }),
      command: null,
    },
    {
      client: 'codex',
      label: 'Codex',
      where: 'Add this to ~/.codex/config.toml',
      language: 'toml',
      text: `[mcp_servers.switchboard]\nurl = ${tomlString(endpoint)}\n`,
      command: null,
    },
    {
      client: 'claudeDesktop',
      label: 'Claude Desktop',
      where:
        'Add this to claude_desktop_config.json (Settings → Developer → Edit Config). Claude Desktop speaks stdio, so it runs the switchboard bridge, which forwards to this hub',
      language: 'json',
      text: json({ mcpServers: { switchboard: { command: 'switchboard', args: ['stdio'] } } }),
      command: null,
    },
  ];
}
