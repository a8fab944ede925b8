//! The rmcp client handler of one upstream connection: what the upstream
//! server sends to Switchboard, and where it goes.
//!
//! Every request forwarded upstream is registered in the [`Calls`] table with
//! the downstream session and request that caused it, keyed by the upstream
//! request id and progress token, for as long as it runs ([`CallGuard`]).
//! That table routes, back to the right client:
//! - progress notifications, re-keyed to the client's own progress token
//!   (rmcp's client replaces the token it forwards with its own);
//! - server→client requests (sampling, elicitation, roots): to the session
//!   whose call is waiting on them, known exactly over Streamable HTTP (the
//!   request arrives on that call's response stream) and otherwise taken as
//!   the most recent call in flight. A client that did not declare the
//!   capability gets no request; the upstream gets an error saying why. A
//!   2026-07-28 client takes no such requests: its call's
//!   [`Downstream::collect`] receives them instead ([`Asked`]), to become an
//!   input-required result (see `gateway::input_flow`).
//!
//! List-change notifications, log messages and resource updates are handed to
//! the hub as [`UpstreamEvent`]s; it knows which sessions want them. None of
//! them costs the hub memory per notification: list changes and resource
//! updates are coalesced in [`Inbound`] (one event per burst), log messages are
//! limited per server, and at most [`PROGRESS_IN_FLIGHT`] progress
//! notifications of one call are being forwarded at a time (the rest are
//! dropped), so a flooding server cannot pile up work in the hub.

// Sampling, roots and logging are deprecated for protocol 2026-07-28
// (SEP-2577), but clients and servers on 2025-11-25 and earlier use them, and
// a proxy must forward what they exchange.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, CreateMessageRequest,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, ErrorCode, ErrorData, Implementation, ListRootsRequest, ListRootsResult,
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestId, ResourceUpdatedNotificationParam, ServerRequest,
};
use rmcp::service::{
    InboundStreamOrigin, NotificationContext, OriginatingRequestId, Peer, RequestContext,
    RoleClient, RoleServer,
};

use crate::config::ServerId;
use crate::events::inbound::{Inbound, LOG_BURST, LOG_INTERVAL};
use crate::events::{ListKind, UpstreamEvent};
use crate::limiter::Verdict;

mod tasks;

pub(crate) use tasks::EXPERIMENTAL_TASK_STATUS;
use tasks::forwarded_extensions;

/// Progress notifications of one call being forwarded at once; more are
/// dropped (a server may send them faster than a client reads them).
const PROGRESS_IN_FLIGHT: usize = 16;

/// The downstream side of a forwarded request.
#[derive(Clone)]
pub struct Downstream {
    pub peer: Peer<RoleServer>,
    /// The client's own request id, so server→client requests can be sent on
    /// that request's response stream.
    pub request_id: RequestId,
    /// The client's progress token, if it asked for progress.
    pub progress_token: Option<ProgressToken>,
    /// Set for a 2026-07-28 client, which takes no server→client requests:
    /// they are handed here instead, to become an input-required result
    /// (see `gateway::input_flow`).
    pub collect: Option<tokio::sync::mpsc::Sender<Asked>>,
    /// The capabilities a 2026-07-28 client declared in its request's
    /// `_meta` (an older client's are in its peer info).
    pub capabilities: Option<ClientCapabilities>,
    /// A 2025-11-25 client's `params.task` of a `tools/call`: the server is
    /// asked to run the call as a task (rmcp's request type has no such
    /// field, so the call goes as written; see `request.rs`).
    pub task: Option<rmcp::model::JsonObject>,
    /// The server's and the client's id of the task this request is about
    /// (a 2025-11-25 `tasks/result`): a server→client request that names the
    /// task in its `_meta` reaches the client with the client's id.
    pub related_task: Option<(String, String)>,
}

impl Downstream {
    /// What the client can be asked, as a 2026-07-28 server must be told in
    /// each request's `_meta`: the hub asks only for what the client can answer.
    pub(crate) fn client_capabilities(&self) -> ClientCapabilities {
        match &self.capabilities {
            Some(capabilities) => capabilities.clone(),
            None => self
                .peer
                .peer_info()
                .map(|info| info.capabilities.clone())
                .unwrap_or_default(),
        }
    }
}

/// A server→client request of an older server, waiting for the answer a
/// 2026-07-28 client gives in its retry.
pub struct Asked {
    pub request: ServerRequest,
    pub answer: tokio::sync::oneshot::Sender<Result<ClientResult, ErrorData>>,
}

#[derive(Default)]
struct CallTable {
    by_request: HashMap<RequestId, (u64, Downstream)>,
    by_token: HashMap<ProgressToken, (Downstream, Arc<AtomicUsize>)>,
    next: u64,
}

