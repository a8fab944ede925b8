// Generated from the client table (crates/switchboard-clients/src/table.rs) by
// `SWITCHBOARD_WRITE_TS=1 cargo test -p switchboard --lib ui_snippets`; do not edit.
// Each text is `switchboard connect <id> --print` for ENDPOINT_PLACEHOLDER.

export const ENDPOINT_PLACEHOLDER = "http://switchboard-endpoint.invalid/mcp";
export const DEFAULT_ENDPOINT = "http://127.0.0.1:8420/mcp";

export interface ClientSnippet {
  id: string;
  name: string;
  where: string;
  language: 'json' | 'toml' | 'yaml';
  text: string;
  atDefault?: string;
}

export const CLIENT_SNIPPETS: readonly ClientSnippet[] = [
  {
    "id": "claude-desktop",
    "name": "Claude Desktop",
    "where": "Add this to ~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/claude_desktop_config.json, Windows: %APPDATA%\\Claude\\claude_desktop_config.json), or run `switchboard connect claude-desktop`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\",\n        \"--url\",\n        \"http://switchboard-endpoint.invalid/mcp\"\n      ]\n    }\n  }\n}\n",
    "atDefault": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\"\n      ]\n    }\n  }\n}\n"
  },
  {
    "id": "claude-code",
    "name": "Claude Code",
    "where": "Add this to ~/.claude.json (Windows: %USERPROFILE%\\.claude.json), or run `switchboard connect claude-code`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "cursor",
    "name": "Cursor",
    "where": "Add this to ~/.cursor/mcp.json (Windows: %USERPROFILE%\\.cursor\\mcp.json), or run `switchboard connect cursor`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "vscode",
    "name": "VS Code",
    "where": "Add this to ~/.config/Code/User/mcp.json (macOS: ~/Library/Application Support/Code/User/mcp.json, Windows: %APPDATA%\\Code\\User\\mcp.json), or run `switchboard connect vscode`",
    "language": "json",
    "text": "{\n  \"servers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "windsurf",
    "name": "Windsurf",
    "where": "Add this to ~/.codeium/windsurf/mcp_config.json (Windows: %USERPROFILE%\\.codeium\\windsurf\\mcp_config.json), or run `switchboard connect windsurf`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"serverUrl\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "codex",
    "name": "Codex",
    "where": "Add this to ~/.codex/config.toml (Windows: %USERPROFILE%\\.codex\\config.toml), or run `switchboard connect codex`",
    "language": "toml",
    "text": "[mcp_servers.switchboard]\nurl = \"http://switchboard-endpoint.invalid/mcp\"\n"
  },
  {
    "id": "gemini",
    "name": "Gemini CLI",
    "where": "Add this to ~/.gemini/settings.json (Windows: %USERPROFILE%\\.gemini\\settings.json), or run `switchboard connect gemini`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"httpUrl\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "vscode-insiders",
    "name": "VS Code Insiders",
    "where": "Add this to ~/.config/Code - Insiders/User/mcp.json (macOS: ~/Library/Application Support/Code - Insiders/User/mcp.json, Windows: %APPDATA%\\Code - Insiders\\User\\mcp.json), or run `switchboard connect vscode-insiders`",
    "language": "json",
    "text": "{\n  \"servers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "zed",
    "name": "Zed",
    "where": "Add this to ~/.config/zed/settings.json (Windows: %APPDATA%\\Zed\\settings.json), or run `switchboard connect zed`",
    "language": "json",
    "text": "{\n  \"context_servers\": {\n    \"switchboard\": {\n      \"source\": \"custom\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "cline",
    "name": "Cline",
    "where": "Add this to ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json), or run `switchboard connect cline`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"streamableHttp\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "roo-code",
    "name": "Roo Code",
    "where": "Add this to ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json), or run `switchboard connect roo-code`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"streamable-http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "kilo-code",
    "name": "Kilo Code",
    "where": "Add this to ~/.config/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json (macOS: ~/Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json, Windows: %APPDATA%\\Code\\User\\globalStorage\\kilocode.kilo-code\\settings\\mcp_settings.json), or run `switchboard connect kilo-code`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"streamable-http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "continue",
    "name": "Continue",
    "where": "Add this to ~/.continue/config.yaml (Windows: %USERPROFILE%\\.continue\\config.yaml), or run `switchboard connect continue`",
    "language": "yaml",
    "text": "mcpServers:\n- name: switchboard\n  type: streamable-http\n  url: http://switchboard-endpoint.invalid/mcp\n"
  },
  {
    "id": "goose",
    "name": "Goose",
    "where": "Add this to ~/.config/goose/config.yaml (Windows: %APPDATA%\\Block\\goose\\config\\config.yaml), or run `switchboard connect goose`",
    "language": "yaml",
    "text": "extensions:\n  switchboard:\n    type: streamable_http\n    enabled: true\n    timeout: 300\n    description: 'Switchboard: your MCP servers behind one endpoint'\n    uri: http://switchboard-endpoint.invalid/mcp\n    name: switchboard\n"
  },
  {
    "id": "opencode",
    "name": "opencode",
    "where": "Add this to ~/.config/opencode/opencode.json (Windows: %USERPROFILE%\\.config\\opencode\\opencode.json), or run `switchboard connect opencode`",
    "language": "json",
    "text": "{\n  \"mcp\": {\n    \"switchboard\": {\n      \"type\": \"remote\",\n      \"enabled\": true,\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "lm-studio",
    "name": "LM Studio",
    "where": "Add this to ~/.lmstudio/mcp.json (Windows: %USERPROFILE%\\.lmstudio\\mcp.json), or run `switchboard connect lm-studio`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "copilot-cli",
    "name": "GitHub Copilot CLI",
    "where": "Add this to ~/.copilot/mcp-config.json (Windows: %USERPROFILE%\\.copilot\\mcp-config.json), or run `switchboard connect copilot-cli`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"tools\": [\n        \"*\"\n      ],\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "qwen-code",
    "name": "Qwen Code",
    "where": "Add this to ~/.qwen/settings.json (Windows: %USERPROFILE%\\.qwen\\settings.json), or run `switchboard connect qwen-code`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"httpUrl\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "crush",
    "name": "Crush",
    "where": "Add this to ~/.config/crush/crush.json (Windows: %LOCALAPPDATA%\\crush\\crush.json), or run `switchboard connect crush`",
    "language": "json",
    "text": "{\n  \"mcp\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "kiro",
    "name": "Kiro",
    "where": "Add this to ~/.kiro/settings/mcp.json (Windows: %USERPROFILE%\\.kiro\\settings\\mcp.json), or run `switchboard connect kiro`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "amp",
    "name": "Amp",
    "where": "Add this to ~/.config/amp/settings.json (Windows: %USERPROFILE%\\.config\\amp\\settings.json), or run `switchboard connect amp`",
    "language": "json",
    "text": "{\n  \"amp.mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "junie",
    "name": "Junie",
    "where": "Add this to ~/.junie/mcp/mcp.json (Windows: %USERPROFILE%\\.junie\\mcp\\mcp.json), or run `switchboard connect junie`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\",\n        \"--url\",\n        \"http://switchboard-endpoint.invalid/mcp\"\n      ]\n    }\n  }\n}\n",
    "atDefault": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\"\n      ]\n    }\n  }\n}\n"
  },
  {
    "id": "augment",
    "name": "Augment (Auggie CLI)",
    "where": "Add this to ~/.augment/settings.json (Windows: %USERPROFILE%\\.augment\\settings.json), or run `switchboard connect augment`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "trae",
    "name": "Trae",
    "where": "Add this to ~/.config/Trae/User/mcp.json (macOS: ~/Library/Application Support/Trae/User/mcp.json, Windows: %APPDATA%\\Trae\\User\\mcp.json), or run `switchboard connect trae`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "jan",
    "name": "Jan",
    "where": "Add this to ~/.config/Jan/data/mcp_config.json (macOS: ~/Library/Application Support/Jan/data/mcp_config.json, Windows: %APPDATA%\\Jan\\data\\mcp_config.json), or run `switchboard connect jan`",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"type\": \"http\",\n      \"command\": \"\",\n      \"args\": [],\n      \"active\": true,\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  },
  {
    "id": "cherry-studio",
    "name": "Cherry Studio",
    "where": "Cherry Studio keeps MCP servers in its own store, not in a file: paste the snippet from `switchboard connect cherry-studio --print` in Settings > MCP Servers > Add > Import from JSON",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\",\n        \"--url\",\n        \"http://switchboard-endpoint.invalid/mcp\"\n      ]\n    }\n  }\n}\n",
    "atDefault": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"switchboard\",\n      \"args\": [\n        \"stdio\"\n      ]\n    }\n  }\n}\n"
  },
  {
    "id": "warp",
    "name": "Warp",
    "where": "Warp keeps MCP servers in its own database, not in a file: paste the snippet from `switchboard connect warp --print` in Settings > AI > MCP Servers > Add",
    "language": "json",
    "text": "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"url\": \"http://switchboard-endpoint.invalid/mcp\"\n    }\n  }\n}\n"
  }
];
