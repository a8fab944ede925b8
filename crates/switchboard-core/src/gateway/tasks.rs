//! Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663) through
//! the hub, on every route: a `tools/call` a server answers with a task
//! handle reaches the client with a hub id instead of the server's
//! (`sessions::tasks`), and `tasks/get`, `tasks/update` and `tasks/cancel`
//! go to the server that owns the task, with the server's id swapped back
//! in. An id the table does not give this client (another server's, route's
//! or session's) is refused with `-32602` (`kind: "unknownTask"`) before any
//! server is asked. Every status change the hub sees is one activity entry,
//! so the log follows a task from the call that made it to its final status.

use std::sync::Arc;

use rmcp::model::{
    CancelTaskParams, CreateTaskResult, ErrorData, GetTaskParams, GetTaskResult, TaskStatus,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use switchboard_api::ActivityTask;

use super::{downstream, upstream_error};
use crate::hub::HubHandle;
use crate::sessions::tasks::{Found, Origin, Owner, TaskError, status_name};
use crate::sessions::{Scope, Session};
use crate::upstream::Ask;
use crate::upstream::Upstream;

/// The client behind a `tasks/*` request: a 2026-07-28 request names its
/// capabilities (the tasks extension among them) in its own `_meta`, and the
/// server is told those, not the hub's.
fn task_downstream(context: &RequestContext<RoleServer>) -> Option<crate::upstream::Downstream> {
    let mut ds = downstream(context);
    if let Some(ds) = ds.as_mut()
        && let Some(capabilities) = context.meta.client_capabilities()
    {
        ds.capabilities = Some(capabilities);
    }
    ds
}

pub(super) fn refused(err: TaskError) -> ErrorData {
    ErrorData::invalid_params(err.to_string(), Some(json!({"kind": "unknownTask"})))
}

/// The tasks of one session's client in the hub's task table: those it was
/// given, the requests about them, and their status changes (this file,
/// `task_wait.rs`, and 2025-11-25's spelling in `experimental_tasks.rs`).
/// References only, made per request for free.
#[derive(Clone, Copy)]
pub(crate) struct ClientTasks<'a> {
    /// The hub whose task table and activity log are used.
    hub: &'a HubHandle,
    /// The session whose client owns the tasks (its route, HTTP id, name).
    session: &'a Session,
}

/// Records a status change of task `id` (nothing when it is unchanged).
fn note_status(hub: &HubHandle, id: &str, status: TaskStatus, error: Option<String>) {
    if let Some(changed) = hub.sessions().tasks().observe(id, status) {
        hub.activity().record(changed.record(error));
    }
}

impl<'a> ClientTasks<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Session) -> Self {
        Self { hub, session }
    }

    /// The hub the tasks are kept in.
    pub(super) fn hub(&self) -> &'a HubHandle {
        self.hub
    }

    /// Who this request's client is, for the task table.
    pub(super) fn task_owner(&self) -> Owner {
        let route = match self.session.scope() {
            Scope::Merged => "/mcp".to_string(),
            Scope::Server(id) => format!("/servers/{id}/mcp"),
            Scope::Profile(name) => format!("/profiles/{name}/mcp"),
        };
        Owner::new(
            &route,
            self.session.http_id().map(|s| &**s),
            self.session.client_name().map(|s| &**s),
        )
    }

    /// A task `upstream` answered a call of `tool` with: registered under a
    /// hub id, which replaces the server's in the answer.
    pub(super) fn adopt_task(
        &self,
        upstream: &Arc<Upstream>,
        tool: &str,
        task: &mut CreateTaskResult,
        experimental: bool,
    ) -> ActivityTask {
        let upstream_id = std::mem::take(&mut task.task.task_id);
        let tasks = self.hub.sessions().tasks();
        let id = tasks.adopt(
            upstream,
            self.task_owner(),
            upstream_id,
            tool,
            task.task.ttl_ms,
        );
        tasks.annotate(
            &id,
            self.task_origin(experimental),
            task.task.poll_interval_ms,
        );
        task.task.task_id.clone_from(&id);
        tasks.observe(&id, task.task.status);
        ActivityTask {
            id,
            status: status_name(task.task.status),
        }
    }

    /// Where this request's tasks are made, for their log entries and
    /// notifications.
    fn task_origin(&self, experimental: bool) -> Origin {
        Origin {
            route: match self.session.scope() {
                Scope::Server(server) => Some(server.clone()),
                _ => None,
            },
            client: self.session.client_name().cloned(),
            session: self.session.http_id().cloned(),
            experimental,
        }
    }

    pub(super) fn find_task(&self, id: &str) -> Result<Found, ErrorData> {
        self.hub
            .sessions()
            .tasks()
            .find(id, &self.task_owner())
            .map_err(refused)
    }

    /// `tasks/get`, from the task's server.
    pub(super) async fn forward_get_task(
        &self,
        mut request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let found = self.find_task(&request.task_id)?;
        let id = std::mem::replace(&mut request.task_id, found.upstream_id.clone());
        let mut result = found
            .upstream
            .send(request, task_downstream(context), &context.ct)
            .await
            .map_err(upstream_error)?;
        result.task.task.task_id.clone_from(&id);
        let error = match &result.task.payload {
            rmcp::model::TaskPayload::Failed { error } => error
                .get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string),
            _ => None,
        };
        self.note_task_status(&id, result.task.status(), error);
        Ok(result)
    }

    /// `tasks/update`: the answers to a task's input requests, to its server.
    pub(super) async fn forward_update_task(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.forward_to_owner(request, |r| &mut r.task_id, context)
            .await
    }

    /// `tasks/cancel`, to the task's server (its status says when it ended).
    /// The status is then read once off the client's path, so the log shows
    /// the end even if the client never polls again.
    pub(super) async fn forward_cancel_task(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = request.task_id.clone();
        self.forward_to_owner(request, |r| &mut r.task_id, context)
            .await?;
        if let Ok(found) = self.find_task(&id) {
            let hub = self.hub.clone();
            // The server is told the client's capabilities, as for its own polls.
            let downstream = task_downstream(context);
            tokio::spawn(async move {
                let ask = GetTaskParams::new(found.upstream_id.clone());
                let cancel = tokio_util::sync::CancellationToken::new();
                match found.upstream.send(ask, downstream, &cancel).await {
                    Ok(result) => note_status(&hub, &id, result.task.status(), None),
                    Err(err) => tracing::debug!(server = %found.upstream.id, error = %err,
                        "reading a cancelled task's status"),
                }
            });
        }
        Ok(())
    }

    /// A task request answered with nothing of its own: to the owning server, under the
    /// server's id for the task.
    async fn forward_to_owner<A: Ask<Answer = ()>>(
        &self,
        mut request: A,
        task_id: fn(&mut A) -> &mut String,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let found = self.find_task(task_id(&mut request))?;
        task_id(&mut request).clone_from(&found.upstream_id);
        found
            .upstream
            .send(request, task_downstream(context), &context.ct)
            .await
            .map_err(upstream_error)
    }

    /// Records a status change of task `id` (nothing when it is unchanged).
    pub(super) fn note_task_status(&self, id: &str, status: TaskStatus, error: Option<String>) {
        note_status(self.hub, id, status, error);
    }
}
