//! The catalogue of AI clients: names, config file locations per OS, and the
//! format (dialect) each file is written in.
//!
//! Every path is computed from [`Bases`], never from the process environment
//! directly, so tests can point a whole "machine" at a temporary directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;

use super::ClientError;

/// An AI client whose MCP config Switchboard can read and write.
///
/// Formats, as documented by each client (checked against the public docs;
/// the sources are named so the next reader can re-check them):
///
/// - **Claude Desktop** — `claude_desktop_config.json` in the OS config dir:
///   `~/Library/Application Support/Claude/` (macOS), `%APPDATA%\Claude\`
///   (Windows), `~/.config/Claude/` (Linux, community builds only: there is no
///   official Linux app). `{"mcpServers": {name: {command, args, env}}}`; the
///   app starts stdio servers only, so `connect` writes the stdio bridge.
///   Source: modelcontextprotocol.io quickstart, Claude Help Center.
/// - **Claude Code** — `~/.claude.json`: user scope in top-level `mcpServers`,
///   local scope per project in `projects.<abs path>.mcpServers`; project scope
///   in `<project>/.mcp.json` (`mcpServers`, checked into VCS). Entries:
///   `{type: "stdio", command, args, env}` or `{type: "http"|"sse", url,
///   headers}`; `type` defaults to stdio and also accepts `streamable-http`.
///   No per-entry off switch (anthropics/claude-code#50826, #39662); the
///   `/mcp` menu's `projects.<path>.disabledMcpServers` list is not honoured
///   for user-scope servers (#78314, #13311). Source: code.claude.com/docs/en/mcp.
/// - **Cursor** — `~/.cursor/mcp.json` (also `%USERPROFILE%\.cursor\` on
///   Windows; project `.cursor/mcp.json`): `mcpServers` with `command/args/env`
///   or `url/headers` (Streamable HTTP or SSE, detected). No off switch in the
///   file (cursor/cursor#3656: toggles live in the app). Source: cursor.com/docs/mcp.
/// - **VS Code** — user `mcp.json` in the User dir (`~/.config/Code/User/`,
///   `~/Library/Application Support/Code/User/`, `%APPDATA%\Code\User\`), JSONC:
///   `{"servers": {name: {type: "stdio", command, args, env, envFile, cwd} |
///   {type: "http"|"sse", url, headers}}, "inputs": [...]}`. `${input:..}` and
///   `${workspaceFolder}` are VS Code placeholders. No off switch in the file
///   (microsoft/vscode#246649). Source: code.visualstudio.com/docs/copilot/
///   reference/mcp-configuration.
/// - **Windsurf** — `~/.codeium/windsurf/mcp_config.json`: `mcpServers` with
///   `command/args/env`, remote servers with `serverUrl` (or `url`) and
///   `headers`; `${env:VAR}` interpolation. No documented per-server off switch
///   (the UI toggles tools). Source: docs.windsurf.com/windsurf/cascade/mcp.
/// - **Codex** — `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`):
///   `[mcp_servers.<name>]` with `command`, `args`, `env` (table), `env_vars`,
///   `cwd`, or `url` with `http_headers`, `env_http_headers`,
///   `bearer_token_env_var` (Streamable HTTP only, no SSE); `enabled = false`
///   switches one off; `startup_timeout_sec`, `tool_timeout_sec`,
///   `enabled_tools`, `disabled_tools`. Source: developers.openai.com/codex/mcp,
///   codex-rs/config.
/// - **Gemini CLI** — `~/.gemini/settings.json`: `mcpServers` with
///   `command/args/env/cwd`, `httpUrl` (Streamable HTTP) or `url` (SSE),
///   `headers`, `timeout` (ms), `trust`, `includeTools`, `excludeTools`;
///   top-level `mcp.allowed` / `mcp.excluded` lists of server names switch
///   servers on and off. Source: geminicli.com/docs/tools/mcp-server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Client {
    #[serde(rename = "claude-desktop")]
    ClaudeDesktop,
    #[serde(rename = "claude-code")]
    ClaudeCode,
    #[serde(rename = "cursor")]
    Cursor,
    #[serde(rename = "vscode")]
    VsCode,
    #[serde(rename = "windsurf")]
    Windsurf,
    #[serde(rename = "codex")]
    Codex,
    #[serde(rename = "gemini")]
    Gemini,
}

