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
    /// Search mode's tools and `switchboard__run_code`.
    Code,
}

/// One merged MCP endpoint: `/mcp`, or a profile's `/profiles/<name>/mcp`.
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
    /// Tokens of the tool definitions its `tools/list` returns (`o200k_base`,
    /// counted as each server's `toolTokens`); incomplete until
    /// `tokensCounted`.
    #[serde(default)]
    pub tool_tokens: usize,
    /// Whether `toolTokens` counts every tool it lists: false for a moment
    /// after a start or a change of the tools, while the hub counts them
    /// (say "counting", not a number, until then).
    #[serde(default)]
    pub tokens_counted: bool,
    /// The profile it serves; absent for `/mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub profile: Option<EndpointProfile>,
}

/// What a profile's endpoint serves (never its token).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct EndpointProfile {
    /// The profile's name (the `<name>` of its path).
    pub name: String,
    /// The server ids it serves, as configured.
    pub servers: Vec<String>,
    /// Whether requests need its bearer token.
    pub has_token: bool,
    /// The folder whose `.switchboard.json` this unnamed profile is (served
    /// on `/mcp` to the clients whose roots name the folder); absent for a
    /// configured profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub project: Option<String>,
}
