//! What the listener knows about each open connection, and the two bodies it
//! wraps around every exchange to keep that knowledge current.
//!
//! A connection is in one [`Phase`] at a time: waiting for a request head,
//! receiving a request body, being answered, or sending an event stream. The
//! phase is set here and nowhere else: by the listener's service when a head
//! arrives and when its answer is made, by [`TimedBody`] when the request
//! body ends, and by [`Tracked`] when the answer's body ends (then the
//! connection waits for a head again). [`Conns`] chooses which connection to
//! close from these phases: at the connection limit the oldest one waiting
//! for a head or for the rest of its body, and at the stream limit the oldest
//! stream.
//!
//! Invariant: a connection serves one exchange at a time (HTTP/1), so one
//! phase and one "body timed out" flag per connection suffice; each exchange
//! has a sequence number so that a late drop of an earlier exchange's answer
//! body never changes the phase of the next one.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio_util::sync::CancellationToken;

/// Where a connection is in its current exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Phase {
    /// No request head yet: new, or idle after an answer.
    Head = 0,
    /// The head came; the body has not ended yet.
    Body = 1,
    /// The request is being answered.
    Busy = 2,
    /// The answer is an event stream (`text/event-stream`), open until
    /// either side ends it.
    Stream = 3,
}

impl Phase {
    fn from_u8(value: u8) -> Self {
        match value {
            0 => Self::Head,
            1 => Self::Body,
            2 => Self::Busy,
            _ => Self::Stream,
        }
    }

    /// A phase in which the client, not the hub, holds things up: the
    /// connection may be closed to make room for another.
    fn stalled(self) -> bool {
        matches!(self, Self::Head | Self::Body)
    }
}

/// One open connection, as the limits see it.
pub(super) struct Conn {
    /// Closes the connection when a limit needs its place.
    pub(super) close: CancellationToken,
    /// The current [`Phase`].
    phase: AtomicU8,
    /// The number of the current exchange.
    exchange: AtomicU64,
    /// The current request's body missed its deadline.
    timed_out: AtomicBool,
}

impl Conn {
    pub(super) fn new(close: CancellationToken) -> Self {
        Self {
            close,
            phase: AtomicU8::new(Phase::Head as u8),
            exchange: AtomicU64::new(0),
            timed_out: AtomicBool::new(false),
        }
    }

    pub(super) fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Relaxed))
    }

    fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// A request head arrived; returns the exchange's number.
    pub(super) fn begin(&self, has_body: bool) -> u64 {
        self.timed_out.store(false, Ordering::Relaxed);
        self.set_phase(if has_body { Phase::Body } else { Phase::Busy });
        self.exchange.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The answer is made and is no event stream.
    pub(super) fn answering(&self) {
        if self.phase() == Phase::Body {
            // The handler did not read the body: hyper closes the connection
            // after the answer unless the rest arrives; still the client's to send.
            return;
        }
        self.set_phase(Phase::Busy);
    }

    /// Whether the current request's body missed its deadline.
    pub(super) fn body_timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// The answer of exchange `exchange` has been sent (or dropped).
    fn answered(&self, exchange: u64) {
        if self.exchange.load(Ordering::Relaxed) == exchange {
            self.set_phase(Phase::Head);
        }
    }
}

/// The open connections, oldest first (by accept order).
#[derive(Default)]
pub(super) struct Conns {
    open: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
}

impl Conns {
    pub(super) fn add(&self, conn: Arc<Conn>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, conn);
        id
    }

    pub(super) fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes the oldest connection the client holds up (no complete head, or
    /// a body still arriving); false if there is none.
    pub(super) fn close_oldest_stalled(&self) -> bool {
        let open = self.lock();
        let oldest = open
            .values()
            .find(|c| c.phase().stalled() && !c.close.is_cancelled());
        match oldest {
            Some(conn) => {
                conn.close.cancel();
                true
            }
            None => false,
        }
    }

    /// Connection `id` starts sending an event stream; if `cap` streams are
    /// open already, the oldest ones are closed to make room. Returns how
    /// many were closed.
    pub(super) fn start_stream(&self, id: u64, cap: usize) -> usize {
        let open = self.lock();
        let mut streams: Vec<&Arc<Conn>> = open
            .iter()
            .filter(|(other, c)| {
                **other != id && c.phase() == Phase::Stream && !c.close.is_cancelled()
            })
            .map(|(_, c)| c)
            .collect();
        let excess = (streams.len() + 1).saturating_sub(cap.max(1));
        for conn in streams.drain(..excess) {
            conn.close.cancel();
        }
        if let Some(conn) = open.get(&id) {
            conn.set_phase(Phase::Stream);
        }
        excess
    }
}

