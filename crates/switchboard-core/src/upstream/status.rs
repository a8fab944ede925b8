//! What is known about one upstream, for people and for the breaker: its
//! [`ServerState`], last error, health, circuit breaker, latency, recent list
//! changes, the stderr ring of a stdio server and the hub's own log lines
//! about it.
//!
//! [`StatusCell`] owns it all: `Status` is kept behind a std mutex and
//! changed only through [`StatusCell::update`], which tells the hub to
//! republish its snapshot; [`UpstreamView`] is the plain copy the snapshot
//! builder converts. Every line kept here is redacted when stored. The
//! timing rules that read the status are in `schedule.rs`, the login states
//! in `login.rs`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::{ServerState, UpstreamError, UpstreamEvent};
use crate::config::ServerId;
use crate::events::EventSender;
use crate::limiter::Limiter;
use crate::listing::{Capabilities, RefreshTrigger};
use crate::resilience::{Admission, Breaker, BreakerState};
use crate::util::humanize;
use crate::util::redact;

/// A wall-clock time as shown to people (RFC 3339, milliseconds), the format
/// of every time in the snapshot.
pub(super) fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// How many stderr lines are kept per server.
pub(super) const STDERR_LINES: usize = 200;
/// How many stderr lines an error message quotes.
pub(super) const STDERR_TAIL_IN_ERRORS: usize = 5;

/// The stderr of a stdio server, last lines kept, each tagged with the run
/// (process start) that wrote it.
#[derive(Debug, Default)]
pub(crate) struct StderrLog {
    lines: Mutex<VecDeque<(u64, String)>>,
    run: AtomicU64,
}

