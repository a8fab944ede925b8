//! Hub-wide settings, declared once: the table in `settings_table!` gives
//! each setting its field, default, file key (under `settings`), environment
//! variable, kind (type, unit and bounds), whether a change needs a restart
//! and its doc line. Everything else is derived from that table:
//! [`Settings`] and its `Default`, the parse of the file's `settings`
//! object, [`Settings::apply_env`], [`Settings::changed_needing_restart`]
//! (the reload report) and the list [`SETTINGS`] (checked against
//! `docs/configuration.md` by a test).
//!
//! Invariant: every duration is at most [`MAX_DURATION`], whether it comes
//! from the file (refused with its key, line and column) or from a
//! `SWITCHBOARD_*` variable (refused naming the variable), so that
//! `Instant + duration` built from settings cannot overflow.

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::ConfigError;

mod confirm;
mod duration;
mod modes;
pub use super::sandbox::SandboxMode;
mod result_secrets;
pub use confirm::{ConfirmCalls, ServerApproval};
pub(super) use duration::DurationVisitor;
pub use duration::TimeUnit;
use modes::NameList;
pub use modes::{TokenStoreChoice, ToolMode, ToolPinning};
pub use result_secrets::ResultSecrets;

/// The longest any duration setting may be: 30 days. Far beyond any useful
/// timeout, TTL or interval, and far below what `Instant`, tokio timers and
/// the moka cache can represent.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// One row of the settings table, for code that lists the settings
/// (documentation checks, help texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingInfo {
    /// The key under `settings` in the config file (`headerTimeoutSecs`).
    pub key: &'static str,
    /// The environment variable that overrides it (`SWITCHBOARD_HEADER_TIMEOUT_SECS`).
    pub env: &'static str,
    /// Whether a reload that changes it reports "restart Switchboard to apply it".
    pub restart: bool,
    /// Its doc comment, as one line.
    doc: &'static str,
}

impl SettingInfo {
    /// What the setting is for, in one line.
    pub fn doc(&self) -> &'static str {
        self.doc.trim()
    }
}

/// The settings table: one entry per setting, in file order (the order the
/// "unknown field" error lists the keys in, and the order changes are
/// reported in). Each entry:
///
/// ```text
/// /// doc
/// field: Type = default;
///     "fileKey", "SWITCHBOARD_ENV_VAR", kind, restart: bool;
/// ```
///
/// `restart: false` on `toolMode` and `pinnedTools`: a reload applies them.
macro_rules! settings_table {
    ($(
        $(#[doc = $doc:literal])+
        $field:ident: $ty:ty = $default:expr;
            $key:literal, $env:literal, $kind:expr, restart: $restart:literal;
    )+) => {
        /// Hub-wide settings. Defaults are documented in `docs/configuration.md`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Settings {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        impl Default for Settings {
            fn default() -> Self {
                Self { $( $field: $default, )+ }
            }
        }

        /// Every setting, in file order.
        pub const SETTINGS: &[SettingInfo] = &[$(
            SettingInfo { key: $key, env: $env, restart: $restart, doc: concat!($($doc),+) },
        )+];

        /// The environment variables that override settings, with what they set.
        pub const ENV_VARS: &[(&str, &str)] = &[$( ($env, $key), )+];

        /// The keys the file's `settings` object may have.
        const FILE_KEYS: &[&str] = &[$( $key, )+];

        impl Settings {
            /// Applies `SWITCHBOARD_*` overrides read through `lookup`
            /// (normally `std::env::var`). A bad value is refused naming the
            /// variable; the first one found (in table order) is reported.
            pub fn apply_env(
                &mut self,
                lookup: impl Fn(&str) -> Option<String>,
            ) -> Result<(), ConfigError> {
                $(
                    if let Some(value) = lookup($env) {
                        self.$field = <_ as Kind<$ty>>::read_env(&$kind, &value).map_err(
                            |message| ConfigError::Env { name: $env.to_string(), value, message },
                        )?;
                    }
                )+
                Ok(())
            }

            /// The file keys of the settings that differ between `self` (in
            /// force) and `next` and need a restart to apply, in table order.
            pub fn changed_needing_restart(&self, next: &Settings) -> Vec<&'static str> {
                let mut changed = Vec::new();
                $(
                    if $restart && self.$field != next.$field {
                        changed.push($key);
                    }
                )+
                changed
            }

            /// Reads the value of file key `key` (one of [`FILE_KEYS`]) into
            /// its field; `null` keeps the default.
            fn read_file_value<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match key {
                    $(
                        $key => {
                            let kind = $kind;
                            let name = concat!("settings.", $key);
                            if let Some(value) = <_ as Kind<$ty>>::read_file(&kind, name, map)? {
                                self.$field = value;
                            }
                        }
                    )+
                    _ => {}
                }
                Ok(())
            }
        }
    };
}

