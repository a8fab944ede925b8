//! The catalogue of AI clients: a [`Client`] is one row of the client table
//! ([`table`](super::table)), which gives its id, its config files per OS, the
//! dialect ([`FileFormat`]) each file is written in and the entry that points
//! it at Switchboard. Adding a client is adding one row; nothing here matches
//! on a particular client.
//!
//! Every path is computed from [`Bases`], never from the process environment
//! directly, so tests can point a whole "machine" (of any OS) at a temporary
//! directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::ClientError;
use super::table::CLIENTS;

/// An AI client whose MCP config Switchboard can read and write: an index
/// into the client table. Formats and the documentation each row was taken
/// from are listed in the table, next to the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client(u8);

/// The dialect a config file is written in. Clients that share a format share
/// a dialect; what differs between them (the `type` of the hub's entry) is in
/// their table row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// `{"mcpServers": {...}}` with `type`/`command`/`url` entries: Claude
    /// Desktop, Cursor, a project's `.mcp.json`, Switchboard itself, and the
    /// clients that copied Cursor's file (LM Studio, Junie, Trae, Augment).
    McpServers,
    /// `~/.claude.json`: `mcpServers` plus `projects.<path>.mcpServers`.
    ClaudeCode,
    /// VS Code's `{"servers": {...}, "inputs": [...]}`.
    VsCode,
    /// Windsurf's `mcpServers` with `serverUrl` for remote servers.
    Windsurf,
    /// Gemini CLI's `mcpServers` with `httpUrl` / `url` (SSE); Qwen Code too.
    Gemini,
    /// Codex's TOML `[mcp_servers.<name>]`.
    Codex,
    /// Cline's `mcpServers` with `disabled`, `autoApprove`/`alwaysAllow`,
    /// `timeout` (seconds) and `type` (`stdio`, `sse`, `streamableHttp` or
    /// `streamable-http`): Cline, Roo Code, Kilo Code, Kiro.
    Cline,
    /// Zed's `context_servers` (JSONC settings): `{command, args, env}` (or
    /// the older `{command: {path, args, env}}`), `{url, headers}`, `enabled`.
    Zed,
    /// opencode's `mcp`: `{type: "local", command: [..], environment,
    /// enabled}` or `{type: "remote", url, headers, enabled}`.
    OpenCode,
    /// Crush's `mcp`: `{type, command, args, env, url, headers, disabled,
    /// disabled_tools, timeout}`.
    Crush,
    /// Copilot CLI's `mcpServers` with `type` `local`/`stdio`/`http`/`sse`
    /// and a `tools` allow-list.
    CopilotCli,
    /// Amp's settings: the literal key `amp.mcpServers`.
    Amp,
    /// Jan's `mcp_config.json`: `mcpServers` with an `active` switch.
    Jan,
    /// Continue's YAML: a `mcpServers` *list* of `{name, type, command, args,
    /// env, cwd, url, requestOptions.headers}`.
    Continue,
    /// Goose's YAML `extensions` map: `{type: stdio, cmd, args, envs}` or
    /// `{type: streamable_http|sse, uri, headers}`, `enabled`, `timeout`.
    Goose,
}

/// How a dialect switches one server off inside its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OffSwitch {
    pub key: &'static str,
    /// The value that means "off".
    pub off: bool,
}

impl FileFormat {
    /// The key holding the servers (for Claude Code: the user-scope one).
    pub(crate) fn container(self) -> &'static str {
        match self {
            FileFormat::VsCode => "servers",
            FileFormat::Codex => "mcp_servers",
            FileFormat::Zed => "context_servers",
            FileFormat::OpenCode | FileFormat::Crush => "mcp",
            FileFormat::Amp => "amp.mcpServers",
            FileFormat::Goose => "extensions",
            _ => "mcpServers",
        }
    }

    pub fn is_yaml(self) -> bool {
        matches!(self, FileFormat::Continue | FileFormat::Goose)
    }

    /// The key in an entry that switches it off, where the dialect has one
    /// (Codex's `enabled` and Gemini's `mcp.excluded` list are handled apart).
    pub(crate) fn off_switch(self) -> Option<OffSwitch> {
        match self {
            FileFormat::Cline | FileFormat::Crush => Some(OffSwitch {
                key: "disabled",
                off: true,
            }),
            FileFormat::Zed | FileFormat::OpenCode | FileFormat::Goose => Some(OffSwitch {
                key: "enabled",
                off: false,
            }),
            FileFormat::Jan => Some(OffSwitch {
                key: "active",
                off: false,
            }),
            _ => None,
        }
    }
}

