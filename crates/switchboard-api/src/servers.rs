//! The control API's bodies for editing servers and importing them from the
//! AI clients' config files (the dashboard's first run and server form):
//! `GET /api/v1/servers/<id>/config`, `PUT`/`DELETE /api/v1/servers/<id>`,
//! `GET`/`POST /api/v1/import` (see `docs/status.md`). A server definition
//! travels as the JSON it has in the config file; secret-looking values in
//! what the hub sends are `***`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::ReloadResult;

/// `GET /api/v1/servers/<id>/config`: one server's definition as written in
/// the config file, secret-looking values (secret env values and headers,
/// URL credentials) replaced by `***`. Sending `***` back in a `PUT` keeps
/// the value that was there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerDefinition {
    /// The server.
    pub id: String,
    /// The definition (`command`, `args`, `env`, or `url`, `headers`, ...).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub definition: Value,
}

/// `GET /api/v1/import`: what `switchboard import --dry-run` would add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportOffer {
    /// The servers an import would add, in the order found.
    pub candidates: Vec<ImportCandidate>,
    /// The client files that were read (`"Claude Desktop: 3 servers"`, ...).
    pub looked_at: Vec<String>,
    /// Files that could not be read and entries that were refused, for people.
    pub problems: Vec<String>,
}

/// One server an import would add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportCandidate {
    /// The id it gets in Switchboard's config.
    pub id: String,
    /// The client it comes from (`Claude Desktop`, `Cursor`, ...), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub client: Option<String>,
    /// The client's config file.
    pub file: String,
    /// The name the client gives it.
    pub name: String,
    /// The definition in Switchboard's format, secrets as `***`.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub definition: Value,
    /// Renames, fields not carried over, placeholders.
    pub notes: Vec<String>,
}

/// The body of `POST /api/v1/import`: which candidates to import, by id;
/// none given (or `"all": true`) imports every one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportSelection {
    /// The candidates' ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ids: Option<Vec<String>>,
    /// Import every candidate.
    #[serde(default)]
    pub all: bool,
}

/// `POST /api/v1/import`: what was written and how the reload went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportResponse {
    /// Whether the import was written and applied.
    pub ok: bool,
    /// The ids written to the config file.
    pub added: Vec<String>,
    /// The copy of the previous config file, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub backup: Option<String>,
    /// The reload that applied it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reload: Option<ReloadResult>,
    /// Why not, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}
