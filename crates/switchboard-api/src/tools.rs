//! Tools on the wire, for the dashboard: one server's tools with their switch
//! and cost (`GET /api/v1/servers/<id>/tools`) and a search over the catalog
//! (`GET /api/v1/search?q=...&limit=...`), which answers with the same JSON
//! as the `switchboard__search_tools` tool's `structuredContent`.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// `GET /api/v1/servers/<id>/tools`: the server's last listing, disabled
/// tools included.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerToolsResponse {
    /// The server id.
    pub server: String,
    /// `false` when the server was never listed (nothing is started to list it).
    pub listed: bool,
    /// Its tools in the order the server lists them.
    pub tools: Vec<ServerTool>,
}

/// One tool of a server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerTool {
    /// The tool's own name at its server (what `disabledTools` holds).
    pub name: String,
    /// The first line of its description ("" when it has none).
    pub description: String,
    /// `false` when the server's `disabledTools` hides it.
    pub enabled: bool,
    /// Tokens (`o200k_base`) of its definition as the server lists it;
    /// `null` until the hub has counted the listing (moments after it came).
    pub tokens: Option<usize>,
    /// The names of its arguments (its input schema's `properties`), for
    /// the override editor.
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Its override (`mcpServers.<id>.toolOverrides.<name>`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_override: Option<ToolOverride>,
}

/// One tool's override as the config file holds it, and the body of
/// `PUT /api/v1/servers/{id}/tools/{tool}/override`: the name and
/// description clients see, argument defaults, hidden arguments (which always
/// take their default).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
    /// Values filled in when a call leaves the argument out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional))]
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
    /// Arguments removed from the schema clients see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hide_arguments: Option<Vec<String>>,
}

/// `GET /api/v1/search`: best match first.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchResponse {
    pub tools: Vec<SearchedTool>,
}

/// One search result, as `switchboard__search_tools` gives it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchedTool {
    /// The name to call it by on `/mcp` (`<server>__<tool>`).
    pub name: String,
    /// Its description ("" when it has none).
    pub description: String,
    /// Its input schema as the server lists it.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub input_schema: serde_json::Value,
    /// The server's id.
    pub server: String,
    /// Whether the server is running now (a call to a stopped one starts it).
    pub running: bool,
    /// Why it was found: its words, its meaning, or both.
    #[serde(default)]
    pub matched: SearchMatch,
}

/// Which ranking found a search result (`docs/search-ranking.md`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum SearchMatch {
    /// The request shares words (or concept words) with the tool.
    #[default]
    Lexical,
    /// The tool is among the closest to the request by meaning.
    Semantic,
    /// Both rankings found it.
    Both,
}
