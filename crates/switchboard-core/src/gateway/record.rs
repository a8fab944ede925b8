//! Recording calls in the activity log (`crate::activity`): a session's
//! [`CallLog`] notes when a `tools/call`, `prompts/get` or `resources/read`
//! starts ([`CallLog::begin`]) and hands a small record to the recorder when
//! it ends ([`CallLog::end`]). Both rmcp's path and the HTTP fast path go
//! through [`Gateway::forward_call`](super::Gateway::forward_call), so every
//! call is recorded once.
//!
//! Cost on the call path: two clocks, the name copied, the arguments' and
//! the result's JSON length counted (serialized into a counter, nothing
//! allocated), and a `try_send`; argument values are copied only with
//! `settings.activityArguments`. Formatting, redaction and the file write
//! happen in the recorder's task.

use std::time::{Instant, SystemTime};

use rmcp::model::{
    CallToolResponse, ErrorData, GetPromptResponse, JsonObject, ReadResourceResponse,
};
use switchboard_api::ActivityOutcome;
use tokio_util::sync::CancellationToken;

use std::sync::Arc;

use crate::activity::{CallOutcome, CallRecord, Caller, Method, Served, json_size};
use crate::hub::HubHandle;
use crate::sessions::{Scope, Session};

/// A call in progress.
pub(super) struct Started {
    at: SystemTime,
    clock: Instant,
    method: Method,
    name: String,
    argument_bytes: u64,
    arguments: Option<serde_json::Value>,
    notes: CallNotes,
}

/// What the call path noted about a call for its record: how approval
/// decided it (`crate::approval`), the kinds of secrets found in its result.
#[derive(Debug, Default)]
pub(super) struct CallNotes {
    pub(super) approval: Option<switchboard_api::ActivityApproval>,
    pub(super) result_secrets: Vec<&'static str>,
    /// The task a `tools/call` was answered with (its hub id).
    pub(super) task: Option<switchboard_api::ActivityTask>,
    /// The code mode run the call is, or belongs to.
    pub(super) run: Option<std::sync::Arc<str>>,
}

impl Started {
    pub(super) fn set_notes(&mut self, notes: CallNotes) {
        self.notes = notes;
    }

    /// The name the call was made with.
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

/// An answer whose size (and tool-level failure) the log records.
pub(super) trait Answer {
    /// Its size as JSON, in bytes.
    fn size(&self) -> u64;
    /// Whether it reports a failure although it is a result (`isError`).
    fn is_error(&self) -> bool {
        false
    }
}

impl Answer for CallToolResponse {
    fn size(&self) -> u64 {
        match self {
            Self::Complete(result) => json_size(result),
            Self::InputRequired(result) => json_size(result),
            Self::Task(result) => json_size(result),
            _ => 0,
        }
    }

    fn is_error(&self) -> bool {
        matches!(self, Self::Complete(result) if result.is_error == Some(true))
    }
}

impl Answer for GetPromptResponse {
    fn size(&self) -> u64 {
        match self {
            Self::Complete(result) => json_size(result),
            Self::InputRequired(result) => json_size(result),
            _ => 0,
        }
    }
}

impl Answer for ReadResourceResponse {
    fn size(&self) -> u64 {
        match self {
            Self::Complete(result) => json_size(result),
            Self::InputRequired(result) => json_size(result),
            _ => 0,
        }
    }
}

/// Where one session's calls are recorded, and who made them: the hub's
/// activity recorder, the session (its route, client and HTTP id) and, on
/// the gateway a code mode run calls through, the run. References only,
/// made per call for free.
#[derive(Clone, Copy)]
pub(super) struct CallLog<'a> {
    /// The hub whose activity recorder gets the records.
    hub: &'a HubHandle,
    /// The session the calls are made in (who made them, on which route).
    session: &'a Session,
    /// The code mode run the calls belong to (see `code_mode`).
    run: Option<&'a Arc<str>>,
}

impl<'a> CallLog<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Session, run: Option<&'a Arc<str>>) -> Self {
        Self { hub, session, run }
    }

    /// Notes the start of a call of `name` with `arguments`.
    pub(super) fn begin(
        &self,
        method: Method,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Started {
        let keep = self.hub.activity().keeps_arguments();
        Started {
            at: SystemTime::now(),
            clock: Instant::now(),
            method,
            name: name.to_string(),
            argument_bytes: arguments.map_or(0, json_size),
            arguments: arguments
                .filter(|_| keep)
                .map(|a| serde_json::Value::Object(a.clone())),
            notes: CallNotes::default(),
        }
    }

    /// The record of the call `outer` turned out to name
    /// (`switchboard__call_tool`): its own name and arguments, timed from
    /// when `outer` started.
    pub(super) fn begin_named(
        &self,
        outer: &Started,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Started {
        Started {
            at: outer.at,
            clock: outer.clock,
            ..self.begin(outer.method, name, arguments)
        }
    }

    /// Records how the call ended: `cancel` tells a client's cancellation
    /// apart from other failures.
    pub(super) fn end<T: Answer>(
        &self,
        started: Started,
        served: Served,
        result: &Result<T, ErrorData>,
        cancel: &CancellationToken,
    ) {
        let (outcome, error, result_bytes) = match result {
            Ok(answer) if answer.is_error() => (
                ActivityOutcome::Error,
                Some("the tool reported an error (isError)".to_string()),
                answer.size(),
            ),
            Ok(answer) => (ActivityOutcome::Ok, None, answer.size()),
            Err(err) => (outcome_of(err, cancel), Some(err.message.to_string()), 0),
        };
        let route = match &*self.session.served() {
            Scope::Merged | Scope::Profile(_) => None,
            Scope::Server(id) => Some(id.clone()),
        };
        self.hub.activity().record(CallRecord {
            at: started.at,
            duration: started.clock.elapsed(),
            method: started.method,
            name: started.name,
            served,
            caller: Caller {
                route,
                client: self.session.client_name().cloned(),
                session: self.session.http_id().cloned(),
                run: started.notes.run.or_else(|| self.run.cloned()),
            },
            argument_bytes: started.argument_bytes,
            arguments: started.arguments,
            approval: started.notes.approval,
            ended: CallOutcome {
                outcome,
                error,
                result_bytes,
                result_secrets: started.notes.result_secrets,
                task: started.notes.task,
            },
        });
    }
}

/// How a failed call ended: cancelled by the client, timed out, or an error.
/// The kind is the one the gateway put in the error's `data` (see
/// [`super::upstream_error`]), never read from the message.
fn outcome_of(err: &ErrorData, cancel: &CancellationToken) -> ActivityOutcome {
    if cancel.is_cancelled() {
        return ActivityOutcome::Cancelled;
    }
    match err
        .data
        .as_ref()
        .and_then(|d| d.get("kind"))
        .and_then(|k| k.as_str())
    {
        Some("timeout") => ActivityOutcome::Timeout,
        Some("cancelled") => ActivityOutcome::Cancelled,
        _ => ActivityOutcome::Error,
    }
}
