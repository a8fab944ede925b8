//! The status snapshot (`GET /api/v1/status`, each `snapshot` event of
//! `GET /api/v1/events`) and its parts. The core builds it; the CLI, the app,
//! the dashboard and the tests read it. Field names and enum values are the
//! JSON documented in `docs/status.md`; a field that can be unknown is `null`,
//! never left out.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// The whole hub, as of `generatedAt`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct HubSnapshot {
    /// Switchboard's version.
    pub version: String,
    /// The merged MCP endpoint, `http://127.0.0.1:<port>/mcp`, with the port actually bound.
    pub endpoint: String,
    /// The config file, or null for a hub started without one (embedded use).
    pub config_path: Option<String>,
    /// Set while the config file on disk is invalid (the last good one keeps running).
    pub config_error: Option<ConfigError>,
    /// What the last config reload did; null until the first reload.
    pub last_reload: Option<ReloadResult>,
    /// When the hub started (RFC 3339).
    pub started_at: Option<String>,
    /// When this snapshot was built (RFC 3339).
    pub generated_at: Option<String>,
    /// One entry per configured server, in config-file order.
    pub servers: Vec<ServerSnapshot>,
    /// Counts over all servers.
    pub totals: Totals,
    /// Connected downstream MCP sessions, merged and pass-through.
    pub sessions: Vec<SessionSnapshot>,
    /// The merged MCP endpoints and how many tools a client of each gets.
    #[serde(default)]
    pub endpoints: Vec<crate::EndpointSnapshot>,
}

/// Counts over the whole hub.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Configured servers, disabled ones included.
    pub servers: usize,
    /// Tools in the merged list clients get: the servers' (after
    /// `disabledTools`) plus Switchboard's own (`builtinTools` of them).
    pub tools: usize,
    /// How many of `tools` are Switchboard's own built-in tools
    /// (`switchboard__*`; 0 with `settings.builtinTools: false`).
    #[serde(default)]
    pub builtin_tools: usize,
    /// Prompts in the merged list.
    pub prompts: usize,
    /// Resources in the merged list (after de-duplication; templates not counted).
    pub resources: usize,
    /// Tokens (`o200k_base`) of the tool definitions a client of `/mcp`
    /// gets in `tools/list`: every exposed tool plus the built-in ones.
    #[serde(default)]
    pub tool_tokens: usize,
}

/// One server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerSnapshot {
    /// The key in `mcpServers`.
    pub id: String,
    /// `stdio`, `http` (Streamable HTTP) or `sse` (the legacy HTTP+SSE transport).
    pub transport: String,
    /// As configured.
    pub enabled: bool,
    /// The lifecycle state.
    pub state: ServerState,
    /// Exposed tools (after `disabledTools`), as of the last listing.
    pub tool_count: usize,
    /// Prompts as the server listed them.
    pub prompt_count: usize,
    /// Resources as the server listed them.
    pub resource_count: usize,
    /// Resource templates as the server listed them.
    pub resource_template_count: usize,
    /// When the lists were last fetched (RFC 3339), or null if never.
    pub listed_at: Option<String>,
    /// What caused that listing.
    pub refresh_trigger: Option<RefreshTrigger>,
    /// When the listing stops counting as fresh (`listedAt` + `cacheTtlSecs`).
    pub ttl_expires_at: Option<String>,
    /// The last refresh failed; the lists shown are the last known ones.
    pub stale: bool,
    /// The last failure as a sentence naming the server and cause; cleared by the next success.
    pub last_error: Option<String>,
    /// The last time the server answered (an error answer counts).
    pub last_ok_at: Option<String>,
    /// The last transport failure.
    pub last_failure_at: Option<String>,
    /// Transport failures in a row; reset by any answer.
    pub consecutive_failures: u32,
    /// Process id of the running stdio child, null when none runs.
    pub pid: Option<u32>,
    /// What the server said at `initialize`, as of the last listing.
    pub server_name: Option<String>,
    /// The server's version from `initialize`.
    pub server_version: Option<String>,
    /// The protocol version agreed at `initialize`.
    pub protocol_version: Option<String>,
    /// The last stderr lines of a stdio server, across restarts. Private:
    /// only in answers to a request with the control token or the
    /// dashboard's session; left out of the open status and events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stderr_tail: Option<Vec<String>>,
    /// Derived from the last listings, calls and polls.
    pub health: Health,
    /// The circuit breaker.
    pub breaker: BreakerSnapshot,
    /// Smoothed latency of successful requests (ms).
    pub latency_ms: Option<f64>,
    /// The last change of the lists: what was added, removed or modified.
    pub last_change: Option<ListChange>,
    /// The lists come from the previous run and the server has not been started yet.
    pub unverified: bool,
    /// When the poller re-lists this server next (only while it runs).
    pub next_poll_at: Option<String>,
    /// OAuth state of a remote server (null for stdio servers). Never a token.
    pub auth: Option<AuthSnapshot>,
    /// Tools withheld because their definition changed since it was approved
    /// (`toolPinning: "hold"`); approve them to list them again.
    #[serde(default)]
    pub held_tools: Vec<crate::HeldTool>,
    /// Tools listed although their definition changed since it was approved
    /// (`toolPinning: "warn"`).
    #[serde(default)]
    pub changed_tools: Vec<crate::HeldTool>,
    /// Tools first seen after the server's first listing, not yet approved.
    #[serde(default)]
    pub new_tools: Vec<String>,
    /// What a person should know about the last listing, one sentence each:
    /// a tool or prompt left out because its name is Switchboard's own
    /// (`switchboard__...`), a name listed more than once.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Tokens (`o200k_base`) of this server's exposed tool definitions (after
    /// `disabledTools`, with the names clients see), as of the last listing.
    #[serde(default)]
    pub tool_tokens: usize,
    /// The sandbox this stdio server runs in (see docs/security.md).
    #[serde(default)]
    pub sandbox: SandboxStatus,
}

