//! The control API's answers (`/api/v1/...`, see `docs/status.md`). Every
//! route here is a `GET` or a bodyless `POST` (the routes that take a body,
//! editing and importing servers, are in `servers.rs`); each answer is one
//! of the types below. A field that only one outcome
//! carries is left out of the others, exactly as the hub has always answered.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::{ConfigError, ReloadResult};

/// The answer of a refused request: an unknown server (404), a refused
/// credential or origin (401, 403), a request from the hub itself (508).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ErrorResponse {
    /// What went wrong, for people.
    pub error: String,
}

/// `POST /api/v1/refresh`: every enabled server re-listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct RefreshAllResponse {
    /// One entry per enabled server.
    pub servers: Vec<RefreshResult>,
}

/// How re-listing one server went (`POST /api/v1/servers/<id>/refresh`, and
/// each entry of [`RefreshAllResponse`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct RefreshResult {
    /// The server.
    pub id: String,
    /// Whether it listed.
    pub ok: bool,
    /// Why it did not, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
    /// The failure's kind, as in the MCP errors' `data.kind` (`processExited`,
    /// `timeout`, ...). Only in the one-server route's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub kind: Option<String>,
}

/// `POST /api/v1/reload`, `/servers/<id>/enable` and `/servers/<id>/disable`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(untagged)]
pub enum ReloadResponse {
    /// The config was applied (200).
    Applied {
        /// Always true.
        ok: bool,
        /// What the reload did.
        reload: ReloadResult,
    },
    /// The config was refused (422), the server is unknown (404), the hub has
    /// no config file (409) or the file could not be written (500).
    Refused {
        /// Always false.
        ok: bool,
        /// Why, for people (`<path>:<line>:<col>: <message>` for a bad file).
        error: String,
        /// The refused file's error, null for the other refusals.
        #[serde(rename = "configError")]
        config_error: Option<ConfigError>,
    },
}

impl ReloadResponse {
    /// The reload result, or the refusal's sentence.
    pub fn into_result(self) -> Result<ReloadResult, String> {
        match self {
            Self::Applied { reload, .. } => Ok(reload),
            Self::Refused { error, .. } => Err(error),
        }
    }
}

/// `GET /api/v1/servers/<id>/logs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LogsResponse {
    /// The server.
    pub id: String,
    /// Its stderr lines, oldest first.
    pub stderr: Vec<String>,
    /// The hub's own log lines about it, oldest first.
    pub events: Vec<LogLine>,
}

/// One line of the hub's own log about a server (not the server's stderr).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LogLine {
    /// When (RFC 3339).
    pub at: String,
    /// `info`, `warn` or `error`.
    pub level: String,
    /// What happened, for people.
    pub message: String,
}

/// `POST /api/v1/servers/<id>/login` when the login started: open the URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct LoginResponse {
    /// The server.
    pub id: String,
    /// Always true.
    pub ok: bool,
    /// Open this in a browser.
    pub authorization_url: String,
    /// Where the browser is sent back to (`http://127.0.0.1:<port>/oauth/callback`).
    pub redirect_uri: String,
}

/// `POST /api/v1/servers/<id>/logout` when it worked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LogoutResponse {
    /// The server.
    pub id: String,
    /// Always true.
    pub ok: bool,
}

/// A login or logout that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AuthFailure {
    /// The server.
    pub id: String,
    /// Always false.
    pub ok: bool,
    /// What went wrong and what to do, for people.
    pub error: String,
    /// The same, for programs.
    pub detail: AuthErrorDetail,
}

/// Why a login, a logout or a secret lookup failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
#[allow(missing_docs)]
pub enum AuthErrorDetail {
    /// No server has this id.
    UnknownServer { server: String },
    /// Only servers with a `url` log in with OAuth.
    NotRemote { server: String },
    /// The loopback listener for the OAuth callback could not be bound.
    Callback { port: u16, message: String },
    /// OAuth metadata discovery failed.
    Discovery { server: String, message: String },
    /// Dynamic client registration failed.
    Registration { server: String, message: String },
    /// The authorization server denied access.
    Denied {
        server: String,
        error: String,
        description: Option<String>,
    },
    /// The callback's `state` did not match the login.
    StateMismatch { server: String },
    /// Exchanging the authorization code failed.
    TokenExchange { server: String, message: String },
    /// The browser did not come back in time.
    TimedOut { server: String, after: WireDuration },
    /// The login was cancelled.
    Cancelled { server: String },
    /// Anything else.
    Other { server: String, message: String },
    /// A secret the config names is not in the keyring.
    MissingSecret { name: String },
    /// The keyring failed.
    Store { message: String },
}

/// A duration as serde writes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WireDuration {
    /// Whole seconds.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub secs: u64,
    /// The rest, in nanoseconds.
    pub nanos: u32,
}

/// `POST /api/v1/dashboard`: a one-time sign-in link for the dashboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct DashboardLink {
    /// Whether a link was made.
    pub ok: bool,
    /// The link (valid two minutes, once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub url: Option<String>,
    /// Why none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}
