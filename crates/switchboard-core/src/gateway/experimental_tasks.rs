//! 2025-11-25's experimental tasks through the hub, on every route: a
//! `tools/call` with `params.task` from a session that negotiated 2025-11-25,
//! and that revision's `tasks/get`, `tasks/result`, `tasks/list` and
//! `tasks/cancel`.
//!
//! rmcp 3.11 reads `tools/call` without its `task` field and knows `tasks/*`
//! only as the 2026-07-28 extension spells them, so the HTTP layer hands
//! these requests of a 2025-11-25 session to rmcp under a method of the hub's
//! own ([`METHOD_PREFIX`] + the method; see `http/fast_path`), which reaches
//! the gateway as a custom request with its parameters as the client wrote
//! them: a `tools/call` goes through [`call_request`] and [`call_answer`]
//! around the gateway's call path, the others to
//! [`ClientTasks::experimental_request`]. The answers are written here in
//! 2025-11-25's shapes (`{"task": Task}`, a bare `Task`, `{"tasks": [...]}`).
//!
//! The guarantees are the 2026-07-28 path's (`tasks.rs`), from the same task
//! table: the call runs through the same routing, approval and log as any
//! call ([`Gateway::forward_call`](super::Gateway::forward_call)), the
//! client gets a hub id (`sbt-...`), never the server's; an id this client was not given is refused with
//! `-32602` before any server is asked; `tasks/list` lists only this client's
//! tasks; every status the hub sees is one activity entry. A `tasks/result`
//! carries the client to the task's input requests: the server's elicitation
//! or sampling request reaches the client on that request's stream, naming
//! the hub's id for the task.
//!
//! What rmcp's reading loses is put back: a `tasks/get` or `tasks/cancel`
//! answer of a working or cancelled task is read as the 2026-07-28 type, which
//! has no `ttl` or `pollInterval`, so those come from what the server said
//! last (the task handle or an earlier answer).

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientRequest, CustomRequest, CustomResult, ErrorData,
    JsonObject, ServerResult, Task,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::result_secrets::check_result;
use super::tasks::ClientTasks;
use super::{downstream, upstream_error};
use crate::sessions::tasks::Found;
use crate::upstream::{Ask, Downstream, experimental_task};

/// The method the HTTP layer gives a 2025-11-25 task request, before its own.
pub(crate) const METHOD_PREFIX: &str = "switchboard/tasks-2025-11-25/";

/// The methods of 2025-11-25's tasks that the hub serves itself.
pub(crate) const TASK_METHODS: [&str; 4] =
    ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

/// At most this many pages of a server's `tasks/list` are read.
const MAX_LIST_PAGES: usize = 20;

/// A request sent to a server as written, answered with whatever it answers.
pub(super) struct Raw {
    pub(super) method: &'static str,
    pub(super) params: JsonObject,
}

impl Ask for Raw {
    type Answer = ServerResult;
    fn into_request(self) -> ClientRequest {
        ClientRequest::CustomRequest(CustomRequest::new(
            self.method,
            Some(Value::Object(self.params)),
        ))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        Ok(result)
    }
}

/// A task in 2025-11-25's spelling, under id `id`; `timing` fills in the
/// `ttl` and `pollInterval` the task lacks.
fn task_json(task: &Task, id: &str, timing: (Option<u64>, Option<u64>)) -> Value {
    let mut out = json!({
        "taskId": id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms.or(timing.0),
    });
    if let Some(message) = &task.status_message {
        out["statusMessage"] = Value::String(message.clone());
    }
    if let Some(poll) = task.poll_interval_ms.or(timing.1) {
        out["pollInterval"] = Value::from(poll);
    }
    out
}

fn invalid(message: &str) -> ErrorData {
    ErrorData::invalid_params(message.to_string(), None)
}

/// The `taskId` a request names.
fn task_id(params: &JsonObject) -> Result<String, ErrorData> {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| invalid("params.taskId must be a string"))
}

/// A request's parameters, which must be an object (or none).
pub(super) fn params(params: Option<Value>) -> Result<JsonObject, ErrorData> {
    match params {
        Some(Value::Object(params)) => Ok(params),
        None | Some(Value::Null) => Ok(JsonObject::new()),
        Some(_) => Err(invalid("params must be an object")),
    }
}

/// A task-augmented `tools/call` as the call the gateway routes and logs as
/// any call, with the server asked to run it as a task.
pub(super) fn call_request(
    params: JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<(CallToolRequestParams, Option<Downstream>), ErrorData> {
    let task = params
        .get("task")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| invalid("params.task must be an object"))?;
    let request: CallToolRequestParams = serde_json::from_value(Value::Object(params))
        .map_err(|err| invalid(&format!("invalid tools/call parameters: {err}")))?;
    let mut ds = downstream(context);
    if let Some(ds) = ds.as_mut() {
        ds.task = Some(task);
    }
    Ok((request, ds))
}