/// A server's sandbox: what its policy asks for and what this machine
/// enforces (as its last start reported, or as expected before one).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct SandboxStatus {
    /// `standard`, `custom` or `off` (unsandboxed, or a remote server).
    pub profile: String,
    /// Every part of the profile is in force.
    pub enforced: bool,
    /// How it is enforced (`mount namespace + Landlock ABI 7`,
    /// `sandbox-exec (Seatbelt)`), `none`, or `not applicable` for a remote server.
    pub mechanism: String,
    /// What is not enforced and why, when something is not.
    pub missing: Option<String>,
    /// Inherited environment variables with secret-looking names the server
    /// did not get at its last start (names only).
    #[serde(default)]
    pub dropped_env: Vec<String>,
    /// The last access the sandbox refused, as the server reported it.
    #[serde(default)]
    pub last_denial: Option<String>,
}

/// A server's lifecycle state as shown to people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum ServerState {
    /// `enabled: false`; never started.
    Disabled,
    /// Enabled, not running (not needed yet, or stopped by a reload).
    #[default]
    Idle,
    /// Being spawned or connected and initialized.
    Starting,
    /// Connected.
    Ready,
    /// A stdio server stopped after `idleShutdownSecs` without use; the next use starts it.
    Sleeping,
    /// The last start failed or the connection was lost; the next use tries again.
    Failed,
    /// A remote server refused `initialize` for lack of authorization.
    AuthRequired,
}

impl ServerState {
    /// The JSON spelling (`authRequired`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Idle => "idle",
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Sleeping => "sleeping",
            Self::Failed => "failed",
            Self::AuthRequired => "authRequired",
        }
    }
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A derived, coarse health for people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum Health {
    /// It answered, and nothing below applies.
    Healthy,
    /// 1 or 2 failures in a row, stale lists, or state `failed`.
    Degraded,
    /// The breaker is not closed, or 3+ failures in a row.
    Down,
    /// Disabled, or never used.
    #[default]
    Unknown,
}

impl Health {
    /// The JSON spelling (`healthy`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
            Self::Degraded => "degraded",
            Self::Down => "down",
            Self::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The state of a server's circuit breaker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum BreakerState {
    /// Requests go through.
    #[default]
    Closed,
    /// Requests fail at once until `retryAt`.
    Open,
    /// One request (the probe) is let through.
    HalfOpen,
}

/// The circuit breaker of one server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct BreakerSnapshot {
    /// Closed, open or half-open.
    pub state: BreakerState,
    /// While open: when the next attempt is let through.
    pub retry_at: Option<String>,
}

/// What caused a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum RefreshTrigger {
    /// Loaded from the warm catalog of the previous run.
    Startup,
    /// The server had no listing and a client needed one.
    FirstUse,
    /// A client listed after the listing's TTL expired.
    Ttl,
    /// The server sent a `list_changed` notification.
    Notification,
    /// The periodic poll.
    Poll,
    /// `switchboard refresh` or the refresh routes of the control API.
    Manual,
    /// The server's config changed and it was rebuilt.
    Reload,
}

impl RefreshTrigger {
    /// The JSON spelling (`firstUse`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Startup => "startup",
            Self::FirstUse => "firstUse",
            Self::Ttl => "ttl",
            Self::Notification => "notification",
            Self::Poll => "poll",
            Self::Manual => "manual",
            Self::Reload => "reload",
        }
    }
}

impl std::fmt::Display for RefreshTrigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What changed between two listings of a server. Tools are named as they are
/// upstream; prompts, resources and templates carry a `prompt:`, `resource:`
/// or `template:` prefix.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ListChange {
    /// When the second listing was made.
    pub at: String,
    /// What caused it.
    pub trigger: RefreshTrigger,
    /// Names new in the second listing.
    pub added: Vec<String>,
    /// Names gone from it.
    pub removed: Vec<String>,
    /// Same name, different definition (description, schema, ...).
    pub modified: Vec<String>,
}

