//! The control API's bodies for calls waiting for a person's approval
//! (`settings.confirmCalls`, see `docs/security.md`): `GET /api/v1/pending`
//! lists them, `POST /api/v1/pending/<id>/allow` and `/deny` decide one (see
//! `docs/status.md`). Arguments travel with their secrets redacted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "ts")]
use ts_rs::TS;

/// `GET /api/v1/pending`: the calls waiting, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct PendingResponse {
    pub calls: Vec<PendingCall>,
}

/// One call waiting for a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    /// What `allow` and `deny` name it by.
    pub id: String,
    /// The server the call is for.
    pub server: String,
    /// The tool's name as that server lists it.
    pub tool: String,
    /// The call's arguments, secrets replaced by `***`.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub arguments: Value,
    /// The calling client's name from its `initialize`, if it gave one.
    pub client: Option<String>,
    /// When the call arrived (RFC 3339).
    pub since: String,
}

/// The optional body of `POST /api/v1/pending/<id>/allow`: `always` also
/// adds the tool to its server's `allowTools` in the config file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecideRequest {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub always: Option<bool>,
}

/// The answer to `allow` and `deny`: the call decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct DecideResponse {
    pub id: String,
    /// `allow` or `deny`.
    pub decision: String,
    /// Whether the tool was added to its server's `allowTools`.
    pub always: bool,
    /// Why adding it to `allowTools` failed (the call was allowed anyway).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// How a call that needed approval was decided, as the activity log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ActivityApproval {
    /// `allowed`, `denied` or `timedOut`.
    pub decision: String,
    /// Who decided: `api` (the control API, the CLI), `dashboard`,
    /// `elicitation` (the calling client), `app`, or `timeout`.
    pub by: String,
    /// How long the call waited for the decision, in milliseconds.
    pub waited_ms: f64,
}