impl StderrLog {
    /// Starts a new run; returns its number for the reader of that process.
    pub(super) fn start_run(&self) -> u64 {
        self.run.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Stores a line, redacted ([`redact::text`]): every reader of the ring
    /// (snapshot, logs API, error messages) sees the redacted text.
    pub(super) fn push(&self, run: u64, line: &str) {
        let line = redact::text(line);
        if let Ok(mut lines) = self.lines.lock() {
            if lines.len() == STDERR_LINES {
                lines.pop_front();
            }
            lines.push_back((run, line));
        }
    }

    /// The last `n` lines, of every run.
    pub fn tail(&self, n: usize) -> Vec<String> {
        self.lines
            .lock()
            .map(|lines| {
                lines
                    .iter()
                    .skip(lines.len().saturating_sub(n))
                    .map(|(_, l)| l.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The last `n` lines of the latest run, joined for an error message.
    pub(super) fn run_tail(&self, n: usize) -> String {
        let run = self.run.load(Ordering::SeqCst);
        self.lines
            .lock()
            .map(|lines| {
                let of_run: Vec<&str> = lines
                    .iter()
                    .filter(|(r, _)| *r == run)
                    .map(|(_, l)| l.as_str())
                    .collect();
                of_run[of_run.len().saturating_sub(n)..].join(" | ")
            })
            .unwrap_or_default()
    }
}

/// How many of the hub's own log lines are kept per server.
pub(super) const LOG_LINES: usize = 200;

/// One line of the hub's own log about a server (not the server's stderr).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LogLine {
    pub at: String,
    pub level: &'static str,
    pub message: String,
}

/// Limiters of one server's repeatable log lines: per server, so one server's
/// flood never hides another's lines.
#[derive(Debug)]
struct LogLimits {
    changed: Limiter,
    listing_failed: Limiter,
}

impl Default for LogLimits {
    fn default() -> Self {
        Self {
            changed: Limiter::new(5, Duration::from_secs(10)),
            listing_failed: Limiter::new(5, Duration::from_secs(10)),
        }
    }
}

/// The plain state kept for the snapshot.
#[derive(Debug, Clone)]
pub(super) struct Status {
    pub(super) state: ServerState,
    pub(super) last_error: Option<Arc<str>>,
    pub(super) pid: Option<u32>,
    pub(super) listing: Option<Arc<Capabilities>>,
    /// The listing as the server sent it, before held tools were left out
    /// of `listing` (see `crate::pins`); the same `Arc` when none is held.
    pub(super) raw_listing: Option<Arc<Capabilities>>,
    pub(super) stale: bool,
    pub(super) last_ok_at: Option<SystemTime>,
    pub(super) last_failure_at: Option<SystemTime>,
    pub(super) breaker: Breaker,
    /// Smoothed latency of successful requests, in milliseconds.
    pub(super) latency_ms: Option<f64>,
    /// Recent changes of the lists, newest last.
    pub(super) changes: VecDeque<ListChange>,
    /// The listing came from the warm cache of a previous run and has not been
    /// confirmed by the server yet.
    pub(super) unverified: bool,
    /// When the poller re-lists this server next (only while it runs).
    pub(super) next_poll_at: Option<tokio::time::Instant>,
    /// The last request or listing a client caused (polls do not count).
    pub(super) last_used: tokio::time::Instant,
}

impl Status {
    /// The status of an upstream that has not been started.
    pub(super) fn new(state: ServerState) -> Self {
        Self {
            state,
            last_error: None,
            pid: None,
            listing: None,
            raw_listing: None,
            stale: false,
            last_ok_at: None,
            last_failure_at: None,
            breaker: Breaker::default(),
            latency_ms: None,
            changes: VecDeque::new(),
            unverified: false,
            next_poll_at: None,
            last_used: tokio::time::Instant::now(),
        }
    }
}

/// How many list changes are kept per server.
pub(super) const CHANGE_HISTORY: usize = 10;

/// What changed between two listings of a server, and a derived, coarse
/// health for people (wire types).
pub use switchboard_api::{Health, ListChange};

/// A point-in-time view of one upstream, for the snapshot.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamView {
    pub state: ServerState,
    pub last_error: Option<Arc<str>>,
    pub pid: Option<u32>,
    pub capabilities: Option<Arc<Capabilities>>,
    pub stale: bool,
    pub last_ok_at: Option<SystemTime>,
    pub last_failure_at: Option<SystemTime>,
    pub consecutive_failures: u32,
    pub stderr_tail: Vec<String>,
    pub health: Health,
    pub breaker: BreakerState,
    pub retry_at: Option<SystemTime>,
    pub latency_ms: Option<f64>,
    pub last_change: Option<ListChange>,
    pub unverified: bool,
    pub next_poll_at: Option<SystemTime>,
}

/// The status of one upstream and the lines kept about it: everything the
/// snapshot shows and the breaker decides on.
pub(super) struct StatusCell {
    server: ServerId,
    /// Told of every change, so the hub republishes its snapshot.
    events: EventSender,
    /// Short critical sections only, never held across an `.await`.
    status: Mutex<Status>,
    /// Shared with the stderr reader of the running process.
    stderr: Arc<StderrLog>,
    /// The hub's own log lines about this server, last ones kept.
    log: Mutex<VecDeque<LogLine>>,
    /// Bounds this server's log lines that can repeat at the rate of a
    /// notification flood.
    limits: LogLimits,
}

impl StatusCell {
    pub(super) fn new(server: ServerId, state: ServerState, events: EventSender) -> Self {
        Self {
            server,
            events,
            status: Mutex::new(Status::new(state)),
            stderr: Arc::new(StderrLog::default()),
            log: Mutex::new(VecDeque::new()),
            limits: LogLimits::default(),
        }
    }

    /// A view for the snapshot.
    pub(super) fn view(&self, enabled: bool) -> UpstreamView {
        let status = self.lock().clone();
        let health = health_of(&status, enabled);
        UpstreamView {
            state: status.state,
            last_error: status.last_error,
            pid: status.pid,
            capabilities: status.listing,
            stale: status.stale,
            last_ok_at: status.last_ok_at,
            last_failure_at: status.last_failure_at,
            consecutive_failures: status.breaker.consecutive_failures(),
            stderr_tail: self.stderr.tail(20),
            health,
            breaker: status.breaker.state(),
            retry_at: status.breaker.retry_at().map(to_system_time),
            latency_ms: status.latency_ms.map(|ms| (ms * 100.0).round() / 100.0),
            last_change: status.changes.back().cloned(),
            unverified: status.unverified,
            next_poll_at: status.next_poll_at.map(to_system_time),
        }
    }

    /// The recent list changes, oldest first.
    pub(super) fn changes(&self) -> Vec<ListChange> {
        self.lock().changes.iter().cloned().collect()
    }

    /// The stderr ring, for the reader of a new process.
    pub(super) fn stderr(&self) -> &Arc<StderrLog> {
        &self.stderr
    }

    /// The hub's log lines about this server, oldest first.
    pub(super) fn log_lines(&self) -> Vec<LogLine> {
        self.log
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds a line to the hub's log about this server, redacted.
    pub(super) fn note(&self, level: &'static str, message: String) {
        let message = redact::text(&message);
        if let Ok(mut lines) = self.log.lock() {
            if lines.len() == LOG_LINES {
                lines.pop_front();
            }
            lines.push_back(LogLine {
                at: timestamp(SystemTime::now()),
                level,
                message,
            });
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Status> {
        // A poisoned status only means a panic elsewhere mid-update; the value is
        // still a coherent snapshot of plain data, so keep going with it.
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the status and tells the hub to republish its snapshot.
    pub(super) fn update(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.lock());
        let _ = self.events.send(UpstreamEvent::StateChanged);
    }

    /// The last known capabilities, fresh or not.
    pub(super) fn listing(&self) -> Option<Arc<Capabilities>> {
        self.lock().listing.clone()
    }

    /// The last listing as the server sent it (see `Status::raw_listing`).
    pub(super) fn raw_listing(&self) -> Option<Arc<Capabilities>> {
        let status = self.lock();
        status
            .raw_listing
            .clone()
            .or_else(|| status.listing.clone())
    }

    /// Notes that a client used this server (polls do not count).
    pub(super) fn touch(&self) {
        self.lock().last_used = tokio::time::Instant::now();
    }

    /// A listing succeeded: `caps` is served, `raw` is what the server sent;
    /// what changed since the last one is kept (and logged, within limits).
    pub(super) fn listed(&self, caps: Arc<Capabilities>, raw: Option<Arc<Capabilities>>) {
        self.update(|s| {
            if let Some(change) = s
                .listing
                .as_deref()
                .and_then(|old| super::refresh::diff_lists(old, &caps))
            {
                crate::limited!(
                    self.limits.changed,
                    info,
                    format!("lists of server '{}' changed", self.server),
                    server = %self.server,
                    added = ?change.added,
                    removed = ?change.removed,
                    modified = ?change.modified,
                    "lists changed"
                );
                if s.changes.len() == CHANGE_HISTORY {
                    s.changes.pop_front();
                }
                s.changes.push_back(change);
            }
            s.listing = Some(caps);
            s.raw_listing = raw;
            s.stale = false;
            s.unverified = false;
        });
    }

    /// A listing failed: the last one is kept, marked stale.
    pub(super) fn listing_failed(&self, trigger: RefreshTrigger, err: &UpstreamError) {
        crate::limited!(
            self.limits.listing_failed,
            warn,
            format!("listing of server '{}' failed", self.server),
            server = %self.server,
            error = %err,
            ?trigger,
            "listing failed"
        );
        self.note("warn", format!("listing ({trigger}) failed: {err}"));
        self.update(|s| s.stale = s.listing.is_some());
    }

    pub(super) fn record_failure(&self, err: &UpstreamError, state: Option<ServerState>) {
        let transport = err.is_transport_failure();
        let mut opened = false;
        self.update(|s| {
            if let Some(state) = state {
                s.state = state;
            }
            s.last_error = Some(Arc::from(redact::text(&err.to_string())));
            s.last_failure_at = Some(SystemTime::now());
            if transport {
                opened = s.breaker.on_failure(tokio::time::Instant::now());
            }
        });
        if opened {
            let retry = self
                .lock()
                .breaker
                .retry_at()
                .map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
                .unwrap_or_default();
            tracing::warn!(server = %self.server, retry_in = ?retry, "circuit breaker opened");
            self.note(
                "error",
                format!(
                    "circuit breaker opened; next attempt in {}",
                    humanize(retry)
                ),
            );
        }
    }

    /// A request got an answer (even an error answer): the server is reachable.
    pub(super) fn record_success(&self, latency: Option<Duration>) {
        let needs_update = {
            let s = self.lock();
            s.breaker.consecutive_failures() != 0
                || s.breaker.state() != BreakerState::Closed
                || s.last_error.is_some()
                || s.state != ServerState::Ready
        };
        let apply = |s: &mut Status| {
            s.last_ok_at = Some(SystemTime::now());
            if let Some(latency) = latency {
                let ms = latency.as_secs_f64() * 1000.0;
                s.latency_ms = Some(s.latency_ms.map_or(ms, |old| old * 0.8 + ms * 0.2));
            }
        };
        if needs_update {
            self.update(|s| {
                s.state = ServerState::Ready;
                s.last_error = None;
                s.breaker.on_success();
                apply(s);
            });
        } else {
            apply(&mut self.lock());
        }
    }

    /// Asks the circuit breaker whether an attempt may be made now.
    pub(super) fn admit(&self) -> Result<(), UpstreamError> {
        let mut status = self.lock();
        match status.breaker.admit(tokio::time::Instant::now()) {
            Admission::Allowed | Admission::Probe => Ok(()),
            Admission::Refused { retry_in } => Err(UpstreamError::CircuitOpen {
                server: self.server.clone(),
                reason: status
                    .last_error
                    .as_deref()
                    .map(|e| {
                        e.strip_prefix(&format!("server '{}' ", self.server))
                            .unwrap_or(e)
                            .to_string()
                    })
                    .unwrap_or_else(|| "repeated failures".into()),
                retry_in,
            }),
        }
    }
}

/// Health from the status: down while the breaker is open or the server has
/// failed repeatedly, degraded after a failure, with a stale listing or while
/// it waits for a login,
/// healthy once it answered and nothing failed since, unknown before that.
pub(super) fn health_of(status: &Status, enabled: bool) -> Health {
    let failures = status.breaker.consecutive_failures();
    if !enabled {
        Health::Unknown
    } else if status.breaker.state() != BreakerState::Closed
        || failures >= crate::resilience::FAILURE_THRESHOLD
    {
        Health::Down
    } else if failures > 0
        || status.stale
        || matches!(
            status.state,
            ServerState::Failed | ServerState::AuthRequired
        )
    {
        Health::Degraded
    } else if status.last_ok_at.is_some() {
        Health::Healthy
    } else {
        Health::Unknown
    }
}

/// A tokio instant as wall-clock time (for the snapshot).
pub(super) fn to_system_time(at: tokio::time::Instant) -> SystemTime {
    let now = tokio::time::Instant::now();
    let wall = SystemTime::now();
    // Durations from config are bounded (`config::MAX_DURATION`); past the
    // wall clock's range, say "now" rather than panic.
    if at >= now {
        wall.checked_add(at - now).unwrap_or(wall)
    } else {
        wall.checked_sub(now - at).unwrap_or(wall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_log_keeps_the_last_lines() {
        let log = StderrLog::default();
        let run = log.start_run();
        for i in 0..(STDERR_LINES + 5) {
            log.push(run, &format!("line {i}"));
        }
        assert_eq!(
            log.tail(2),
            vec![
                format!("line {}", STDERR_LINES + 3),
                format!("line {}", STDERR_LINES + 4)
            ]
        );
        assert_eq!(log.tail(10_000).len(), STDERR_LINES);
        let next = log.start_run();
        log.push(next, "second run");
        assert_eq!(log.run_tail(5), "second run");
        assert_eq!(
            log.tail(2),
            vec![
                format!("line {}", STDERR_LINES + 4),
                "second run".to_string()
            ]
        );
    }

    #[test]
    fn stderr_lines_are_stored_redacted() {
        let log = StderrLog::default();
        let run = log.start_run();
        log.push(run, "connecting to https://u:p@h/?sig=s");
        assert_eq!(log.tail(1), ["connecting to https://***@h/?sig=***"]);
    }

    fn status(state: ServerState) -> Status {
        Status::new(state)
    }

    #[tokio::test(start_paused = true)]
    async fn the_cell_opens_its_breaker_on_failures_and_tells_the_hub_of_changes() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let server = ServerId::new("s").unwrap();
        let cell = StatusCell::new(server.clone(), ServerState::Idle, tx);
        let err = UpstreamError::Closed {
            server: server.clone(),
        };
        for _ in 0..crate::resilience::FAILURE_THRESHOLD {
            assert!(cell.admit().is_ok());
            cell.record_failure(&err, Some(ServerState::Failed));
        }
        assert!(matches!(rx.try_recv(), Ok(UpstreamEvent::StateChanged)));
        let view = cell.view(true);
        assert_eq!(
            (view.state, view.breaker, view.health),
            (ServerState::Failed, BreakerState::Open, Health::Down)
        );
        let Err(UpstreamError::CircuitOpen { reason, .. }) = cell.admit() else {
            panic!("the breaker lets a request through");
        };
        assert!(!reason.starts_with("server 's'"), "{reason}");
        assert!(
            cell.log_lines()
                .iter()
                .any(|l| l.message.starts_with("circuit breaker opened"))
        );
        cell.record_success(Some(Duration::from_millis(10)));
        let view = cell.view(true);
        assert_eq!(
            (view.state, view.breaker, view.health),
            (ServerState::Ready, BreakerState::Closed, Health::Healthy)
        );
        assert_eq!(view.latency_ms, Some(10.0));
    }

    #[test]
    fn health_follows_failures_staleness_and_answers() {
        let now = tokio::time::Instant::now();
        let fresh = status(ServerState::Idle);
        assert_eq!(health_of(&fresh, true), Health::Unknown, "never answered");
        assert_eq!(health_of(&fresh, false), Health::Unknown, "disabled");

        let mut ok = status(ServerState::Ready);
        ok.last_ok_at = Some(SystemTime::now());
        assert_eq!(health_of(&ok, true), Health::Healthy);
        assert_eq!(health_of(&ok, false), Health::Unknown, "disabled");

        let mut stale = ok.clone();
        stale.stale = true;
        assert_eq!(health_of(&stale, true), Health::Degraded);
        for state in [ServerState::Failed, ServerState::AuthRequired] {
            let mut s = ok.clone();
            s.state = state;
            assert_eq!(health_of(&s, true), Health::Degraded, "{state:?}");
        }

        let mut failing = ok.clone();
        assert!(!failing.breaker.on_failure(now));
        assert_eq!(health_of(&failing, true), Health::Degraded, "one failure");
        for _ in 1..crate::resilience::FAILURE_THRESHOLD {
            failing.breaker.on_failure(now);
        }
        assert_eq!(failing.breaker.state(), BreakerState::Open);
        assert_eq!(health_of(&failing, true), Health::Down);
        failing.breaker.on_success();
        assert_eq!(health_of(&failing, true), Health::Healthy, "closed again");
    }

    #[test]
    fn wall_clock_of_a_tokio_instant_keeps_the_distance_from_now() {
        let now = tokio::time::Instant::now();
        let ahead = to_system_time(now + Duration::from_secs(60));
        let behind = to_system_time(now - Duration::from_secs(60));
        let wall = SystemTime::now();
        let ahead = ahead.duration_since(wall).unwrap_or_default();
        let behind = wall.duration_since(behind).unwrap_or_default();
        for d in [ahead, behind] {
            assert!(
                d > Duration::from_secs(59) && d <= Duration::from_secs(61),
                "{d:?}"
            );
        }
    }
}
