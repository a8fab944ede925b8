//! How long downstream MCP sessions live and how many there may be.
//!
//! rmcp's [`LocalSessionManager`] keeps each Streamable HTTP session until
//! its own keep-alive timer runs out, and that timer only counts requests that
//! pass through rmcp: calls answered by the HTTP fast path (`fast_path`) never
//! reset it, so a busy session died five minutes after it was made. Nor does
//! it bound how many sessions exist. So every MCP route's session manager is a
//! [`HubSessionManager`]: rmcp's manager with its keep-alive off, in front of
//! one [`SessionTable`] shared by all routes, which
//!
//! - records each session's last use and how many requests and streams of it
//!   are open ([`Usage`]: two atomics, touched by rmcp's path here and by the
//!   fast path through [`Session::begin_use`](crate::sessions::Session::begin_use));
//! - closes a session idle (nothing open) for `sessionIdleSecs`
//!   ([`run_reaper`]);
//! - keeps at most `maxSessions`: a new session closes the least recently used
//!   idle one, and is refused when every session is busy ([`SessionTable::has_room`]).
//!
//! It also decides which event streams start with a priming event (an id and
//! `retry:` with empty data, SEP-1699, so a client can resume): only sessions
//! that negotiated 2025-11-25 or later get one, as the reference TypeScript
//! server does; older clients parse every event's data as JSON (Gemini CLI
//! failed discovery on the empty one). rmcp's service adds priming events
//! for every session, so the routes' services have theirs off (`mcp.rs`) and
//! this manager adds them (standalone `GET` streams) or drops them (request
//! streams, which rmcp's session primes) per session.
//!
//! A session leaves the table, and the status snapshot, the moment it is
//! closed (DELETE, expiry, eviction, or its worker ending); the hub's
//! [`Session`](crate::sessions::Session) is marked closed then.
//! Invariant: every session rmcp holds is in the table from `create_session`
//! until `close_session`, so the table's size is the number of sessions.

use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use tokio_util::sync::CancellationToken;

use crate::sessions::table::Entry;
use crate::sessions::{HttpSessionError, HttpSessionKey, SessionTable, Usage, UseGuard};

