//! The messages between the hub and its script interpreter (the
//! `__run-code` helper), one JSON object per line on the helper's stdin and
//! stdout. The hub sends one [`ToHelper::Run`], then one [`ToHelper::Answer`]
//! per call the script asked for, in any order; the helper sends one
//! [`FromHelper::Ready`], then [`FromHelper::Call`]s and [`FromHelper::Log`]s
//! as the script runs, and one [`FromHelper::Done`] last. Calls carry ids,
//! so a script's `Promise.all` has many in flight at once.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A line the hub writes to the helper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum ToHelper {
    /// The script to run and its limits.
    #[serde(rename_all = "camelCase")]
    Run {
        /// The body of an async function.
        code: String,
        /// How long the script may run, from when the helper reads this.
        timeout_ms: u64,
        /// The interpreter's memory limit.
        memory_bytes: u64,
    },
    /// How a call the script made ended: `result` (a `CallToolResult` as
    /// JSON) when it was answered, `error` when it failed.
    Answer {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

/// A line the helper writes to the hub.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum FromHelper {
    /// The helper started: how it is contained (see `crate::sandbox`).
    Ready {
        contained: bool,
        mechanism: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        missing: Option<String>,
    },
    /// The script calls tool `name` (`<server>__<tool>`) with `arguments`,
    /// from script line `line` (0 when unknown).
    Call {
        id: u64,
        name: String,
        arguments: Value,
        line: u32,
    },
    /// A `console` line.
    Log { level: String, text: String },
    /// The script ended: `result` (its returned value as JSON) when it
    /// returned, `error` and the script line when it failed.
    Done {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ScriptError>,
    },
}

/// Why a script failed, as the helper saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScriptError {
    /// What kind of failure it was.
    pub(crate) kind: FailureKind,
    /// What happened, for people (`TypeError: x is not a function`).
    pub(crate) message: String,
    /// The script's line it happened on, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u32>,
}

/// The kinds of script failure (what the result's error says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum FailureKind {
    /// The code does not parse.
    Syntax,
    /// The script threw (or a call it awaited failed) and did not catch it.
    Thrown,
    /// The deadline passed.
    Deadline,
    /// The interpreter's memory limit was reached.
    Memory,
    /// The script's promise can never settle (it awaits nothing the hub
    /// will answer), or the returned value is not JSON.
    Stuck,
}