/// The operating systems whose file locations the table knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    pub const ALL: [Os; 3] = [Os::Linux, Os::Macos, Os::Windows];

    /// The OS this binary was built for (other Unixes count as Linux).
    pub fn current() -> Self {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Macos
        } else {
            Os::Linux
        }
    }
}

/// Where a path in the table starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    /// `~`, `%USERPROFILE%`.
    Home,
    /// The OS config dir: `~/.config`, `~/Library/Application Support`, `%APPDATA%`.
    Config,
    /// `$XDG_CONFIG_HOME` or `~/.config`, also on macOS and Windows (tools
    /// that follow XDG everywhere: Zed, opencode, Crush, Goose, Amp).
    Xdg,
    /// `%LOCALAPPDATA%` on Windows, the config dir elsewhere.
    LocalData,
    /// `$CODEX_HOME`, default `~/.codex`.
    CodexHome,
}

/// A file location: a base and a `/`-separated path below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc(pub Base, pub &'static str);

/// Where a client keeps its user-level servers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum UserFile {
    /// The same location on every OS.
    All(Loc),
    /// Linux, macOS, Windows.
    PerOs([Loc; 3]),
    /// No file: the client keeps servers in its own database (`--print` only).
    NoFile(&'static str),
}

/// The shape of the entry that reaches the hub over HTTP: the key the URL
/// goes under, and further keys the client wants, as JSON object text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpEntry {
    pub url_key: &'static str,
    pub extra: &'static str,
}

/// One row of the client table.
#[derive(Debug)]
pub(crate) struct Spec {
    /// The command-line id (`import --from ID`, `connect ID`), also in JSON.
    pub id: &'static str,
    pub name: &'static str,
    /// Other spellings accepted on the command line.
    pub aliases: &'static [&'static str],
    pub format: FileFormat,
    pub user: UserFile,
    /// Project files, relative to the project directory, that `import` also
    /// reads; a path ending in `/*.yaml` is every YAML file of that folder.
    pub project: &'static [(&'static str, FileFormat)],
    /// `None`: the client starts stdio servers only and gets the bridge.
    pub http: Option<HttpEntry>,
}

const fn all_clients() -> [Client; CLIENTS.len()] {
    let mut all = [Client(0); CLIENTS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = Client(i as u8);
        i += 1;
    }
    all
}

// The clients the code names (tests and the CLI's special cases); named like
// the enum variants they replaced, so the callers read the same.
#[allow(non_upper_case_globals)]
impl Client {
    pub const ClaudeDesktop: Client = Client(0);
    pub const ClaudeCode: Client = Client(1);
    pub const Cursor: Client = Client(2);
    pub const VsCode: Client = Client(3);
    pub const Windsurf: Client = Client(4);
    pub const Codex: Client = Client(5);
    pub const Gemini: Client = Client(6);
}

impl Client {
    /// Every client, in table order.
    pub const ALL: [Client; CLIENTS.len()] = all_clients();

