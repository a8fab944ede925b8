//! The configuration model and its loader.
//!
//! The file format is Claude Desktop's `{"mcpServers": {...}}` with an optional
//! `"settings"` object, so people can paste what they already have. Parsing is
//! all-or-nothing: a file with any error is refused whole with its path, line,
//! column and what is wrong, and the caller keeps whatever config it had. Every
//! setting may be overridden by a `SWITCHBOARD_*` environment variable
//! ([`Settings::apply_env`]).
//!
//! One entry point, [`load`] of a [`Source`], gives a [`Config`]. Reading the
//! file ([`Source::start`] at start-up, [`Source::reload`] afterwards) refuses anything but a regular file of at most
//! [`MAX_CONFIG_BYTES`] without blocking (a FIFO is refused, not opened for a
//! writer). At start-up a missing or empty file means "no servers yet"; on a
//! reload it is an error ([`ConfigError::Missing`], [`ConfigError::Empty`]), so
//! a file deleted, or truncated by an editor that writes in place, never
//! removes servers: only a valid file does.
//!
//! Invariants of a parsed [`Config`]: no object in the file has a key twice;
//! server ids match `[A-Za-z0-9_-]{1,40}` and are unique; every server has
//! exactly one transport; every duration,
//! global or per server, is at most [`MAX_DURATION`] (checked in the file with
//! `path:line:column`, and in `SWITCHBOARD_*` variables naming the variable),
//! so `Instant + duration` built from config cannot overflow.
//!
//! A crate below the engine (which re-exports it as `switchboard_core::config`):
//! it imports no engine code, only `switchboard-util` (file writes, redaction).
//! - `model`: the plain values ([`Config`], [`ServerConfig`], ...);
//! - `settings`: [`Settings`], declared once in one table that drives the
//!   file keys, the environment overrides, the defaults and the restart rules;
//! - `expand`: `${VAR}` and `${VAR:-default}` references in a server's
//!   `command`, `args`, `env`, `cwd`, `url` and `headers`, expanded from
//!   the environment by the loader (the values become secrets);
//! - `secrets`: what in a config is a secret, and secret names;
//! - `profiles`: the `profiles` key (named endpoints over some servers);
//! - `redacted`: a server definition as shown to a person (secrets `***`)
//!   and back (a `***` sent back keeps the old value);
//! - `editor`: edits Switchboard makes to the file (turning a server on or
//!   off, adding, replacing or removing one), splicing only the member
//!   concerned (`splice` finds the byte spans) so every other byte stays;
//! - `watch`: a watcher that only signals "the file may have changed";
//! - `guard`: who may change the file (only its owner: a file or directory
//!   others can write is refused, [`ConfigError::Unsafe`]);
//! - `sandbox`: the `sandbox` keys (global mode, per-server policy);
//! - `unique`: the one check of repeated keys, in any object of the file;
//! - `load`: the one entry point, [`load`] of a [`Source`] (the file at
//!   start-up or on a reload, a text or bytes; options: `${VAR}` lookups,
//!   the `SWITCHBOARD_*` overrides, "no servers" for a refused file);
//! - `file`: the file's raw shape and its checks, read while deserializing;
//! - `error`: [`ConfigError`] and its redacted form; `wire`: its wire form.

mod editor;
mod error;
mod expand;
mod file;
mod guard;
mod load;
mod model;
mod overrides;
mod profiles;
pub mod project;
mod read;
mod redacted;
pub mod roots;
mod sandbox;
mod secrets;
mod settings;
mod splice;
mod transport;
mod unique;
mod watch;
mod wire;

pub use editor::add_allowed_tool;
pub use editor::set_tool_override;
pub use editor::{
    EditError, check_definition, put_server, remove_server, server_definition, set_server_enabled,
    set_tool_disabled,
};
pub use error::ConfigError;
pub use expand::{ExpandError, Vars, escape_foreign, expand as expand_vars};
pub use load::{Loaded, MAX_CONFIG_BYTES, OrEmpty, Source, default_config_path, load, process_env};
pub use model::{
    Config, ConfigValue, DEFAULT_LISTEN, IdentityProvider, MAX_SERVER_ID_LEN, OAuthConfig,
    OAuthGrant, ServerConfig, ServerId, ServerTimeouts, SigningAlgorithm, TransportConfig,
};
pub use overrides::{MAX_TOOL_NAME_LEN, ToolOverride};
pub use profiles::{MAX_PROFILE_NAME_LEN, MIN_TOKEN_LEN, ProfileConfig, ProfileName};
pub use read::read_config_file;
pub use redacted::{mask_definition_secrets, redact_definition, restore_redacted};
pub use sandbox::{FilesystemPolicy, NetworkPolicy, SandboxMode, SandboxPolicy, ServerSandbox};
pub use secrets::check_secret_name;
pub use settings::{ConfirmCalls, ResultSecrets, ServerApproval};
pub use settings::{
    ENV_VARS, MAX_DURATION, SETTINGS, SettingInfo, Settings, TimeUnit, TokenStoreChoice, ToolMode,
    ToolPinning,
};
pub use watch::ConfigWatch;