settings_table! {
    /// The address the hub listens on (MCP endpoint, control API, dashboard).
    listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 8420));
        "listen", "SWITCHBOARD_LISTEN", Address, restart: true;
    /// How long listed capabilities count as fresh.
    cache_ttl: Duration = Duration::from_secs(300);
        "cacheTtlSecs", "SWITCHBOARD_CACHE_TTL_SECS", Time::secs(0), restart: true;
    /// How many servers' capabilities the fresh-cache holds at most.
    cache_max_entries: u64 = 256;
        "cacheMaxEntries", "SWITCHBOARD_CACHE_MAX_ENTRIES", Count { min: 1 }, restart: true;
    /// How often running upstreams are re-listed; zero turns polling off.
    poll_interval: Duration = Duration::from_secs(300);
        "pollIntervalSecs", "SWITCHBOARD_POLL_INTERVAL_SECS", Time::secs(0), restart: true;
    /// How long starting and initializing an upstream may take.
    startup_timeout: Duration = Duration::from_secs(30);
        "startupTimeoutSecs", "SWITCHBOARD_STARTUP_TIMEOUT_SECS", Time::secs(1), restart: true;
    /// How long a forwarded request may take (reset on progress).
    call_timeout: Duration = Duration::from_secs(60);
        "callTimeoutSecs", "SWITCHBOARD_CALL_TIMEOUT_SECS", Time::secs(1), restart: true;
    /// How long a merged list waits for servers that have never been listed.
    cold_list_timeout: Duration = Duration::from_secs(5);
        "coldListTimeoutMs", "SWITCHBOARD_COLD_LIST_TIMEOUT_MS", Time::millis(), restart: true;
    /// Stop a stdio server after this long without use; zero means never.
    idle_shutdown: Duration = Duration::from_secs(600);
        "idleShutdownSecs", "SWITCHBOARD_IDLE_SHUTDOWN_SECS", Time::secs(0), restart: true;
    /// Offer Switchboard's own tools (`switchboard__list_servers`, ...) on `/mcp`.
    builtin_tools: bool = true;
        "builtinTools", "SWITCHBOARD_BUILTIN_TOOLS", Switch { empty_is_false: false }, restart: true;
    /// Where OAuth tokens and secrets are kept (`auto` picks the OS keyring).
    token_store: TokenStoreChoice = TokenStoreChoice::Auto;
        "tokenStore", "SWITCHBOARD_TOKEN_STORE", Named, restart: true;
    /// Most MCP sessions kept at once (both routes); the least recently used
    /// idle one is closed to make room.
    max_sessions: usize = 1000;
        "maxSessions", "SWITCHBOARD_MAX_SESSIONS", Count { min: 1 }, restart: true;
    /// Close a session after this long without a request; zero means never.
    session_idle: Duration = Duration::from_secs(1800);
        "sessionIdleSecs", "SWITCHBOARD_SESSION_IDLE_SECS", Time::secs(0), restart: true;
    /// Most open client connections; zero picks one below the fd limit.
    max_connections: usize = 0;
        "maxConnections", "SWITCHBOARD_MAX_CONNECTIONS", Count { min: 0 }, restart: true;
    /// How long a connection may take to send a complete request head, from
    /// when it connects or its previous response ends.
    header_timeout: Duration = Duration::from_secs(30);
        "headerTimeoutSecs", "SWITCHBOARD_HEADER_TIMEOUT_SECS", Time::secs(1), restart: true;
    /// Allow a listen address beyond loopback; the MCP endpoints then need
    /// the control token (see `access`).
    allow_remote: bool = false;
        "allowRemote", "SWITCHBOARD_ALLOW_REMOTE", Switch { empty_is_false: true }, restart: true;
    /// What a changed tool definition does: `hold` withholds it until
    /// approved, `warn` lists it flagged as changed, `off` keeps no pins.
    tool_pinning: ToolPinning = ToolPinning::Hold;
        "toolPinning", "SWITCHBOARD_TOOL_PINNING", Named, restart: true;
    /// Record the arguments of each call in the activity log (secrets
    /// redacted); off records only their size.
    activity_arguments: bool = false;
        "activityArguments", "SWITCHBOARD_ACTIVITY_ARGUMENTS", Switch { empty_is_false: true }, restart: true;
    /// Size at which `activity.jsonl` is rotated to `activity.1.jsonl` (the
    /// one older file kept), in bytes.
    activity_max_bytes: u64 = 5 * 1024 * 1024;
        "activityMaxBytes", "SWITCHBOARD_ACTIVITY_MAX_BYTES", Count { min: 1024 }, restart: true;
    /// What `/mcp` lists: `all` tools, `search` or `code` (see `docs/search.md`).
    tool_mode: ToolMode = ToolMode::All;
        "toolMode", "SWITCHBOARD_TOOL_MODE", Named, restart: false;
    /// The tools (`<server>__<tool>`) search mode still lists.
    pinned_tools: Vec<String> = Vec::new();
        "pinnedTools", "SWITCHBOARD_PINNED_TOOLS", NameList, restart: false;
    /// After a search, start the server of its best hit if it is not running.
    warm_on_search: bool = true;
        "warmOnSearch", "SWITCHBOARD_WARM_ON_SEARCH", Switch { empty_is_false: true }, restart: true;
    /// How long a code mode script (`switchboard__run_code`) may run unless
    /// its call asks for less or more (1 to 300 s).
    code_timeout: Duration = Duration::from_secs(60);
        "codeTimeoutSecs", "SWITCHBOARD_CODE_TIMEOUT_SECS", Time::secs(1), restart: true;
    /// The most memory a code mode script's interpreter may allocate, in MiB.
    code_memory_mb: u64 = 64;
        "codeMemoryMb", "SWITCHBOARD_CODE_MEMORY_MB", Count { min: 8 }, restart: true;
    /// The most tool calls one code mode script may make.
    code_max_calls: u64 = 100;
        "codeMaxCalls", "SWITCHBOARD_CODE_MAX_CALLS", Count { min: 1 }, restart: true;
    /// Longest code mode result (its JSON text), in bytes; longer ones are cut.
    code_max_result_bytes: u64 = 256 * 1024;
        "codeMaxResultBytes", "SWITCHBOARD_CODE_MAX_RESULT_BYTES", Count { min: 1024 }, restart: true;
    /// Export each call as an OpenTelemetry span, and hub metrics, over
    /// OTLP/HTTP to this base URL (`/v1/traces`, `/v1/metrics` are added).
    otlp_endpoint: Option<String> = None;
        "otlpEndpoint", "SWITCHBOARD_OTLP_ENDPOINT", HttpUrl, restart: true;
    /// What a stdio server without a `sandbox` key of its own runs in:
    /// `standard` keeps the secret places of the home directory and
    /// Switchboard's own files out of its reach, `off` runs it unsandboxed.
    sandbox: SandboxMode = SandboxMode::Standard;
        "sandbox", "SWITCHBOARD_SANDBOX", Named, restart: true;
    /// Which calls wait for a person's approval: `off`, `destructive` (tools
    /// annotated `destructiveHint`), `writes` (all but `readOnlyHint` tools)
    /// or `all`; a server's own `confirmCalls` overrides it.
    confirm_calls: ConfirmCalls = ConfirmCalls::Off;
        "confirmCalls", "SWITCHBOARD_CONFIRM_CALLS", Named, restart: true;
    /// How long a call waits for approval before it is denied.
    confirm_timeout: Duration = Duration::from_secs(120);
        "confirmTimeoutSecs", "SWITCHBOARD_CONFIRM_TIMEOUT_SECS", Time::secs(1), restart: true;
    /// What credentials in well-known formats found in a tool result do:
    /// `redact` (replaced by `[redacted <kind>]`), `warn` (only noted) or
    /// `off`; a server's own `resultSecrets` overrides it.
    result_secrets: ResultSecrets = ResultSecrets::Redact;
        "resultSecrets", "SWITCHBOARD_RESULT_SECRETS", Named, restart: true;
    /// Read a folder's `.switchboard.json` when a client on `/mcp` names the
    /// folder as a root (an unnamed profile for that folder).
    project_files: bool = true;
        "projectFiles", "SWITCHBOARD_PROJECT_FILES", Switch { empty_is_false: true }, restart: true;
    /// The MCP Registry that `switchboard registry` and `add` search and
    /// install from (its generic API, `/v0.1/servers`).
    registry_url: String = DEFAULT_REGISTRY_URL.to_string();
        "registryUrl", "SWITCHBOARD_REGISTRY_URL", HttpUrl, restart: false;
}