/// Forwarded requests in flight on one upstream.
#[derive(Clone, Default)]
pub(crate) struct Calls(Arc<Mutex<CallTable>>);

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, CallTable> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a forwarded request until the guard is dropped.
    pub(crate) fn register(
        &self,
        upstream_request: RequestId,
        upstream_token: ProgressToken,
        downstream: Downstream,
    ) -> CallGuard {
        let mut table = self.lock();
        table.next += 1;
        let order = table.next;
        let forwarding = Arc::new(AtomicUsize::new(0));
        let wants_progress = downstream.progress_token.is_some();
        table.by_token.insert(
            upstream_token.clone(),
            (downstream.clone(), forwarding.clone()),
        );
        table
            .by_request
            .insert(upstream_request.clone(), (order, downstream));
        CallGuard {
            calls: self.clone(),
            request: upstream_request,
            token: upstream_token,
            forwarding,
            wants_progress,
        }
    }

    fn by_token(&self, token: &ProgressToken) -> Option<(Downstream, Arc<AtomicUsize>)> {
        self.lock().by_token.get(token).cloned()
    }

    /// The call a server→client request belongs to: the one whose response
    /// stream it arrived on; else (stdio, or a server that sends it on its
    /// standalone stream) the most recent call in flight whose client can
    /// answer it (`able`), else the most recent one (which then refuses it
    /// with a reason). A stateless (2026-07-28) call collects the request
    /// into an input-required result, which replaces its answer; it is
    /// guessed only when `guess_stateless` (sampling and elicitation, which
    /// servers send while serving a call), never for a request servers also
    /// send on their own (`roots/list` after start-up or a roots change).
    fn waiting(
        &self,
        origin: Option<&InboundStreamOrigin>,
        guess_stateless: bool,
        able: impl Fn(&ClientCapabilities) -> bool,
    ) -> Option<Downstream> {
        let table = self.lock();
        if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin
            && let Some((_, downstream)) = table.by_request.get(id)
        {
            return Some(downstream.clone());
        }
        let candidates = || {
            table
                .by_request
                .values()
                .filter(|(_, d)| guess_stateless || d.collect.is_none())
        };
        let can_answer = |d: &Downstream| {
            d.collect.is_some()
                || d.peer
                    .peer_info()
                    .is_some_and(|info| able(&info.capabilities))
        };
        candidates()
            .filter(|(_, d)| can_answer(d))
            .max_by_key(|(order, _)| *order)
            .or_else(|| candidates().max_by_key(|(order, _)| *order))
            .map(|(_, d)| d.clone())
    }
}

/// Keeps a forwarded request registered for as long as it runs.
pub(crate) struct CallGuard {
    calls: Calls,
    request: RequestId,
    token: ProgressToken,
    /// Progress notifications of this call being forwarded right now.
    forwarding: Arc<AtomicUsize>,
    /// The client asked for progress; without a token nothing is forwarded.
    wants_progress: bool,
}

impl CallGuard {
    /// Lets progress that arrived before the response reach the client first.
    ///
    /// rmcp hands each notification to its own task, so the response can
    /// overtake the last progress notifications on their way to the client;
    /// the protocol says progress comes before the result. Yielding lets the
    /// notification tasks already spawned start (they count themselves in
    /// `forwarding` first thing); then we wait, briefly, for them to finish.
    pub(crate) async fn settle(&self) {
        if !self.wants_progress {
            return;
        }
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(100);
        while self.forwarding.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let mut table = self.calls.lock();
        table.by_request.remove(&self.request);
        table.by_token.remove(&self.token);
    }
}

/// The handler rmcp calls for what the upstream sends.
#[derive(Clone)]
pub(crate) struct UpstreamClient {
    pub(crate) server: ServerId,
    pub(crate) events: crate::events::EventSender,
    pub(crate) calls: Calls,
    /// Notifications waiting for the hub (coalesced, bounded).
    pub(crate) inbound: Arc<Inbound>,
}

impl UpstreamClient {
    /// Tells clients that `dropped` log messages of this server were dropped.
    fn logs_dropped(&self, dropped: u64) {
        if dropped == 0 {
            return;
        }
        let summary = LoggingMessageNotificationParam::new(
            LoggingLevel::Warning,
            serde_json::Value::String(format!(
                "Switchboard dropped {dropped} log messages of server '{}' \
                 (more than {LOG_BURST} a second)",
                self.server
            )),
        );
        let _ = self
            .events
            .send(UpstreamEvent::Log(self.server.clone(), summary));
    }

    /// Records a list change; the first one while none is pending asks the
    /// hub to refresh (see `inbound.rs`).
    pub(super) fn list_changed(&self, kind: ListKind) {
        if self.inbound.list_changed(kind) {
            let _ = self.events.send(UpstreamEvent::ListChanged(
                self.server.clone(),
                self.inbound.clone(),
            ));
        }
    }

