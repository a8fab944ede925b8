//! One upstream server: its connection, its lifecycle and its last listing.
//!
//! An [`Upstream`] owns everything that runs for one configured server: the
//! rmcp client (a stdio child in its own process group, or a Streamable HTTP
//! session), the task that watches the connection, the stderr ring buffer and
//! the last known [`Capabilities`]. Nothing is started until something needs
//! the server ([`Upstream::connection`]).
//!
//! Concurrency: `conn` is a tokio mutex held while connecting, so concurrent
//! first uses start one process. `status` is a std mutex for short reads and
//! writes, never held across an `.await`. `refresh_lock` serializes listings;
//! with the `list_seq` counter it coalesces refresh requests: a request is
//! answered by any listing that *started* after it was made.
//!
//! Lifecycle: `Disabled | Idle → Starting → Ready`, and from `Ready` to
//! `Failed` when the connection dies or a start fails; the next need starts it
//! again. `close` ends the connection for good (shutdown, reload, disable) and
//! leaves no process of the server's process group behind. A remote server
//! goes to `AuthRequired` when it answers with an OAuth challenge or its
//! tokens stop working (see `crate::auth`); a login reconnects it.
//!
//! Errors: every failure is an [`UpstreamError`] naming the server; rmcp's
//! own errors are put in plain words first (`describe`), so no message names
//! a Rust type. A remote URL that leads back to this hub is refused
//! ([`UpstreamError::SelfReference`], see `crate::identity`).
//!
//! Floods: what the server sends on its own (notifications) is coalesced or
//! limited in [`Inbound`] before it reaches the hub, and the log lines a
//! refresh can repeat are rate-limited per server, so a server that floods
//! costs bounded memory and log.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientRequest, ErrorData, GetPromptRequestParams,
    GetPromptResponse, ReadResourceRequestParams, ReadResourceResponse, Request, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::capabilities::{Capabilities, RefreshTrigger};
use crate::config::{ServerConfig, ServerId, Settings, TransportConfig};
use crate::fingerprint::Fingerprint;
use crate::limiter::Limiter;
use crate::redact;
mod client;
mod describe;
pub mod inbound;
mod stdio;

pub use client::Downstream;
use client::{Calls, UpstreamClient};
pub use inbound::Inbound;
use stdio::StdioHealth;
pub use stdio::{MAX_MESSAGE_BYTES, STDERR_LINE_BYTES};

use crate::resilience::{Admission, Breaker, BreakerState, DISCOVERY_ATTEMPTS, backoff};

/// How many stderr lines are kept per server.
const STDERR_LINES: usize = 200;
/// How many stderr lines an error message quotes.
const STDERR_TAIL_IN_ERRORS: usize = 5;
/// How long a closing stdio server gets after stdin is closed, and again after SIGTERM.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long closing a connection may take in all.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(6);

/// A server's lifecycle state as shown to people (a wire type).
pub use switchboard_api::ServerState;

/// Why an upstream could not serve a request. Each names the server.
///
/// The message never shows a secret: every field that can carry outside text
/// (a URL, an error chain, stderr, a reason) is shown through
/// [`crate::redact`], and URLs are stored redacted. The one exception is
/// `Rpc`, the server's own answer, passed on unchanged.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    #[error("server '{server}' is disabled")]
    Disabled { server: ServerId },
    #[error(
        "server '{server}' could not be started (`{}`): {}",
        redact::text(.command),
        redact::text(.message)
    )]
    Spawn {
        server: ServerId,
        command: String,
        message: String,
    },
    #[error("server '{server}' exited{}", tail_suffix(&redact::text(.stderr_tail)))]
    ProcessExited {
        server: ServerId,
        stderr_tail: String,
    },
    #[error("server '{server}' did not answer {during} within {}", humanize(*.after))]
    Timeout {
        server: ServerId,
        during: &'static str,
        after: Duration,
    },
    #[error("server '{server}' ({}): {}", redact::url(.url), redact::text(.message))]
    Connect {
        server: ServerId,
        url: String,
        message: String,
    },
    #[error("server '{server}' requires authorization: {}", redact::text(.reason))]
    AuthRequired { server: ServerId, reason: String },
    #[error("server '{server}' closed the connection")]
    Closed { server: ServerId },
    #[error("server '{server}' answered with an error: {}", .error.message)]
    Rpc { server: ServerId, error: ErrorData },
    #[error("server '{server}': {}", redact::text(.message))]
    Protocol { server: ServerId, message: String },
    #[error("server '{server}' is shutting down")]
    ShuttingDown { server: ServerId },
    #[error(
        "server '{server}' is failing ({}); calls are paused and it will be retried in {}",
        redact::text(.reason),
        humanize(*.retry_in)
    )]
    CircuitOpen {
        server: ServerId,
        reason: String,
        retry_in: Duration,
    },
    #[error("server '{server}': the client cancelled the request")]
    Cancelled { server: ServerId },
    #[error(
        "server '{server}' points back at this hub ({}); a hub cannot serve itself, so it is not started",
        redact::url(.url)
    )]
    SelfReference { server: ServerId, url: String },
    #[error(
        "server '{server}' stopped reading its stdin (nothing could be written to it for {}); \
         it is restarted on next use",
        humanize(*.after)
    )]
    StdinStuck { server: ServerId, after: Duration },
    #[error(
        "server '{server}' answered with a message of {bytes} bytes, larger than the limit of \
         {limit} bytes; the answer was dropped"
    )]
    AnswerTooLarge {
        server: ServerId,
        bytes: u64,
        limit: u64,
    },
}

fn tail_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

pub(crate) fn humanize(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

impl UpstreamError {
    pub fn server(&self) -> &ServerId {
        match self {
            Self::Disabled { server }
            | Self::Spawn { server, .. }
            | Self::ProcessExited { server, .. }
            | Self::Timeout { server, .. }
            | Self::Connect { server, .. }
            | Self::AuthRequired { server, .. }
            | Self::Closed { server }
            | Self::Rpc { server, .. }
            | Self::Protocol { server, .. }
            | Self::ShuttingDown { server }
            | Self::CircuitOpen { server, .. }
            | Self::Cancelled { server }
            | Self::SelfReference { server, .. }
            | Self::StdinStuck { server, .. }
            | Self::AnswerTooLarge { server, .. } => server,
        }
    }

    /// A short machine-readable kind, used in JSON-RPC error data.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Disabled { .. } => "disabled",
            Self::Spawn { .. } => "spawnFailed",
            Self::ProcessExited { .. } => "processExited",
            Self::Timeout { .. } => "timeout",
            Self::Connect { .. } => "unreachable",
            Self::AuthRequired { .. } => "authRequired",
            Self::Closed { .. } => "closed",
            Self::Rpc { .. } => "upstreamError",
            Self::Protocol { .. } => "protocol",
            Self::ShuttingDown { .. } => "shuttingDown",
            Self::CircuitOpen { .. } => "circuitOpen",
            Self::Cancelled { .. } => "cancelled",
            Self::SelfReference { .. } => "selfReference",
            Self::StdinStuck { .. } => "stdinStuck",
            Self::AnswerTooLarge { .. } => "answerTooLarge",
        }
    }

    /// Whether the failure says the server cannot be reached or used (what
    /// the circuit breaker counts), as opposed to an answer it gave.
    fn is_transport_failure(&self) -> bool {
        matches!(
            self,
            Self::Spawn { .. }
                | Self::ProcessExited { .. }
                | Self::Timeout { .. }
                | Self::Connect { .. }
                | Self::Closed { .. }
                | Self::StdinStuck { .. }
        )
    }

    /// Whether trying again soon could help (for discovery retries). Not a
    /// timeout: it already took the whole start-up or call allowance, and
    /// trying again would multiply the wait of whoever needs the listing.
    fn is_retryable(&self) -> bool {
        self.is_transport_failure() && !matches!(self, Self::Timeout { .. })
    }
}

