//! Code mode on a merged endpoint (`toolMode: "code"`, see `docs/search.md`
//! and `crate::codemode`): `switchboard__run_code` is answered here. Before
//! the script runs, the servers it names statically are started in
//! parallel (only those, and only the session's own); each call the
//! script makes then goes through [`Gateway::forward_call`] on a copy of
//! this session's gateway that carries the run's id (made by the caller of
//! [`CodeMode::run_code`]), so an inner call takes
//! the route of a direct call (pins and held tools, `disabledTools`, the
//! profile's servers, approval, the activity log, timeouts, progress
//! forwarded on the run's request, cancellation with the run).

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, JsonObject};
use tokio_util::sync::CancellationToken;

use super::record::CallNotes;
use super::search_mode::SearchMode;
use super::{Gateway, Router};
use crate::codemode::{self, RUN_CODE};
use crate::config::ToolMode;
use crate::hub::HubHandle;
use crate::sessions::Session;
use crate::upstream::Downstream;

/// Code mode for one session: whether it is on, and the runs of its
/// scripts. References only, made per call for free.
#[derive(Clone, Copy)]
pub(super) struct CodeMode<'a> {
    /// The hub whose settings and servers a run uses.
    hub: &'a HubHandle,
    /// The session the scripts run for (its scope, its tool mode).
    session: &'a Session,
    /// Whether the calls are a script's own (a script cannot run another).
    nested: bool,
}

impl<'a> CodeMode<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Session, nested: bool) -> Self {
        Self {
            hub,
            session,
            nested,
        }
    }

    /// Whether `name` is code mode's tool on a session in code mode.
    pub(super) fn is_run_code(&self, name: &str) -> bool {
        name == RUN_CODE && SearchMode::new(self.hub, self.session).tool_mode() == ToolMode::Code
    }

    /// Runs `switchboard__run_code` (`request`), its calls answered through
    /// the gateway `for_run` makes for the run's id (this session's, marked
    /// with the run); the run's id goes into `notes` for its own record.
    pub(super) async fn run_code(
        &self,
        request: &CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
        notes: &mut CallNotes,
        for_run: impl FnOnce(Arc<str>) -> Gateway,
    ) -> CallToolResult {
        let refused = |message: String| {
            CallToolResult::error(vec![ContentBlock::text(format!("{RUN_CODE}: {message}"))])
        };
        if self.nested {
            return refused("a script cannot run another script".into());
        }
        let (code, limits) =
            match codemode::arguments(request.arguments.as_ref(), self.hub.settings()) {
                Ok(checked) => checked,
                Err(err) => return refused(err.to_string()),
            };
        let Some(program) = crate::upstream::guard::program() else {
            return refused(
                "scripts run in a helper process of Switchboard's own program, \
                 which this embedding of the engine did not register"
                    .into(),
            );
        };
        let run = codemode::next_run_id();
        notes.run = Some(run.clone());
        self.start_referenced(&code);
        let inner = Arc::new(Inner {
            gateway: for_run(run),
            // Server→client requests of inner calls go on the run's request
            // (an input-required answer cannot be given to a script).
            downstream: downstream.map(|d| Downstream { collect: None, ..d }),
        });
        codemode::run(program, code, limits, inner, cancel).await
    }

    /// Starts, in the background and in parallel, the session's servers
    /// that `code` names statically (`tools.<prefix>`); nothing else.
    fn start_referenced(&self, code: &str) {
        let prefixes = codemode::referenced_prefixes(code);
        if prefixes.is_empty() {
            return;
        }
        for upstream in self.hub.enabled_upstreams() {
            if prefixes.contains(upstream.config().prefix())
                && Router::new(self.hub, self.session).in_scope(&upstream.id)
            {
                tracing::debug!(server = %upstream.id, "starting a server a script names");
                self.hub.spawn(async move { upstream.warm().await });
            }
        }
    }
}

/// The error a cancelled run ends with (the activity log records it as
/// cancelled; the client that cancelled gets no answer).
pub(super) fn cancelled() -> rmcp::model::ErrorData {
    rmcp::model::ErrorData::new(
        rmcp::model::ErrorCode::INTERNAL_ERROR,
        format!("{RUN_CODE}: the run was cancelled"),
        Some(serde_json::json!({"kind": "cancelled"})),
    )
}

/// The calls of one run: through the session's gateway, marked with the run.
struct Inner {
    gateway: Gateway,
    downstream: Option<Downstream>,
}

impl codemode::InnerCalls for Inner {
    fn call(
        &self,
        name: String,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<CallToolResult, String>> {
        let gateway = self.gateway.clone();
        let downstream = self.downstream.clone();
        Box::pin(async move {
            let mut request = CallToolRequestParams::new(name);
            request.arguments = arguments;
            // A task handle is waited for until the task's result (a script
            // sees the tool's result, as for a call that answers at once).
            let response = gateway
                .forward_call(request, downstream.clone(), &cancel)
                .await
                .map_err(|err| err.message.to_string())?;
            gateway
                .tasks()
                .finish_call(response, downstream, &cancel)
                .await
                .map_err(|err| err.message.to_string())
        })
    }
}