/// Why a request body could not be read.
#[derive(Debug, thiserror::Error)]
pub(super) enum BodyError {
    #[error("the request body did not arrive within {} s (setting headerTimeoutSecs)", .after.as_secs())]
    TimedOut { after: Duration },
    #[error("could not read the request body: {0}")]
    Read(#[from] hyper::Error),
}

/// A request body that must end within a deadline, whatever its framing
/// (`Content-Length` of any size, chunked). Past the deadline, reading it
/// fails with [`BodyError::TimedOut`] and the connection is marked so that
/// the answer becomes HTTP 408.
pub(super) struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    after: Duration,
    conn: Arc<Conn>,
}

impl TimedBody {
    pub(super) fn new(inner: Incoming, after: Duration, conn: Arc<Conn>) -> Self {
        Self {
            inner,
            deadline: Box::pin(tokio::time::sleep(after)),
            after,
            conn,
        }
    }

    fn ended(&self) {
        if self.conn.phase() == Phase::Body {
            self.conn.set_phase(Phase::Busy);
        }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(None) => {
                this.ended();
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(frame))) => {
                if this.inner.is_end_stream() {
                    this.ended();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(err.into()))),
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.conn.timed_out.store(true, Ordering::Relaxed);
                    Poll::Ready(Some(Err(BodyError::TimedOut { after: this.after })))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body that tells its connection when it is gone (sent in full,
/// or dropped because the connection ended): the connection then waits for
/// its next head.
pub(super) struct Tracked {
    inner: axum::body::Body,
    conn: Arc<Conn>,
    exchange: u64,
}

impl Tracked {
    pub(super) fn new(inner: axum::body::Body, conn: Arc<Conn>, exchange: u64) -> Self {
        Self {
            inner,
            conn,
            exchange,
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.conn.answered(self.exchange);
    }
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn conn(phase: Phase) -> Arc<Conn> {
        let conn = Arc::new(Conn::new(CancellationToken::new()));
        conn.set_phase(phase);
        conn
    }

    #[test]
    fn connections_waiting_for_a_head_or_a_body_are_closed_for_new_ones() {
        let conns = Conns::default();
        let busy = conn(Phase::Busy);
        let stream = conn(Phase::Stream);
        let slow_body = conn(Phase::Body);
        let no_head = conn(Phase::Head);
        for c in [&busy, &stream, &slow_body, &no_head] {
            conns.add(c.clone());
        }
        assert!(conns.close_oldest_stalled());
        assert!(slow_body.close.is_cancelled());
        assert!(conns.close_oldest_stalled());
        assert!(no_head.close.is_cancelled());
        // Already closing: not chosen again; busy ones and streams never.
        assert!(!conns.close_oldest_stalled());
        assert!(!busy.close.is_cancelled());
        assert!(!stream.close.is_cancelled());
    }

    #[test]
    fn a_stream_past_the_cap_closes_the_oldest_streams() {
        let conns = Conns::default();
        let streams: Vec<_> = (0..3).map(|_| conn(Phase::Stream)).collect();
        let busy = conn(Phase::Busy);
        for c in streams.iter().chain([&busy]) {
            conns.add(c.clone());
        }
        let new = conn(Phase::Busy);
        let id = conns.add(new.clone());
        // Cap 3: one of the three must go, the oldest.
        assert_eq!(conns.start_stream(id, 3), 1);
        assert_eq!(new.phase(), Phase::Stream);
        let closed: Vec<bool> = streams.iter().map(|c| c.close.is_cancelled()).collect();
        assert_eq!(closed, [true, false, false]);
        assert!(!busy.close.is_cancelled());
        // Under the cap: nothing closed.
        let other = conn(Phase::Busy);
        let other_id = conns.add(other.clone());
        assert_eq!(conns.start_stream(other_id, 10), 0);
    }

    #[test]
    fn an_exchange_ends_only_its_own_phase() {
        let conn = conn(Phase::Head);
        let first = conn.begin(true);
        assert_eq!(conn.phase(), Phase::Body);
        conn.answering();
        // The body has not ended: still the client's to send.
        assert_eq!(conn.phase(), Phase::Body);
        let second = conn.begin(false);
        assert_eq!(conn.phase(), Phase::Busy);
        // A late drop of the first answer's body changes nothing.
        conn.answered(first);
        assert_eq!(conn.phase(), Phase::Busy);
        conn.answered(second);
        assert_eq!(conn.phase(), Phase::Head);
    }
}
