//! The MCP Registry on the wire: `GET /api/v1/registry?search=Q` (servers
//! found, with what the dashboard's install form is built from) and
//! `POST /api/v1/registry/install` (`{"name", "version"?, "id"?, "env"?,
//! "headers"?}` → `{"id"}`). See `docs/registry.md`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// The servers a registry search found.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct RegistrySearchResponse {
    /// The registry asked (`settings.registryUrl`).
    pub registry: String,
    pub servers: Vec<RegistryServer>,
    /// When the registry could not be reached and a cached answer is shown:
    /// when it was cached (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_since: Option<String>,
}

/// One server of a search.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct RegistryServer {
    /// The registry name (`io.github.owner/server`).
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// `stdio (npm)`, `stdio (pypi)`, `stdio (oci)`, `streamable-http`, `sse`.
    pub transports: Vec<String>,
    /// Whether it is installed: added from the registry (in
    /// `servers.lock.json`) and configured.
    #[serde(default)]
    pub installed: bool,
    /// The id it is configured under, when installed.
    #[serde(default)]
    pub installed_as: Option<String>,
    /// The values an install asks for: env variables of a package.
    #[serde(default)]
    pub env: Vec<RegistryInput>,
    /// The values an install asks for: headers of a remote.
    #[serde(default)]
    pub headers: Vec<RegistryInput>,
}

/// An env variable or header a server's document declares.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct RegistryInput {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
    /// Kept in the OS keyring, never in the config file.
    #[serde(default)]
    pub secret: bool,
    #[serde(default)]
    pub default: Option<String>,
}

/// `POST /api/v1/registry/install`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegistryInstallRequest {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
}

/// The answer to an install: the server's id (being vetted: its tools are
/// held with change `new server` until approved).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct RegistryInstallResponse {
    pub id: String,
}