/// The stderr of a stdio server, last lines kept, each tagged with the run
/// (process start) that wrote it.
#[derive(Debug, Default)]
pub struct StderrLog {
    lines: Mutex<VecDeque<(u64, String)>>,
    run: AtomicU64,
}

impl StderrLog {
    /// Starts a new run; returns its number for the reader of that process.
    fn start_run(&self) -> u64 {
        self.run.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Stores a line, redacted ([`redact::text`]): every reader of the ring
    /// (snapshot, logs API, error messages) sees the redacted text.
    fn push(&self, run: u64, line: &str) {
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
    fn run_tail(&self, n: usize) -> String {
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
const LOG_LINES: usize = 200;

/// One line of the hub's own log about a server (not the server's stderr).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LogLine {
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

/// What an upstream tells the hub.
#[derive(Debug, Clone)]
pub enum UpstreamEvent {
    /// State, error or pid changed: republish the snapshot.
    StateChanged,
    /// The server announced that a list changed while none was pending:
    /// refresh it until no change is pending (see [`Inbound`]).
    ListChanged(ServerId, Arc<Inbound>),
    /// A server with a warm (unverified) listing was started: list it for real.
    Verify(ServerId),
    /// A log message from the server.
    #[allow(deprecated)] // logging is deprecated only for protocol 2026-07-28
    Log(ServerId, rmcp::model::LoggingMessageNotificationParam),
    /// Subscribed resources changed while no update was pending: forward the
    /// pending updates until none is left (see [`Inbound`]).
    ResourcesUpdated(ServerId, Arc<Inbound>),
}

/// A live connection to the server.
struct Connection {
    peer: Peer<RoleClient>,
    pid: Option<u32>,
    /// Cancelling it closes the connection; the monitor task then reaps it.
    stop: CancellationToken,
    /// Completes (sender dropped) when the connection is fully closed.
    closed: tokio::sync::watch::Receiver<()>,
    /// Set when the hub closes the connection on purpose.
    generation: u64,
    /// What the pipes of a stdio server noticed (none for HTTP).
    stdio: Option<Arc<StdioHealth>>,
}

type ListOutcome = Result<Arc<Capabilities>, UpstreamError>;

/// The plain state kept for the snapshot.
#[derive(Debug, Clone)]
struct Status {
    state: ServerState,
    last_error: Option<Arc<str>>,
    pid: Option<u32>,
    listing: Option<Arc<Capabilities>>,
    stale: bool,
    last_ok_at: Option<SystemTime>,
    last_failure_at: Option<SystemTime>,
    breaker: Breaker,
    /// Smoothed latency of successful requests, in milliseconds.
    latency_ms: Option<f64>,
    /// Recent changes of the lists, newest last.
    changes: VecDeque<ListChange>,
    /// The listing came from the warm cache of a previous run and has not been
    /// confirmed by the server yet.
    unverified: bool,
    /// When the poller re-lists this server next (only while it runs).
    next_poll_at: Option<tokio::time::Instant>,
    /// The last request or listing a client caused (polls do not count).
    last_used: tokio::time::Instant,
}

/// How many list changes are kept per server.
const CHANGE_HISTORY: usize = 10;

/// What changed between two listings of a server, and a derived, coarse
/// health for people (wire types).
pub use switchboard_api::{Health, ListChange};

/// A point-in-time view of one upstream, for the snapshot.
#[derive(Debug, Clone)]
pub struct UpstreamView {
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

/// One configured server and whatever runs for it.
pub struct Upstream {
    pub id: ServerId,
    /// Swapped only for changes that keep the fingerprint (e.g. `disabledTools`).
    config: std::sync::RwLock<Arc<ServerConfig>>,
    fingerprint: Fingerprint,
    /// Requests in flight, so a retired upstream can drain before closing.
    in_flight: AtomicU64,
    /// The hub's own log lines about this server, last ones kept.
    events_log: Mutex<VecDeque<LogLine>>,
    settings: Arc<Settings>,
    /// Child of the hub's root token; cancelled when this upstream is retired.
    cancel: CancellationToken,
    http: crate::hub::SharedHttp,
    /// The hub's own id and listener: a remote URL leading back to it is refused.
    identity: Arc<crate::identity::HubIdentity>,
    /// OAuth tokens of remote servers and keyring secrets of stdio servers.
    auth: Arc<crate::auth::Auth>,
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    status: Mutex<Status>,
    stderr: Arc<StderrLog>,
    calls: Calls,
    /// Resource URIs subscribed upstream, with how many sessions want each.
    subscriptions: Arc<Mutex<HashMap<String, usize>>>,
    /// Notifications from the server waiting for the hub, coalesced.
    inbound: Arc<Inbound>,
    /// Bounds this server's log lines that can repeat at the rate of a
    /// notification flood.
    log_limits: LogLimits,
    /// The last listing attempt, numbered by the order listings started in.
    refresh_lock: tokio::sync::Mutex<Option<(u64, ListOutcome)>>,
    list_seq: AtomicU64,
    /// The sequence number of the listing under way, 0 when none is.
    listing_now: AtomicU64,
    generation: AtomicU64,
}

impl Upstream {
    pub(crate) fn new(
        config: ServerConfig,
        settings: Arc<Settings>,
        cancel: CancellationToken,
        http: crate::hub::SharedHttp,
        identity: Arc<crate::identity::HubIdentity>,
        auth: Arc<crate::auth::Auth>,
        events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    ) -> Self {
        let state = if config.enabled {
            ServerState::Idle
        } else {
            ServerState::Disabled
        };
        redact::remember(config.secret_values().iter().map(String::as_str));
        let subscriptions = Arc::new(Mutex::new(HashMap::new()));
        Self {
            id: config.id.clone(),
            fingerprint: Fingerprint::of(&config),
            config: std::sync::RwLock::new(Arc::new(config)),
            in_flight: AtomicU64::new(0),
            events_log: Mutex::new(VecDeque::new()),
            settings,
            cancel,
            http,
            identity,
            auth,
            events,
            conn: tokio::sync::Mutex::new(None),
            status: Mutex::new(Status {
                state,
                last_error: None,
                pid: None,
                listing: None,
                stale: false,
                last_ok_at: None,
                last_failure_at: None,
                breaker: Breaker::default(),
                latency_ms: None,
                changes: VecDeque::new(),
                unverified: false,
                next_poll_at: None,
                last_used: tokio::time::Instant::now(),
            }),
            stderr: Arc::new(StderrLog::default()),
            calls: Calls::default(),
            subscriptions: subscriptions.clone(),
            inbound: Arc::new(Inbound::new(subscriptions)),
            log_limits: LogLimits::default(),
            refresh_lock: tokio::sync::Mutex::new(None),
            list_seq: AtomicU64::new(0),
            listing_now: AtomicU64::new(0),
            generation: AtomicU64::new(0),
        }
    }

    pub fn config(&self) -> Arc<ServerConfig> {
        self.config
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Replaces the config with one of the same fingerprint (only what clients
    /// see changes, such as `disabledTools` or timeouts).
    pub(crate) fn set_config(&self, config: ServerConfig) {
        debug_assert_eq!(Fingerprint::of(&config), self.fingerprint);
        redact::remember(config.secret_values().iter().map(String::as_str));
        match self.config.write() {
            Ok(mut current) => *current = Arc::new(config),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(config),
        }
    }

    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    pub fn is_enabled(&self) -> bool {
        self.config().enabled
    }

    fn startup_timeout(&self) -> Duration {
        self.config()
            .timeouts
            .startup
            .unwrap_or(self.settings.startup_timeout)
    }

    fn call_timeout(&self) -> Duration {
        self.config()
            .timeouts
            .call
            .unwrap_or(self.settings.call_timeout)
    }

    /// A view for the snapshot.
    pub fn view(&self) -> UpstreamView {
        let status = self.lock_status().clone();
        let health = health_of(&status, self.is_enabled());
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
    pub fn changes(&self) -> Vec<ListChange> {
        self.lock_status().changes.iter().cloned().collect()
    }

    /// The last known capabilities, fresh or not.
    pub fn capabilities(&self) -> Option<Arc<Capabilities>> {
        self.lock_status().listing.clone()
    }

    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        self.stderr.tail(n)
    }
    /// The hub's log lines about this server, oldest first.
    pub fn log_lines(&self) -> Vec<LogLine> {
        self.events_log
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds a line to the hub's log about this server, redacted.
    fn note(&self, level: &'static str, message: String) {
        let message = redact::text(&message);
        if let Ok(mut lines) = self.events_log.lock() {
            if lines.len() == LOG_LINES {
                lines.pop_front();
            }
            lines.push_back(LogLine {
                at: crate::snapshot::timestamp(SystemTime::now()),
                level,
                message,
            });
        }
    }

    /// Requests currently in flight.
    pub fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Waits for in-flight requests to finish (at most `deadline`), then
    /// closes the connection and stops everything of this upstream.
    pub async fn drain_and_retire(&self, deadline: Duration) {
        let start = Instant::now();
        while self.in_flight() > 0 && start.elapsed() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.retire().await;
    }

    fn lock_status(&self) -> std::sync::MutexGuard<'_, Status> {
        // A poisoned status only means a panic elsewhere mid-update; the value is
        // still a coherent snapshot of plain data, so keep going with it.
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.lock_status());
        let _ = self.events.send(UpstreamEvent::StateChanged);
    }

    fn record_failure(&self, err: &UpstreamError, state: Option<ServerState>) {
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
                .lock_status()
                .breaker
                .retry_at()
                .map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
                .unwrap_or_default();
            tracing::warn!(server = %self.id, retry_in = ?retry, "circuit breaker opened");
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
    fn record_success(&self, latency: Option<Duration>) {
        let needs_update = {
            let s = self.lock_status();
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
            apply(&mut self.lock_status());
        }
    }

    /// Asks the circuit breaker whether an attempt may be made now.
    fn admit(&self) -> Result<(), UpstreamError> {
        let mut status = self.lock_status();
        match status.breaker.admit(tokio::time::Instant::now()) {
            Admission::Allowed | Admission::Probe => Ok(()),
            Admission::Refused { retry_in } => Err(UpstreamError::CircuitOpen {
                server: self.id.clone(),
                reason: status
                    .last_error
                    .as_deref()
                    .map(|e| {
                        e.strip_prefix(&format!("server '{}' ", self.id))
                            .unwrap_or(e)
                            .to_string()
                    })
                    .unwrap_or_else(|| "repeated failures".into()),
                retry_in,
            }),
        }
    }

    /// When the first poll after a start is due: spread over the second half
    /// of the interval by server, so servers started together are not all
    /// re-listed at once. `None` when polling is off.
    fn first_poll_delay(&self) -> Option<Duration> {
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

    fn can_sleep(&self, s: &Status) -> bool {
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

    /// Stops a stdio server nobody has used for `idle_shutdown` (keeping its
    /// lists); returns true if it did. A call wakes it again.
    pub(crate) async fn sleep_if_idle(&self, idle_shutdown: Duration) -> bool {
        if !self.idle_due(idle_shutdown) {
            return false;
        }
        tracing::info!(server = %self.id, "idle; stopping until next use");
        self.note(
            "info",
            format!("idle for {}; sleeping", humanize(idle_shutdown)),
        );
        self.close().await;
        self.update(|s| {
            if s.state == ServerState::Idle {
                s.state = ServerState::Sleeping;
            }
        });
        true
    }

    /// Starts a rebuilt upstream with its predecessor's lists (marked stale),
    /// so a reload does not make its tools vanish until it is listed again.
    pub(crate) fn carry_listing(&self, caps: Arc<Capabilities>) {
        self.update(|s| {
            s.listing = Some(caps);
            s.stale = true;
        });
    }

    /// Whether the server was stopped for being idle (its lists are kept).
    pub fn is_sleeping(&self) -> bool {
        self.lock_status().state == ServerState::Sleeping
    }

    /// Marks a listing from a previous run as known but unconfirmed.
    pub(crate) fn set_warm_listing(&self, caps: Capabilities) {
        self.update(|s| {
            s.listing = Some(Arc::new(caps));
            s.unverified = true;
        });
    }

    pub fn is_unverified(&self) -> bool {
        self.lock_status().unverified
    }

    /// Notes that a client used this server (polls do not count).
    fn touch(&self) {
        self.lock_status().last_used = tokio::time::Instant::now();
    }

    /// The live connection, started now if there is none.
    async fn connection(self: &Arc<Self>) -> Result<Arc<Connection>, UpstreamError> {
        if !self.is_enabled() {
            return Err(UpstreamError::Disabled {
                server: self.id.clone(),
            });
        }
        if self.cancel.is_cancelled() {
            return Err(UpstreamError::ShuttingDown {
                server: self.id.clone(),
            });
        }
        self.admit()?;
        let mut slot = self.conn.lock().await;
        if let Some(conn) = slot.as_ref() {
            if !conn.peer.is_transport_closed() && !conn.stop.is_cancelled() {
                return Ok(conn.clone());
            }
            *slot = None;
        }
        self.update(|s| {
            s.state = ServerState::Starting;
            s.pid = None;
        });
        let started = Instant::now();
        let connected = tokio::select! {
            result = tokio::time::timeout(self.startup_timeout(), self.connect()) => match result {
                Ok(result) => result,
                Err(_) => Err(UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "initialize",
                    after: self.startup_timeout(),
                }),
            },
            _ = self.cancel.cancelled() => Err(UpstreamError::ShuttingDown { server: self.id.clone() }),
        };
        match connected {
            Ok(conn) => {
                tracing::info!(
                    server = %self.id,
                    pid = ?conn.pid,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "upstream connected"
                );
                let conn = Arc::new(conn);
                self.note(
                    "info",
                    match conn.pid {
                        Some(pid) => format!("started (pid {pid})"),
                        None => "connected".to_string(),
                    },
                );
                *slot = Some(conn.clone());
                let pid = conn.pid;
                let poll = self.first_poll_delay();
                if self.lock_status().unverified {
                    let _ = self.events.send(UpstreamEvent::Verify(self.id.clone()));
                }
                self.update(|s| {
                    s.state = ServerState::Ready;
                    s.pid = pid;
                    s.last_error = None;
                    s.next_poll_at = poll.and_then(|d| tokio::time::Instant::now().checked_add(d));
                });
                Ok(conn)
            }
            Err(err) => {
                tracing::warn!(server = %self.id, error = %err, "upstream failed to start");
                self.note("error", format!("start failed: {err}"));
                let state = if matches!(err, UpstreamError::AuthRequired { .. }) {
                    ServerState::AuthRequired
                } else {
                    ServerState::Failed
                };
                self.record_failure(&err, Some(state));
                Err(err)
            }
        }
    }

    fn client(&self) -> UpstreamClient {
        UpstreamClient {
            server: self.id.clone(),
            events: self.events.clone(),
            calls: self.calls.clone(),
            inbound: self.inbound.clone(),
        }
    }

    async fn connect(self: &Arc<Self>) -> Result<Connection, UpstreamError> {
        let config = self.config();
        match &config.transport {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => self.connect_stdio(command, args, env, cwd.as_deref()).await,
            TransportConfig::Http { url, headers } => self.connect_http(url, headers).await,
        }
    }

    async fn connect_stdio(
        self: &Arc<Self>,
        command: &str,
        args: &[String],
        env: &std::collections::BTreeMap<String, crate::config::ConfigValue>,
        cwd: Option<&std::path::Path>,
    ) -> Result<Connection, UpstreamError> {
        // `{"keyring": "<name>"}` values are read now, so a changed secret
        // applies at the next start; they never reach a log or the snapshot.
        let mut resolved = std::collections::BTreeMap::new();
        for (name, value) in env {
            let value = self
                .auth
                .resolve(value)
                .await
                .map_err(|err| UpstreamError::Spawn {
                    server: self.id.clone(),
                    command: command.to_string(),
                    message: format!("environment variable {name}: {err}"),
                })?;
            resolved.insert(name.clone(), value);
        }
        let env = &resolved;
        let instance = self.identity.instance.clone();
        let mut wrapped = process_wrap::tokio::CommandWrap::with_new(command, |cmd| {
            // A `switchboard stdio` bridge started by this hub sends it back
            // (see `identity`), so a bridge to this very hub is refused.
            cmd.args(args)
                .env(crate::identity::VIA_ENV, &*instance)
                .envs(env);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
        });
        #[cfg(unix)]
        wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
        #[cfg(windows)]
        wrapped.wrap(process_wrap::tokio::JobObject);
        let spawned = stdio::spawn(&self.id, wrapped, self.call_timeout()).map_err(|err| {
            UpstreamError::Spawn {
                server: self.id.clone(),
                command: command.to_string(),
                message: err.to_string(),
            }
        })?;
        let stdio::Spawned {
            transport,
            stderr,
            pid,
            health,
        } = spawned;
        // Ends the server's process group if the hub dies without closing it.
        let guard = pid.and_then(crate::guard::Guard::spawn);
        if let Some(guard) = &guard {
            tracing::debug!(server = %self.id, pid = ?pid, guard = ?guard.pid(), "process guard started");
        }
        let run = self.stderr.start_run();
        let stderr_done = stderr.map(|stderr| {
            let log = self.stderr.clone();
            let server = self.id.clone();
            tokio::spawn(stdio::read_stderr(stderr, move |line| {
                tracing::debug!(target: "switchboard::upstream::stderr", server = %server, "{}", redact::text(&line));
                log.push(run, &line);
            }))
        });
        match self.client().serve(transport).await {
            Ok(service) => Ok(self.watch(service, pid, Some((health, guard)))),
            Err(err) => {
                // Give the stderr reader a moment to drain what the process said before dying.
                if let Some(done) = stderr_done {
                    let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
                }
                if let Some(pid) = pid {
                    kill_process_group(pid);
                }
                if let Some(guard) = guard {
                    guard.stop().await;
                }
                let tail = self.stderr.run_tail(STDERR_TAIL_IN_ERRORS);
                tracing::debug!(
                    server = %self.id,
                    error = %describe::init_failure(&err),
                    "stdio initialize failed"
                );
                Err(UpstreamError::ProcessExited {
                    server: self.id.clone(),
                    stderr_tail: tail,
                })
            }
        }
    }

    async fn connect_http(
        self: &Arc<Self>,
        url: &str,
        headers: &std::collections::BTreeMap<String, String>,
    ) -> Result<Connection, UpstreamError> {
        if self.identity.is_own_address(url) {
            return Err(UpstreamError::SelfReference {
                server: self.id.clone(),
                url: url.to_string(),
            });
        }
        let mut custom = HashMap::new();
        for (name, value) in headers {
            let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| {
                UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: format!("header {name:?}: {e}"),
                }
            })?;
            let value =
                http::HeaderValue::from_str(value).map_err(|e| UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: format!("value of header {name}: {e}"),
                })?;
            custom.insert(name, value);
        }
        // Names this hub, so that a URL leading back to it by another way
        // (a forwarded port, another name) is answered 508 by its listener.
        if let Ok(value) = http::HeaderValue::from_str(&self.identity.instance) {
            custom.insert(
                http::HeaderName::from_static(crate::identity::VIA_HEADER),
                value,
            );
        }
        let config = StreamableHttpClientTransportConfig::with_uri(url)
            .custom_headers(custom)
            .reinit_on_expired_session(true)
            .max_concurrent_requests(256);
        // A configured `Authorization` header is the person's own scheme: no OAuth then.
        let static_auth = headers
            .keys()
            .any(|h| h.eq_ignore_ascii_case("authorization"));
        let server_config = self.config();
        let authorized = if static_auth {
            None
        } else {
            self.auth
                .authorized_client(&self.id, url, server_config.oauth.as_ref(), self.http.get())
                .await
                .map_err(|err| self.auth_setup_error(url, err))?
        };
        let (served, refresher) = match authorized {
            Some(authorized) => {
                let refresher = authorized.refresher();
                let transport =
                    StreamableHttpClientTransport::with_client(authorized.client, config);
                (self.client().serve(transport).await, Some(refresher))
            }
            None => {
                let transport = StreamableHttpClientTransport::with_client(self.http.get(), config);
                (self.client().serve(transport).await, None)
            }
        };
        match served {
            Ok(service) => {
                let conn = self.watch(service, None, None);
                if let Some((manager, server_auth)) = refresher {
                    let this = Arc::downgrade(self);
                    let stop = conn.stop.clone();
                    let generation = conn.generation;
                    tokio::spawn(async move {
                        let Some(reason) =
                            crate::auth::keep_fresh(manager, server_auth, stop).await
                        else {
                            return;
                        };
                        if let Some(upstream) = this.upgrade() {
                            upstream.auth_lost(generation, reason).await;
                        }
                    });
                }
                Ok(conn)
            }
            Err(err) => {
                if err.is_authorization_required() {
                    let server_auth = self.auth.server(&self.id);
                    server_auth.set_challenge(err.auth_challenge());
                    return Err(UpstreamError::AuthRequired {
                        server: self.id.clone(),
                        reason: self.auth_reason(),
                    });
                }
                if describe::init_http_status(&err) == Some(describe::LOOP_DETECTED) {
                    return Err(UpstreamError::SelfReference {
                        server: self.id.clone(),
                        url: url.to_string(),
                    });
                }
                Err(UpstreamError::Connect {
                    server: self.id.clone(),
                    url: redact::url(url),
                    message: describe::init_failure(&err),
                })
            }
        }
    }

    /// Why this server needs a login, for error messages: the last problem
    /// with its tokens, else what to run.
    fn auth_reason(&self) -> String {
        let status = self.auth.server(&self.id).status();
        match status.problem {
            Some(problem) => format!("{problem} (`switchboard login {}`)", self.id),
            None => format!("log in with `switchboard login {}`", self.id),
        }
    }

    /// A stored token could not be put to use (keyring or authorization server trouble).
    fn auth_setup_error(&self, url: &str, err: crate::auth::AuthError) -> UpstreamError {
        UpstreamError::Connect {
            server: self.id.clone(),
            url: redact::url(url),
            message: format!("cannot use the stored OAuth token: {err}"),
        }
    }

    /// The tokens of connection `generation` stopped working (a refresh was
    /// refused): close it and wait for a login.
    async fn auth_lost(&self, generation: u64, reason: String) {
        let conn = {
            let mut slot = self.conn.lock().await;
            match slot.as_ref() {
                Some(c) if c.generation == generation => slot.take(),
                _ => None,
            }
        };
        if let Some(conn) = conn {
            conn.stop.cancel();
        }
        self.set_auth_required(reason);
    }

    /// Puts the server in `authRequired` with `reason` (after a logout, a
    /// refused refresh, or a 401 on a running connection).
    pub(crate) fn set_auth_required(&self, reason: String) {
        let err = UpstreamError::AuthRequired {
            server: self.id.clone(),
            reason,
        };
        tracing::warn!(server = %self.id, error = %err, "authorization required");
        self.note("warn", err.to_string());
        self.record_failure(&err, Some(ServerState::AuthRequired));
        self.update(|s| s.pid = None);
    }

    /// A login succeeded: drop the connection made without (or with the old)
    /// token, so the next need connects with the new one.
    pub(crate) async fn after_login(&self) {
        self.close().await;
        self.update(|s| {
            s.breaker = Breaker::default();
            s.last_error = None;
            if s.state == ServerState::AuthRequired {
                s.state = if self.is_enabled() {
                    ServerState::Idle
                } else {
                    ServerState::Disabled
                };
            }
        });
    }

    /// Hands the running service to a monitor task and returns the connection.
    fn watch(
        self: &Arc<Self>,
        service: RunningService<RoleClient, UpstreamClient>,
        pid: Option<u32>,
        stdio: Option<(Arc<StdioHealth>, Option<crate::guard::Guard>)>,
    ) -> Connection {
        let (health, guard) = match stdio {
            Some((health, guard)) => (Some(health), guard),
            None => (None, None),
        };
        let stuck_health = health.clone();
        let peer = service.peer().clone();
        let stop = self.cancel.child_token();
        let (closed_tx, closed_rx) = tokio::sync::watch::channel(());
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let this = Arc::downgrade(self);
        let stop_for_task = stop.clone();
        let service_ct = service.cancellation_token();
        tokio::spawn(async move {
            let waiting = service.waiting();
            tokio::pin!(waiting);
            let stuck = async {
                match &stuck_health {
                    Some(health) => health.stuck().await,
                    None => std::future::pending().await,
                }
            };
            let died = tokio::select! {
                _ = &mut waiting => true,
                _ = stop_for_task.cancelled() => false,
                () = stuck => {
                    // Stdin is stuck: the connection is unusable (a message may
                    // be half written). Report it, then close it like a stop.
                    stop_for_task.cancel();
                    if let (Some(upstream), Some(health)) = (this.upgrade(), &stuck_health) {
                        upstream.report_stdin_stuck(health);
                    }
                    false
                }
            };
            if !died {
                // Cancelling the service makes its loop close the transport (stdin
                // closed, or the HTTP session deleted). A server that does not exit
                // on its own gets SIGTERM, then SIGKILL, as the whole group.
                service_ct.cancel();
                let escalate = async {
                    if let Some(pid) = pid {
                        tokio::time::sleep(CLOSE_GRACE).await;
                        signal_process_group(pid, Signal::Term);
                        tokio::time::sleep(CLOSE_GRACE).await;
                        signal_process_group(pid, Signal::Kill);
                    }
                    std::future::pending::<()>().await;
                };
                let closing = async {
                    tokio::select! {
                        _ = &mut waiting => {}
                        () = escalate => {}
                    }
                };
                if tokio::time::timeout(CLOSE_TIMEOUT, closing).await.is_err() {
                    tracing::warn!("upstream did not close within {CLOSE_TIMEOUT:?}");
                }
            }
            if let Some(pid) = pid {
                kill_process_group(pid);
            }
            if let Some(guard) = guard {
                guard.stop().await;
            }
            if died && let Some(upstream) = this.upgrade() {
                upstream.on_connection_lost(generation).await;
            }
            drop(closed_tx);
        });
        Connection {
            peer,
            pid,
            stop,
            closed: closed_rx,
            generation,
            stdio: health,
        }
    }

    /// The error for a stdio server whose stdin is stuck.
    fn stdin_stuck_error(&self, health: &StdioHealth) -> UpstreamError {
        UpstreamError::StdinStuck {
            server: self.id.clone(),
            after: health.stall_limit(),
        }
    }

    /// Marks the server failed because its stdin is stuck (once per process).
    fn report_stdin_stuck(&self, health: &StdioHealth) {
        if !health.take_stuck_report() {
            return;
        }
        let err = self.stdin_stuck_error(health);
        tracing::warn!(server = %self.id, error = %err, "stdin stuck; closing the server");
        self.note("error", err.to_string());
        self.record_failure(&err, Some(ServerState::Failed));
    }

    /// The connection ended without being asked to.
    async fn on_connection_lost(&self, generation: u64) {
        // Let the stderr reader catch the last words.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut slot = self.conn.lock().await;
        if slot.as_ref().is_some_and(|c| c.generation == generation) {
            *slot = None;
        } else {
            return;
        }
        drop(slot);
        let err = match &self.config().transport {
            TransportConfig::Stdio { .. } => UpstreamError::ProcessExited {
                server: self.id.clone(),
                stderr_tail: self.stderr.run_tail(STDERR_TAIL_IN_ERRORS),
            },
            TransportConfig::Http { .. } => UpstreamError::Closed {
                server: self.id.clone(),
            },
        };
        tracing::warn!(server = %self.id, error = %err, "upstream connection lost");
        self.note("error", format!("connection lost: {err}"));
        self.record_failure(&err, Some(ServerState::Failed));
        self.update(|s| s.pid = None);
    }

    /// Lists the server now (starting it if needed), coalesced with concurrent
    /// refreshes: if a listing started after this call was made, its outcome is
    /// the answer. A failure keeps the last listing and marks it stale.
    pub async fn refresh(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        // A change notification needs a listing that starts after it; any other
        // trigger only needs a recent one, so a listing already under way will do.
        let asked_at = match (trigger, self.listing_now.load(Ordering::SeqCst)) {
            (RefreshTrigger::Notification, _) | (_, 0) => self.list_seq.load(Ordering::SeqCst),
            (_, running) => running - 1,
        };
        let mut last = self.refresh_lock.lock().await;
        if let Some((seq, outcome)) = last.as_ref()
            && *seq > asked_at
        {
            return outcome.clone();
        }
        let seq = self.list_seq.fetch_add(1, Ordering::SeqCst) + 1;
        self.listing_now.store(seq, Ordering::SeqCst);
        if !matches!(trigger, RefreshTrigger::Poll) {
            self.touch();
        }
        let mut attempt = 0;
        let outcome = loop {
            let outcome = self.list_now(trigger).await;
            attempt += 1;
            match &outcome {
                Err(err) if err.is_retryable() && attempt < DISCOVERY_ATTEMPTS => {
                    let wait = backoff(attempt, seq ^ self.fingerprint.as_u64());
                    tracing::debug!(server = %self.id, error = %err, ?wait, "listing failed; retrying");
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.cancel.cancelled() => break outcome,
                    }
                }
                _ => break outcome,
            }
        };
        match &outcome {
            Ok(caps) => {
                let caps = caps.clone();
                self.update(|s| {
                    if let Some(change) =
                        s.listing.as_deref().and_then(|old| diff_lists(old, &caps))
                    {
                        crate::limited!(
                            self.log_limits.changed,
                            info,
                            format!("lists of server '{}' changed", self.id),
                            server = %self.id,
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
                    s.stale = false;
                    s.unverified = false;
                });
            }
            Err(err) => {
                crate::limited!(
                    self.log_limits.listing_failed,
                    warn,
                    format!("listing of server '{}' failed", self.id),
                    server = %self.id,
                    error = %err,
                    ?trigger,
                    "listing failed"
                );
                self.note("warn", format!("listing ({trigger}) failed: {err}"));
                self.update(|s| s.stale = s.listing.is_some());
            }
        }
        *last = Some((seq, outcome.clone()));
        self.listing_now.store(0, Ordering::SeqCst);
        outcome
    }

    async fn list_now(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        let conn = self.connection().await?;
        let timeout = self.call_timeout();
        let started = Instant::now();
        let result = tokio::select! {
            r = tokio::time::timeout(timeout, Capabilities::list(&conn.peer, trigger)) => r,
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        match result {
            Ok(Ok(caps)) => {
                self.record_success(Some(started.elapsed()));
                tracing::debug!(
                    server = %self.id,
                    tools = caps.tools.len(),
                    prompts = caps.prompts.len(),
                    resources = caps.resources.len(),
                    ?trigger,
                    "listed"
                );
                Ok(Arc::new(caps))
            }
            Ok(Err(err)) => Err(self.service_failure(&conn, err).await),
            Err(_) => {
                let err = UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "the capability listing",
                    after: timeout,
                };
                self.record_failure(&err, None);
                Err(err)
            }
        }
    }

    /// Turns a failed request into an error, updating health; a dead transport
    /// also drops the connection so the next need starts a new one.
    async fn service_failure(&self, conn: &Arc<Connection>, err: ServiceError) -> UpstreamError {
        if let Some(health) = conn.stdio.as_deref().filter(|h| h.is_stuck()) {
            conn.stop.cancel();
            self.report_stdin_stuck(health);
            return self.stdin_stuck_error(health);
        }
        let mapped = match err {
            ServiceError::McpError(error) => {
                self.record_success(None);
                if let Some(bytes) = stdio::too_large_answer(&error) {
                    return self.answer_too_large(bytes);
                }
                return UpstreamError::Rpc {
                    server: self.id.clone(),
                    error,
                };
            }
            ServiceError::Timeout { timeout } => UpstreamError::Timeout {
                server: self.id.clone(),
                during: "the request",
                after: timeout,
            },
            ref send @ ServiceError::TransportSend(_) if send.is_authorization_required() => {
                // The server refused the token (rmcp already tried one refresh).
                self.auth
                    .server(&self.id)
                    .set_challenge(send.auth_challenge());
                conn.stop.cancel();
                let err = UpstreamError::AuthRequired {
                    server: self.id.clone(),
                    reason: self.auth_reason(),
                };
                self.note("warn", err.to_string());
                self.record_failure(&err, Some(ServerState::AuthRequired));
                return err;
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let detail = match &err {
                    ServiceError::TransportSend(e) => Some(describe::transport_failure(e)),
                    _ => None,
                };
                // Wait briefly for the monitor to record why (exit status, stderr).
                let mut closed = conn.closed.clone();
                let monitor_done = matches!(
                    tokio::time::timeout(Duration::from_millis(500), closed.changed()).await,
                    Ok(Err(_))
                );
                let config = self.config();
                let mapped = match (&config.transport, detail) {
                    (TransportConfig::Stdio { .. }, _) => UpstreamError::ProcessExited {
                        server: self.id.clone(),
                        stderr_tail: self.stderr.run_tail(STDERR_TAIL_IN_ERRORS),
                    },
                    (TransportConfig::Http { url, .. }, Some(message)) => UpstreamError::Connect {
                        server: self.id.clone(),
                        url: redact::url(url),
                        message,
                    },
                    (TransportConfig::Http { .. }, None) => UpstreamError::Closed {
                        server: self.id.clone(),
                    },
                };
                if !monitor_done {
                    // The request failed but the session lives on (an HTTP
                    // transport error): count it, and start afresh next time.
                    conn.stop.cancel();
                    self.record_failure(&mapped, Some(ServerState::Failed));
                }
                return mapped;
            }
            other => UpstreamError::Protocol {
                server: self.id.clone(),
                message: describe::service_failure(&other),
            },
        };
        self.record_failure(&mapped, None);
        mapped
    }

    fn answer_too_large(&self, bytes: u64) -> UpstreamError {
        let err = UpstreamError::AnswerTooLarge {
            server: self.id.clone(),
            bytes,
            limit: MAX_MESSAGE_BYTES as u64,
        };
        self.note("warn", err.to_string());
        err
    }

    /// Sends one request, with the call timeout (reset by progress), progress
    /// forwarded to `progress_to`, and cancellation when `cancel` fires.
    ///
    /// Writing the request counts against the call timeout too: a stdio
    /// server that stops reading its stdin fails the call (and every call
    /// queued behind it) with [`UpstreamError::StdinStuck`].
    async fn request(
        self: &Arc<Self>,
        request: ClientRequest,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, UpstreamError> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let _in_flight = InFlight(&self.in_flight);
        self.touch();
        let conn = self.connection().await?;
        let started = Instant::now();
        let timeout = self.call_timeout();
        let options = PeerRequestOptions::with_timeout(timeout).reset_timeout_on_progress();
        let stuck = async {
            match &conn.stdio {
                Some(health) => health.stuck().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(stuck);
        let handle = tokio::select! {
            handle = conn.peer.send_request_with_option(request, options) => handle,
            () = &mut stuck => Err(ServiceError::TransportClosed),
            () = tokio::time::sleep(timeout) => {
                let err = UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "the request",
                    after: timeout,
                };
                self.record_failure(&err, None);
                return Err(err);
            }
        };
        let handle = match handle {
            Ok(handle) => handle,
            Err(_) => {
                return Err(self
                    .service_failure(&conn, ServiceError::TransportClosed)
                    .await);
            }
        };
        let upstream_token = handle.progress_token.clone();
        let request_id = handle.id.clone();
        let call = downstream.map(|d| self.calls.register(request_id.clone(), upstream_token, d));
        let result = tokio::select! {
            r = handle.await_response() => r,
            () = &mut stuck => Err(ServiceError::TransportClosed),
            _ = cancel.cancelled() => {
                let _ = conn.peer.notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                    Some(request_id),
                    Some("cancelled by the client".into()),
                )).await;
                return Err(UpstreamError::Cancelled { server: self.id.clone() });
            }
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        if let Some(call) = &call {
            call.settle().await;
        }
        match result {
            Ok(result) => {
                self.record_success(Some(started.elapsed()));
                Ok(result)
            }
            Err(err) => {
                // A timeout after an answer was dropped for its size (its id
                // could not be read) is that answer's fault.
                let dropped = match &err {
                    ServiceError::Timeout { .. } => conn
                        .stdio
                        .as_deref()
                        .filter(|h| !h.is_stuck())
                        .and_then(|h| h.dropped_since(started)),
                    _ => None,
                };
                match dropped {
                    Some(bytes) => Err(self.answer_too_large(bytes)),
                    None => Err(self.service_failure(&conn, err).await),
                }
            }
        }
    }

    pub async fn call_tool(
        self: &Arc<Self>,
        params: CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResponse, UpstreamError> {
        let request = ClientRequest::CallToolRequest(Request::new(params));
        match self.request(request, downstream, cancel).await? {
            ServerResult::CallToolResult(r) => Ok(CallToolResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
            ServerResult::CreateTaskResult(r) => Ok(CallToolResponse::Task(r)),
            ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(
                rmcp::model::CallToolResult::success(Vec::new()),
            )),
            other => Err(self.unexpected(&other)),
        }
    }

    pub async fn get_prompt(
        self: &Arc<Self>,
        params: GetPromptRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<GetPromptResponse, UpstreamError> {
        let request = ClientRequest::GetPromptRequest(Request::new(params));
        match self.request(request, downstream, cancel).await? {
            ServerResult::GetPromptResult(r) => Ok(GetPromptResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(GetPromptResponse::InputRequired(r)),
            other => Err(self.unexpected(&other)),
        }
    }

    pub async fn read_resource(
        self: &Arc<Self>,
        params: ReadResourceRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<ReadResourceResponse, UpstreamError> {
        let request = ClientRequest::ReadResourceRequest(Request::new(params));
        match self.request(request, downstream, cancel).await? {
            ServerResult::ReadResourceResult(r) => Ok(ReadResourceResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(ReadResourceResponse::InputRequired(r)),
            other => Err(self.unexpected(&other)),
        }
    }

    pub async fn complete(
        self: &Arc<Self>,
        params: rmcp::model::CompleteRequestParams,
        downstream: Option<Downstream>,
        cancel: &CancellationToken,
    ) -> Result<rmcp::model::CompleteResult, UpstreamError> {
        let request = ClientRequest::CompleteRequest(Request::new(params));
        match self.request(request, downstream, cancel).await? {
            ServerResult::CompleteResult(r) => Ok(r),
            other => Err(self.unexpected(&other)),
        }
    }

    /// What the server said about itself at `initialize` (starting it if needed).
    pub async fn server_info(
        self: &Arc<Self>,
    ) -> Result<Arc<rmcp::model::ServerPeerInfo>, UpstreamError> {
        let conn = self.connection().await?;
        conn.peer
            .peer_info()
            .ok_or_else(|| UpstreamError::Protocol {
                server: self.id.clone(),
                message: "no initialize result".into(),
            })
    }

    /// Whether the running server advertised a capability.
    async fn advertises(
        self: &Arc<Self>,
        has: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> bool {
        self.server_info()
            .await
            .is_ok_and(|info| has(&info.capabilities))
    }

    /// Forwards `logging/setLevel` if the server supports logging.
    #[allow(deprecated)] // logging is deprecated only for protocol 2026-07-28
    pub async fn set_level(
        self: &Arc<Self>,
        level: rmcp::model::LoggingLevel,
    ) -> Result<(), UpstreamError> {
        if !self.advertises(|c| c.logging.is_some()).await {
            return Ok(());
        }
        let request = ClientRequest::SetLevelRequest(Request::new(
            rmcp::model::SetLevelRequestParams::new(level),
        ));
        self.request(request, None, &CancellationToken::new())
            .await
            .map(|_| ())
    }

    /// Subscribes to a resource upstream, once however many sessions want it.
    #[allow(deprecated)] // resources/subscribe is legacy-only for protocol 2026-07-28
    pub async fn subscribe(self: &Arc<Self>, uri: &str) -> Result<(), UpstreamError> {
        let first = {
            let mut subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
            let count = subs.entry(uri.to_string()).or_default();
            *count += 1;
            *count == 1
        };
        if !first {
            return Ok(());
        }
        let request = ClientRequest::SubscribeRequest(Request::new(
            rmcp::model::SubscribeRequestParams::new(uri),
        ));
        let result = self.request(request, None, &CancellationToken::new()).await;
        if result.is_err()
            && let Ok(mut subs) = self.subscriptions.lock()
        {
            subs.remove(uri);
        }
        result.map(|_| ())
    }

    /// Drops one session's interest; unsubscribes upstream when none is left.
    #[allow(deprecated)] // resources/unsubscribe is legacy-only for protocol 2026-07-28
    pub async fn unsubscribe(self: &Arc<Self>, uri: &str) -> Result<(), UpstreamError> {
        let last = {
            let mut subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
            match subs.get_mut(uri) {
                Some(count) if *count > 1 => {
                    *count -= 1;
                    false
                }
                Some(_) => {
                    subs.remove(uri);
                    true
                }
                None => false,
            }
        };
        if !last {
            return Ok(());
        }
        let request = ClientRequest::UnsubscribeRequest(Request::new(
            rmcp::model::UnsubscribeRequestParams::new(uri),
        ));
        self.request(request, None, &CancellationToken::new())
            .await
            .map(|_| ())
    }

    fn unexpected(&self, result: &ServerResult) -> UpstreamError {
        let kind = serde_json::to_value(result)
            .ok()
            .and_then(|v| {
                v.as_object()
                    .map(|o| o.keys().cloned().collect::<Vec<_>>().join(","))
            })
            .unwrap_or_default();
        UpstreamError::Protocol {
            server: self.id.clone(),
            message: format!("unexpected result type (fields: {kind})"),
        }
    }

    /// Closes the connection, if any, and waits until its process group is gone.
    pub async fn close(&self) {
        let conn = self.conn.lock().await.take();
        if let Some(conn) = conn {
            conn.stop.cancel();
            let mut closed = conn.closed.clone();
            // The sender is dropped once the monitor has closed and reaped everything.
            let _ = tokio::time::timeout(CLOSE_TIMEOUT + Duration::from_secs(2), async {
                while closed.changed().await.is_ok() {}
            })
            .await;
            tracing::info!(server = %self.id, "upstream closed");
            self.note("info", "stopped".to_string());
        }
        self.update(|s| {
            s.pid = None;
            s.next_poll_at = None;
            if matches!(s.state, ServerState::Ready | ServerState::Starting) {
                s.state = if self.is_enabled() {
                    ServerState::Idle
                } else {
                    ServerState::Disabled
                };
            }
        });
    }

    /// Closes the connection and stops everything of this upstream for good.
    pub async fn retire(&self) {
        self.close().await;
        self.cancel.cancel();
    }
}

/// Health from the status: down while the breaker is open or the server has
/// failed repeatedly, degraded after a failure, with a stale listing or while
/// it waits for a login,
/// healthy once it answered and nothing failed since, unknown before that.
fn health_of(status: &Status, enabled: bool) -> Health {
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
fn to_system_time(at: tokio::time::Instant) -> SystemTime {
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

/// Names added, removed and modified between two listings; `None` if equal.
fn diff_lists(old: &Capabilities, new: &Capabilities) -> Option<ListChange> {
    if old.hashes == new.hashes {
        return None;
    }
    let mut change = ListChange {
        at: crate::snapshot::timestamp(SystemTime::now()),
        trigger: new.trigger,
        added: Vec::new(),
        removed: Vec::new(),
        modified: Vec::new(),
    };
    fn compare<T: Serialize>(
        change: &mut ListChange,
        prefix: &str,
        old: &[T],
        new: &[T],
        key: impl Fn(&T) -> String,
    ) {
        use std::collections::BTreeMap;
        let index = |items: &[T]| -> BTreeMap<String, u64> {
            items
                .iter()
                .map(|i| (key(i), crate::capabilities::canonical_hash(i)))
                .collect()
        };
        let (before, after) = (index(old), index(new));
        for (name, hash) in &after {
            match before.get(name) {
                None => change.added.push(format!("{prefix}{name}")),
                Some(h) if h != hash => change.modified.push(format!("{prefix}{name}")),
                Some(_) => {}
            }
        }
        for name in before.keys().filter(|n| !after.contains_key(*n)) {
            change.removed.push(format!("{prefix}{name}"));
        }
    }
    compare(&mut change, "", &old.tools, &new.tools, |t| {
        t.name.to_string()
    });
    compare(&mut change, "prompt:", &old.prompts, &new.prompts, |p| {
        p.name.clone()
    });
    compare(
        &mut change,
        "resource:",
        &old.resources,
        &new.resources,
        |r| r.uri.clone(),
    );
    compare(
        &mut change,
        "template:",
        &old.resource_templates,
        &new.resource_templates,
        |t| t.uri_template.clone(),
    );
    Some(change)
}

/// Counts one request in flight until dropped.
struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

/// Signals the whole process group led by `pid` (grandchildren such as
/// `npx → node` included). The group id equals the leader's pid.
fn signal_process_group(pid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal as Sig, killpg};
        use nix::unistd::Pid;
        let sig = match signal {
            Signal::Term => Sig::SIGTERM,
            Signal::Kill => Sig::SIGKILL,
        };
        if let Ok(raw) = i32::try_from(pid) {
            match killpg(Pid::from_raw(raw), sig) {
                Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
                Err(err) => tracing::debug!(pid, %err, "killpg failed"),
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

/// Kills whatever is left of the process group led by `pid`.
fn kill_process_group(pid: u32) {
    signal_process_group(pid, Signal::Kill);
}

/// The error and its sources, joined, for messages people read.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
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
    fn errors_name_the_server_and_cause() {
        let server = ServerId::new("notes").unwrap();
        let err = UpstreamError::Timeout {
            server: server.clone(),
            during: "the request",
            after: Duration::from_secs(30),
        };
        assert_eq!(
            err.to_string(),
            "server 'notes' did not answer the request within 30 s"
        );
        let err = UpstreamError::ProcessExited {
            server,
            stderr_tail: "boom".into(),
        };
        assert_eq!(err.to_string(), "server 'notes' exited; stderr: boom");
        assert_eq!(err.kind(), "processExited");
    }

    #[test]
    fn error_messages_never_show_secrets() {
        let server = ServerId::new("gh").unwrap();
        let err = UpstreamError::Connect {
            server: server.clone(),
            url: "https://me:pw@h/mcp?token=t1".into(),
            message: "error sending request for url (https://me:pw@h/mcp?token=t1)".into(),
        };
        assert_eq!(
            err.to_string(),
            "server 'gh' (https://***@h/mcp?token=***): \
             error sending request for url (https://***@h/mcp?token=***)"
        );
        let err = UpstreamError::ProcessExited {
            server: server.clone(),
            stderr_tail: "bad arg https://x:y@h/?api_key=k | Authorization: Bearer abc".into(),
        };
        assert_eq!(
            err.to_string(),
            "server 'gh' exited; stderr: bad arg https://***@h/?api_key=*** | Authorization: Bearer ***"
        );
        let log = StderrLog::default();
        let run = log.start_run();
        log.push(run, "connecting to https://u:p@h/?sig=s");
        assert_eq!(log.tail(1), ["connecting to https://***@h/?sig=***"]);
    }
}
