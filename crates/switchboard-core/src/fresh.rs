//! The background poller: re-lists running upstreams every
//! `pollIntervalSecs` to catch silent redeploys, and puts stdio servers to
//! sleep after `idleShutdownSecs` without use.
//!
//! A poll goes through the hub's refresh like every other trigger (TTL,
//! `list_changed`, manual), so it shares the per-server single-flight and
//! coalesces with a refresh already under way. A failed poll keeps the cached
//! lists and counts as a health failure; the poll *is* the health probe.
//! Each server keeps its own schedule (see `Upstream::take_due_poll`), first
//! polls spread over the interval. The poller sleeps until the earliest due
//! time and is woken early when an upstream's state changes.
//!
//! The poller is given what it polls as a [`Polled`] (the hub implements it),
//! so this module does not depend on the hub.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::config::ServerId;
use crate::listing::RefreshTrigger;
use crate::upstream::{Upstream, UpstreamError};

/// The longest the poller sleeps without looking.
const MAX_NAP: Duration = Duration::from_secs(60);

/// What the poller works on: the hub's servers, its refresh and its tasks.
pub(crate) trait Polled: Clone + Send + Sync + 'static {
    /// The enabled servers, in config order.
    fn polled_upstreams(&self) -> Vec<Arc<Upstream>>;

    /// Re-lists server `id` the way every trigger does (single-flight, the
    /// catalog rebuilt, sessions told).
    fn relist(
        &self,
        id: ServerId,
        trigger: RefreshTrigger,
    ) -> impl Future<Output = Result<(), UpstreamError>> + Send + 'static;

    /// Runs `task` as a task shutdown waits for.
    fn run_task(&self, task: impl Future<Output = ()> + Send + 'static);
}

pub(crate) async fn run_poller(
    hub: impl Polled,
    idle_shutdown: Duration,
    wake: Arc<Notify>,
    cancel: CancellationToken,
) {
    loop {
        let now = Instant::now();
        let mut next = now + MAX_NAP;
        for upstream in hub.polled_upstreams() {
            if upstream.take_due_poll(now) {
                let id = upstream.id.clone();
                let poll = hub.relist(id.clone(), RefreshTrigger::Poll);
                hub.run_task(async move {
                    if let Err(err) = poll.await {
                        tracing::warn!(server = %id, error = %err, "poll failed");
                    }
                });
            }
            if upstream.idle_due(idle_shutdown) {
                let upstream = upstream.clone();
                hub.run_task(async move {
                    upstream.sleep_if_idle(idle_shutdown).await;
                });
            }
            if let Some(at) = upstream.next_wake(idle_shutdown) {
                next = next.min(at.max(now + Duration::from_millis(10)));
            }
        }
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            () = wake.notified() => {}
            () = cancel.cancelled() => break,
        }
    }
}
