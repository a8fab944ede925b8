//! Waiting inside the hub for a task to end, for callers that are no client
//! of their own: code mode's inner calls (#31) call a tool, may get a task
//! handle back, and need the tool's result. [`ClientTasks::await_task_result`]
//! takes the hub id the call's answer carries and asks the task's server for
//! its status (`tasks/get`, at the server's `pollIntervalMs`, within
//! [`MIN_POLL`]..[`MAX_POLL`], [`DEFAULT_POLL`] when it gave none) until the
//! task ends, then returns its result; [`ClientTasks::finish_call`] does the same
//! for any `tools/call` answer.
//!
//! Both task revisions: a SEP-2663 task's `tasks/get` carries the result;
//! a 2025-11-25 task's result is then read with `tasks/result`. Every status
//! seen is noted as a client's polling would be (activity log, idle hold). A
//! task that asks for input (`input_required`) has no one to answer it here:
//! that is an error, as are a failed and a cancelled task. The wait ends with
//! `cancel` (the task itself goes on; its server ends it or its time runs out).

use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CallToolResult, ErrorData, GetTaskParams, JsonObject, ServerResult,
    TaskPayload, TaskStatus,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::experimental_tasks::Raw;
use super::tasks::ClientTasks;
use super::upstream_error;
use crate::sessions::tasks::{Found, status_name};
use crate::upstream::Downstream;

/// How long between two looks at a task when its server gave no interval.
pub(crate) const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The bounds on a server's `pollIntervalMs`.
pub(crate) const MIN_POLL: Duration = Duration::from_millis(50);
pub(crate) const MAX_POLL: Duration = Duration::from_secs(5);

/// What a look at a task found.
enum Look {
    Running(Option<u64>),
    Done(CallToolResult),
    Ended(TaskStatus, Option<String>),
}

fn ended(found: &Found, id: &str, status: TaskStatus, why: Option<String>) -> ErrorData {
    let server = found.upstream.id.as_str();
    let what = match status {
        TaskStatus::InputRequired => "asks for input, which no client can give here".to_string(),
        other => status_name(other),
    };
    let why = why.map(|w| format!(": {w}")).unwrap_or_default();
    ErrorData::internal_error(
        format!("task {id} of server '{server}' {what}{why}"),
        Some(json!({"server": server, "kind": "task", "status": status_name(status)})),
    )
}

