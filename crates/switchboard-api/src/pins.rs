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
    /// SHA-256 (hex) of the definition the server lists now, the one a person
    /// reviews: send it back in the approval so that only this definition is
    /// approved (see [`ReviewedTool`]).
    #[serde(default)]
    pub hash: String,
    /// What scanning the definition found (see "Scanning tool definitions" in
    /// `docs/security.md`); a tool with findings is held even on first
    /// sight. Empty for a tool held only because it changed.
    #[serde(default)]
    pub findings: Vec<ToolFinding>,
}

/// One finding of the definition scan: which rule matched, and where.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolFinding {
    /// The rule's id, e.g. `instruction-tag`, `credential-file`,
    /// `invisible-unicode`.
    pub rule: String,
    /// The text around the match (at most about 160 characters, invisible
    /// characters written as `<U+XXXX>`, secrets redacted).
    pub excerpt: String,
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
    /// SHA-256 (hex) of `current` (as in [`HeldTool::hash`]).
    #[serde(default)]
    pub hash: String,
    /// What scanning `current` found (as in [`HeldTool::findings`]).
    #[serde(default)]
    pub findings: Vec<ToolFinding>,
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
    /// The tools: names as the server lists them, or names with the hash of
    /// the definition reviewed.
    #[serde(default)]
    pub tools: Option<Vec<ApproveTool>>,
}

/// One tool to approve: `"name"` approves whatever the server lists now,
/// `{"name": ..., "hash": ...}` only the definition with that hash.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(untagged)]
pub enum ApproveTool {
    /// A tool name alone.
    Name(String),
    /// A tool name and the definition a person reviewed.
    Reviewed(ReviewedTool),
}

impl ApproveTool {
    /// The tool's name as the server lists it.
    pub fn name(&self) -> &str {
        match self {
            Self::Name(name) => name,
            Self::Reviewed(reviewed) => &reviewed.name,
        }
    }

    /// The hash the approval is bound to, if any.
    pub fn hash(&self) -> Option<&str> {
        match self {
            Self::Name(_) => None,
            Self::Reviewed(reviewed) => reviewed.hash.as_deref(),
        }
    }
}

/// A tool name with the hash ([`HeldTool::hash`]) of the definition that
/// was shown: the approval is refused (409, nothing approved) when the server
/// lists another definition by now.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ReviewedTool {
    /// The tool's name as the server lists it.
    pub name: String,
    /// SHA-256 (hex) of the definition reviewed; without it, the name alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hash: Option<String>,
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
    /// The secret headers a remote being vetted may now connect with (it
    /// could not be listed without them); its tools are then held for
    /// review. Left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub headers: Option<Vec<String>>,
}