/// The official MCP Registry (`settings.registryUrl`'s default).
pub const DEFAULT_REGISTRY_URL: &str = "https://registry.modelcontextprotocol.io";

// ---------------------------------------------------------------------------
// Kinds: how one setting's value is read from the file and from its variable.

/// How a setting of type `T` is read.
trait Kind<T> {
    /// Reads the value of `name` (`settings.<key>`, for errors) from the
    /// file; `None` for `null`. Errors are serde's, so serde_json adds the
    /// line and column.
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        name: &'static str,
        map: &mut A,
    ) -> Result<Option<T>, A::Error>;

    /// Reads the value of its environment variable; `Err` says what is wrong
    /// with it (the caller names the variable).
    fn read_env(&self, text: &str) -> Result<T, String>;
}

/// A whole number in an environment variable.
fn env_number(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| "expected a whole number".to_string())
}

/// An `ip:port` address (`listen`).
struct Address;

impl Kind<SocketAddr> for Address {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        _name: &'static str,
        map: &mut A,
    ) -> Result<Option<SocketAddr>, A::Error> {
        Ok(map
            .next_value::<Option<ListenAddr>>()?
            .map(|ListenAddr(addr)| addr))
    }

    fn read_env(&self, text: &str) -> Result<SocketAddr, String> {
        text.trim()
            .parse()
            .map_err(|_| "expected an address like 127.0.0.1:8420".to_string())
    }
}