/// The dialect a config file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// `{"mcpServers": {...}}` with `type`/`command`/`url` entries: Claude
    /// Desktop, Cursor, a project's `.mcp.json`, Switchboard itself.
    McpServers,
    /// `~/.claude.json`: `mcpServers` plus `projects.<path>.mcpServers`.
    ClaudeCode,
    /// VS Code's `{"servers": {...}, "inputs": [...]}`.
    VsCode,
    /// Windsurf's `mcpServers` with `serverUrl` for remote servers.
    Windsurf,
    /// Gemini CLI's `mcpServers` with `httpUrl` / `url` (SSE).
    Gemini,
    /// Codex's TOML `[mcp_servers.<name>]`.
    Codex,
}

impl Client {
    pub const ALL: [Client; 7] = [
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::Cursor,
        Client::VsCode,
        Client::Windsurf,
        Client::Codex,
        Client::Gemini,
    ];

    /// The name used on the command line and in JSON output.
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// The product name, for people.
    pub fn display_name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::Codex => "Codex",
            Client::Gemini => "Gemini CLI",
        }
    }

    pub fn format(self) -> FileFormat {
        match self {
            Client::ClaudeDesktop | Client::Cursor => FileFormat::McpServers,
            Client::ClaudeCode => FileFormat::ClaudeCode,
            Client::VsCode => FileFormat::VsCode,
            Client::Windsurf => FileFormat::Windsurf,
            Client::Codex => FileFormat::Codex,
            Client::Gemini => FileFormat::Gemini,
        }
    }

    /// Whether the client can reach a Streamable HTTP server by URL; the
    /// others get the `switchboard stdio` bridge.
    pub fn speaks_http(self) -> bool {
        !matches!(self, Client::ClaudeDesktop)
    }

    /// The user-level config file `connect` writes and `import` reads.
    pub fn config_path(self, bases: &Bases) -> PathBuf {
        match self {
            Client::ClaudeDesktop => bases
                .config_dir
                .join("Claude")
                .join("claude_desktop_config.json"),
            Client::ClaudeCode => bases.home.join(".claude.json"),
            Client::Cursor => bases.home.join(".cursor").join("mcp.json"),
            Client::VsCode => bases.config_dir.join("Code").join("User").join("mcp.json"),
            Client::Windsurf => bases
                .home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            Client::Codex => bases
                .codex_home
                .clone()
                .unwrap_or_else(|| bases.home.join(".codex"))
                .join("config.toml"),
            Client::Gemini => bases.home.join(".gemini").join("settings.json"),
        }
    }

    /// Every file `import` reads for this client, with its format: the user
    /// file, and for Claude Code also the project's `.mcp.json` when there is
    /// a project directory.
    pub fn import_files(self, bases: &Bases) -> Vec<(PathBuf, FileFormat)> {
        let mut files = vec![(self.config_path(bases), self.format())];
        if self == Client::ClaudeCode
            && let Some(project) = &bases.project_dir
        {
            files.push((project.join(".mcp.json"), FileFormat::McpServers));
        }
        files
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// An unknown client name; the message lists the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown client {given:?}; expected one of: {}", known_clients())]
pub struct UnknownClient {
    pub given: String,
}

pub(crate) fn known_clients() -> String {
    Client::ALL.map(Client::id).join(", ")
}

impl FromStr for Client {
    type Err = UnknownClient;

    /// Accepts the ids (`claude-code`, `vscode`, ...) and a few obvious aliases.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let client = match norm.as_str() {
            "claude-desktop" | "claudedesktop" | "desktop" => Client::ClaudeDesktop,
            "claude-code" | "claudecode" | "claude" => Client::ClaudeCode,
            "cursor" => Client::Cursor,
            "vscode" | "vs-code" | "code" => Client::VsCode,
            "windsurf" | "codeium" => Client::Windsurf,
            "codex" | "codex-cli" => Client::Codex,
            "gemini" | "gemini-cli" => Client::Gemini,
            _ => {
                return Err(UnknownClient {
                    given: s.to_string(),
                });
            }
        };
        Ok(client)
    }
}

