//! Switchboard's engine: merges many MCP servers (stdio children and remote
//! Streamable HTTP servers) behind one MCP endpoint on localhost.
//!
//! Start with [`Hub::bind`] and [`Hub::run`]; everything else is reached
//! through the [`HubHandle`]. This crate has no GUI, CLI or terminal output:
//! it logs with `tracing` and never prints.

// The engine's modules (their layers, bottom to top, are in
// `tests/layers.rs`). Only what the CLI, the app, the tests and the fuzz
// targets use is public: two modules whose surface they use widely, and the
// list below.
// The config file's model and loader are a crate of their own
// (`switchboard-config`, below the engine); inside the engine and for its
// users they stay `config` (`crate::config::…`, `switchboard_core::config::…`).
pub use switchboard_config as config;
mod access;
mod activity;
mod approval;
pub mod auth;
mod builtin;
mod catalog;
mod codemode;
mod events;
mod fingerprint;
mod gateway;
mod http;
mod hub;
mod identity;
mod import;
mod interpreter;
mod limiter;
mod listing;
mod mcp_registry;
mod persist;
mod pins;
mod registry;
mod reload;
mod resilience;
mod sandbox;
mod scan;
mod search;
mod server;
mod sessions;
mod snapshot;
mod token_count;
mod tool_defs;
mod upstream;
mod util;

/// The log filter when `RUST_LOG` is unset or empty: the hub's own INFO
/// lines and everyone else's warnings (rmcp's INFO is a line per message and
/// a `peer_info` dump per session). Each binary adds its own crate at INFO.
pub const DEFAULT_LOG_FILTER: &str = "warn,switchboard_core=info";

/// Whether a log event is kept out of the log whatever the filter says,
/// unless `RUST_LOG` names rmcp itself (`rust_log_names_rmcp`): rmcp's ERROR
/// lines. Each is a failure the hub reports itself, in one line of plain
/// words (a failed connect: `upstream failed to start … connection refused`),
/// while rmcp's line dumps Rust types (`worker quit with fatal: Transport
/// channel closed, when Client(reqwest::Error { … })`), three per failed
/// connect. Both binaries install this in their log set-up.
pub fn hidden_log_event(target: &str, level: tracing::Level, rust_log_names_rmcp: bool) -> bool {
    !rust_log_names_rmcp
        && level == tracing::Level::ERROR
        && (target == "rmcp" || target.starts_with("rmcp::"))
}

// The facade: everything the CLI, the app, the tests and the fuzz targets use.
pub use access::{is_loopback_authority, read_token, token_path};
pub use approval::{Decider, Decision, NotPending};
pub use catalog::{Catalog, CatalogSource, MAX_NAME_LEN, is_reserved as is_reserved_name};
pub use config::{Config, ConfigError, ServerConfig, ServerId, Settings};
pub use fingerprint::Fingerprint;
#[doc(hidden)]
pub use http::fast_path::fuzz_sniff;
pub use hub::{
    ApproveError, Approved, Hub, HubError, HubHandle, HubOptions, StagedError, StagedListing,
    Unrouted, list_staged_update, registry_server,
};
pub use identity::{INSTANCE_HEADER, VIA_ENV, VIA_HEADER};
pub use import::{ImportApplied, ImportError, ImportOffer, ImportSelection, ImportSource};
pub use listing::{Capabilities, RefreshTrigger};
pub use mcp_registry::document::{
    Input as RegistryInput, PackageKind, ServerDocument, inputs as registry_inputs,
    transports as registry_transports,
};
pub use mcp_registry::install::{InstallError, InstallRequest, Installed, default_id};
pub use mcp_registry::lock::{LOCK_FILE, LockEntry, Lockfile, StagedUpdate, ToolDiff};
pub use mcp_registry::{
    Answer as RegistryAnswer, RegistryClient, RegistryError, ServerEntry as RegistryEntry,
    ServerList as RegistryList,
};
/// The registry's install and update flow (`switchboard add`, `update`).
pub mod registry_install {
    pub use crate::mcp_registry::install::install;
    pub use crate::mcp_registry::update::{cancel as cancel_update, stage as stage_update};
}
pub use persist::state_dir;
pub use reload::{ReloadError, ReloadResult};
pub use resilience::BreakerState;
pub use sandbox::policy::suggest_expose as suggest_sandbox_expose;
pub use search::{
    Fusion as SearchFusion, Hit as SearchHit, Index as SearchIndex, Matched as SearchMatched,
    ToolDoc, baseline as search_baseline,
};
pub use snapshot::timestamp;
pub use snapshot::{BreakerSnapshot, HubSnapshot, ServerSnapshot};
pub use token_count::{count_text as count_tokens, count_tools as count_tool_tokens};
pub use upstream::guard;
pub use upstream::{Health, ServerState, UpstreamError};
pub use util::redact::text as redact_text;
pub use util::{files, humanize_coarse};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rmcp_errors_are_hidden_and_only_unless_rust_log_names_rmcp() {
        use tracing::Level;
        assert!(hidden_log_event(
            "rmcp::transport::worker",
            Level::ERROR,
            false
        ));
        assert!(hidden_log_event("rmcp", Level::ERROR, false));
        assert!(!hidden_log_event(
            "rmcp::transport::worker",
            Level::WARN,
            false
        ));
        assert!(!hidden_log_event("rmcpx", Level::ERROR, false));
        assert!(!hidden_log_event(
            "switchboard_core::upstream",
            Level::ERROR,
            false
        ));
        assert!(!hidden_log_event("rmcp::service", Level::ERROR, true));
    }
}