/// Closes idle sessions (see the module docs) until `cancel` fires; checks
/// four times per expiry period, at most every 30 s.
pub(crate) async fn run_reaper(hub: crate::hub::HubHandle, cancel: CancellationToken) {
    let table = hub.sessions().table().clone();
    let Some(idle) = table.idle else { return };
    let tick = (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    loop {
        tokio::select! {
            () = tokio::time::sleep(tick) => {}
            () = cancel.cancelled() => return,
        }
        let expired = table.take_expired();
        if expired.is_empty() {
            continue;
        }
        tracing::debug!(sessions = expired.len(), "closing idle sessions");
        for (id, manager) in &expired {
            if let Err(err) = manager.close_session(id).await {
                tracing::debug!(session = %id, %err, "closing an idle session");
            }
        }
        hub.publish_snapshot();
    }
}

/// rmcp's session manager with the hub's lifetime rules (see the module docs).
pub struct HubSessionManager {
    inner: Arc<LocalSessionManager>,
    table: Arc<SessionTable>,
}

impl HubSessionManager {
    pub fn new(table: Arc<SessionTable>) -> Self {
        let mut inner = LocalSessionManager::default();
        // The table expires idle sessions; rmcp's timer would also end busy ones.
        inner.session_config.keep_alive = None;
        Self {
            inner: Arc::new(inner),
            table,
        }
    }

    /// Marks a use of session `id` on rmcp's path; the guard, if any, is to be
    /// held for as long as the response stream is open.
    fn begin_use(&self, id: &SessionId) -> Option<UseGuard> {
        self.table.usage(id).map(|usage| usage.begin())
    }
}

/// `stream` without its events that carry no message (priming events, retry
/// hints) unless `allowed` (the session's version allows them; see the
/// module docs).
fn primed_only_if<S>(allowed: bool, stream: S) -> impl Stream<Item = S::Item>
where
    S: Stream<Item = ServerSseMessage>,
{
    stream.filter(move |event| std::future::ready(allowed || event.message.is_some()))
}

/// Holds `guard` for as long as `stream` is open.
fn guarded<S>(stream: S, guard: Option<UseGuard>) -> impl Stream<Item = S::Item>
where
    S: Stream,
{
    stream.map(move |item| {
        let _open = &guard;
        item
    })
}

impl SessionManager for HubSessionManager {
    type Error = HttpSessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let victims = self.table.make_room()?;
        if !victims.is_empty() {
            // The table logs a summary (see `sessions/evictions.rs`).
            for (id, manager) in &victims {
                self.table.close(id, manager).await;
            }
            self.table.changed();
        }
        let (id, transport) = self.inner.create_session().await?;
        self.table.lock().insert(
            id.clone(),
            Entry {
                manager: self.inner.clone(),
                usage: Arc::new(Usage::new(self.table.epoch)),
                session: Weak::new(),
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _use = self.begin_use(id);
        if let ClientJsonRpcMessage::Request(request) = &mut message {
            request
                .request
                .extensions_mut()
                .insert(HttpSessionKey(id.clone()));
        }
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if self.table.forget(id) {
            self.table.changed();
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let guard = self.begin_use(id);
        let stream = self.inner.create_stream(id, message).await?;
        Ok(guarded(
            primed_only_if(self.table.allows_priming(id), stream),
            guard,
        ))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let _use = self.begin_use(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let guard = self.begin_use(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        // What rmcp's service would put first (it has its own off, see the
        // module docs): a retry hint where an event store keeps ids, else a
        // priming event.
        let priming = self
            .inner
            .session_config
            .sse_retry
            .filter(|_| self.table.allows_priming(id))
            .map(|retry| match self.inner.event_store() {
                Some(_) => ServerSseMessage::retry(retry),
                None => ServerSseMessage::priming("0", retry),
            });
        let stream = futures::stream::iter(priming).chain(stream);
        Ok(guarded(stream, guard))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let guard = self.begin_use(id);
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(guarded(
            primed_only_if(self.table.allows_priming(id), stream),
            guard,
        ))
    }

    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // No external session store: a session the table does not hold is gone.
        Ok(RestoreOutcome::NotSupported)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn table(max: usize, idle_ms: u64) -> Arc<SessionTable> {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        Arc::new(SessionTable::new(max, Duration::from_millis(idle_ms), tx))
    }

    #[tokio::test]
    async fn the_cap_closes_the_least_recently_used_idle_session() {
        let table = table(2, 60_000);
        let manager = HubSessionManager::new(table.clone());
        let (a, _ta) = manager.create_session().await.unwrap();
        let (b, _tb) = manager.create_session().await.unwrap();
        // `a` is busy, so `b` is the one to go even though `a` is older.
        let busy = table.usage(&a).unwrap().begin();
        let (c, _tc) = manager.create_session().await.unwrap();
        assert_eq!(table.len(), 2);
        assert!(table.usage(&a).is_some());
        assert!(table.usage(&b).is_none());
        assert!(table.usage(&c).is_some());
        let c_busy = table.usage(&c).unwrap().begin();
        assert!(!table.has_room());
        assert!(matches!(
            manager.create_session().await,
            Err(HttpSessionError::Full { max: 2 })
        ));
        drop((busy, c_busy));
        assert!(table.has_room());
    }

    #[tokio::test]
    async fn only_sessions_with_nothing_open_expire() {
        let table = table(10, 1);
        let manager = HubSessionManager::new(table.clone());
        let (a, _ta) = manager.create_session().await.unwrap();
        let (b, _tb) = manager.create_session().await.unwrap();
        let _busy = table.usage(&a).unwrap().begin();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let expired: Vec<_> = table.take_expired().into_iter().map(|(id, _)| id).collect();
        assert_eq!(expired, vec![b]);
        assert_eq!(table.len(), 1);
    }
}