impl ClientTasks<'_> {
    /// A `tools/call` answer as its result: a task handle is waited for
    /// ([`Self::await_task_result`]); an input-required result is an error.
    pub(crate) async fn finish_call(
        &self,
        response: CallToolResponse,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        match response {
            CallToolResponse::Complete(result) => Ok(result),
            CallToolResponse::Task(handle) => {
                self.await_task_result(&handle.task.task_id, downstream, cancel)
                    .await
            }
            _ => Err(ErrorData::invalid_request(
                "the tool asked for input, which no client can give here".to_string(),
                None,
            )),
        }
    }

    /// Waits until task `id` (a hub id of this session's client) ends and
    /// returns its result (see the module docs). `downstream` is the client
    /// the call was made for (its capabilities go with each `tasks/get` to a
    /// 2026-07-28 server, as the call's did), `None` for the hub itself.
    pub(crate) async fn await_task_result(
        &self,
        id: &str,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let found = self.find_task(id)?;
        let stopped = || {
            ErrorData::internal_error(
                format!("stopped waiting for task {id}"),
                Some(json!({"server": found.upstream.id.as_str(), "kind": "cancelled"})),
            )
        };
        loop {
            let look = self.look(id, &found, downstream.clone(), cancel).await;
            if cancel.is_cancelled() {
                return Err(stopped());
            }
            let poll = match look? {
                Look::Done(result) => return Ok(result),
                Look::Ended(status, why) => return Err(ended(&found, id, status, why)),
                Look::Running(poll) => poll,
            };
            let wait = poll
                .or(found.timing.1)
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = cancel.cancelled() => return Err(stopped()),
            }
        }
    }

    /// One `tasks/get` of the task's server, noted.
    async fn look(
        &self,
        id: &str,
        found: &Found,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<Look, ErrorData> {
        if found.experimental {
            return self.look_experimental(id, found, cancel).await;
        }
        let task = found
            .upstream
            .send(
                GetTaskParams::new(found.upstream_id.clone()),
                downstream,
                cancel,
            )
            .await
            .map_err(upstream_error)?
            .task;
        let status = task.status();
        let message = task.task.status_message.clone();
        let error = match &task.payload {
            TaskPayload::Failed { error } => error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        self.note_task_status(id, status, error.clone());
        Ok(match task.payload {
            TaskPayload::Completed { result } => {
                Look::Done(serde_json::from_value(Value::Object(result)).map_err(|e| {
                    ErrorData::internal_error(
                        format!("the result of task {id} is not a tool result: {e}"),
                        None,
                    )
                })?)
            }
            TaskPayload::Working => Look::Running(task.task.poll_interval_ms),
            _ => Look::Ended(status, error.or(message)),
        })
    }

    /// A 2025-11-25 task: its status, and its result once it is complete.
    async fn look_experimental(
        &self,
        id: &str,
        found: &Found,
        cancel: &CancellationToken,
    ) -> Result<Look, ErrorData> {
        let mut ask = JsonObject::new();
        ask.insert("taskId".into(), Value::String(found.upstream_id.clone()));
        let raw = |method| Raw {
            method,
            params: ask.clone(),
        };
        let answer = found
            .upstream
            .send(raw("tasks/get"), None, cancel)
            .await
            .map_err(upstream_error)?;
        let task = self.answered_task(id, found, answer)?;
        match task.status {
            TaskStatus::Working => return Ok(Look::Running(task.poll_interval_ms)),
            TaskStatus::Completed => {}
            other => return Ok(Look::Ended(other, task.status_message)),
        }
        match found
            .upstream
            .send(raw("tasks/result"), None, cancel)
            .await
            .map_err(upstream_error)?
        {
            ServerResult::CallToolResult(result) => Ok(Look::Done(result)),
            _ => Err(ErrorData::internal_error(
                format!("the result of task {id} is not a tool result"),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::config;
    use crate::gateway::Gateway;
    use crate::hub::{Hub, HubHandle, HubOptions};
    use crate::sessions::Scope;
    use crate::upstream::experimental_task_handle;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// A hub whose server `tasks` is the Python SDK's 2025-11-25 task server
    /// (`tests/python/task_server_2025.py`, in the venv `scripts/setup.sh` makes).
    async fn hub() -> (Hub, HubHandle) {
        let python = repo().join(".tools/venv/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run scripts/setup.sh",
            python.display()
        );
        let server = json!({
            "command": python,
            "args": [repo().join("tests/python/task_server_2025.py")],
        });
        let mut config = config::load(config::Source::text(
            &json!({"mcpServers": {"tasks": server}}).to_string(),
            Path::new("t.json"),
        ))
        .unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let hub = Hub::bind(config, HubOptions::default()).await.unwrap();
        let handle = hub.handle();
        (hub, handle)
    }

    /// Starts `tool` as a 2025-11-25 task and adopts it as the gateway's.
    async fn start(gateway: &Gateway, handle: &HubHandle, tool: &str, args: Value) -> String {
        let upstream = handle.upstream("tasks").unwrap();
        let params = json!({"name": tool, "arguments": args, "task": {"ttl": 60000}});
        let raw = Raw {
            method: "tools/call",
            params: params.as_object().unwrap().clone(),
        };
        let cancel = CancellationToken::new();
        let answer = upstream.send(raw, None, &cancel).await.unwrap();
        let ServerResult::CustomResult(custom) = answer else {
            panic!("no task handle: {answer:?}")
        };
        let mut task = experimental_task_handle(&custom.0).unwrap();
        gateway.tasks().adopt_task(&upstream, tool, &mut task, true);
        task.task.task_id
    }

    #[tokio::test]
    async fn a_task_is_waited_for_until_its_result_and_an_ended_one_is_an_error() {
        let (hub, handle) = hub().await;
        let gateway = Gateway::new(handle.clone(), Scope::Merged);
        let cancel = CancellationToken::new();

        let id = start(&gateway, &handle, "add", json!({"a": 2, "b": 3})).await;
        let result = gateway
            .tasks()
            .await_task_result(&id, None, &cancel)
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&result.content).unwrap(),
            json!([{"type": "text", "text": "sum 5"}])
        );
        // Through `finish_call`, as code mode gets it from `forward_call`.
        let id = start(&gateway, &handle, "add", json!({"a": 1, "b": 1})).await;
        let mut handle_of = rmcp::model::CreateTaskResult::new(rmcp::model::Task::new(
            id,
            TaskStatus::Working,
            "",
            "",
        ));
        handle_of.task.poll_interval_ms = Some(10);
        let result = gateway
            .tasks()
            .finish_call(CallToolResponse::Task(handle_of), None, &cancel)
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text().unwrap().text, "sum 2");

        // A task cancelled at its server while waited for: the wait ends with why.
        let held = start(&gateway, &handle, "hold", json!({})).await;
        let waiting = {
            let gateway = gateway.clone();
            let held = held.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move {
                gateway
                    .tasks()
                    .await_task_result(&held, None, &cancel)
                    .await
            })
        };
        let found = gateway.tasks().find_task(&held).unwrap();
        let mut ask = JsonObject::new();
        ask.insert("taskId".into(), Value::String(found.upstream_id.clone()));
        let cancelled = Raw {
            method: "tasks/cancel",
            params: ask,
        };
        found.upstream.send(cancelled, None, &cancel).await.unwrap();
        let err = waiting.await.unwrap().unwrap_err();
        assert!(err.message.contains("cancelled"), "{}", err.message);
        assert_eq!(err.data.unwrap()["status"], "cancelled");
        // Its hold ended with it: nothing of it keeps the server awake.
        assert_eq!(found.upstream.tasks_in_flight(), 0);

        // Giving up the wait leaves the task running; an id not this client's is refused.
        let held = start(&gateway, &handle, "hold", json!({})).await;
        let stop = CancellationToken::new();
        stop.cancel();
        let err = gateway
            .tasks()
            .await_task_result(&held, None, &stop)
            .await
            .unwrap_err();
        assert!(err.message.contains("stopped waiting"), "{}", err.message);
        assert_eq!(found.upstream.tasks_in_flight(), 1);
        let stranger = Gateway::new(
            handle.clone(),
            Scope::Server(crate::config::ServerId::new("tasks").unwrap()),
        );
        let err = stranger
            .tasks()
            .await_task_result(&held, None, &cancel)
            .await
            .unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        drop(hub);
    }
}