/// `settings.listen` in the file: a string holding an address.
struct ListenAddr(SocketAddr);

impl<'de> Deserialize<'de> for ListenAddr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map(ListenAddr).map_err(|_| {
            de::Error::custom(format!(
                "settings.listen: {text:?} is not an address like 127.0.0.1:8420"
            ))
        })
    }
}

/// A duration: a whole number of `unit`s up to [`MAX_DURATION`]; a value
/// below `floor` counts as `floor` (a zero timeout would fail everything).
struct Time {
    unit: TimeUnit,
    floor: Duration,
}

impl Time {
    const fn secs(floor: u64) -> Self {
        Self {
            unit: TimeUnit::Secs,
            floor: Duration::from_secs(floor),
        }
    }

    const fn millis() -> Self {
        Self {
            unit: TimeUnit::Millis,
            floor: Duration::ZERO,
        }
    }
}

impl Kind<Duration> for Time {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        name: &'static str,
        map: &mut A,
    ) -> Result<Option<Duration>, A::Error> {
        let visitor = DurationVisitor {
            key: name,
            unit: self.unit,
            min: 0,
        };
        Ok(map.next_value_seed(visitor)?.map(|d| d.max(self.floor)))
    }

    fn read_env(&self, text: &str) -> Result<Duration, String> {
        Ok(self.unit.duration(env_number(text)?)?.max(self.floor))
    }
}

/// A count; a value below `min` counts as `min`, one beyond the type's
/// range as its maximum (32-bit targets).
struct Count {
    min: u64,
}

/// A count type [`Count`] can produce.
trait FromCount {
    fn from_count(n: u64) -> Self;
}

