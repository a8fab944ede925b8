//! Bounds for things that repeat: the same log line, the same message from a
//! server, at a rate only a misbehaving peer produces.
//!
//! A [`Limiter`] covers one *kind* of thing (one log call site, one server's
//! log messages): per interval the first `burst` pass, the rest are counted
//! and dropped, and the first one to pass in a later interval carries the
//! count of those dropped before it, so the caller can say "… (N more
//! suppressed)" once per interval. A caller that must report drops that
//! nothing follows schedules [`Limiter::take_dropped`] on the first drop. It holds no allocation and no task: a std
//! mutex over three numbers, never held across an `.await`. It can live in a
//! `static` (one per call site) or in a per-server value.
//!
//! [`limited!`](crate::limited) wraps a `tracing` event in a limiter; it logs
//! the summary line itself.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// What to do with one occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through.
    Pass,
    /// Let it through, after saying that `n` were dropped since the last one
    /// that passed.
    PassAfter(u64),
    /// Drop it (it is counted).
    Drop,
    /// Drop it (it is counted); the first one dropped since the last that
    /// passed. A caller that must report drops even when nothing follows
    /// them can schedule [`Limiter::take_dropped`] for [`Limiter::interval`]
    /// later.
    FirstDrop,
}

#[derive(Debug)]
struct Window {
    /// When the current interval started; `None` before the first occurrence.
    started: Option<Instant>,
    /// Passed in the current interval.
    passed: u32,
    /// Dropped since the last one that passed.
    dropped: u64,
}

/// Lets `burst` occurrences of one kind through per `interval`.
#[derive(Debug)]
pub struct Limiter {
    burst: u32,
    interval: Duration,
    window: Mutex<Window>,
}

impl Limiter {
    pub const fn new(burst: u32, interval: Duration) -> Self {
        Self {
            burst,
            interval,
            window: Mutex::new(Window {
                started: None,
                passed: 0,
                dropped: 0,
            }),
        }
    }

    /// The length of one interval.
    #[allow(dead_code)] // Unused since the lib.rs facade (#16): the owner removes or uses it.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// How many were dropped since the last one that passed, resetting the
    /// count: the caller reports them now instead of with the next pass.
    pub fn take_dropped(&self) -> u64 {
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut window.dropped)
    }

    /// Decides on one occurrence now.
    pub fn check(&self) -> Verdict {
        self.check_at(Instant::now())
    }

    /// Decides on one occurrence at `now`.
    pub fn check_at(&self, now: Instant) -> Verdict {
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let expired = window
            .started
            .is_none_or(|started| now.saturating_duration_since(started) >= self.interval);
        if expired {
            window.started = Some(now);
            window.passed = 0;
        }
        if window.passed >= self.burst {
            window.dropped = window.dropped.saturating_add(1);
            return match window.dropped {
                1 => Verdict::FirstDrop,
                _ => Verdict::Drop,
            };
        }
        window.passed += 1;
        match std::mem::take(&mut window.dropped) {
            0 => Verdict::Pass,
            n => Verdict::PassAfter(n),
        }
    }
}

/// Logs a `tracing` event unless `$limiter` drops it; the first event after
/// some were dropped is preceded by one line
/// `"<what> (<n> more suppressed)"` at the same level.
///
/// ```ignore
/// static REFRESH_FAILED: Limiter = Limiter::new(5, Duration::from_secs(10));
/// limited!(REFRESH_FAILED, warn, "refresh failed", %server, error = %err, "refresh failed");
/// ```
#[macro_export]
macro_rules! limited {
    ($limiter:expr, $level:ident, $what:expr, $($event:tt)+) => {
        match $limiter.check() {
            $crate::limiter::Verdict::Drop | $crate::limiter::Verdict::FirstDrop => {}
            $crate::limiter::Verdict::Pass => ::tracing::$level!($($event)+),
            $crate::limiter::Verdict::PassAfter(n) => {
                ::tracing::$level!("{} ({} more suppressed)", $what, n);
                ::tracing::$level!($($event)+);
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_a_burst_per_interval_then_reports_what_it_dropped() {
        let limiter = Limiter::new(3, Duration::from_secs(1));
        let t0 = Instant::now();
        let verdicts: Vec<_> = (0..10)
            .map(|i| limiter.check_at(t0 + Duration::from_millis(i * 10)))
            .collect();
        assert_eq!(
            verdicts,
            [
                [Verdict::Pass; 3].as_slice(),
                &[Verdict::FirstDrop],
                [Verdict::Drop; 6].as_slice()
            ]
            .concat()
        );
        // The next interval: the first one through reports the 7 dropped, once.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(limiter.check_at(t1), Verdict::PassAfter(7));
        assert_eq!(limiter.check_at(t1), Verdict::Pass);
        assert_eq!(limiter.check_at(t1), Verdict::Pass);
        assert_eq!(limiter.check_at(t1), Verdict::FirstDrop);
        // A quiet stretch of several intervals: one drop is still reported.
        let t2 = t1 + Duration::from_secs(5);
        assert_eq!(limiter.check_at(t2), Verdict::PassAfter(1));
        assert_eq!(limiter.check_at(t2), Verdict::Pass);
    }

    #[test]
    fn drops_taken_early_are_reported_once() {
        let limiter = Limiter::new(1, Duration::from_secs(1));
        let t0 = Instant::now();
        assert_eq!(limiter.check_at(t0), Verdict::Pass);
        assert_eq!(limiter.check_at(t0), Verdict::FirstDrop);
        assert_eq!(limiter.check_at(t0), Verdict::Drop);
        assert_eq!(limiter.take_dropped(), 2);
        assert_eq!(limiter.take_dropped(), 0);
        // Reported already: the next pass carries nothing, the next drop is a first again.
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(limiter.check_at(t1), Verdict::Pass);
        assert_eq!(limiter.check_at(t1), Verdict::FirstDrop);
    }

    #[test]
    fn a_flood_costs_one_summary_per_interval() {
        // 100,000 occurrences over 10 intervals: 10 bursts of 5 plus 9 summaries.
        let limiter = Limiter::new(5, Duration::from_secs(1));
        let t0 = Instant::now();
        let (mut passed, mut summaries, mut reported) = (0, 0, 0);
        for i in 0..100_000u64 {
            match limiter.check_at(t0 + Duration::from_micros(i * 100)) {
                Verdict::Pass => passed += 1,
                Verdict::PassAfter(n) => {
                    passed += 1;
                    summaries += 1;
                    reported += n;
                }
                Verdict::Drop | Verdict::FirstDrop => {}
            }
        }
        assert_eq!(passed, 50);
        assert_eq!(summaries, 9);
        // All dropped ones but those of the last interval (not followed by a pass).
        assert_eq!(reported, 100_000 - 50 - (10_000 - 5));
    }

    #[test]
    fn a_static_limiter_logs_through_the_macro() {
        static LIMIT: Limiter = Limiter::new(1, Duration::from_secs(3600));
        for i in 0..3 {
            limited!(LIMIT, warn, "test line", n = i, "test line");
        }
        assert_eq!(LIMIT.check(), Verdict::Drop);
    }
}