/// A connected MCP client session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    /// `clientInfo.name` and `version` from the client's `initialize`.
    pub client: Option<String>,
    /// The last time it listed tools, prompts or resources.
    pub last_listed_at: Option<String>,
    /// The last time Switchboard sent it a `list_changed`.
    pub notified_at: Option<String>,
    /// Told that tools (or prompts/resources) changed, and has not listed since.
    pub behind: bool,
}

/// What the snapshot says about one remote server's authorization. Never a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct AuthSnapshot {
    /// The server uses OAuth: it challenged us, has `oauth` settings, or tokens are stored.
    pub required: bool,
    /// Tokens are stored for it.
    pub logged_in: bool,
    /// Where tokens are kept.
    pub keyring: KeyringKind,
    /// A login waits for the browser.
    pub login_pending: bool,
    /// What to do or what went wrong, for people.
    pub message: Option<String>,
}

/// Which store holds OAuth tokens and secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "kebab-case")]
pub enum KeyringKind {
    /// The freedesktop Secret Service over D-Bus.
    SecretService,
    /// The Linux kernel key retention service (lost at reboot).
    Keyutils,
    /// The macOS login keychain.
    Keychain,
    /// The Windows Credential Manager.
    CredentialManager,
    /// Memory only, because the person chose it (`tokenStore: memory`).
    Memory,
    /// Memory only, because no keyring could be reached.
    Unavailable,
}

impl KeyringKind {
    /// The JSON spelling (`secret-service`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SecretService => "secret-service",
            Self::Keyutils => "keyutils",
            Self::Keychain => "keychain",
            Self::CredentialManager => "credential-manager",
            Self::Memory => "memory",
            Self::Unavailable => "unavailable",
        }
    }

    /// Whether entries outlive the process.
    pub fn persists(self) -> bool {
        matches!(
            self,
            Self::SecretService | Self::Keyutils | Self::Keychain | Self::CredentialManager
        )
    }
}

impl std::fmt::Display for KeyringKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the config file (or a `SWITCHBOARD_*` variable) was refused, as the
/// snapshot and the reload answer carry it. Text that can quote the file or
/// the environment is redacted by the hub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ConfigError {
    /// The file could not be read.
    Read {
        /// The config file.
        path: String,
        /// Why, for people.
        message: String,
    },
    /// The file is gone (only on a reload).
    Missing {
        /// The config file.
        path: String,
        /// Why, for people.
        message: String,
    },
    /// The file holds nothing but whitespace (only on a reload).
    Empty {
        /// The config file.
        path: String,
        /// Why, for people.
        message: String,
    },
    /// Not a regular file (a FIFO, a directory, a device or a socket).
    NotAFile {
        /// The config file.
        path: String,
        /// Why, for people.
        message: String,
    },
    /// Another user could change the file or its directory (its mode or
    /// owner allows it): the message names which, and the mode or owner.
    Unsafe {
        /// The config file.
        path: String,
        /// Why, for people.
        message: String,
    },
    /// The file does not parse or holds a bad value.
    Invalid {
        /// The config file.
        path: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// Why, for people.
        message: String,
    },
    /// A bad `SWITCHBOARD_*` environment variable.
    Env {
        /// The variable's name.
        name: String,
        /// Its value (masked when the name says it holds a secret).
        value: String,
        /// Why, for people.
        message: String,
    },
}

impl ConfigError {
    /// The file the error is about (none for an environment variable).
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::Read { path, .. }
            | Self::Missing { path, .. }
            | Self::Empty { path, .. }
            | Self::NotAFile { path, .. }
            | Self::Unsafe { path, .. }
            | Self::Invalid { path, .. } => Some(path),
            Self::Env { .. } => None,
        }
    }

    /// Why, for people.
    pub fn message(&self) -> &str {
        match self {
            Self::Read { message, .. }
            | Self::Missing { message, .. }
            | Self::Empty { message, .. }
            | Self::NotAFile { message, .. }
            | Self::Unsafe { message, .. }
            | Self::Invalid { message, .. }
            | Self::Env { message, .. } => message,
        }
    }
}

/// What a config reload did. Lists hold server ids.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ReloadResult {
    /// When it ran (RFC 3339).
    pub at: String,
    /// Servers new in the config (started lazily).
    pub added: Vec<String>,
    /// Servers whose connection-relevant fields changed: rebuilt.
    pub changed: Vec<String>,
    /// Servers with only catalog-level changes (e.g. `disabledTools`): updated in place.
    pub updated: Vec<String>,
    /// Servers gone from the config: shut down.
    pub removed: Vec<String>,
    /// Servers left as they were.
    pub unchanged: Vec<String>,
    /// Why the reload was refused, or settings that need a restart to apply.
    pub errors: Vec<String>,
}