    /// Records a resource update; the first one while none is pending asks
    /// the hub to pass them on.
    pub(super) fn resource_updated(&self, params: ResourceUpdatedNotificationParam) {
        if self.inbound.resource_updated(params) {
            let _ = self.events.send(UpstreamEvent::ResourcesUpdated(
                self.server.clone(),
                self.inbound.clone(),
            ));
        }
    }

    /// A status a server reported for one of its tasks, for the hub.
    fn task_status(
        &self,
        upstream_id: String,
        status: rmcp::model::TaskStatus,
        params: rmcp::model::JsonObject,
        experimental: bool,
    ) {
        let _ = self.events.send(UpstreamEvent::TaskStatus(
            self.server.clone(),
            crate::events::TaskNotice {
                upstream_id,
                status,
                params,
                experimental,
            },
        ));
    }

    fn no_client(&self, what: &str) -> ErrorData {
        ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "Switchboard has no client request waiting for this {what} (server '{}')",
                self.server
            ),
            None,
        )
    }

    fn unsupported(&self, what: &str) -> ErrorData {
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "the client connected to Switchboard does not support {what} (server '{}')",
                self.server
            ),
            None,
        )
    }

    /// Hands `request` to the call's collector (a 2026-07-28 client answers
    /// it in a retry) and waits for the answer, giving up when the upstream
    /// cancels. `None` when the call has no collector.
    async fn collect(
        &self,
        downstream: &Downstream,
        request: ServerRequest,
        context: &RequestContext<RoleClient>,
    ) -> Option<Result<ClientResult, ErrorData>> {
        let collect = downstream.collect.as_ref()?;
        let (answer, answered) = tokio::sync::oneshot::channel();
        let gone = || {
            ErrorData::internal_error(
                format!(
                    "the client's call ended before it answered (server '{}')",
                    self.server
                ),
                None,
            )
        };
        if collect.send(Asked { request, answer }).await.is_err() {
            return Some(Err(gone()));
        }
        Some(tokio::select! {
            result = answered => result.unwrap_or_else(|_| Err(gone())),
            () = context.ct.cancelled() => Err(ErrorData::internal_error(
                "cancelled by the server".to_string(),
                None,
            )),
        })
    }

    /// Sends `request` to the downstream client on its call's stream and
    /// waits for the answer, giving up when the upstream cancels.
    async fn ask(
        &self,
        downstream: &Downstream,
        request: ServerRequest,
        context: &RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        let sent = downstream.peer.send_request(request);
        tokio::select! {
            result = sent => result.map_err(|err| match err {
                rmcp::ServiceError::McpError(error) => error,
                other => ErrorData::internal_error(
                    format!(
                        "forwarding to the client failed: {}",
                        super::describe::service_failure(&other)
                    ),
                    None,
                ),
            }),
            () = context.ct.cancelled() => Err(ErrorData::internal_error(
                "cancelled by the server".to_string(),
                None,
            )),
        }
    }
}

pub(super) fn on_stream_of(downstream: &Downstream) -> rmcp::model::Extensions {
    let mut extensions = rmcp::model::Extensions::default();
    extensions.insert(OriginatingRequestId(downstream.request_id.clone()));
    extensions
}

/// The protocol version offered at a legacy `initialize`: the newest one
/// with a handshake. A server answers with the version it speaks (2025-06-18,
/// 2025-03-26, ...) and the connection uses that. With 2025-11-25, TypeScript
/// servers prime their SSE streams with event ids, so a stream they close
/// mid-call is resumed with `Last-Event-ID`.
pub(crate) const OFFERED_VERSION: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

