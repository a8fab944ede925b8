//! When an upstream wants attention: its next poll (re-listing) and the
//! moment it has been idle long enough to be put to sleep.
//!
//! The timing rules are pure functions of the status and a `now`, so they
//! are tested without a clock; the [`StatusCell`] methods below only read
//! the status under its lock and apply them.

use std::time::Duration;

use tokio::time::Instant;

use super::ServerState;
use super::status::{Status, StatusCell};

/// When the first poll after a start is due: spread over the second half of
/// `interval` by `seed` (the server's fingerprint), so servers started
/// together are not all re-listed at once. `None` when polling is off.
pub(super) fn first_poll_delay(interval: Duration, seed: u64) -> Option<Duration> {
    if interval.is_zero() {
        return None;
    }
    let spread = (seed % 1000) as f64 / 1000.0;
    Some(interval.mul_f64(0.5 + spread / 2.0))
}

/// Whether the poller re-lists a server in `state`: only one that runs (or
/// failed after running) and was listed once.
fn pollable(state: ServerState, listed: bool) -> bool {
    matches!(state, ServerState::Ready | ServerState::Failed) && listed
}

/// If a poll booked for `next` is due at `now`, the time of the one after it
/// (`Some(None)` only if the interval overflows the clock); `None` if no poll
/// is due.
fn due_poll(
    next: Option<Instant>,
    pollable: bool,
    interval: Duration,
    now: Instant,
) -> Option<Option<Instant>> {
    match next {
        Some(at) if pollable && at <= now && !interval.is_zero() => Some(now.checked_add(interval)),
        _ => None,
    }
}

