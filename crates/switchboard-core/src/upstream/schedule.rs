//! When an upstream wants attention: its next poll (re-listing) and the
//! moment it has been idle long enough to be put to sleep.

use std::time::Duration;

use super::status::Status;
use super::{ServerState, Upstream};
use crate::config::TransportConfig;

impl Upstream {
    /// When the first poll after a start is due: spread over the second half
    /// of the interval by server, so servers started together are not all
    /// re-listed at once. `None` when polling is off.
    pub(super) fn first_poll_delay(&self) -> Option<Duration> {
        let interval = self.settings.poll_interval;
        if interval.is_zero() {
            return None;
        }
        let spread = (self.fingerprint.as_u64() % 1000) as f64 / 1000.0;
        Some(interval.mul_f64(0.5 + spread / 2.0))
    }

    /// If a poll is due at `now`, books the next one and returns true.
    pub(crate) fn take_due_poll(&self, now: tokio::time::Instant) -> bool {
        let interval = self.settings.poll_interval;
        let mut s = self.lock_status();
        let running =
            matches!(s.state, ServerState::Ready | ServerState::Failed) && s.listing.is_some();
        match s.next_poll_at {
            Some(at) if running && at <= now && !interval.is_zero() => {
                // `None` (no next poll) only if the interval overflows the clock.
                s.next_poll_at = now.checked_add(interval);
                true
            }
            _ => false,
        }
    }

    /// When this server wants the poller's attention next: its next poll, or
    /// the moment it has been idle long enough to be put to sleep.
    pub(crate) fn next_wake(&self, idle_shutdown: Duration) -> Option<tokio::time::Instant> {
        let s = self.lock_status();
        let poll = s.next_poll_at.filter(|_| {
            matches!(s.state, ServerState::Ready | ServerState::Failed) && s.listing.is_some()
        });
        let sleep = (self.can_sleep(&s) && !idle_shutdown.is_zero())
            .then(|| s.last_used.checked_add(idle_shutdown))
            .flatten();
        match (poll, sleep) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn can_sleep(&self, s: &Status) -> bool {
        s.state == ServerState::Ready
            && matches!(self.config().transport, TransportConfig::Stdio { .. })
    }

    /// Whether this stdio server has been unused for `idle_shutdown`.
    pub(crate) fn idle_due(&self, idle_shutdown: Duration) -> bool {
        let s = self.lock_status();
        !idle_shutdown.is_zero()
            && self.can_sleep(&s)
            && self.in_flight() == 0
            && s.last_used.elapsed() >= idle_shutdown
    }
}
