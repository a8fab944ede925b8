//! The activity log's wire form: `GET /api/v1/activity` (see
//! `docs/status.md`) answers an [`ActivityResponse`], and each line of the
//! hub's `activity.jsonl` is one [`ActivityEntry`].
//!
//! An entry says who called what, where it went and how it ended, with the
//! sizes of the arguments and the result; never their values, unless the
//! person turned on `settings.activityArguments` (then `arguments` holds the
//! arguments with secrets redacted).

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

/// `GET /api/v1/activity?limit=N&after=SEQ`: recorded calls, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ActivityResponse {
    /// The newest calls (at most `limit`; only those after `after` when given), newest first.
    pub calls: Vec<ActivityEntry>,
    /// Calls not recorded since the hub started, because the recorder was
    /// behind (its queue was full); calls never wait for the log.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub dropped: u64,
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ActivityEntry {
    /// Its number, counting from 1 since the hub started; `after=<seq>` asks for newer ones.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub seq: u64,
    /// When the call arrived (RFC 3339).
    pub time: String,
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: String,
    /// The tool or prompt name, or the resource URI, as the client sent it.
    pub name: String,
    /// The client's name from its `initialize` (`clientInfo.name`), if it gave one.
    pub client: Option<String>,
    /// The MCP session id (`Mcp-Session-Id`), if the session has one.
    pub session: Option<String>,
    /// The route the call came in on: `/mcp` or `/servers/<id>/mcp`.
    pub endpoint: String,
    /// The profile the call came through; null until profiles exist.
    pub profile: Option<String>,
    /// The server that served it (`switchboard` for a built-in tool); null
    /// when the name led to no server.
    pub server: Option<String>,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
    /// How it ended.
    pub outcome: ActivityOutcome,
    /// Why it failed (redacted), for people; null when it did not.
    pub error: Option<String>,
    /// The size of the arguments as JSON, in bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub argument_bytes: u64,
    /// The size of the result as JSON, in bytes (0 when there is none).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub result_bytes: u64,
    /// The arguments as JSON text with secrets redacted; only with
    /// `settings.activityArguments`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub arguments: Option<String>,
    /// How the call was approved or denied, when it needed a person's
    /// approval (`settings.confirmCalls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub approval: Option<crate::ActivityApproval>,
    /// The kinds of credentials found in the result (`aws-access-key`,
    /// `github-token`, ...; see `settings.resultSecrets`); never the values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub result_secrets: Option<Vec<String>>,
    /// The task (SEP-2663) the call made or reports on: a `tools/call`
    /// answered with a task, then one `tasks/get` entry per status change the
    /// hub saw, up to the final one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub task: Option<ActivityTask>,
    /// The code mode run (`switchboard__run_code`) the call belongs to: the
    /// run's own entry and each call its script made carry the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub run: Option<String>,
}

/// A task in the activity log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct ActivityTask {
    /// The task id the client was given (`sbt-...`), never the server's own.
    pub id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
}

/// How a recorded call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "camelCase")]
pub enum ActivityOutcome {
    /// Answered with a result (a tool result with `isError` counts as `error`).
    Ok,
    /// Answered with an error, or a tool result with `isError`.
    Error,
    /// The client cancelled it (or went away).
    Cancelled,
    /// The server did not answer within the call timeout.
    Timeout,
}

impl ActivityOutcome {
    /// Its JSON name (`ok`, `error`, `cancelled`, `timeout`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
            Self::Timeout => "timeout",
        }
    }
}
