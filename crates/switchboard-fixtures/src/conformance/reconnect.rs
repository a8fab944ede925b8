//! Server-initiated SSE disconnection for `test_reconnection` (SEP-1699).
//!
//! The `server-sse-polling` scenario calls `test_reconnection` with a raw POST,
//! expects the server to close that POST's SSE stream before answering (after
//! a priming event carrying an event id and a `retry` hint), then reconnects
//! with `GET` + `Last-Event-ID` and expects the answer on the resumed stream.
//!
//! rmcp's [`LocalSessionManager`] can close a request's stream and replay it on
//! resume, but a handler cannot see which HTTP request (rmcp's per-session
//! `http_request_id`) carries its answer. [`ReconnectingSessionManager`]
//! delegates everything to a `LocalSessionManager` and, for `tools/call` of
//! `test_reconnection` only, opens the request's stream itself so it can record
//! (session, JSON-RPC id) → `http_request_id`. The handler then calls
//! [`ReconnectingSessionManager::disconnect`] and waits for the resume that
//! [`SessionManager::resume`] reports, before it answers: an answer sent while
//! no stream is attached would be dropped by rmcp.
//!
//! Entries live from the POST until the handler takes them (or the session
//! closes); waiters from the disconnect until the resume (or the handler gives
//! up). Both maps are behind short std locks, never held across an `.await`.

use std::{
    collections::HashMap,
    sync::{Mutex, PoisonError},
    time::Duration,
};

use futures::{Stream, future::Either};
use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, ClientRequest, RequestId, ServerJsonRpcMessage},
    service::RequestContext,
    transport::{
        WorkerTransport,
        common::http_header::HEADER_SESSION_ID,
        streamable_http_server::{
            RestoreOutcome, SessionId, SessionManager,
            session::{
                EventStore, ServerSseMessage,
                local::{
                    LocalSessionHandle, LocalSessionManager, LocalSessionManagerError,
                    LocalSessionWorker,
                },
            },
        },
    },
};
use tokio::sync::oneshot;

use super::catalog::ToolName;

/// rmcp's per-session number of the HTTP request whose SSE stream carries a
/// JSON-RPC answer (the part after `/` in its event ids).
type HttpRequestId = u64;

/// Resolves once the client has reattached to a stream closed by
/// [`ReconnectingSessionManager::disconnect`]; errors if the waiter was dropped
/// (session closed).
pub type Resumed = oneshot::Receiver<()>;

/// A [`LocalSessionManager`] that can close the SSE stream of a pending
/// `test_reconnection` call and tell when the client resumed it.
#[derive(Debug, Default)]
pub struct ReconnectingSessionManager {
    inner: LocalSessionManager,
    /// (session, JSON-RPC id of a pending `test_reconnection` call) → the HTTP
    /// request whose stream carries its answer. Written by `create_stream`,
    /// taken by `disconnect`.
    streams: Mutex<HashMap<(SessionId, RequestId), HttpRequestId>>,
    /// (session, HTTP request) → the handler waiting for the client to resume
    /// that stream. Written by `disconnect`, taken by `resume`.
    waiters: Mutex<HashMap<(SessionId, HttpRequestId), oneshot::Sender<()>>>,
}

impl ReconnectingSessionManager {
    /// Wraps `inner`, whose session config (SSE retry, keep-alive) applies.
    pub fn new(inner: LocalSessionManager) -> Self {
        Self {
            inner,
            streams: Mutex::default(),
            waiters: Mutex::default(),
        }
    }

    async fn handle(&self, id: &SessionId) -> Result<LocalSessionHandle, LocalSessionManagerError> {
        self.inner
            .sessions
            .read()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| LocalSessionManagerError::SessionNotFound(id.clone()))
    }

    /// Closes the SSE stream that carries the answer to `request_id` of
    /// `session`, after a priming event telling the client to reconnect in
    /// `retry`. Returns `None` when no such stream is known (stdio, or a request
    /// that did not come through [`SessionManager::create_stream`]); the caller
    /// should then simply answer.
    pub async fn disconnect(
        &self,
        session: &SessionId,
        request_id: &RequestId,
        retry: Duration,
    ) -> Result<Option<Resumed>, LocalSessionManagerError> {
        let key = (session.clone(), request_id.clone());
        let Some(http_request_id) = lock(&self.streams).remove(&key) else {
            return Ok(None);
        };
        let handle = self.handle(session).await?;
        let (resumed_tx, resumed_rx) = oneshot::channel();
        let waiter_key = (session.clone(), http_request_id);
        lock(&self.waiters).insert(waiter_key.clone(), resumed_tx);
        if let Err(error) = handle.close_sse_stream(http_request_id, Some(retry)).await {
            lock(&self.waiters).remove(&waiter_key);
            return Err(error.into());
        }
        tracing::debug!(%session, http_request_id, "closed the SSE stream of test_reconnection");
        Ok(Some(resumed_rx))
    }

    /// Forgets every stream and waiter of `session` (it closed).
    fn forget(&self, session: &SessionId) {
        lock(&self.streams).retain(|(id, _), _| id != session);
        lock(&self.waiters).retain(|(id, _), _| id != session);
    }
}

