//! The MCP endpoints the hub serves and what a client of each gets, in the
//! status snapshot (`endpoints`; see `docs/status.md` and `docs/search.md`).

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// What a merged endpoint lists (`settings.toolMode`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// Every enabled server's tools.
    #[default]
    All,
    /// The pinned tools, the built-in tools and the two search tools.
    Search,
}

/// One merged MCP endpoint.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct EndpointSnapshot {
    /// The path clients connect to, e.g. `/mcp`.
    pub path: String,
    /// What its `tools/list` offers.
    pub tool_mode: ToolMode,
    /// How many tools its `tools/list` returns, built-in tools included.
    pub tools: usize,
}