/// The directories client config paths are computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bases {
    /// The user's home (`~`, `%USERPROFILE%`).
    pub home: PathBuf,
    /// The OS config dir: `~/.config` (Linux), `~/Library/Application Support`
    /// (macOS), `%APPDATA%` (Windows) — what `dirs::config_dir` returns.
    pub config_dir: PathBuf,
    /// The project whose `.mcp.json` Claude Code reads (normally the cwd).
    pub project_dir: Option<PathBuf>,
    /// `$CODEX_HOME`, when set; Codex's default is `~/.codex`.
    pub codex_home: Option<PathBuf>,
}

impl Bases {
    /// Bases rooted at `home` with config dir `config_dir` and nothing else.
    pub fn new(home: impl Into<PathBuf>, config_dir: impl Into<PathBuf>) -> Self {
        Self {
            home: home.into(),
            config_dir: config_dir.into(),
            project_dir: None,
            codex_home: None,
        }
    }

    /// The real machine's bases: `dirs` for home and config dir, the current
    /// directory as the project, `$CODEX_HOME` when set.
    pub fn from_env() -> Result<Self, ClientError> {
        let home = dirs::home_dir().ok_or(ClientError::NoHome)?;
        let config_dir = dirs::config_dir().unwrap_or_else(|| home.join(".config"));
        Ok(Self {
            project_dir: std::env::current_dir().ok(),
            codex_home: std::env::var_os("CODEX_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            home,
            config_dir,
        })
    }
}

/// Guesses a file's format from its name and, for JSON, its top-level keys.
/// `None` when nothing gives it away.
pub fn detect_format(path: &Path, root: Option<&serde_json::Value>) -> Option<FileFormat> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".toml") {
        return Some(FileFormat::Codex);
    }
    match name.as_str() {
        ".claude.json" => return Some(FileFormat::ClaudeCode),
        "mcp_config.json" => return Some(FileFormat::Windsurf),
        "claude_desktop_config.json" | ".mcp.json" => return Some(FileFormat::McpServers),
        _ => {}
    }
    let root = root?.as_object()?;
    if let Some(servers) = root.get("mcpServers").and_then(|v| v.as_object()) {
        let has = |key: &str| servers.values().any(|s| s.get(key).is_some());
        if root.contains_key("projects") {
            return Some(FileFormat::ClaudeCode);
        }
        if has("serverUrl") {
            return Some(FileFormat::Windsurf);
        }
        if has("httpUrl") || path.parent().is_some_and(|p| p.ends_with(".gemini")) {
            return Some(FileFormat::Gemini);
        }
        return Some(FileFormat::McpServers);
    }
    if root.get("servers").is_some_and(|v| v.is_object()) {
        return Some(FileFormat::VsCode);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ids_round_trip() {
        for client in Client::ALL {
            assert_eq!(client.id().parse::<Client>(), Ok(client));
            assert_eq!(
                serde_json::to_value(client).unwrap(),
                serde_json::json!(client.id())
            );
        }
        assert!(
            "emacs"
                .parse::<Client>()
                .unwrap_err()
                .to_string()
                .contains("cursor")
        );
    }

    #[test]
    fn paths_follow_the_bases() {
        let mut bases = Bases::new("/h", "/h/.config");
        assert_eq!(
            Client::ClaudeDesktop.config_path(&bases),
            Path::new("/h/.config/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            Client::VsCode.config_path(&bases),
            Path::new("/h/.config/Code/User/mcp.json")
        );
        assert_eq!(
            Client::Codex.config_path(&bases),
            Path::new("/h/.codex/config.toml")
        );
        bases.codex_home = Some("/c".into());
        assert_eq!(
            Client::Codex.config_path(&bases),
            Path::new("/c/config.toml")
        );
    }
}
