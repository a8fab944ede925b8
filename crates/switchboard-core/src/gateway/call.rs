//! The call path of a session: every `tools/call` goes through
//! [`Gateway::forward_call`] (rmcp's path for every protocol version, the
//! HTTP fast path, code mode's inner calls, 2025-11-25's task-augmented
//! calls), which answers search and code mode's tools, routes the rest
//! ([`Router`](super::Router)), asks approval, forwards, checks the result
//! for credentials and records the call once ([`CallLog`](super::CallLog)).
//! The parts it uses own their state; this file only puts them in order.
//!
//! Hot path (see `docs/benchmarks.md`): the parts are references made per
//! call, nothing is allocated or locked here beyond what each part does;
//! the gateway is cloned (an `Arc` and the hub's handle) only for a call of
//! a 2026-07-28 client, whose call runs in a future of its own.

use std::borrow::Cow;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CustomResult, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::approval::{self, Approval};
use super::record::CallNotes;
use super::{Gateway, Target, code_mode, downstream, experimental_tasks, upstream_error};
use crate::activity::{Method, Served};
use crate::upstream::{CallFuture, Downstream};

impl Gateway {
    /// Routes a `tools/call` to its server (or a built-in tool) and forwards
    /// it; `downstream` receives progress and server→client requests, `cancel`
    /// cancels it upstream. Shared by rmcp's path and the HTTP fast path, and
    /// recorded in the activity log here, once for both.
    pub(crate) async fn forward_call(
        &self,
        request: CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut request = request;
        let experimental_task = downstream.as_ref().is_some_and(|d| d.task.is_some());
        let mut started = self
            .log()
            .begin(Method::Tool, &request.name, request.arguments.as_ref());
        let mut served = Served::Nobody;
        let mut notes = CallNotes::default();
        let search = self
            .search_mode()
            .search_mode_call(&mut request, &mut served)
            .await;
        let mut result = match search {
            Some(answer) => answer.map(CallToolResponse::Complete),
            None if self.code_mode().is_run_code(&request.name) => {
                served = Served::Builtin;
                let for_run = |run| self.for_run(run);
                let run = self
                    .code_mode()
                    .run_code(&request, downstream, cancel, &mut notes, for_run)
                    .await;
                if cancel.is_cancelled() {
                    // Recorded as cancelled; the client that cancelled gets no answer.
                    Err(code_mode::cancelled())
                } else {
                    Ok(CallToolResponse::Complete(run))
                }
            }
            None => {
                if started.name() != request.name {
                    // `switchboard__call_tool`: the log shows the call it names.
                    started =
                        self.log()
                            .begin_named(&started, &request.name, request.arguments.as_ref());
                }
                let call = (&mut served, &mut notes);
                self.route_call(request, downstream, cancel, call).await
            }
        };
        if let Ok(CallToolResponse::Task(task)) = &mut result
            && let Served::Server(id) = &served
            && let Some(upstream) = self.hub.upstream(id.as_str())
        {
            // The client gets a hub id for the task, never the server's.
            let tasks = self.tasks();
            notes.task = Some(tasks.adopt_task(&upstream, started.name(), task, experimental_task));
        }
        started.set_notes(notes);
        self.log().end(started, served, &result, cancel);
        result
    }

    /// A call that is not search or code mode's: a built-in tool, or routed
    /// to its server, approved, forwarded and its result checked.
    async fn route_call(
        &self,
        mut request: CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
        (served, notes): (&mut Served, &mut CallNotes),
    ) -> Result<CallToolResponse, ErrorData> {
        let router = self.router();
        if router.scope().is_merged()
            && self.hub.settings().builtin_tools
            && crate::builtin::is_builtin(&request.name)
        {
            *served = Served::Builtin;
            let profile = router
                .profile_name()
                .and_then(|name| self.hub.profile(&name));
            return crate::builtin::call(
                &self.hub,
                &request,
                profile.as_ref().map(|p| p.servers.as_ref()),
            )
            .await
            .map(CallToolResponse::Complete);
        }
        let (upstream, route) = router.route(Target::Tool(&request.name)).await?;
        *served = Served::Server(upstream.id.clone());
        if let Some(route) = route {
            // The merged catalog shows the user's override of the tool; the
            // server gets its own name and the arguments it expects.
            if let Some(o) = upstream.config().tool_overrides.get(route.name.as_ref()) {
                crate::catalog::overrides::apply_to_call(&mut request.arguments, o, &request.name)
                    .map_err(|message| ErrorData::invalid_params(message, None))?;
            }
            request.name = Cow::Owned(route.name.to_string());
        }
        let asked = approval::approve_call(
            &self.hub,
            &self.session,
            &upstream,
            &request,
            downstream.as_ref(),
            cancel,
        );
        match asked.await {
            Approval::NotAsked => {}
            Approval::Allowed(decided) => notes.approval = Some(decided),
            Approval::Denied(result, decided) => {
                notes.approval = Some(decided);
                return Ok(CallToolResponse::Complete(result));
            }
        }
        let mut response = upstream
            .call_tool(request, downstream, cancel)
            .await
            .map_err(upstream_error)?;
        if let CallToolResponse::Complete(result) = &mut response {
            let default = self.hub.settings().result_secrets;
            notes.result_secrets = super::result_secrets::check_result(default, &upstream, result);
        }
        Ok(response)
    }

    /// `tools/call` from an older client: input-required results of a
    /// 2026-07-28 server are turned into requests to the client.
    pub(super) async fn legacy_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.input(context)
            .ask_and_retry(request, |request| {
                self.forward_call(request, downstream(context), &context.ct)
            })
            .await
    }

    /// `tools/call` from a 2026-07-28 client: its server's server→client
    /// requests become an input-required result (see `input_flow`); the
    /// call runs on a clone of this gateway, so it can be parked.
    pub(super) async fn modern_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let start = |request, ds, cancel: CancellationToken| -> CallFuture {
            let gateway = self.clone();
            Box::pin(async move { gateway.forward_call(request, ds, &cancel).await })
        };
        self.input(context).modern_call(request, start).await
    }

    /// One 2025-11-25 task request (see `experimental_tasks`); `method` is
    /// the client's, without its prefix. A `tools/call` takes the call path.
    pub(super) async fn experimental_task_request(
        &self,
        method: &str,
        params: Option<Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = experimental_tasks::params(params)?;
        if method != "tools/call" {
            return self
                .tasks()
                .experimental_request(method, params, context)
                .await;
        }
        let (request, ds) = experimental_tasks::call_request(params, context)?;
        let response = self.forward_call(request, ds, &context.ct).await?;
        experimental_tasks::call_answer(response)
    }
}