impl SessionManager for ReconnectingSessionManager {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let Some(request_id) = reconnection_call_id(&message) else {
            return self
                .inner
                .create_stream(id, message)
                .await
                .map(Either::Left);
        };
        // What `LocalSessionManager::create_stream` does, keeping the HTTP request id.
        let handle = self.handle(id).await?;
        let receiver = handle.establish_request_wise_channel().await?;
        let key = (id.clone(), request_id);
        if let Some(http_request_id) = receiver.http_request_id {
            lock(&self.streams).insert(key.clone(), http_request_id);
        }
        if let Err(error) = handle.push_message(message, receiver.http_request_id).await {
            lock(&self.streams).remove(&key);
            return Err(error.into());
        }
        let mut messages = receiver.inner;
        Ok(Either::Right(futures::stream::poll_fn(move |cx| {
            messages.poll_recv(cx)
        })))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let http_request_id = http_request_id_of(&last_event_id);
        let stream = self.inner.resume(id, last_event_id).await?;
        // The worker has reattached the stream: an answer sent now reaches the client.
        if let Some(http_request_id) = http_request_id
            && let Some(resumed) = lock(&self.waiters).remove(&(id.clone(), http_request_id))
        {
            tracing::debug!(%id, http_request_id, "client resumed the stream of test_reconnection");
            let _ = resumed.send(());
        }
        Ok(stream)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }

    fn event_store(&self) -> Option<std::sync::Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

/// The JSON-RPC id of `message` when it is a `tools/call` of `test_reconnection`.
fn reconnection_call_id(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    match &request.request {
        ClientRequest::CallToolRequest(call)
            if call.params.name == ToolName::Reconnection.as_str() =>
        {
            Some(request.id.clone())
        }
        _ => None,
    }
}

/// The HTTP request id in one of rmcp's local event ids, `<index>/<http request id>`
/// (standalone-stream ids are a bare `<index>` and have none).
fn http_request_id_of(event_id: &str) -> Option<HttpRequestId> {
    let (index, http_request_id) = event_id.split_once('/')?;
    index.parse::<usize>().ok()?;
    http_request_id.parse().ok()
}

/// The `Mcp-Session-Id` of the HTTP request that carried this MCP request, if
/// it came over Streamable HTTP with a session.
pub fn session_of(context: &RequestContext<RoleServer>) -> Option<SessionId> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let value = parts.headers.get(HEADER_SESSION_ID)?.to_str().ok()?;
    Some(SessionId::from(value))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_request_wise_event_ids() {
        assert_eq!(http_request_id_of("0/0"), Some(0));
        assert_eq!(http_request_id_of("12/7"), Some(7));
        assert_eq!(http_request_id_of("3"), None);
        assert_eq!(http_request_id_of("x/1"), None);
        assert_eq!(http_request_id_of("1/y"), None);
        assert_eq!(http_request_id_of(""), None);
    }

    fn message(value: serde_json::Value) -> ClientJsonRpcMessage {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn recognises_only_test_reconnection_calls() {
        let call = |name: &str| {
            message(json!({
                "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": name, "arguments": {}}
            }))
        };
        assert_eq!(
            reconnection_call_id(&call("test_reconnection")),
            Some(RequestId::Number(7))
        );
        assert_eq!(reconnection_call_id(&call("test_simple_text")), None);
        let list = message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(reconnection_call_id(&list), None);
        let note = message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(reconnection_call_id(&note), None);
    }

    #[tokio::test]
    async fn unknown_requests_are_not_disconnected() {
        let manager = ReconnectingSessionManager::default();
        let resumed = manager
            .disconnect(
                &SessionId::from("nope"),
                &RequestId::Number(1),
                Duration::from_millis(10),
            )
            .await
            .unwrap();
        assert!(resumed.is_none());
    }
}
