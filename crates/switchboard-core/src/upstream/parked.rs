//! Calls parked while a 2026-07-28 client answers what an older server asked.
//!
//! An older server sends sampling, elicitation or roots requests during a
//! call; a 2026-07-28 client takes none, so the hub answers its call with an
//! input-required result and keeps the call to the server going here (its
//! future, not polled meanwhile: the server is waiting for the answers). The
//! client's retry names the entry in its `requestState`; taking it out hands
//! the answers to the waiting server requests and resumes the call.
//!
//! Bounded both ways: at most [`MAX_PARKED`] entries per server (the oldest is
//! dropped for a new one), each for at most the server's call timeout (then
//! dropped by a timer). Dropping an entry cancels its call, and the server's
//! requests get an error. Ids are 128 random bits, so a client cannot guess
//! another one's.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolResponse, ClientResult, ErrorData, InputRequest};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::client::Asked;

/// Calls parked at once per server.
pub(crate) const MAX_PARKED: usize = 64;

/// The call to the server, as the gateway drives it.
pub(crate) type CallFuture =
    Pin<Box<dyn Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'static>>;

/// A server request waiting for its answer from the client's retry.
pub(crate) struct Pending {
    /// Its key in `inputRequests`.
    pub(crate) key: String,
    pub(crate) request: InputRequest,
    pub(crate) answer: oneshot::Sender<Result<ClientResult, ErrorData>>,
}

/// One parked call.
pub(crate) struct ParkedCall {
    /// The tool as the client named it: the retry must name the same.
    pub(crate) tool: String,
    pub(crate) call: CallFuture,
    /// Further server requests of the same call.
    pub(crate) asks: mpsc::Receiver<Asked>,
    pub(crate) pending: Vec<Pending>,
    /// Cancels the call when the entry is dropped unanswered.
    pub(crate) cancel: CancellationToken,
    expires: Instant,
}

impl ParkedCall {
    pub(crate) fn new(
        tool: String,
        call: CallFuture,
        asks: mpsc::Receiver<Asked>,
        pending: Vec<Pending>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            tool,
            call,
            asks,
            pending,
            cancel,
            expires: Instant::now(),
        }
    }

    /// Hands the entry back to its owner for a resumed call: no longer
    /// cancelled when dropped from the table.
    pub(crate) fn disarm(mut self) -> (CallFuture, mpsc::Receiver<Asked>, CancellationToken) {
        // Placeholders stay behind for `Drop`, which then cancels nothing live.
        let call = std::mem::replace(&mut self.call, Box::pin(std::future::pending()));
        let (_, empty) = mpsc::channel(1);
        let asks = std::mem::replace(&mut self.asks, empty);
        let cancel = std::mem::take(&mut self.cancel);
        (call, asks, cancel)
    }
}

impl Drop for ParkedCall {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// The parked calls of one server.
#[derive(Clone, Default)]
pub(crate) struct Parked(Arc<Mutex<HashMap<String, ParkedCall>>>);

impl Parked {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ParkedCall>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parks `call` for `ttl`; returns its id.
    pub(crate) fn park(&self, mut call: ParkedCall, ttl: Duration) -> String {
        let id = new_id();
        call.expires = Instant::now() + ttl;
        let dropped = {
            let mut table = self.lock();
            let now = Instant::now();
            let mut dropped: Vec<ParkedCall> = Vec::new();
            let expired: Vec<String> = table
                .iter()
                .filter(|(_, c)| c.expires <= now)
                .map(|(id, _)| id.clone())
                .collect();
            for id in expired {
                dropped.extend(table.remove(&id));
            }
            while table.len() >= MAX_PARKED {
                let oldest = table
                    .iter()
                    .min_by_key(|(_, c)| c.expires)
                    .map(|(id, _)| id.clone());
                match oldest.and_then(|id| table.remove(&id)) {
                    Some(call) => dropped.push(call),
                    None => break,
                }
            }
            table.insert(id.clone(), call);
            dropped
        };
        // Dropped outside the lock: dropping cancels calls.
        drop(dropped);
        let table = self.clone();
        let key = id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(ttl).await;
            let expired = {
                let mut table = table.lock();
                match table.get(&key) {
                    Some(call) if call.expires <= Instant::now() => table.remove(&key),
                    _ => None,
                }
            };
            drop(expired);
        });
        id
    }

    /// Takes the parked call `id` out, if it is still there.
    pub(crate) fn take(&self, id: &str) -> Option<ParkedCall> {
        self.lock().remove(id)
    }

    /// Puts a call back under its id (a retry that could not be used).
    pub(crate) fn put_back(&self, id: String, call: ParkedCall) {
        self.lock().insert(id, call);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// 128 random bits as hex (parked-call states, hub task ids).
pub(crate) fn new_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: still unique, only guessable.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        bytes[..8].copy_from_slice(&n.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn entry(tool: &str) -> (ParkedCall, CancellationToken) {
        let cancel = CancellationToken::new();
        let (_tx, rx) = mpsc::channel(1);
        let call = ParkedCall::new(
            tool.into(),
            Box::pin(std::future::pending()),
            rx,
            Vec::new(),
            cancel.clone(),
        );
        (call, cancel)
    }

    #[tokio::test]
    async fn a_call_is_taken_once_and_unknown_ids_find_nothing() {
        let parked = Parked::default();
        let (call, cancel) = entry("t");
        let id = parked.park(call, Duration::from_secs(60));
        assert_eq!(id.len(), 32);
        assert!(parked.take("nope").is_none());
        let call = parked.take(&id).expect("parked");
        assert_eq!(call.tool, "t");
        assert!(parked.take(&id).is_none(), "taken once");
        // Taken and resumed: not cancelled.
        let (_call, _asks, token) = call.disarm();
        assert!(!cancel.is_cancelled());
        drop(token);
    }

    #[tokio::test]
    async fn the_count_is_bounded_and_dropping_cancels() {
        let parked = Parked::default();
        let (first, first_cancel) = entry("first");
        parked.park(first, Duration::from_secs(60));
        for _ in 0..MAX_PARKED {
            let (call, _) = entry("more");
            parked.park(call, Duration::from_secs(120));
        }
        assert_eq!(parked.len(), MAX_PARKED);
        assert!(first_cancel.is_cancelled(), "the oldest made room");
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_call_expires_and_is_cancelled() {
        let parked = Parked::default();
        let (call, cancel) = entry("t");
        let id = parked.park(call, Duration::from_secs(5));
        tokio::time::sleep(Duration::from_secs(6)).await;
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(parked.take(&id).is_none());
        assert!(cancel.is_cancelled());
    }
}