    pub(crate) fn spec(self) -> &'static Spec {
        &CLIENTS[self.0 as usize]
    }

    /// The name used on the command line and in JSON output.
    pub fn id(self) -> &'static str {
        self.spec().id
    }

    /// The product name, for people.
    pub fn display_name(self) -> &'static str {
        self.spec().name
    }

    pub fn format(self) -> FileFormat {
        self.spec().format
    }

    /// Whether the client can reach a Streamable HTTP server by URL; the
    /// others get the `switchboard stdio` bridge.
    pub fn speaks_http(self) -> bool {
        self.spec().http.is_some()
    }

    /// Whether the client keeps its servers in a file Switchboard can edit
    /// (the others take the `connect --print` snippet by hand).
    pub fn has_file(self) -> bool {
        !matches!(self.spec().user, UserFile::NoFile(_))
    }

    /// Why there is no file, for a client without one.
    pub fn no_file_reason(self) -> Option<&'static str> {
        match self.spec().user {
            UserFile::NoFile(why) => Some(why),
            _ => None,
        }
    }

    /// The user-level config file `connect` writes and `import` reads, on
    /// the OS of `bases`; `None` for a client without a file.
    pub fn user_path(self, bases: &Bases) -> Option<PathBuf> {
        let loc = match self.spec().user {
            UserFile::All(loc) => loc,
            UserFile::PerOs(locs) => match bases.os {
                Os::Linux => locs[0],
                Os::Macos => locs[1],
                Os::Windows => locs[2],
            },
            UserFile::NoFile(_) => return None,
        };
        Some(bases.resolve(loc))
    }

    /// [`Client::user_path`], or where it would be (the home directory's
    /// `.switchboard-<id>` placeholder) for a client without a file.
    pub fn config_path(self, bases: &Bases) -> PathBuf {
        self.user_path(bases)
            .unwrap_or_else(|| bases.home.join(format!(".{}-has-no-file", self.id())))
    }

    /// Every file `import` reads for this client, with its format: the user
    /// file, then the project's files (Claude Code's `.mcp.json`, Cursor's
    /// `.cursor/mcp.json`, ...) when there is a project directory. A
    /// folder of YAML files is listed file by file, in name order.
    pub fn import_files(self, bases: &Bases) -> Vec<(PathBuf, FileFormat)> {
        let spec = self.spec();
        let mut files: Vec<(PathBuf, FileFormat)> = self
            .user_path(bases)
            .map(|p| (p, spec.format))
            .into_iter()
            .collect();
        if let Some(project) = &bases.project_dir {
            for (rel, format) in spec.project {
                match rel.strip_suffix("/*.yaml") {
                    Some(dir) => files.extend(
                        yaml_files(&join_rel(project, dir))
                            .into_iter()
                            .map(|p| (p, *format)),
                    ),
                    None => files.push((join_rel(project, rel), *format)),
                }
            }
        }
        files
    }

    /// The `switchboard` entry's keys for an HTTP client, `None` for a
    /// client that gets the stdio bridge.
    pub(crate) fn http_entry(self, endpoint: &str) -> Option<Map<String, Value>> {
        let http = self.spec().http?;
        let mut entry = match serde_json::from_str::<Value>(http.extra) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        entry.insert(http.url_key.into(), Value::String(endpoint.into()));
        Some(entry)
    }
}

/// The `.yaml`/`.yml` files of `dir`, sorted; none when it cannot be read.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension().is_some_and(|e| {
                    e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml")
                })
        })
        .collect();
    files.sort();
    files
}