impl ClientHandler for UpstreamClient {
    fn get_info(&self) -> ClientConfig {
        // Declared so upstream tools that need them work; each request is
        // forwarded to a client that supports it, or refused with a reason.
        let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "sampling": {},
            "elicitation": {"form": {}, "url": {}},
            "roots": {"listChanged": true},
            // MCP Apps: servers that list app tools only for capable clients
            // do so for the hub, which carries the apps to its clients.
            "extensions": {
                crate::catalog::ui_uri::EXTENSION_ID: {
                    "mimeTypes": [crate::catalog::ui_uri::APP_MIME_TYPE],
                },
            },
        }))
        .unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(OFFERED_VERSION)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let downstream = self
            .calls
            .waiting(context.extensions.get::<InboundStreamOrigin>(), true, |c| {
                c.sampling.is_some()
            })
            .ok_or_else(|| self.no_client("sampling request"))?;
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        if let Some(answer) = self.collect(&downstream, request.clone(), &context).await {
            return match answer? {
                ClientResult::CreateMessageResult(result) => Ok(*result),
                _ => Err(ErrorData::internal_error(
                    "unexpected answer to sampling",
                    None,
                )),
            };
        }
        let ServerRequest::CreateMessageRequest(mut request) = request else {
            return Err(self.no_client("sampling request"));
        };
        let supported = downstream
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.sampling.is_some());
        if !supported {
            return Err(self.unsupported("sampling"));
        }
        request.extensions = forwarded_extensions(&downstream, &context.meta);
        match self
            .ask(
                &downstream,
                ServerRequest::CreateMessageRequest(request),
                &context,
            )
            .await?
        {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(ErrorData::internal_error(
                "unexpected answer to sampling",
                None,
            )),
        }
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let downstream = self
            .calls
            .waiting(context.extensions.get::<InboundStreamOrigin>(), true, |c| {
                c.elicitation.is_some()
            })
            .ok_or_else(|| self.no_client("elicitation request"))?;
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        if let Some(answer) = self.collect(&downstream, request.clone(), &context).await {
            return match answer? {
                ClientResult::ElicitResult(result) => Ok(result),
                _ => Err(ErrorData::internal_error(
                    "unexpected answer to elicitation",
                    None,
                )),
            };
        }
        let ServerRequest::ElicitRequest(mut request) = request else {
            return Err(self.no_client("elicitation request"));
        };
        let supported = downstream
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some());
        if !supported {
            return Err(self.unsupported("elicitation"));
        }
        request.extensions = forwarded_extensions(&downstream, &context.meta);
        match self
            .ask(&downstream, ServerRequest::ElicitRequest(request), &context)
            .await?
        {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(ErrorData::internal_error(
                "unexpected answer to elicitation",
                None,
            )),
        }
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let Some(downstream) = self.calls.waiting(
            context.extensions.get::<InboundStreamOrigin>(),
            false,
            |c| c.roots.is_some(),
        ) else {
            // Outside a call there is no one client to ask; no roots is the honest answer.
            return Ok(ListRootsResult::default());
        };
        let request = ServerRequest::ListRootsRequest(ListRootsRequest::default());
        if let Some(answer) = self.collect(&downstream, request, &context).await {
            return match answer? {
                ClientResult::ListRootsResult(result) => Ok(result),
                _ => Err(ErrorData::internal_error(
                    "unexpected answer to roots/list",
                    None,
                )),
            };
        }
        let supported = downstream
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !supported {
            return Ok(ListRootsResult::default());
        }
        let request = ListRootsRequest {
            extensions: on_stream_of(&downstream),
            ..Default::default()
        };
        match self
            .ask(
                &downstream,
                ServerRequest::ListRootsRequest(request),
                &context,
            )
            .await?
        {
            ClientResult::ListRootsResult(result) => Ok(result),
            _ => Err(ErrorData::internal_error(
                "unexpected answer to roots/list",
                None,
            )),
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ListKind::Tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ListKind::Prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ListKind::Resources);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        match self.inbound.admit_log() {
            Verdict::Pass => {}
            Verdict::PassAfter(dropped) => self.logs_dropped(dropped),
            Verdict::Drop => return,
            Verdict::FirstDrop => {
                // Report the drops even if the flood stops now: once, when
                // the interval ends (unless a message passing first did).
                let client = self.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(LOG_INTERVAL).await;
                    client.logs_dropped(client.inbound.take_dropped_logs());
                });
                return;
            }
        }
        let _ = self
            .events
            .send(UpstreamEvent::Log(self.server.clone(), params));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.resource_updated(params);
    }

    async fn on_task_status(
        &self,
        params: rmcp::model::TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        let status = params.task.status();
        let upstream_id = params.task.task.task_id.clone();
        let Ok(serde_json::Value::Object(params)) = serde_json::to_value(&params) else {
            return;
        };
        self.task_status(upstream_id, status, params, false);
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some((id, status, params)) = tasks::experimental_status(notification) {
            self.task_status(id, status, params, true);
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some((downstream, forwarding)) = self.calls.by_token(&params.progress_token) else {
            return;
        };
        let Some(token) = downstream.progress_token else {
            return;
        };
        // Progress is a latest-value report: when the client is this far
        // behind, dropping one loses nothing a later one will not say.
        if forwarding.fetch_add(1, Ordering::SeqCst) >= PROGRESS_IN_FLIGHT {
            forwarding.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let mut forwarded = params;
        forwarded.progress_token = token;
        if let Err(err) = downstream.peer.notify_progress(forwarded).await {
            tracing::debug!(server = %self.server, %err, "could not forward progress");
        }
        forwarding.fetch_sub(1, Ordering::SeqCst);
    }
}
