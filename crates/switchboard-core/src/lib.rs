//! Switchboard's engine: merges many MCP servers (stdio children and remote
//! Streamable HTTP servers) behind one MCP endpoint on localhost.
//!
//! Start with [`Hub::bind`] and [`Hub::run`]; everything else is reached
//! through the [`HubHandle`]. This crate has no GUI, CLI or terminal output:
//! it logs with `tracing` and never prints.

pub mod access;
pub mod auth;
pub mod builtin;
pub mod catalog;
pub mod config;
pub mod control;
pub mod fast_path;
pub mod files;
pub mod fingerprint;
pub mod fresh;
pub mod gateway;
pub mod guard;
pub mod http_sessions;
pub mod hub;
pub mod identity;
pub mod limiter;
pub mod listener;
pub mod listing;
pub mod persist;
pub mod redact;
pub mod registry;
pub mod reload;
pub mod resilience;
mod server;
pub mod sessions;
pub mod snapshot;
pub mod ui_assets;
pub mod upstream;

/// The log filter when `RUST_LOG` is unset or empty: the hub's own INFO
/// lines and everyone else's warnings (rmcp's INFO is a line per message and
/// a `peer_info` dump per session). Each binary adds its own crate at INFO.
pub const DEFAULT_LOG_FILTER: &str = "warn,switchboard_core=info";

pub use config::{Config, ConfigError, ServerConfig, ServerId, Settings};
pub use hub::{Hub, HubError, HubHandle, HubOptions};
pub use reload::{ReloadError, ReloadResult};
pub use snapshot::HubSnapshot;
pub use upstream::{ServerState, UpstreamError};