/// The answer to a task-augmented `tools/call`, in 2025-11-25's spelling:
/// its handle (already given a hub id), or the result of a server that ran
/// the call at once.
pub(super) fn call_answer(response: CallToolResponse) -> Result<CustomResult, ErrorData> {
    let answer = match response {
        CallToolResponse::Task(handle) => {
            let mut out =
                json!({"task": task_json(&handle.task, &handle.task.task_id, (None, None))});
            if let Some(meta) = handle.meta {
                out["_meta"] = serde_json::to_value(meta).unwrap_or(Value::Null);
            }
            out
        }
        // A server without tasks ran the call at once.
        CallToolResponse::Complete(result) => {
            let mut out = serde_json::to_value(result).unwrap_or(Value::Null);
            if let Some(out) = out.as_object_mut() {
                out.remove("resultType");
            }
            out
        }
        _ => {
            return Err(ErrorData::invalid_request(
                "the server asked for input in a way a 2025-11-25 client cannot answer".to_string(),
                None,
            ));
        }
    };
    Ok(CustomResult(answer))
}

impl ClientTasks<'_> {
    /// One 2025-11-25 `tasks/*` request (see the module docs); `method` is
    /// the client's, without [`METHOD_PREFIX`].
    pub(super) async fn experimental_request(
        &self,
        method: &str,
        params: JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let answer = match method {
            "tasks/get" => {
                self.experimental_status("tasks/get", &params, context)
                    .await?
            }
            "tasks/cancel" => {
                self.experimental_status("tasks/cancel", &params, context)
                    .await?
            }
            "tasks/result" => self.experimental_result(&params, context).await?,
            "tasks/list" => self.experimental_list(context).await?,
            other => {
                return Err(ErrorData::new(
                    rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                    format!("method not found: {other}"),
                    None,
                ));
            }
        };
        Ok(CustomResult(answer))
    }

    /// `tasks/get` or `tasks/cancel`: the task's server answers with the task.
    async fn experimental_status(
        &self,
        method: &'static str,
        params: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let id = task_id(params)?;
        let found = self.find_task(&id)?;
        let mut ask = JsonObject::new();
        ask.insert("taskId".into(), Value::String(found.upstream_id.clone()));
        let result = found
            .upstream
            .send(
                Raw {
                    method,
                    params: ask,
                },
                downstream(context),
                &context.ct,
            )
            .await
            .map_err(upstream_error)?;
        let task = self.answered_task(&id, &found, result)?;
        Ok(task_json(&task, &id, found.timing))
    }

    /// The task a server answered `tasks/get` or `tasks/cancel` with, noted
    /// (status, timing).
    pub(super) fn answered_task(
        &self,
        id: &str,
        found: &Found,
        result: ServerResult,
    ) -> Result<Task, ErrorData> {
        let task = match result {
            // rmcp read it as the 2026-07-28 type: `ttl`, `pollInterval` lost.
            ServerResult::GetTaskResult(result) => result.task.task,
            ServerResult::CustomResult(custom) => {
                let task = experimental_task(&custom.0);
                if let Some(task) = &task {
                    self.hub()
                        .sessions()
                        .tasks()
                        .note_timing(id, (task.ttl_ms, task.poll_interval_ms));
                }
                task.ok_or_else(|| unexpected(found))?
            }
            _ => return Err(unexpected(found)),
        };
        let failed = (task.status == rmcp::model::TaskStatus::Failed)
            .then(|| task.status_message.clone())
            .flatten();
        self.note_task_status(id, task.status, failed);
        Ok(task)
    }

    /// `tasks/result`: waits with the server for the task's result, carrying
    /// its input requests to the client; the final status is then read.
    async fn experimental_result(
        &self,
        params: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let id = task_id(params)?;
        let found = self.find_task(&id)?;
        let mut ds = downstream(context);
        if let Some(ds) = ds.as_mut() {
            ds.related_task = Some((found.upstream_id.clone(), id.clone()));
        }
        let mut ask = JsonObject::new();
        ask.insert("taskId".into(), Value::String(found.upstream_id.clone()));
        let mut result = found
            .upstream
            .send(
                Raw {
                    method: "tasks/result",
                    params: ask.clone(),
                },
                ds,
                &context.ct,
            )
            .await
            .map_err(upstream_error)?;
        if let ServerResult::CallToolResult(result) = &mut result {
            check_result(
                self.hub().settings().result_secrets,
                &found.upstream,
                result,
            );
        }
        let mut out = serde_json::to_value(&result).unwrap_or(Value::Null);
        if let Some(object) = out.as_object_mut() {
            object.remove("resultType");
        }
        if let Some(task) = out.pointer_mut("/_meta/io.modelcontextprotocol~1related-task/taskId")
            && task.as_str() == Some(found.upstream_id.as_str())
        {
            *task = Value::String(id.clone());
        }
        // The result is there: the task has ended; its status says how.
        let status = found
            .upstream
            .send(
                Raw {
                    method: "tasks/get",
                    params: ask,
                },
                downstream(context),
                &context.ct,
            )
            .await;
        match status {
            Ok(status) => {
                let _ = self.answered_task(&id, &found, status);
            }
            Err(err) => {
                tracing::debug!(server = %found.upstream.id, error = %err, "reading a finished task's status");
            }
        }
        Ok(out)
    }

    /// `tasks/list`: this client's tasks, as their servers list them now
    /// (one page; a task its server no longer lists is left out).
    async fn experimental_list(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let owned = self.hub().sessions().tasks().owned(&self.task_owner());
        let mut servers: Vec<std::sync::Arc<crate::upstream::Upstream>> = Vec::new();
        for (_, upstream, _) in &owned {
            if !servers.iter().any(|s| s.id == upstream.id) {
                servers.push(upstream.clone());
            }
        }
        let mut listed: std::collections::HashMap<(crate::config::ServerId, String), Task> =
            std::collections::HashMap::new();
        for upstream in servers {
            let mut cursor: Option<Value> = None;
            for _ in 0..MAX_LIST_PAGES {
                let mut params = JsonObject::new();
                if let Some(cursor) = cursor.take() {
                    params.insert("cursor".into(), cursor);
                }
                let result = upstream
                    .send(
                        Raw {
                            method: "tasks/list",
                            params,
                        },
                        downstream(context),
                        &context.ct,
                    )
                    .await
                    .map_err(upstream_error)?;
                let page = serde_json::to_value(&result).unwrap_or(Value::Null);
                for task in page
                    .get("tasks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(experimental_task)
                {
                    listed.insert((upstream.id.clone(), task.task_id.clone()), task);
                }
                match page.get("nextCursor") {
                    Some(next @ Value::String(_)) => cursor = Some(next.clone()),
                    _ => break,
                }
            }
        }
        let tasks = self.hub().sessions().tasks();
        let mut out = Vec::new();
        for (id, upstream, upstream_id) in owned {
            if let Some(task) = listed.get(&(upstream.id.clone(), upstream_id)) {
                tasks.observe(&id, task.status);
                let timing = tasks
                    .find(&id, &self.task_owner())
                    .map(|f| f.timing)
                    .unwrap_or_default();
                out.push(task_json(task, &id, timing));
            }
        }
        Ok(json!({"tasks": out}))
    }
}

