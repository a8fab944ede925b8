//! The client table: one row per AI client, with where its MCP config lives
//! on Linux, macOS and Windows, the dialect of that file, the project files
//! `import` also reads, and the shape of the entry that reaches Switchboard.
//!
//! Each row names the documentation it was taken from; check it again there
//! before changing a row. The first seven rows are the clients the code names
//! (`Client::ClaudeDesktop` ... `Client::Gemini` in [`catalog`](super::catalog)):
//! keep them first and in this order.

use super::FileFormat as F;
use super::catalog::{Base, HttpEntry, Loc, Spec, UserFile};

const fn all(base: Base, rel: &'static str) -> UserFile {
    UserFile::All(Loc(base, rel))
}

/// `{"url": <endpoint>}`.
const URL: Option<HttpEntry> = Some(HttpEntry {
    url_key: "url",
    extra: "{}",
});

/// `{"type": <t>, "url": <endpoint>}`, `extra` being `{"type": <t>}` and more.
const fn typed(extra: &'static str) -> Option<HttpEntry> {
    Some(HttpEntry {
        url_key: "url",
        extra,
    })
}

/// Clients that start stdio servers only: they get the `switchboard stdio` bridge.
const BRIDGE: Option<HttpEntry> = None;

pub(crate) const CLIENTS: [Spec; 27] = [
    // modelcontextprotocol.io/quickstart/user; support.claude.com (MCP on
    // Claude Desktop). `~/Library/Application Support/Claude/`, `%APPDATA%\Claude\`,
    // `~/.config/Claude/` (community Linux builds). Stdio servers only.
    Spec {
        id: "claude-desktop",
        name: "Claude Desktop",
        aliases: &["claudedesktop", "desktop"],
        format: F::McpServers,
        user: all(Base::Config, "Claude/claude_desktop_config.json"),
        project: &[],
        http: BRIDGE,
    },
    // code.claude.com/docs/en/mcp: user scope in `~/.claude.json` `mcpServers`,
    // local scope in `projects.<path>.mcpServers`, project scope in `.mcp.json`.
    // `type` stdio (default) | http | sse. No per-entry off switch
    // (anthropics/claude-code#50826).
    Spec {
        id: "claude-code",
        name: "Claude Code",
        aliases: &["claudecode", "claude"],
        format: F::ClaudeCode,
        user: all(Base::Home, ".claude.json"),
        project: &[(".mcp.json", F::McpServers)],
        http: typed(r#"{"type": "http"}"#),
    },
    // cursor.com/docs/mcp: `~/.cursor/mcp.json` (`%USERPROFILE%\.cursor\`),
    // project `.cursor/mcp.json`; `command/args/env` or `url/headers`.
    Spec {
        id: "cursor",
        name: "Cursor",
        aliases: &[],
        format: F::McpServers,
        user: all(Base::Home, ".cursor/mcp.json"),
        project: &[(".cursor/mcp.json", F::McpServers)],
        http: URL,
    },
    // code.visualstudio.com/docs/copilot/reference/mcp-configuration: user
    // `mcp.json` in the User dir, workspace `.vscode/mcp.json`; JSONC
    // `{"servers": {...}, "inputs": [...]}`, `envFile`, `${input:..}`.
    Spec {
        id: "vscode",
        name: "VS Code",
        aliases: &["vs-code", "code"],
        format: F::VsCode,
        user: all(Base::Config, "Code/User/mcp.json"),
        project: &[(".vscode/mcp.json", F::VsCode)],
        http: typed(r#"{"type": "http"}"#),
    },
    // docs.windsurf.com/windsurf/cascade/mcp: `~/.codeium/windsurf/mcp_config.json`,
    // remote servers under `serverUrl`.
    Spec {
        id: "windsurf",
        name: "Windsurf",
        aliases: &["codeium"],
        format: F::Windsurf,
        user: all(Base::Home, ".codeium/windsurf/mcp_config.json"),
        project: &[],
        http: Some(HttpEntry {
            url_key: "serverUrl",
            extra: "{}",
        }),
    },
    // developers.openai.com/codex/mcp: `$CODEX_HOME/config.toml` (default
    // `~/.codex`), `[mcp_servers.<name>]`, `enabled = false`.
    Spec {
        id: "codex",
        name: "Codex",
        aliases: &["codex-cli"],
        format: F::Codex,
        user: all(Base::CodexHome, "config.toml"),
        project: &[],
        http: URL,
    },
    // geminicli.com/docs/tools/mcp-server: `~/.gemini/settings.json`, project
    // `.gemini/settings.json`; `httpUrl` (Streamable HTTP) or `url` (SSE);
    // `mcp.allowed` / `mcp.excluded` lists.
    Spec {
        id: "gemini",
        name: "Gemini CLI",
        aliases: &["gemini-cli"],
        format: F::Gemini,
        user: all(Base::Home, ".gemini/settings.json"),
        project: &[(".gemini/settings.json", F::Gemini)],
        http: Some(HttpEntry {
            url_key: "httpUrl",
            extra: "{}",
        }),
    },
    // code.visualstudio.com/docs/copilot/reference/mcp-configuration (the
    // Insiders build keeps its User dir under "Code - Insiders").
    Spec {
        id: "vscode-insiders",
        name: "VS Code Insiders",
        aliases: &["code-insiders", "insiders"],
        format: F::VsCode,
        user: all(Base::Config, "Code - Insiders/User/mcp.json"),
        project: &[],
        http: typed(r#"{"type": "http"}"#),
    },
    // zed.dev/docs/ai/mcp and zed.dev/docs/configuring-zed: `~/.config/zed/settings.json`
    // (Linux and macOS, `$XDG_CONFIG_HOME`), `%APPDATA%\Zed\settings.json`;
    // project `.zed/settings.json`. JSONC; `context_servers.<name>` is
    // `{command, args, env}` or `{url, headers}`, `enabled`, `"source": "custom"`.
    Spec {
        id: "zed",
        name: "Zed",
        aliases: &[],
        format: F::Zed,
        user: UserFile::PerOs([
            Loc(Base::Xdg, "zed/settings.json"),
            Loc(Base::Xdg, "zed/settings.json"),
            Loc(Base::Config, "Zed/settings.json"),
        ]),
        project: &[(".zed/settings.json", F::Zed)],
        http: typed(r#"{"source": "custom"}"#),
    },
    // docs.cline.bot/mcp/configuring-mcp-servers: `cline_mcp_settings.json` in
    // the extension's VS Code global storage; `disabled`, `autoApprove`,
    // `timeout` (s), `type: "streamableHttp"` for remote servers.
    Spec {
        id: "cline",
        name: "Cline",
        aliases: &[],
        format: F::Cline,
        user: all(
            Base::Config,
            "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        ),
        project: &[],
        http: typed(r#"{"type": "streamableHttp"}"#),
    },
    // docs.roocode.com/features/mcp/using-mcp-in-roo: global `mcp_settings.json`
    // in the extension's global storage, project `.roo/mcp.json`;
    // `disabled`, `alwaysAllow`, `type: "streamable-http"`.
    Spec {
        id: "roo-code",
        name: "Roo Code",
        aliases: &["roo", "roocode"],
        format: F::Cline,
        user: all(
            Base::Config,
            "Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        ),
        project: &[(".roo/mcp.json", F::Cline)],
        http: typed(r#"{"type": "streamable-http"}"#),
    },
    // kilocode.ai/docs/features/mcp/using-mcp-in-kilo-code: as Roo Code, in
    // `kilocode.kilo-code`'s global storage; project `.kilocode/mcp.json`.
    Spec {
        id: "kilo-code",
        name: "Kilo Code",
        aliases: &["kilo", "kilocode"],
        format: F::Cline,
        user: all(
            Base::Config,
            "Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
        ),
        project: &[(".kilocode/mcp.json", F::Cline)],
        http: typed(r#"{"type": "streamable-http"}"#),
    },
    // docs.continue.dev/customize/deep-dives/mcp: `~/.continue/config.yaml`
    // (`%USERPROFILE%\.continue`), a `mcpServers` list; project blocks in
    // `.continue/mcpServers/*.yaml`. `type` stdio | sse | streamable-http.
    Spec {
        id: "continue",
        name: "Continue",
        aliases: &[],
        format: F::Continue,
        user: all(Base::Home, ".continue/config.yaml"),
        project: &[(".continue/mcpServers/*.yaml", F::Continue)],
        http: typed(r#"{"type": "streamable-http"}"#),
    },
    // block.github.io/goose/docs/guides/config-files: `~/.config/goose/config.yaml`
    // (Linux, macOS), `%APPDATA%\Block\goose\config\config.yaml`; `extensions`
    // map, `type` stdio (`cmd`, `args`, `envs`) | streamable_http | sse (`uri`).
    Spec {
        id: "goose",
        name: "Goose",
        aliases: &[],
        format: F::Goose,
        user: UserFile::PerOs([
            Loc(Base::Xdg, "goose/config.yaml"),
            Loc(Base::Xdg, "goose/config.yaml"),
            Loc(Base::Config, "Block/goose/config/config.yaml"),
        ]),
        project: &[],
        http: Some(HttpEntry {
            url_key: "uri",
            extra: r#"{"type": "streamable_http", "enabled": true, "timeout": 300,
                       "description": "Switchboard: your MCP servers behind one endpoint"}"#,
        }),
    },
    // opencode.ai/docs/mcp-servers and opencode.ai/docs/config:
    // `~/.config/opencode/opencode.json` on every OS, project `opencode.json`;
    // `mcp.<name>` `{type: "local", command: [...], environment, enabled}` or
    // `{type: "remote", url, headers, enabled}`.
    Spec {
        id: "opencode",
        name: "opencode",
        aliases: &["open-code"],
        format: F::OpenCode,
        user: all(Base::Xdg, "opencode/opencode.json"),
        project: &[("opencode.json", F::OpenCode)],
        http: typed(r#"{"type": "remote", "enabled": true}"#),
    },
    // lmstudio.ai/docs/app/mcp: `~/.lmstudio/mcp.json` (`%USERPROFILE%\.lmstudio`),
    // Cursor's notation.
    Spec {
        id: "lm-studio",
        name: "LM Studio",
        aliases: &["lmstudio"],
        format: F::McpServers,
        user: all(Base::Home, ".lmstudio/mcp.json"),
        project: &[],
        http: URL,
    },
    // docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers:
    // `~/.copilot/mcp-config.json`, `mcpServers` with `type` local | stdio |
    // http | sse and `tools` (`["*"]` for all).
    Spec {
        id: "copilot-cli",
        name: "GitHub Copilot CLI",
        aliases: &["copilot"],
        format: F::CopilotCli,
        user: all(Base::Home, ".copilot/mcp-config.json"),
        project: &[],
        http: typed(r#"{"type": "http", "tools": ["*"]}"#),
    },
    // qwenlm.github.io/qwen-code-docs (tools/mcp-server): Gemini CLI's format
    // in `~/.qwen/settings.json`, project `.qwen/settings.json`.
    Spec {
        id: "qwen-code",
        name: "Qwen Code",
        aliases: &["qwen"],
        format: F::Gemini,
        user: all(Base::Home, ".qwen/settings.json"),
        project: &[(".qwen/settings.json", F::Gemini)],
        http: Some(HttpEntry {
            url_key: "httpUrl",
            extra: "{}",
        }),
    },
    // github.com/charmbracelet/crush (README, schema.json): `~/.config/crush/crush.json`
    // (`$XDG_CONFIG_HOME`), `%LOCALAPPDATA%\crush\crush.json`; project
    // `crush.json` / `.crush.json`. `mcp.<name>` with `type` stdio | http |
    // sse, `disabled`, `disabled_tools`, `timeout`.
    Spec {
        id: "crush",
        name: "Crush",
        aliases: &[],
        format: F::Crush,
        user: UserFile::PerOs([
            Loc(Base::Xdg, "crush/crush.json"),
            Loc(Base::Xdg, "crush/crush.json"),
            Loc(Base::LocalData, "crush/crush.json"),
        ]),
        project: &[("crush.json", F::Crush), (".crush.json", F::Crush)],
        http: typed(r#"{"type": "http"}"#),
    },
    // kiro.dev/docs/mcp/configuration: user `~/.kiro/settings/mcp.json`,
    // workspace `.kiro/settings/mcp.json`; `disabled`, `autoApprove`,
    // `disabledTools`; remote servers by `url`.
    Spec {
        id: "kiro",
        name: "Kiro",
        aliases: &[],
        format: F::Cline,
        user: all(Base::Home, ".kiro/settings/mcp.json"),
        project: &[(".kiro/settings/mcp.json", F::Cline)],
        http: URL,
    },
    // ampcode.com/manual (MCP): `~/.config/amp/settings.json`
    // (`%USERPROFILE%\.config\amp\settings.json`), key `amp.mcpServers`.
    Spec {
        id: "amp",
        name: "Amp",
        aliases: &[],
        format: F::Amp,
        user: all(Base::Xdg, "amp/settings.json"),
        project: &[],
        http: URL,
    },
    // jetbrains.com/help/junie/model-context-protocol-mcp.html: user
    // `~/.junie/mcp/mcp.json`, project `.junie/mcp/mcp.json`, `mcpServers`
    // with stdio servers.
    Spec {
        id: "junie",
        name: "Junie",
        aliases: &[],
        format: F::McpServers,
        user: all(Base::Home, ".junie/mcp/mcp.json"),
        project: &[(".junie/mcp/mcp.json", F::McpServers)],
        http: BRIDGE,
    },
    // docs.augmentcode.com/cli/integrations (Auggie CLI): `~/.augment/settings.json`,
    // `mcpServers` with `command/args/env` or `{type: "http", url, headers}`.
    Spec {
        id: "augment",
        name: "Augment (Auggie CLI)",
        aliases: &["auggie"],
        format: F::McpServers,
        user: all(Base::Home, ".augment/settings.json"),
        project: &[],
        http: typed(r#"{"type": "http"}"#),
    },
    // docs.trae.ai/ide/model-context-protocol: `mcp.json` in Trae's User dir
    // (`~/Library/Application Support/Trae/User/`, `%APPDATA%\Trae\User\`,
    // `~/.config/Trae/User/`), project `.trae/mcp.json`; `mcpServers`.
    Spec {
        id: "trae",
        name: "Trae",
        aliases: &[],
        format: F::McpServers,
        user: all(Base::Config, "Trae/User/mcp.json"),
        project: &[(".trae/mcp.json", F::McpServers)],
        http: URL,
    },
    // jan.ai/docs/desktop/mcp and jan.ai/docs/data-folder: `mcp_config.json`
    // in the Jan data folder (`~/.config/Jan/data`, `~/Library/Application
    // Support/Jan/data`, `%APPDATA%\Jan\data`); `mcpServers` with `active`.
    // jan.ai/docs/desktop/integrations/mcp-servers: transports STDIO, HTTP
    // (Streamable HTTP) and SSE; an HTTP entry is `"type": "http"` with `url`
    // (janhq/jan `extract_command_args`; releases before 0.7 also need
    // `command` and `args`, empty, and newer ones run only allow-listed
    // commands, so the bridge's path would be refused).
    Spec {
        id: "jan",
        name: "Jan",
        aliases: &[],
        format: F::Jan,
        user: all(Base::Config, "Jan/data/mcp_config.json"),
        project: &[],
        http: typed(r#"{"type": "http", "command": "", "args": [], "active": true}"#),
    },
    // docs.cherry-ai.com (MCP: install and configure): servers are kept in
    // the app's own store and added in its settings, where JSON in Claude
    // Desktop's `mcpServers` form can be pasted.
    Spec {
        id: "cherry-studio",
        name: "Cherry Studio",
        aliases: &["cherry", "cherrystudio"],
        format: F::McpServers,
        user: UserFile::NoFile(
            "Cherry Studio keeps MCP servers in its own store, not in a file: paste the \
             snippet from `switchboard connect cherry-studio --print` in Settings > MCP \
             Servers > Add > Import from JSON",
        ),
        project: &[],
        http: BRIDGE,
    },
    // docs.warp.dev/knowledge-and-collaboration/mcp: servers are kept in
    // Warp's own database and added in Settings > AI > MCP Servers, which
    // takes JSON in the `mcpServers` form (`command/args/env` or `url`).
    Spec {
        id: "warp",
        name: "Warp",
        aliases: &[],
        format: F::McpServers,
        user: UserFile::NoFile(
            "Warp keeps MCP servers in its own database, not in a file: paste the snippet \
             from `switchboard connect warp --print` in Settings > AI > MCP Servers > Add",
        ),
        project: &[],
        http: URL,
    },
];
