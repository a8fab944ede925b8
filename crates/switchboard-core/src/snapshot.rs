//! `HubSnapshot`: a plain, serializable value of everything the CLI, the UI
//! and the tray show. It is rebuilt by the hub whenever an upstream reports a
//! change and published on a `watch` channel; readers never touch live state.
//! Field names are camelCase in JSON (`GET /api/v1/status`).
//!
//! A snapshot never carries a secret: no URL, header or env value of a server
//! is in it, and the text fields that can quote one (`lastError`,
//! `stderrTail`, `auth.message`, `configError`) are redacted by the builder
//! (`crate::redact`), on top of the redaction where that text is made.

use std::time::SystemTime;

use serde::Serialize;

use crate::config::ConfigError;
use crate::listing::RefreshTrigger;
use crate::reload::ReloadResult;
use crate::resilience::BreakerState;
use crate::sessions::SessionSnapshot;
use crate::upstream::{Health, ListChange, ServerState};

/// The whole hub, as of `generatedAt`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HubSnapshot {
    pub version: String,
    /// The merged MCP endpoint, `http://127.0.0.1:<port>/mcp`.
    pub endpoint: String,
    pub config_path: Option<String>,
    /// Set while the config file on disk is invalid (the last good one keeps running).
    pub config_error: Option<ConfigError>,
    /// What the last config reload did.
    pub last_reload: Option<ReloadResult>,
    pub started_at: Option<String>,
    pub generated_at: Option<String>,
    pub servers: Vec<ServerSnapshot>,
    pub totals: Totals,
    /// Connected downstream MCP sessions.
    pub sessions: Vec<SessionSnapshot>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub servers: usize,
    pub tools: usize,
    pub prompts: usize,
    pub resources: usize,
}

/// One server.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerSnapshot {
    pub id: String,
    /// `stdio` or `http`.
    pub transport: String,
    pub enabled: bool,
    pub state: ServerState,
    /// Exposed counts (after `disabledTools`), as of the last listing.
    pub tool_count: usize,
    pub prompt_count: usize,
    pub resource_count: usize,
    pub resource_template_count: usize,
    /// When the lists were last fetched (RFC 3339), or null if never.
    pub listed_at: Option<String>,
    pub refresh_trigger: Option<RefreshTrigger>,
    /// When the listing stops counting as fresh.
    pub ttl_expires_at: Option<String>,
    /// The last refresh failed; the lists shown are the last known ones.
    pub stale: bool,
    pub last_error: Option<String>,
    pub last_ok_at: Option<String>,
    pub last_failure_at: Option<String>,
    pub consecutive_failures: u32,
    /// Process id of the running stdio child, null when none runs.
    pub pid: Option<u32>,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    pub protocol_version: Option<String>,
    pub stderr_tail: Vec<String>,
    /// `healthy | degraded | down | unknown`, from the last listings, calls and polls.
    pub health: Health,
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
    pub auth: Option<crate::auth::AuthSnapshot>,
}

/// The circuit breaker of one server.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BreakerSnapshot {
    pub state: BreakerState,
    /// While open: when the next attempt is let through.
    pub retry_at: Option<String>,
}

/// RFC 3339 with milliseconds, UTC.
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