fn unexpected(found: &Found) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "server '{}' answered a task request with something that is not a task",
            found.upstream.id
        ),
        Some(json!({"server": found.upstream.id.as_str(), "kind": "protocol"})),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_task_is_written_as_2025_11_25_spells_it_with_the_timing_the_server_gave() {
        let raw = json!({
            "taskId": "up-1", "status": "working", "statusMessage": "busy",
            "createdAt": "2026-12-02T05:00:00Z", "lastUpdatedAt": "2026-12-02T05:00:01Z",
            "ttl": 60000, "pollInterval": 500,
        });
        let task = experimental_task(&raw).unwrap();
        assert_eq!(
            task_json(&task, "sbt-1", (None, None)),
            json!({
                "taskId": "sbt-1", "status": "working", "statusMessage": "busy",
                "createdAt": "2026-12-02T05:00:00Z", "lastUpdatedAt": "2026-12-02T05:00:01Z",
                "ttl": 60000, "pollInterval": 500,
            })
        );
        // What rmcp's reading dropped comes from what the server said before.
        let mut lossy = task.clone();
        lossy.ttl_ms = None;
        lossy.poll_interval_ms = None;
        let again = task_json(&lossy, "sbt-1", (Some(60000), Some(500)));
        assert_eq!(again["ttl"], 60000);
        assert_eq!(again["pollInterval"], 500);
        // Unlimited stays unlimited.
        let unlimited = task_json(&lossy, "sbt-1", (None, None));
        assert_eq!(unlimited["ttl"], Value::Null);
        assert!(unlimited.get("pollInterval").is_none());
    }

    #[test]
    fn a_2025_task_handle_reads_as_the_hubs_task() {
        let handle = crate::upstream::experimental_task_handle(&json!({
            "task": {"taskId": "up-9", "status": "working", "createdAt": "a", "lastUpdatedAt": "b",
                     "ttl": null},
            "_meta": {"io.modelcontextprotocol/model-immediate-response": "started"},
        }))
        .unwrap();
        assert_eq!(handle.task.task_id, "up-9");
        assert_eq!(handle.task.ttl_ms, None);
        assert!(handle.meta.is_some());
        // Not a handle: no task, or a task without an id or a known status.
        for not in [
            json!({}),
            json!({"task": {"status": "working"}}),
            json!({"task": {"taskId": "x", "status": "sleeping"}}),
        ] {
            assert!(
                crate::upstream::experimental_task_handle(&not).is_none(),
                "{not}"
            );
        }
    }
}