impl FromCount for u64 {
    fn from_count(n: u64) -> Self {
        n
    }
}

impl FromCount for usize {
    fn from_count(n: u64) -> Self {
        usize::try_from(n).unwrap_or(usize::MAX)
    }
}

impl<T: FromCount> Kind<T> for Count {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        name: &'static str,
        map: &mut A,
    ) -> Result<Option<T>, A::Error> {
        Ok(map
            .next_value_seed(CountVisitor { name })?
            .map(|n| T::from_count(n.max(self.min))))
    }

    fn read_env(&self, text: &str) -> Result<T, String> {
        Ok(T::from_count(env_number(text)?.max(self.min)))
    }
}

/// Reads a count from the file: a whole number, or `null` (the default).
/// Errors name the key (`settings.maxSessions`) and say what it takes.
struct CountVisitor {
    name: &'static str,
}

impl<'de> Visitor<'de> for CountVisitor {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: a whole number", self.name)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Ok(Some(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        u64::try_from(value).map(Some).map_err(|_| {
            E::custom(format!(
                "`{}` must not be negative (got {value})",
                self.name
            ))
        })
    }
}

impl<'de> DeserializeSeed<'de> for CountVisitor {
    type Value = Option<u64>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// On or off: `true`/`false` in the file; `1`, `true`, `yes`, `on` or `0`,
/// `false`, `no`, `off` in a variable (and an empty variable as off where
/// `empty_is_false`).
struct Switch {
    empty_is_false: bool,
}

impl Kind<bool> for Switch {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        _name: &'static str,
        map: &mut A,
    ) -> Result<Option<bool>, A::Error> {
        map.next_value::<Option<bool>>()
    }

    fn read_env(&self, text: &str) -> Result<bool, String> {
        match text.trim() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            "" if self.empty_is_false => Ok(false),
            _ => Err("expected true or false".into()),
        }
    }
}

/// One of a set of names: the type's own serde form in the file, its
/// `FromStr` in a variable.
struct Named;

impl<T: DeserializeOwned + FromStr<Err = String>> Kind<T> for Named {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        _name: &'static str,
        map: &mut A,
    ) -> Result<Option<T>, A::Error> {
        map.next_value::<Option<T>>()
    }

    fn read_env(&self, text: &str) -> Result<T, String> {
        text.trim().parse()
    }
}

/// An optional `http://` or `https://` URL (`otlpEndpoint`): a string or
/// `null` in the file; in a variable, empty means none.
struct HttpUrl;

impl HttpUrl {
    fn check(text: &str) -> Result<String, String> {
        let text = text.trim();
        let rest = text
            .strip_prefix("http://")
            .or_else(|| text.strip_prefix("https://"));
        match rest {
            Some(rest) if !rest.is_empty() => Ok(text.trim_end_matches('/').to_string()),
            _ => Err(format!(
                "expected a URL starting with http:// or https:// (like http://127.0.0.1:4318), not {text:?}"
            )),
        }
    }
}

impl Kind<String> for HttpUrl {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        name: &'static str,
        map: &mut A,
    ) -> Result<Option<String>, A::Error> {
        match map.next_value::<Option<String>>()? {
            None => Ok(None),
            Some(text) => Self::check(&text)
                .map(Some)
                .map_err(|why| de::Error::custom(format!("`{name}`: {why}"))),
        }
    }

    fn read_env(&self, text: &str) -> Result<String, String> {
        Self::check(text)
    }
}

impl Kind<Option<String>> for HttpUrl {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        name: &'static str,
        map: &mut A,
    ) -> Result<Option<Option<String>>, A::Error> {
        match map.next_value::<Option<String>>()? {
            None => Ok(None),
            Some(text) => Self::check(&text)
                .map(|url| Some(Some(url)))
                .map_err(|why| de::Error::custom(format!("`{name}`: {why}"))),
        }
    }

    fn read_env(&self, text: &str) -> Result<Option<String>, String> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        Self::check(text).map(Some)
    }
}

// ---------------------------------------------------------------------------
// The file's `settings` object.

