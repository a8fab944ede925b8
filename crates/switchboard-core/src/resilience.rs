//! Per-upstream circuit breaker and retry backoff.
//!
//! The [`Breaker`] counts consecutive *transport* failures (a start that
//! fails, a process that exits, a timeout, an unreachable URL; not an error
//! the server answered with). After [`FAILURE_THRESHOLD`] it opens: requests
//! fail at once with the time of the next attempt. When the open time is over
//! it is half-open and lets exactly one probe through; the probe's success
//! closes it, its failure opens it again for twice as long, up to
//! [`MAX_OPEN`]. The breaker is plain data driven by the caller's clock, so
//! its logic is tested with `tokio::time::pause`.

use std::time::Duration;

use tokio::time::Instant;

/// Consecutive transport failures that open the breaker.
pub(crate) const FAILURE_THRESHOLD: u32 = 3;
/// How long the breaker first stays open.
pub(crate) const BASE_OPEN: Duration = Duration::from_secs(5);
/// The longest it stays open.
pub(crate) const MAX_OPEN: Duration = Duration::from_secs(300);
/// Attempts per discovery (listing), with exponential backoff between them.
pub(crate) const DISCOVERY_ATTEMPTS: u32 = 3;
/// The first backoff between discovery attempts.
pub(crate) const BASE_BACKOFF: Duration = Duration::from_millis(200);

/// The breaker's state (a wire type).
pub use switchboard_api::BreakerState;

#[derive(Debug, Clone)]
pub(crate) struct Breaker {
    state: BreakerState,
    consecutive_failures: u32,
    open_until: Option<Instant>,
    open_for: Duration,
    probe_in_flight: bool,
}

impl Default for Breaker {
    fn default() -> Self {
        Self {
            state: BreakerState::Closed,
            consecutive_failures: 0,
            open_until: None,
            open_for: BASE_OPEN,
            probe_in_flight: false,
        }
    }
}

/// What the breaker says about an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Go ahead.
    Allowed,
    /// Go ahead: this is the single half-open probe.
    Probe,
    /// Refused; the next attempt is allowed in this long.
    Refused { retry_in: Duration },
}

impl Breaker {
    pub fn state(&self) -> BreakerState {
        self.state
    }

    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// When an open breaker lets the next probe through.
    pub fn retry_at(&self) -> Option<Instant> {
        match self.state {
            BreakerState::Open => self.open_until,
            _ => None,
        }
    }

    /// Asks to make an attempt at `now`.
    pub(crate) fn admit(&mut self, now: Instant) -> Admission {
        match self.state {
            BreakerState::Closed => Admission::Allowed,
            BreakerState::Open => match self.open_until {
                Some(until) if now < until => Admission::Refused {
                    retry_in: until - now,
                },
                _ => {
                    self.state = BreakerState::HalfOpen;
                    self.probe_in_flight = true;
                    Admission::Probe
                }
            },
            BreakerState::HalfOpen if self.probe_in_flight => Admission::Refused {
                retry_in: Duration::from_millis(100),
            },
            BreakerState::HalfOpen => {
                self.probe_in_flight = true;
                Admission::Probe
            }
        }
    }

    pub(crate) fn on_success(&mut self) {
        *self = Self::default();
    }

    /// Records a transport failure at `now`; returns true if it opened the breaker.
    pub(crate) fn on_failure(&mut self, now: Instant) -> bool {
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        match self.state {
            BreakerState::HalfOpen => {
                self.open_for = (self.open_for * 2).min(MAX_OPEN);
                self.open(now);
                true
            }
            BreakerState::Closed if self.consecutive_failures >= FAILURE_THRESHOLD => {
                self.open(now);
                true
            }
            _ => false,
        }
    }

    fn open(&mut self, now: Instant) {
        self.state = BreakerState::Open;
        self.open_until = Some(now + self.open_for);
        self.probe_in_flight = false;
    }
}

/// The wait before discovery attempt `attempt` (1-based; 0 for the first):
/// exponential from [`BASE_BACKOFF`], with ±20% jitter from `seed`.
pub(crate) fn backoff(attempt: u32, seed: u64) -> Duration {
    if attempt == 0 {
        return Duration::ZERO;
    }
    let base = BASE_BACKOFF.saturating_mul(1 << (attempt - 1).min(10));
    // A cheap deterministic spread in [0.8, 1.2).
    let spread = 0.8 + (splitmix(seed ^ u64::from(attempt)) % 400) as f64 / 1000.0;
    base.mul_f64(spread)
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn opens_after_three_failures_and_probes_once_when_half_open() {
        let mut b = Breaker::default();
        let t0 = Instant::now();
        assert_eq!(b.admit(t0), Admission::Allowed);
        assert!(!b.on_failure(t0));
        assert!(!b.on_failure(t0));
        assert!(b.on_failure(t0));
        assert_eq!(b.state(), BreakerState::Open);
        assert_eq!(b.retry_at(), Some(t0 + BASE_OPEN));
        assert_eq!(
            b.admit(t0 + Duration::from_secs(1)),
            Admission::Refused {
                retry_in: BASE_OPEN - Duration::from_secs(1)
            }
        );

        tokio::time::advance(BASE_OPEN).await;
        let t1 = Instant::now();
        assert_eq!(b.admit(t1), Admission::Probe);
        assert_eq!(b.state(), BreakerState::HalfOpen);
        // Only one probe at a time.
        assert!(matches!(b.admit(t1), Admission::Refused { .. }));
        // The probe fails: open twice as long.
        assert!(b.on_failure(t1));
        assert_eq!(b.retry_at(), Some(t1 + BASE_OPEN * 2));
        tokio::time::advance(BASE_OPEN * 2).await;
        assert_eq!(b.admit(Instant::now()), Admission::Probe);
        b.on_success();
        assert_eq!(b.state(), BreakerState::Closed);
        assert_eq!(b.consecutive_failures(), 0);
        assert_eq!(b.admit(Instant::now()), Admission::Allowed);
    }

    #[tokio::test(start_paused = true)]
    async fn open_time_doubles_up_to_the_cap() {
        let mut b = Breaker::default();
        for _ in 0..FAILURE_THRESHOLD {
            b.on_failure(Instant::now());
        }
        let mut expected = BASE_OPEN;
        for _ in 0..12 {
            let until = b.retry_at().unwrap();
            assert_eq!(until - Instant::now(), expected);
            tokio::time::advance(expected).await;
            assert_eq!(b.admit(Instant::now()), Admission::Probe);
            b.on_failure(Instant::now());
            expected = (expected * 2).min(MAX_OPEN);
        }
        assert_eq!(expected, MAX_OPEN);
    }

    #[test]
    fn backoff_grows_exponentially_with_bounded_jitter() {
        assert_eq!(backoff(0, 7), Duration::ZERO);
        for attempt in 1..=4 {
            let nominal = BASE_BACKOFF * (1 << (attempt - 1));
            for seed in 0..50 {
                let d = backoff(attempt, seed);
                assert!(
                    d >= nominal.mul_f64(0.8) && d < nominal.mul_f64(1.2),
                    "{d:?}"
                );
            }
        }
    }
}
