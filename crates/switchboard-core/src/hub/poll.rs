//! The background poller (a hub task): re-lists running upstreams every
//! `pollIntervalSecs` to catch silent redeploys, and puts stdio servers to
//! sleep after `idleShutdownSecs` without use.
//!
//! A poll goes through [`HubHandle::refresh`] like every other trigger (TTL,
//! `list_changed`, manual), so it shares the per-server single-flight and
//! coalesces with a refresh already under way. A failed poll keeps the cached
//! lists and counts as a health failure; the poll *is* the health probe.
//! Each server keeps its own schedule (see `Upstream::take_due_poll`), first
//! polls spread over the interval. The poller sleeps until the earliest due
//! time and is woken early when an upstream's state changes.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::HubHandle;
use crate::listing::RefreshTrigger;

/// The longest the poller sleeps without looking.
const MAX_NAP: Duration = Duration::from_secs(60);

pub(crate) async fn run_poller(hub: HubHandle, wake: Arc<Notify>, cancel: CancellationToken) {
    let idle_shutdown = hub.settings().idle_shutdown;
    loop {
        let now = Instant::now();
        let mut next = now + MAX_NAP;
        for upstream in hub.enabled_upstreams() {
            if upstream.take_due_poll(now) {
                let poller = hub.clone();
                let id = upstream.id.clone();
                hub.spawn(async move {
                    if let Err(err) = poller.refresh(&id, RefreshTrigger::Poll).await {
                        tracing::warn!(server = %id, error = %err, "poll failed");
                    }
                });
            }
            if upstream.idle_due(idle_shutdown) {
                let upstream = upstream.clone();
                hub.spawn(async move {
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