/// The earlier of the next poll (if the server is pollable) and the moment
/// it has been idle for `idle_shutdown` (if it can sleep and idling is on).
fn wake_at(
    next_poll: Option<Instant>,
    pollable: bool,
    can_sleep: bool,
    last_used: Instant,
    idle_shutdown: Duration,
) -> Option<Instant> {
    let poll = next_poll.filter(|_| pollable);
    let sleep = (can_sleep && !idle_shutdown.is_zero())
        .then(|| last_used.checked_add(idle_shutdown))
        .flatten();
    match (poll, sleep) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether a server that can sleep, with nothing in flight, has been unused
/// for `idle_shutdown` at `now` (zero turns idling off).
fn idle_for(
    can_sleep: bool,
    in_flight: u64,
    last_used: Instant,
    idle_shutdown: Duration,
    now: Instant,
) -> bool {
    !idle_shutdown.is_zero()
        && can_sleep
        && in_flight == 0
        && now.saturating_duration_since(last_used) >= idle_shutdown
}

/// Only a ready stdio server is put to sleep (a remote one costs nothing).
fn can_sleep(s: &Status, stdio: bool) -> bool {
    s.state == ServerState::Ready && stdio
}

impl StatusCell {
    /// If a poll is due at `now` (polls every `interval`), books the next
    /// one and returns true.
    pub(super) fn take_due_poll(&self, now: Instant, interval: Duration) -> bool {
        let mut s = self.lock();
        let pollable = pollable(s.state, s.listing.is_some());
        match due_poll(s.next_poll_at, pollable, interval, now) {
            Some(next) => {
                s.next_poll_at = next;
                true
            }
            None => false,
        }
    }

    /// How long until the poller re-lists this server; `None` while no poll
    /// is booked (polling off, or the server not running).
    pub(super) fn next_poll_in(&self) -> Option<Duration> {
        let s = self.lock();
        s.next_poll_at
            .filter(|_| pollable(s.state, s.listing.is_some()))
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    /// When this server wants the poller's attention next: its next poll, or
    /// the moment it has been idle long enough to be put to sleep (`stdio`:
    /// whether it is a stdio server, the only kind that sleeps).
    pub(super) fn next_wake(&self, idle_shutdown: Duration, stdio: bool) -> Option<Instant> {
        let s = self.lock();
        wake_at(
            s.next_poll_at,
            pollable(s.state, s.listing.is_some()),
            can_sleep(&s, stdio),
            s.last_used,
            idle_shutdown,
        )
    }

    /// Whether this server has been unused for `idle_shutdown` with `busy`
    /// requests and tasks going on.
    pub(super) fn idle_due(&self, idle_shutdown: Duration, stdio: bool, busy: u64) -> bool {
        let s = self.lock();
        idle_for(
            can_sleep(&s, stdio),
            busy,
            s.last_used,
            idle_shutdown,
            Instant::now(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    #[test]
    fn first_polls_spread_over_the_second_half_of_the_interval() {
        assert_eq!(first_poll_delay(Duration::ZERO, 7), None);
        assert_eq!(first_poll_delay(MIN, 0), Some(Duration::from_secs(30)));
        assert_eq!(first_poll_delay(MIN, 1000), Some(Duration::from_secs(30)));
        assert_eq!(first_poll_delay(MIN, 500), Some(Duration::from_secs(45)));
        for seed in [1, 99, 999, u64::MAX] {
            let delay = first_poll_delay(MIN, seed).unwrap();
            assert!(delay >= MIN / 2 && delay < MIN, "{seed}: {delay:?}");
        }
    }

    #[test]
    fn only_running_listed_servers_are_polled() {
        for state in [ServerState::Ready, ServerState::Failed] {
            assert!(pollable(state, true));
            assert!(!pollable(state, false));
        }
        for state in [
            ServerState::Disabled,
            ServerState::Idle,
            ServerState::Starting,
            ServerState::Sleeping,
            ServerState::AuthRequired,
        ] {
            assert!(!pollable(state, true), "{state:?}");
        }
    }

    #[test]
    fn a_due_poll_books_the_next_one_interval_later() {
        let now = Instant::now();
        let later = now + Duration::from_secs(1);
        assert_eq!(due_poll(Some(now), true, MIN, now), Some(Some(now + MIN)));
        assert_eq!(
            due_poll(Some(now), true, MIN, later),
            Some(Some(later + MIN)),
            "a late poll books from when it ran"
        );
        assert_eq!(due_poll(Some(later), true, MIN, now), None, "not yet due");
        assert_eq!(due_poll(None, true, MIN, now), None, "none booked");
        assert_eq!(due_poll(Some(now), false, MIN, now), None, "not pollable");
        assert_eq!(
            due_poll(Some(now), true, Duration::ZERO, now),
            None,
            "polling off"
        );
    }

    #[test]
    fn the_poller_wakes_for_the_earlier_of_poll_and_idle() {
        let now = Instant::now();
        let poll = now + MIN;
        let idle = Duration::from_secs(30);
        assert_eq!(wake_at(Some(poll), true, true, now, idle), Some(now + idle));
        assert_eq!(wake_at(Some(poll), true, true, now, 2 * MIN), Some(poll));
        assert_eq!(wake_at(Some(poll), true, false, now, idle), Some(poll));
        assert_eq!(
            wake_at(Some(poll), false, true, now, idle),
            Some(now + idle),
            "a poll of a server that is not pollable does not count"
        );
        assert_eq!(wake_at(Some(poll), false, false, now, idle), None);
        assert_eq!(wake_at(None, true, true, now, Duration::ZERO), None);
    }

    #[test]
    fn idle_only_when_unused_long_enough_with_nothing_in_flight() {
        let used = Instant::now();
        let idle = Duration::from_secs(30);
        assert!(idle_for(true, 0, used, idle, used + idle));
        assert!(!idle_for(
            true,
            0,
            used,
            idle,
            used + idle - Duration::from_millis(1)
        ));
        assert!(!idle_for(true, 1, used, idle, used + 2 * idle), "in flight");
        assert!(
            !idle_for(false, 0, used, idle, used + 2 * idle),
            "cannot sleep"
        );
        assert!(
            !idle_for(true, 0, used, Duration::ZERO, used + idle),
            "idling off"
        );
        assert!(
            !idle_for(true, 0, used + idle, idle, used),
            "used after now"
        );
    }
}