/// The `settings` object of a file: [`Settings`] with the file's values over
/// the defaults. Unknown and repeated keys are refused with serde's texts.
#[derive(Default)]
pub(super) struct FileSettings(pub(super) Settings);

impl<'de> Deserialize<'de> for FileSettings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("RawSettings", FILE_KEYS, SettingsVisitor)
    }
}

struct SettingsVisitor;

impl<'de> Visitor<'de> for SettingsVisitor {
    type Value = FileSettings;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of settings (`settings`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FileSettings, A::Error> {
        let mut settings = Settings::default();
        // A repeated key never gets here (`unique.rs`).
        while let Some(key) = map.next_key::<String>()? {
            if !FILE_KEYS.contains(&key.as_str()) {
                return Err(de::Error::unknown_field(&key, FILE_KEYS));
            }
            settings.read_file_value(&key, &mut map)?;
        }
        Ok(FileSettings(settings))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::{Source, load};

    fn file_settings(settings: &str) -> Result<Settings, ConfigError> {
        load(Source::text(
            &format!(r#"{{"settings": {settings}}}"#),
            Path::new("c.json"),
        ))
        .map(|c| c.settings)
    }

    fn env_settings(name: &str, value: &str) -> Result<Settings, ConfigError> {
        let mut settings = Settings::default();
        settings.apply_env(|n| (n == name).then(|| value.to_string()))?;
        Ok(settings)
    }

    /// The message of an `Invalid` error with its line and column.
    fn invalid(err: ConfigError) -> (usize, usize, String) {
        match err {
            ConfigError::Invalid {
                line,
                column,
                message,
                ..
            } => (line, column, message),
            other => panic!("not a file error: {other:?}"),
        }
    }

    #[test]
    fn every_setting_is_documented() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        for setting in SETTINGS {
            assert!(
                doc.contains(&format!("`{}`", setting.key)),
                "{} is not in {}",
                setting.key,
                path.display()
            );
            assert!(
                doc.contains(&format!("`{}`", setting.env)),
                "{} is not in {}",
                setting.env,
                path.display()
            );
            assert!(!setting.doc().is_empty(), "{} has no doc", setting.key);
        }
    }

    #[test]
    fn each_variable_is_its_key_in_capitals() {
        for setting in SETTINGS {
            let mut expected = String::from("SWITCHBOARD_");
            for c in setting.key.chars() {
                if c.is_ascii_uppercase() {
                    expected.push('_');
                }
                expected.push(c.to_ascii_uppercase());
            }
            assert_eq!(setting.env, expected);
        }
        assert_eq!(ENV_VARS.len(), SETTINGS.len());
        assert_eq!(FILE_KEYS.len(), SETTINGS.len());
    }

    /// Each setting given the same non-default value in the file and in its
    /// variable: both give the same settings, differing from the defaults in
    /// that one field, and a reload reports it exactly when the table says
    /// it needs a restart.
    #[test]
    fn file_and_environment_agree_for_every_setting() {
        let cases = [
            ("listen", r#""127.0.0.1:9"#, "127.0.0.1:9"),
            ("cacheTtlSecs", "7", "7"),
            ("cacheMaxEntries", "3", "3"),
            ("pollIntervalSecs", "0", "0"),
            ("startupTimeoutSecs", "2", "2"),
            ("callTimeoutSecs", "3", "3"),
            ("coldListTimeoutMs", "250", "250"),
            ("idleShutdownSecs", "0", "0"),
            ("builtinTools", "false", "off"),
            ("tokenStore", r#""memory""#, "memory"),
            ("maxSessions", "5", "5"),
            ("sessionIdleSecs", "9", "9"),
            ("maxConnections", "40", "40"),
            ("headerTimeoutSecs", "4", "4"),
            ("allowRemote", "true", "yes"),
            ("toolPinning", r#""warn""#, "warn"),
            ("activityArguments", "true", "on"),
            ("activityMaxBytes", "4096", "4096"),
            ("toolMode", r#""search""#, "search"),
            ("pinnedTools", r#"["a__t", "b__u"]"#, " a__t, b__u ,"),
            ("warmOnSearch", "false", "off"),
            ("codeTimeoutSecs", "5", "5"),
            ("codeMemoryMb", "16", "16"),
            ("codeMaxCalls", "7", "7"),
            ("codeMaxResultBytes", "2048", "2048"),
            (
                "otlpEndpoint",
                r#""http://127.0.0.1:4318""#,
                "http://127.0.0.1:4318",
            ),
            ("sandbox", r#""off""#, "off"),
            ("confirmCalls", r#""destructive""#, "destructive"),
            ("confirmTimeoutSecs", "30", "30"),
            ("resultSecrets", r#""warn""#, "warn"),
            ("projectFiles", "false", "off"),
            (
                "registryUrl",
                r#""http://127.0.0.1:9""#,
                "http://127.0.0.1:9/",
            ),
        ];
        assert_eq!(
            cases.iter().map(|c| c.0).collect::<Vec<_>>(),
            FILE_KEYS.to_vec(),
            "one case per setting, in table order"
        );
        for (setting, (key, file_value, env_value)) in SETTINGS.iter().zip(cases) {
            let file_value = if key == "listen" {
                format!("{file_value}\"")
            } else {
                file_value.to_string()
            };
            let read_file = file_settings(&format!(r#"{{"{key}": {file_value}}}"#)).unwrap();
            let read_env = env_settings(setting.env, env_value).unwrap();
            assert_eq!(read_file, read_env, "{key}");
            assert_ne!(read_file, Settings::default(), "{key}");
            let reported = Settings::default().changed_needing_restart(&read_file);
            let expected: Vec<&str> = if setting.restart { vec![key] } else { vec![] };
            assert_eq!(reported, expected, "{key}");
            // `null` in the file is the default.
            assert_eq!(
                file_settings(&format!(r#"{{"{key}": null}}"#)).unwrap(),
                Settings::default(),
                "{key}"
            );
        }
    }

    #[test]
    fn changes_needing_restart_come_in_table_order() {
        let next = Settings {
            header_timeout: Duration::from_secs(5),
            cache_ttl: Duration::from_secs(5),
            token_store: TokenStoreChoice::Memory,
            allow_remote: true,
            ..Settings::default()
        };
        assert_eq!(
            Settings::default().changed_needing_restart(&next),
            vec![
                "cacheTtlSecs",
                "tokenStore",
                "headerTimeoutSecs",
                "allowRemote"
            ]
        );
        assert!(next.changed_needing_restart(&next).is_empty());
    }

    #[test]
    fn floors_and_minimums_apply_to_file_and_environment() {
        for (key, env, check) in [
            (
                "startupTimeoutSecs",
                "SWITCHBOARD_STARTUP_TIMEOUT_SECS",
                (|s: &Settings| s.startup_timeout == Duration::from_secs(1))
                    as fn(&Settings) -> bool,
            ),
            ("callTimeoutSecs", "SWITCHBOARD_CALL_TIMEOUT_SECS", |s| {
                s.call_timeout == Duration::from_secs(1)
            }),
            (
                "headerTimeoutSecs",
                "SWITCHBOARD_HEADER_TIMEOUT_SECS",
                |s| s.header_timeout == Duration::from_secs(1),
            ),
            ("cacheMaxEntries", "SWITCHBOARD_CACHE_MAX_ENTRIES", |s| {
                s.cache_max_entries == 1
            }),
            ("maxSessions", "SWITCHBOARD_MAX_SESSIONS", |s| {
                s.max_sessions == 1
            }),
            ("maxConnections", "SWITCHBOARD_MAX_CONNECTIONS", |s| {
                s.max_connections == 0
            }),
            ("cacheTtlSecs", "SWITCHBOARD_CACHE_TTL_SECS", |s| {
                s.cache_ttl == Duration::ZERO
            }),
        ] {
            assert!(
                check(&file_settings(&format!(r#"{{"{key}": 0}}"#)).unwrap()),
                "{key}"
            );
            assert!(check(&env_settings(env, " 0 ").unwrap()), "{env}");
        }
    }

    #[test]
    fn bad_environment_values_name_the_variable_and_the_problem() {
        for (name, value, message) in [
            (
                "SWITCHBOARD_LISTEN",
                "nowhere",
                "expected an address like 127.0.0.1:8420",
            ),
            (
                "SWITCHBOARD_CACHE_TTL_SECS",
                "-1",
                "expected a whole number",
            ),
            (
                "SWITCHBOARD_MAX_SESSIONS",
                "many",
                "expected a whole number",
            ),
            (
                "SWITCHBOARD_COLD_LIST_TIMEOUT_MS",
                "2592000001",
                "2592000001 is more than the maximum 2592000000 (30 days)",
            ),
            ("SWITCHBOARD_BUILTIN_TOOLS", "", "expected true or false"),
            (
                "SWITCHBOARD_ALLOW_REMOTE",
                "maybe",
                "expected true or false",
            ),
            (
                "SWITCHBOARD_TOKEN_STORE",
                "file",
                "expected auto, secret-service, keyutils, keychain, credential-manager or memory",
            ),
        ] {
            let err = env_settings(name, value).unwrap_err();
            assert_eq!(
                err,
                ConfigError::Env {
                    name: name.into(),
                    value: value.into(),
                    message: message.into(),
                }
            );
        }
        // An empty SWITCHBOARD_ALLOW_REMOTE is off (an empty BUILTIN_TOOLS is refused above).
        assert!(
            !env_settings("SWITCHBOARD_ALLOW_REMOTE", "")
                .unwrap()
                .allow_remote
        );
        // The first bad variable in table order is the one reported.
        let mut settings = Settings::default();
        let err = settings
            .apply_env(|n| {
                matches!(n, "SWITCHBOARD_LISTEN" | "SWITCHBOARD_MAX_SESSIONS").then(|| "x".into())
            })
            .unwrap_err();
        assert!(err.to_string().contains("SWITCHBOARD_LISTEN"), "{err}");
    }

    #[test]
    fn unknown_repeated_and_mistyped_keys_are_refused_with_serde_texts() {
        let (line, column, message) = invalid(file_settings(r#"{"cacheTTLSecs": 1}"#).unwrap_err());
        assert_eq!((line, column), (1, 28));
        assert_eq!(
            message,
            "unknown field `cacheTTLSecs`, expected one of `listen`, `cacheTtlSecs`, \
             `cacheMaxEntries`, `pollIntervalSecs`, `startupTimeoutSecs`, `callTimeoutSecs`, \
             `coldListTimeoutMs`, `idleShutdownSecs`, `builtinTools`, `tokenStore`, \
             `maxSessions`, `sessionIdleSecs`, `maxConnections`, `headerTimeoutSecs`, \
             `allowRemote`, `toolPinning`, `activityArguments`, `activityMaxBytes`, `toolMode`, `pinnedTools`, `warmOnSearch`, \
             `codeTimeoutSecs`, `codeMemoryMb`, `codeMaxCalls`, `codeMaxResultBytes`, \
             `otlpEndpoint`, `sandbox`, `confirmCalls`, `confirmTimeoutSecs`, `resultSecrets`, `projectFiles`, \
             `registryUrl`"
        );
        let (_, _, message) =
            invalid(file_settings(r#"{"listen": null, "listen": "127.0.0.1:1"}"#).unwrap_err());
        assert_eq!(message, "the key \"listen\" appears twice in `settings`");
        for (settings, expected) in [
            (
                "5",
                "invalid type: integer `5`, expected an object of settings (`settings`)",
            ),
            (
                r#"{"maxSessions": "9"}"#,
                r#"invalid type: string "9", expected `settings.maxSessions`: a whole number"#,
            ),
            (
                r#"{"builtinTools": 1}"#,
                "invalid type: integer `1`, expected a boolean",
            ),
            (
                r#"{"listen": "localhost"}"#,
                r#"settings.listen: "localhost" is not an address like 127.0.0.1:8420"#,
            ),
            (
                r#"{"tokenStore": "file"}"#,
                "unknown variant `file`, expected one of `auto`, `secret-service`, `keyutils`, `keychain`, `credential-manager`, `memory`",
            ),
        ] {
            let (_, _, message) = invalid(file_settings(settings).unwrap_err());
            assert_eq!(message, expected, "{settings}");
        }
    }
}
