//! Tool pinning on the wire: the held and changed tools of a server (in the
//! status snapshot), both definitions of a held tool for the dashboard's diff
//! (`GET /api/v1/servers/<id>/held`), and the approve request and answer
//! (`POST /api/v1/servers/<id>/approve`). See "Tool pinning" in
//! `docs/security.md`.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// A tool whose definition differs from the one approved (pinned).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct HeldTool {
    /// The tool's name as its server lists it.
    pub name: String,
    /// What changed, e.g. `description` or `description, input schema`
    /// (parts: title, description, input schema, output schema, annotations).
    pub change: String,
    /// When the change was first seen (RFC 3339).
    pub since: String,
}

/// One held or changed tool with both definitions, for a diff.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct HeldDefinition {
    /// The tool's name as its server lists it.
    pub name: String,
    /// What changed (as in [`HeldTool::change`]).
    pub change: String,
    /// When the change was first seen (RFC 3339).
    pub since: String,
    /// `true` when the tool is withheld (`toolPinning: "hold"`), `false` when
    /// it is listed with a flag (`"warn"`).
    pub held: bool,
    /// The approved definition (as the server listed it then).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub approved: serde_json::Value,
    /// The definition the server lists now.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub current: serde_json::Value,
}

/// `GET /api/v1/servers/<id>/held`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct HeldResponse {
    /// The server id.
    pub server: String,
    /// Its held and changed tools, by name.
    pub tools: Vec<HeldDefinition>,
}

/// The body of `POST /api/v1/servers/<id>/approve`; no body (or no `tools`)
/// approves every held or changed tool of the server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ApproveRequest {
    /// Tool names as the server lists them.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
}

/// The answer to an approval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ApproveResponse {
    /// The server id.
    pub server: String,
    /// The tools re-pinned to their current definitions.
    pub approved: Vec<String>,
}
