//! The log of sessions closed to make room under `maxSessions`: one summary
//! line per interval, not one line per session (3,000 sessions past the
//! limit made 2,000 lines).
//!
//! [`Evictions`] counts what the table closed; the first eviction of an
//! interval is logged at once, later ones in the same interval are counted and
//! logged together when it ends: `session limit reached: closed N least
//! recently used idle sessions (longest idle …)`. Owned by the session table;
//! a std mutex over two numbers, never held across an `.await`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::limiter::{Limiter, Verdict};
use crate::util::humanize;

/// How often at most a summary line is written.
const INTERVAL: Duration = Duration::from_secs(10);

/// Evictions not logged yet.
#[derive(Debug, Default)]
struct Pending {
    sessions: u64,
    longest_idle: Duration,
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Evictions {
    limiter: Limiter,
    pending: Mutex<Pending>,
}

impl Evictions {
    pub(crate) fn new() -> Self {
        Self {
            limiter: Limiter::new(1, INTERVAL),
            pending: Mutex::new(Pending::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `sessions` closed for the limit `max`, the longest idle of
    /// them for `longest_idle`, and logs what is due.
    pub(crate) fn record(self: &Arc<Self>, sessions: usize, longest_idle: Duration, max: usize) {
        {
            let mut pending = self.lock();
            pending.sessions += sessions as u64;
            pending.longest_idle = pending.longest_idle.max(longest_idle);
        }
        match self.limiter.check() {
            Verdict::Pass | Verdict::PassAfter(_) => self.flush(max),
            Verdict::FirstDrop => match tokio::runtime::Handle::try_current() {
                // What the rest of this interval closes is logged at its end.
                Ok(runtime) => {
                    let this = self.clone();
                    runtime.spawn(async move {
                        tokio::time::sleep(INTERVAL).await;
                        this.limiter.take_dropped();
                        this.flush(max);
                    });
                }
                Err(_) => self.flush(max),
            },
            Verdict::Drop => {}
        }
    }

    /// Logs the evictions not logged yet, if any.
    fn flush(&self, max: usize) {
        let Pending {
            sessions,
            longest_idle,
        } = std::mem::take(&mut *self.lock());
        if sessions == 0 {
            return;
        }
        let idle = humanize(longest_idle);
        let plural = if sessions == 1 { "" } else { "s" };
        tracing::info!(
            sessions,
            max,
            longest_idle = %idle,
            "session limit reached: closed {sessions} least recently used idle session{plural} \
             (longest idle {idle})"
        );
    }

    /// How many evictions are counted but not logged yet.
    #[cfg(test)]
    fn unlogged(&self) -> u64 {
        self.lock().sessions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_evictions_is_one_line_now_and_one_at_the_end_of_the_interval() {
        let log = Arc::new(Evictions::new());
        log.record(1, Duration::from_secs(3), 5);
        assert_eq!(log.unlogged(), 0);
        for _ in 0..2_999 {
            log.record(1, Duration::from_secs(1), 5);
        }
        assert_eq!(log.unlogged(), 2_999);
        tokio::time::sleep(INTERVAL + Duration::from_millis(1)).await;
        assert_eq!(log.unlogged(), 0);
        // The next interval starts afresh: the first one is logged at once.
        log.record(1, Duration::from_secs(1), 5);
        assert_eq!(log.unlogged(), 0);
    }
}