fn join_rel(base: &Path, rel: &str) -> PathBuf {
    rel.split('/')
        .filter(|part| !part.is_empty())
        .fold(base.to_path_buf(), |path, part| path.join(part))
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

impl Serialize for Client {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
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

    /// Accepts the ids (`claude-code`, `roo-code`, ...) and each row's aliases.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Client::ALL
            .into_iter()
            .find(|c| c.id() == norm || c.spec().aliases.contains(&norm.as_str()))
            .ok_or_else(|| UnknownClient {
                given: s.to_string(),
            })
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
    /// The project whose files (`.mcp.json`, `.cursor/mcp.json`, ...) are read.
    pub project_dir: Option<PathBuf>,
    /// `$CODEX_HOME`, when set; Codex's default is `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// Which OS's locations apply.
    pub os: Os,
    /// `$XDG_CONFIG_HOME`, default `~/.config` (on every OS).
    pub xdg_config: PathBuf,
    /// `%LOCALAPPDATA%` on Windows; the config dir elsewhere.
    pub local_data: PathBuf,
}

impl Bases {
    /// Bases rooted at `home` with config dir `config_dir` on this OS.
    pub fn new(home: impl Into<PathBuf>, config_dir: impl Into<PathBuf>) -> Self {
        let home = home.into();
        let config_dir = config_dir.into();
        Self {
            xdg_config: home.join(".config"),
            local_data: config_dir.clone(),
            home,
            config_dir,
            project_dir: None,
            codex_home: None,
            os: Os::current(),
        }
    }

    /// The bases `os` has for a user whose home is `home`, with its default
    /// config directories (for tests of each OS's paths).
    pub fn for_os(os: Os, home: impl Into<PathBuf>) -> Self {
        let home = home.into();
        let (config_dir, local_data) = match os {
            Os::Linux => (home.join(".config"), home.join(".config")),
            Os::Macos => {
                let support = home.join("Library").join("Application Support");
                (support.clone(), support)
            }
            Os::Windows => (
                home.join("AppData").join("Roaming"),
                home.join("AppData").join("Local"),
            ),
        };
        Self {
            xdg_config: home.join(".config"),
            home,
            config_dir,
            local_data,
            project_dir: None,
            codex_home: None,
            os,
        }
    }

    /// The real machine's bases: `dirs` for home and config dirs, the current
    /// directory as the project, `$CODEX_HOME` and `$XDG_CONFIG_HOME` when set.
    pub fn from_env() -> Result<Self, ClientError> {
        let home = dirs::home_dir().ok_or(ClientError::NoHome)?;
        let config_dir = dirs::config_dir().unwrap_or_else(|| home.join(".config"));
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let os = Os::current();
        let local_data = match os {
            Os::Windows => dirs::data_local_dir().unwrap_or_else(|| config_dir.clone()),
            _ => config_dir.clone(),
        };
        Ok(Self {
            project_dir: std::env::current_dir().ok(),
            codex_home: var("CODEX_HOME"),
            xdg_config: var("XDG_CONFIG_HOME")
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(".config")),
            local_data,
            os,
            home,
            config_dir,
        })
    }

    pub(crate) fn resolve(&self, Loc(base, rel): Loc) -> PathBuf {
        let root = match base {
            Base::Home => self.home.clone(),
            Base::Config => self.config_dir.clone(),
            Base::Xdg => self.xdg_config.clone(),
            Base::LocalData => self.local_data.clone(),
            Base::CodexHome => self
                .codex_home
                .clone()
                .unwrap_or_else(|| self.home.join(".codex")),
        };
        join_rel(&root, rel)
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
        "mcp_config.json" if path.parent().is_some_and(|p| p.ends_with("data")) => {
            return Some(FileFormat::Jan);
        }
        "mcp_config.json" => return Some(FileFormat::Windsurf),
        "claude_desktop_config.json" | ".mcp.json" => return Some(FileFormat::McpServers),
        "cline_mcp_settings.json" | "mcp_settings.json" => return Some(FileFormat::Cline),
        "opencode.json" | "opencode.jsonc" => return Some(FileFormat::OpenCode),
        "crush.json" | ".crush.json" => return Some(FileFormat::Crush),
        "mcp-config.json" => return Some(FileFormat::CopilotCli),
        _ => {}
    }
    if name.ends_with(".yaml") || name.ends_with(".yml") {
        let root = root?.as_object()?;
        if root.contains_key("extensions") {
            return Some(FileFormat::Goose);
        }
        return root
            .get("mcpServers")
            .is_some_and(Value::is_array)
            .then_some(FileFormat::Continue);
    }
    let root = root?.as_object()?;
    if root.contains_key("context_servers") {
        return Some(FileFormat::Zed);
    }
    if root.contains_key("amp.mcpServers") {
        return Some(FileFormat::Amp);
    }
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
        if has("autoApprove") || has("alwaysAllow") {
            return Some(FileFormat::Cline);
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
                .contains("roo-code")
        );
    }

    #[test]
    fn the_named_clients_are_the_rows_they_name() {
        let named = [
            (Client::ClaudeDesktop, "claude-desktop"),
            (Client::ClaudeCode, "claude-code"),
            (Client::Cursor, "cursor"),
            (Client::VsCode, "vscode"),
            (Client::Windsurf, "windsurf"),
            (Client::Codex, "codex"),
            (Client::Gemini, "gemini"),
        ];
        for (client, id) in named {
            assert_eq!(client.id(), id);
        }
    }

    #[test]
    fn every_http_entry_is_an_object() {
        for client in Client::ALL {
            if let Some(http) = client.spec().http {
                let extra: Value = serde_json::from_str(http.extra).unwrap();
                assert!(extra.is_object(), "{}: {}", client.id(), http.extra);
            }
        }
    }

    #[test]
    fn formats_are_detected_from_names_and_keys() {
        use serde_json::json;
        let by_name = [
            ("/h/.config/opencode/opencode.json", FileFormat::OpenCode),
            ("/p/crush.json", FileFormat::Crush),
            ("/h/.copilot/mcp-config.json", FileFormat::CopilotCli),
            ("/g/cline_mcp_settings.json", FileFormat::Cline),
            ("/h/.config/Jan/data/mcp_config.json", FileFormat::Jan),
            ("/h/.codeium/windsurf/mcp_config.json", FileFormat::Windsurf),
        ];
        for (path, format) in by_name {
            assert_eq!(detect_format(Path::new(path), None), Some(format), "{path}");
        }
        let by_keys = [
            (
                "settings.json",
                json!({"context_servers": {}}),
                FileFormat::Zed,
            ),
            (
                "settings.json",
                json!({"amp.mcpServers": {}}),
                FileFormat::Amp,
            ),
            ("config.yaml", json!({"extensions": {}}), FileFormat::Goose),
            (
                "config.yaml",
                json!({"mcpServers": []}),
                FileFormat::Continue,
            ),
            (
                "mcp.json",
                json!({"mcpServers": {"a": {"command": "x", "autoApprove": []}}}),
                FileFormat::Cline,
            ),
        ];
        for (name, root, format) in by_keys {
            assert_eq!(
                detect_format(Path::new(name), Some(&root)),
                Some(format),
                "{name}: {root}"
            );
        }
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
