//! Requests to a running server: one send with the call timeout (reset by
//! progress), progress forwarded downstream, cancellation both ways and a
//! stuck stdin noticed, and the mapping of every failure to an
//! [`UpstreamError`] that updates the server's health.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    ReadResourceRequestParams, ReadResourceResponse, Request, ServerResult, UpdateTaskParams,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use tokio_util::sync::CancellationToken;

use super::client::Downstream;
use super::link::Connection;
use super::status::STDERR_TAIL_IN_ERRORS;
use super::stdio::{self, MAX_MESSAGE_BYTES};
use super::{ServerState, Upstream, UpstreamError, describe};
use crate::config::TransportConfig;
use crate::listing::{Capabilities, RefreshTrigger};
use crate::resilience::{DISCOVERY_ATTEMPTS, backoff};
use crate::util::redact;

impl Upstream {
    /// Sends one request, with the call timeout (reset by progress), progress
    /// forwarded to `progress_to`, and cancellation when `cancel` fires.
    ///
    /// Writing the request counts against the call timeout too: a stdio
    /// server that stops reading its stdin fails the call (and every call
    /// queued behind it) with [`UpstreamError::StdinStuck`].
    pub(super) async fn request(
        self: &Arc<Self>,
        request: ClientRequest,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, UpstreamError> {
        let _in_flight = self.traffic.enter();
        self.status.touch();
        let conn = self.connection().await?;
        let started = Instant::now();
        let timeout = self.call_timeout();
        let mut options = PeerRequestOptions::with_timeout(timeout).reset_timeout_on_progress();
        // A 2026-07-28 server learns from each request's `_meta` what the
        // client can be asked: the client's own capabilities, not the hub's.
        if let Some(downstream) = &downstream
            && super::listen::is_modern(&conn.peer)
        {
            let mut meta = rmcp::model::RequestMetaObject::new();
            meta.set_client_capabilities(downstream.client_capabilities());
            options = options.with_meta(meta);
        }
        let stuck = async {
            match &conn.stdio {
                Some(health) => health.stuck().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(stuck);
        let handle = tokio::select! {
            handle = conn.peer.send_request_with_option(request, options) => handle,
            () = &mut stuck => Err(ServiceError::TransportClosed),
            () = tokio::time::sleep(timeout) => {
                let err = UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "the request",
                    after: timeout,
                };
                self.status.record_failure(&err, None);
                return Err(err);
            }
        };
        let handle = match handle {
            Ok(handle) => handle,
            Err(_) => {
                return Err(self
                    .service_failure(&conn, ServiceError::TransportClosed)
                    .await);
            }
        };
        let upstream_token = handle.progress_token.clone();
        let request_id = handle.id.clone();
        let call = downstream.map(|d| {
            self.traffic
                .calls()
                .register(request_id.clone(), upstream_token, d)
        });
        let result = tokio::select! {
            r = handle.await_response() => r,
            () = &mut stuck => Err(ServiceError::TransportClosed),
            _ = cancel.cancelled() => {
                let _ = conn.peer.notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                    Some(request_id),
                    Some("cancelled by the client".into()),
                )).await;
                return Err(UpstreamError::Cancelled { server: self.id.clone() });
            }
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        if let Some(call) = &call {
            call.settle().await;
        }
        match result {
            Ok(result) => {
                self.status.record_success(Some(started.elapsed()));
                Ok(result)
            }
            Err(err) => {
                // A timeout after an answer was dropped for its size (its id
                // could not be read) is that answer's fault.
                let dropped = match &err {
                    ServiceError::Timeout { .. } => conn
                        .stdio
                        .as_deref()
                        .filter(|h| !h.is_stuck())
                        .and_then(|h| h.dropped_since(started)),
                    _ => None,
                };
                match dropped {
                    Some(bytes) => Err(self.answer_too_large(bytes)),
                    None => Err(self.service_failure(&conn, err).await),
                }
            }
        }
    }

    /// Sends a request of one of the kinds the gateway forwards and returns
    /// its answer; an answer of another kind is a protocol error.
    pub(crate) async fn send<A: Ask>(
        self: &Arc<Self>,
        params: A,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<A::Answer, UpstreamError> {
        let result = self
            .request(params.into_request(), downstream, cancel)
            .await?;
        A::answer(result).map_err(|other| self.unexpected(&other))
    }

    /// Calls a tool; a 2025-11-25 client's task request
    /// ([`Downstream::task`]) goes with the call as `params.task`, and the
    /// task handle the server answers with comes back as a
    /// [`CallToolResponse::Task`] (see [`experimental_task_handle`]).
    pub async fn call_tool(
        self: &Arc<Self>,
        params: CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResponse, UpstreamError> {
        let Some(task) = downstream.as_ref().and_then(|d| d.task.clone()) else {
            return self.send(params, downstream, cancel).await;
        };
        let mut raw = match serde_json::to_value(&params) {
            Ok(serde_json::Value::Object(raw)) => raw,
            _ => rmcp::model::JsonObject::new(),
        };
        // The client's progress token is its own; rmcp's stands for it upstream.
        if let Some(serde_json::Value::Object(meta)) = raw.get_mut("_meta") {
            meta.remove("progressToken");
        }
        raw.insert("task".into(), serde_json::Value::Object(task));
        let request = ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
            "tools/call",
            Some(serde_json::Value::Object(raw)),
        ));
        let result = self.request(request, downstream, cancel).await?;
        let result = match result {
            ServerResult::CustomResult(custom) => match experimental_task_handle(&custom.0) {
                Some(task) => return Ok(CallToolResponse::Task(task)),
                None => ServerResult::CustomResult(custom),
            },
            other => other,
        };
        CallToolRequestParams::answer(result).map_err(|other| self.unexpected(&other))
    }

    pub async fn complete(
        self: &Arc<Self>,
        params: CompleteRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CompleteResult, UpstreamError> {
        self.send(params, downstream, cancel).await
    }

    /// What the server said about itself at `initialize` (starting it if needed).
    pub async fn server_info(
        self: &Arc<Self>,
    ) -> Result<Arc<rmcp::model::ServerPeerInfo>, UpstreamError> {
        let conn = self.connection().await?;
        conn.peer
            .peer_info()
            .ok_or_else(|| UpstreamError::Protocol {
                server: self.id.clone(),
                message: "no initialize result".into(),
            })
    }

    /// Whether the server runs protocol 2026-07-28 or later (starting it if needed).
    pub(crate) async fn is_modern(self: &Arc<Self>) -> bool {
        match self.connection().await {
            Ok(conn) => super::listen::is_modern(&conn.peer),
            Err(_) => false,
        }
    }

    /// Whether the running server advertised a capability.
    pub(super) async fn advertises(
        self: &Arc<Self>,
        has: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> bool {
        self.server_info()
            .await
            .is_ok_and(|info| has(&info.capabilities))
    }

    /// Forwards `logging/setLevel` if the server supports logging.
    #[allow(deprecated)] // logging is deprecated only for protocol 2026-07-28
    pub async fn set_level(
        self: &Arc<Self>,
        level: rmcp::model::LoggingLevel,
    ) -> Result<(), UpstreamError> {
        if !self.advertises(|c| c.logging.is_some()).await {
            return Ok(());
        }
        let request = ClientRequest::SetLevelRequest(Request::new(
            rmcp::model::SetLevelRequestParams::new(level),
        ));
        self.request(request, None, &CancellationToken::new())
            .await
            .map(|_| ())
    }

    /// Subscribes to a resource upstream, once however many sessions want it.
    #[allow(deprecated)] // resources/subscribe is legacy-only for protocol 2026-07-28
    pub async fn subscribe(self: &Arc<Self>, uri: &str) -> Result<(), UpstreamError> {
        if !self.subscriptions.add(uri) {
            return Ok(());
        }
        if self.is_modern().await {
            // Asked for on the connection's `subscriptions/listen` (see `listen`).
            self.subscriptions.poke();
            return Ok(());
        }
        let request = ClientRequest::SubscribeRequest(Request::new(
            rmcp::model::SubscribeRequestParams::new(uri),
        ));
        let result = self.request(request, None, &CancellationToken::new()).await;
        if result.is_err() {
            self.subscriptions.forget(uri);
        }
        result.map(|_| ())
    }

    /// Drops one session's interest; unsubscribes upstream when none is left.
    #[allow(deprecated)] // resources/unsubscribe is legacy-only for protocol 2026-07-28
    pub async fn unsubscribe(self: &Arc<Self>, uri: &str) -> Result<(), UpstreamError> {
        if !self.subscriptions.remove(uri) {
            return Ok(());
        }
        if self.is_modern().await {
            self.subscriptions.poke();
            return Ok(());
        }
        let request = ClientRequest::UnsubscribeRequest(Request::new(
            rmcp::model::UnsubscribeRequestParams::new(uri),
        ));
        self.request(request, None, &CancellationToken::new())
            .await
            .map(|_| ())
    }

    pub(super) fn unexpected(&self, result: &ServerResult) -> UpstreamError {
        let kind = serde_json::to_value(result)
            .ok()
            .and_then(|v| {
                v.as_object()
                    .map(|o| o.keys().cloned().collect::<Vec<_>>().join(","))
            })
            .unwrap_or_default();
        UpstreamError::Protocol {
            server: self.id.clone(),
            message: format!("unexpected result type (fields: {kind})"),
        }
    }

    /// Turns a failed request into an error, updating health; a dead transport
    /// also drops the connection so the next need starts a new one.
    pub(super) async fn service_failure(
        &self,
        conn: &Arc<Connection>,
        err: ServiceError,
    ) -> UpstreamError {
        if let Some(health) = conn.stdio.as_deref().filter(|h| h.is_stuck()) {
            conn.stop.cancel();
            self.report_stdin_stuck(health);
            return self.stdin_stuck_error(health);
        }
        let mapped = match err {
            ServiceError::McpError(error) => {
                self.status.record_success(None);
                if let Some(bytes) = stdio::too_large_answer(&error) {
                    return self.answer_too_large(bytes);
                }
                return UpstreamError::Rpc {
                    server: self.id.clone(),
                    error,
                };
            }
            ServiceError::Timeout { timeout } => UpstreamError::Timeout {
                server: self.id.clone(),
                during: "the request",
                after: timeout,
            },
            ref send @ ServiceError::TransportSend(_)
                if send.is_authorization_required() || describe::is_insufficient_scope(send) =>
            {
                // The server refused the token (rmcp already tried one refresh),
                // or wants one with more scopes (a 403 step-up challenge): a
                // new login asks for the scopes the challenge names.
                self.auth
                    .server(&self.id)
                    .set_challenge(send.auth_challenge());
                conn.stop.cancel();
                let err = UpstreamError::AuthRequired {
                    server: self.id.clone(),
                    reason: super::login::reason(&self.auth, &self.id),
                };
                self.status.note("warn", err.to_string());
                self.status
                    .record_failure(&err, Some(ServerState::AuthRequired));
                return err;
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let detail = match &err {
                    ServiceError::TransportSend(e) => Some(describe::transport_failure(e)),
                    _ => None,
                };
                // Wait briefly for the monitor to record why (exit status, stderr).
                let mut closed = conn.closed.clone();
                let monitor_done = matches!(
                    tokio::time::timeout(Duration::from_millis(500), closed.changed()).await,
                    Ok(Err(_))
                );
                let config = self.config();
                let mapped = match (&config.transport, detail) {
                    (TransportConfig::Stdio { .. }, _) => UpstreamError::ProcessExited {
                        server: self.id.clone(),
                        stderr_tail: self.status.stderr().run_tail(STDERR_TAIL_IN_ERRORS),
                    },
                    (TransportConfig::Http { url, .. }, Some(message)) => UpstreamError::Connect {
                        server: self.id.clone(),
                        url: redact::url(url),
                        message,
                    },
                    (TransportConfig::Http { sse: true, .. }, None) => UpstreamError::SseClosed {
                        server: self.id.clone(),
                    },
                    (TransportConfig::Http { .. }, None) => UpstreamError::Closed {
                        server: self.id.clone(),
                    },
                };
                if !monitor_done {
                    // The request failed but the session lives on (an HTTP
                    // transport error): count it, and start afresh next time.
                    conn.stop.cancel();
                    self.status
                        .record_failure(&mapped, Some(ServerState::Failed));
                }
                return mapped;
            }
            other => UpstreamError::Protocol {
                server: self.id.clone(),
                message: describe::service_failure(&other),
            },
        };
        self.status.record_failure(&mapped, None);
        mapped
    }

    /// Lists the server for listing `seq` of its [`Lister`](super::Lister):
    /// a transport failure is retried with back-off, up to
    /// [`DISCOVERY_ATTEMPTS`] starts in all.
    pub(super) async fn list_with_retries(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
        seq: u64,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        let mut attempt = 0;
        loop {
            let outcome = self.list_now(trigger).await;
            attempt += 1;
            match &outcome {
                Err(err) if err.is_retryable() && attempt < DISCOVERY_ATTEMPTS => {
                    let wait = backoff(attempt, seq ^ self.fingerprint.as_u64());
                    tracing::debug!(server = %self.id, error = %err, ?wait, "listing failed; retrying");
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.cancel.cancelled() => break outcome,
                    }
                }
                _ => break outcome,
            }
        }
    }

    /// One listing of the running server (starting it if needed).
    async fn list_now(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        let conn = self.connection().await?;
        let timeout = self.call_timeout();
        let started = Instant::now();
        let result = tokio::select! {
            r = tokio::time::timeout(timeout, Capabilities::list(&conn.peer, trigger)) => r,
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        match result {
            Ok(Ok(caps)) => {
                self.status.record_success(Some(started.elapsed()));
                tracing::debug!(
                    server = %self.id,
                    tools = caps.tools.len(),
                    prompts = caps.prompts.len(),
                    resources = caps.resources.len(),
                    ?trigger,
                    "listed"
                );
                Ok(Arc::new(caps))
            }
            Ok(Err(err)) => Err(self.service_failure(&conn, err).await),
            Err(_) => {
                let err = UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "the capability listing",
                    after: timeout,
                };
                self.status.record_failure(&err, None);
                Err(err)
            }
        }
    }

    pub(super) fn answer_too_large(&self, bytes: u64) -> UpstreamError {
        let err = UpstreamError::AnswerTooLarge {
            server: self.id.clone(),
            bytes,
            limit: MAX_MESSAGE_BYTES as u64,
        };
        self.status.note("warn", err.to_string());
        err
    }
}

/// A kind of request the gateway forwards to a server: how it is sent and
/// which results answer it.
pub(crate) trait Ask {
    type Answer;
    fn into_request(self) -> ClientRequest;
    /// The answer, or the result back (boxed: it is large and rare) when it
    /// does not answer this request.
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>>;
}

impl Ask for CallToolRequestParams {
    type Answer = CallToolResponse;
    fn into_request(self) -> ClientRequest {
        ClientRequest::CallToolRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::CallToolResult(r) => Ok(CallToolResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
            ServerResult::CreateTaskResult(r) => Ok(CallToolResponse::Task(r)),
            ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(
                CallToolResult::success(Vec::new()),
            )),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for GetPromptRequestParams {
    type Answer = GetPromptResponse;
    fn into_request(self) -> ClientRequest {
        ClientRequest::GetPromptRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::GetPromptResult(r) => Ok(GetPromptResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(GetPromptResponse::InputRequired(r)),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for ReadResourceRequestParams {
    type Answer = ReadResourceResponse;
    fn into_request(self) -> ClientRequest {
        ClientRequest::ReadResourceRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::ReadResourceResult(r) => Ok(ReadResourceResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(ReadResourceResponse::InputRequired(r)),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for CompleteRequestParams {
    type Answer = CompleteResult;
    fn into_request(self) -> ClientRequest {
        ClientRequest::CompleteRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::CompleteResult(r) => Ok(r),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for GetTaskParams {
    type Answer = GetTaskResult;
    fn into_request(self) -> ClientRequest {
        ClientRequest::GetTaskRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::GetTaskResult(r) => Ok(r),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for UpdateTaskParams {
    type Answer = ();
    fn into_request(self) -> ClientRequest {
        ClientRequest::UpdateTaskRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
            other => Err(Box::new(other)),
        }
    }
}

impl Ask for rmcp::model::CancelTaskParams {
    type Answer = ();
    fn into_request(self) -> ClientRequest {
        ClientRequest::CancelTaskRequest(Request::new(self))
    }
    fn answer(result: ServerResult) -> Result<Self::Answer, Box<ServerResult>> {
        match result {
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
            other => Err(Box::new(other)),
        }
    }
}

/// A 2025-11-25 task handle (`{"task": {taskId, status, ..., ttl,
/// pollInterval}}`, no `resultType`) as the hub keeps tasks: the same fields,
/// spelled as 2026-07-28 spells them (`ttlMs`, `pollIntervalMs`).
pub(crate) fn experimental_task_handle(
    result: &serde_json::Value,
) -> Option<rmcp::model::CreateTaskResult> {
    let task = experimental_task(result.get("task")?)?;
    let mut handle = rmcp::model::CreateTaskResult::new(task);
    handle.meta = result
        .get("_meta")
        .and_then(|m| serde_json::from_value(m.clone()).ok());
    Some(handle)
}

/// A 2025-11-25 `Task` object, read into the hub's task type.
pub(crate) fn experimental_task(task: &serde_json::Value) -> Option<rmcp::model::Task> {
    let text = |key: &str| task.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let status = serde_json::from_value(task.get("status")?.clone()).ok()?;
    let mut out = rmcp::model::Task::new(
        text("taskId")?,
        status,
        text("createdAt").unwrap_or_default(),
        text("lastUpdatedAt").unwrap_or_default(),
    );
    out.status_message = text("statusMessage");
    out.ttl_ms = task.get("ttl").and_then(serde_json::Value::as_u64);
    out.poll_interval_ms = task.get("pollInterval").and_then(serde_json::Value::as_u64);
    Some(out)
}
