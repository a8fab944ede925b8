//! What one upstream is doing for clients right now: requests in flight,
//! tasks (SEP-2663) that have not ended, the forwarded calls whose progress
//! and cancellation are relayed ([`Calls`]) and the calls parked for a
//! 2026-07-28 client's retry ([`Parked`]).
//!
//! Only this file changes the counters: a request counts itself with
//! [`Traffic::enter`] (dropping the guard ends it) and a task with a
//! [`TaskHold`]. A server with either is never put to sleep for being idle,
//! and a retired one drains its requests before it is closed. The counters
//! are plain atomics: they are read without a lock by the poller.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Upstream;
use super::client::Calls;
use super::parked::Parked;

/// The requests, tasks and calls of one upstream.
#[derive(Default)]
pub(super) struct Traffic {
    /// Requests in flight, so a retired upstream can drain before closing.
    in_flight: AtomicU64,
    /// Tasks this server runs for clients and that have not ended: a server
    /// with one is never stopped for being idle.
    tasks: AtomicU64,
    /// Forwarded requests, by upstream request id and progress token.
    calls: Calls,
    /// Calls of 2026-07-28 clients waiting for their retry.
    parked: Parked,
}

impl Traffic {
    /// Counts one request in flight until the guard is dropped.
    pub(super) fn enter(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(&self.in_flight)
    }

    /// Requests in flight now.
    pub(super) fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Tasks that have not ended.
    pub(super) fn tasks(&self) -> u64 {
        self.tasks.load(Ordering::SeqCst)
    }

    /// Requests and tasks together: what keeps an idle server awake.
    pub(super) fn busy(&self) -> u64 {
        self.in_flight() + self.tasks()
    }

    pub(super) fn calls(&self) -> &Calls {
        &self.calls
    }

    pub(super) fn parked(&self) -> &Parked {
        &self.parked
    }
}

/// Counts one request in flight until dropped.
pub(super) struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One task (SEP-2663) a client started on this server and that has not
/// ended: while any is held, idle shutdown leaves the server running.
pub(crate) struct TaskHold(Arc<Upstream>);

impl TaskHold {
    pub(crate) fn new(upstream: &Arc<Upstream>) -> Self {
        upstream.traffic.tasks.fetch_add(1, Ordering::SeqCst);
        Self(upstream.clone())
    }
}

impl Drop for TaskHold {
    fn drop(&mut self) {
        self.0.traffic.tasks.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn requests_count_while_their_guards_live() {
        let traffic = Traffic::default();
        assert_eq!(traffic.busy(), 0);
        let a = traffic.enter();
        let b = traffic.enter();
        assert_eq!((traffic.in_flight(), traffic.busy()), (2, 2));
        drop(a);
        assert_eq!(traffic.in_flight(), 1);
        drop(b);
        assert_eq!(traffic.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_held_task_keeps_the_server_busy_until_it_is_dropped() {
        let upstream = super::super::unstartable_for_tests();
        let hold = TaskHold::new(&upstream);
        let second = TaskHold::new(&upstream);
        assert_eq!(upstream.traffic.tasks(), 2);
        assert_eq!(upstream.traffic.busy(), 2);
        assert_eq!(upstream.traffic.in_flight(), 0);
        drop(hold);
        drop(second);
        assert_eq!(upstream.traffic.busy(), 0);
    }
}
