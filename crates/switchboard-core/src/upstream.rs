//! One upstream server: its connection, its lifecycle and its last listing.
//!
//! An [`Upstream`] owns everything that runs for one configured server: the
//! rmcp client (a stdio child in its own process group, or a Streamable HTTP
//! session), the task that watches the connection, the stderr ring buffer and
//! the last known [`Capabilities`](crate::listing::Capabilities). Nothing is started until something needs
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
//!
//! Layout: this file holds the [`Upstream`] struct and its small public
//! surface; the rest is split by job:
//! - `connect`: starting a stdio or HTTP connection, the monitor task that
//!   watches it, closing it and the idle sleep;
//! - `launch`: finding the program a stdio `command` names (the login
//!   shell's PATH, Windows `.cmd`/`.ps1` shims);
//! - `login`: what a missing or lost OAuth authorization does to the server;
//! - `process`: the stdio server's process group (signals) and its death
//!   guard (`process/guard.rs`);
//! - `refresh`: the single-flight listing and the list-change diff;
//! - `request`: one generic send used by every kind of request;
//! - `status`: state, health, circuit breaker bookkeeping, stderr ring and the
//!   hub's log lines about the server, and the [`UpstreamView`] it exposes;
//! - `schedule`: when the next poll or idle sleep is due (pure functions);
//! - `error`: [`UpstreamError`];
//! - `client` (the rmcp client handler), `describe` (rmcp errors in plain
//!   words), `stdio` (the stdio transport and its pipes);
//! - `redirect`: the HTTP client remote servers get (same-origin redirects
//!   only, no `Referer`) and its origin rule.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, ServerId, Settings};
use crate::events::EventSender;
use crate::fingerprint::Fingerprint;
use crate::util::redact;

mod client;
mod connect;
mod describe;
mod error;
mod launch;
mod listen;
mod login;
mod parked;
mod process;
mod redirect;
mod refresh;
mod request;
mod sandbox;
mod schedule;
mod sse_client;
mod status;
mod stdio;
mod version;

pub use crate::events::{Inbound, UpstreamEvent, inbound};
use client::Calls;
pub(crate) use client::EXPERIMENTAL_TASK_STATUS;
pub use client::{Asked, Downstream};
use connect::Connection;
pub use error::UpstreamError;
pub(crate) use parked::{CallFuture, Parked, ParkedCall, Pending, new_id as new_random_id};
pub use process::guard;
pub(crate) use redirect::client as http_client;
use refresh::ListOutcome;
#[cfg(test)]
pub(crate) use request::experimental_task_handle;
pub(crate) use request::{Ask, TaskHold, experimental_task};
pub use status::Health;
use status::{LogLimits, LogLine, Status, StderrLog};

/// Gives the hub's pooled HTTP client for remote servers and OAuth. The hub
/// builds that client on first use (it loads the system's root certificates),
/// so a hub of local servers never pays for it.
pub(crate) type HttpClient = Arc<dyn Fn() -> reqwest::Client + Send + Sync>;

/// A server's lifecycle state as shown to people (a wire type).
pub use switchboard_api::ServerState;

/// One configured server and whatever runs for it.
pub struct Upstream {
    pub id: ServerId,
    /// Swapped only for changes that keep the fingerprint (e.g. `disabledTools`).
    config: std::sync::RwLock<Arc<ServerConfig>>,
    fingerprint: Fingerprint,
    /// Requests in flight, so a retired upstream can drain before closing.
    in_flight: AtomicU64,
    /// Tasks (SEP-2663) this server runs for clients and that have not ended:
    /// a server with one is never stopped for being idle (`TaskHold`).
    tasks: AtomicU64,
    /// The hub's own log lines about this server, last ones kept.
    events_log: Mutex<VecDeque<LogLine>>,
    settings: Arc<Settings>,
    /// Child of the hub's root token; cancelled when this upstream is retired.
    cancel: CancellationToken,
    http: HttpClient,
    /// The hub's own id and listener: a remote URL leading back to it is refused.
    identity: Arc<crate::identity::HubIdentity>,
    /// OAuth tokens of remote servers and keyring secrets of stdio servers.
    auth: Arc<crate::auth::Auth>,
    events: EventSender,
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    status: Mutex<Status>,
    stderr: Arc<StderrLog>,
    calls: Calls,
    /// Resource URIs subscribed upstream, with how many sessions want each.
    subscriptions: Arc<Mutex<HashMap<String, usize>>>,
    /// Poked when `subscriptions` changes, for a 2026-07-28 server's listener.
    listen_changed: Arc<tokio::sync::Notify>,
    /// Set when the server answered `server/discover` without 2026-07-28:
    /// it is started with the legacy `initialize` from then on (see `version`).
    legacy_only: std::sync::atomic::AtomicBool,
    /// Calls of 2026-07-28 clients waiting for their retry (see `parked`).
    parked: Parked,
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
    /// The hub's tool pins: every listing passes through them (see `refresh`).
    pins: Arc<crate::pins::Pins>,
    /// How a start is contained, and what the last start got (`sandbox.rs`).
    sandbox: sandbox::SandboxCell,
}

impl Upstream {
    pub(crate) fn new(
        config: ServerConfig,
        settings: Arc<Settings>,
        cancel: CancellationToken,
        http: HttpClient,
        identity: Arc<crate::identity::HubIdentity>,
        auth: Arc<crate::auth::Auth>,
        events: EventSender,
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
            tasks: AtomicU64::new(0),
            events_log: Mutex::new(VecDeque::new()),
            settings,
            cancel,
            http,
            identity,
            auth,
            events,
            conn: tokio::sync::Mutex::new(None),
            status: Mutex::new(Status::new(state)),
            stderr: Arc::new(StderrLog::default()),
            calls: Calls::default(),
            subscriptions: subscriptions.clone(),
            listen_changed: Arc::new(tokio::sync::Notify::new()),
            legacy_only: std::sync::atomic::AtomicBool::new(false),
            parked: Parked::default(),
            inbound: Arc::new(Inbound::new(subscriptions)),
            log_limits: LogLimits::default(),
            refresh_lock: tokio::sync::Mutex::new(None),
            list_seq: AtomicU64::new(0),
            listing_now: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            pins: Arc::new(crate::pins::Pins::open(
                crate::config::ToolPinning::Off,
                None,
            )),
            sandbox: sandbox::SandboxCell::default(),
        }
    }

    /// Uses the hub's tool pins (an upstream made without them pins nothing).
    pub(crate) fn with_pins(mut self, pins: Arc<crate::pins::Pins>) -> Self {
        self.pins = pins;
        self
    }

    /// The hub's facts for sandboxing this server (home, Switchboard's own places).
    pub(crate) fn with_sandbox(mut self, host: Arc<crate::sandbox::Host>) -> Self {
        self.sandbox = sandbox::SandboxCell::new(host);
        self
    }

    /// The sandbox of this server as the status shows it.
    pub(crate) fn sandbox_status(&self) -> switchboard_api::SandboxStatus {
        self.sandbox.status(&self.config(), self.settings.sandbox)
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

    /// The last known capabilities, fresh or not.
    pub fn capabilities(&self) -> Option<Arc<crate::listing::Capabilities>> {
        self.lock_status().listing.clone()
    }

    /// Requests currently in flight.
    fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Tasks of this server that have not ended (see `TaskHold`).
    pub(crate) fn tasks_in_flight(&self) -> u64 {
        self.tasks.load(Ordering::SeqCst)
    }

    /// Waits for in-flight requests to finish (at most `deadline`), then
    /// closes the connection and stops everything of this upstream.
    pub(crate) async fn drain_and_retire(&self, deadline: Duration) {
        let start = Instant::now();
        while self.in_flight() > 0 && start.elapsed() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.retire().await;
    }

    /// Whether the server was stopped for being idle (its lists are kept).
    pub(crate) fn is_sleeping(&self) -> bool {
        self.lock_status().state == ServerState::Sleeping
    }

    pub(crate) fn is_unverified(&self) -> bool {
        self.lock_status().unverified
    }

    /// Notes that a client used this server (polls do not count).
    pub(super) fn touch(&self) {
        self.lock_status().last_used = tokio::time::Instant::now();
    }

    /// Closes the connection and stops everything of this upstream for good.
    pub(crate) async fn retire(&self) {
        self.close().await;
        self.cancel.cancel();
    }
}

/// An upstream that never starts (its command does not exist), for unit
/// tests of tables that hold upstreams.
#[cfg(test)]
pub(crate) fn unstartable_for_tests() -> Arc<Upstream> {
    tests::unstartable().0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TransportConfig;
    use crate::listing::RefreshTrigger;
    use crate::resilience::{BreakerState, FAILURE_THRESHOLD};

    /// An upstream whose command does not exist: every start fails at once,
    /// without a process, so the lifecycle runs on a paused clock.
    pub(super) fn unstartable() -> (
        Arc<Upstream>,
        tokio::sync::mpsc::UnboundedReceiver<UpstreamEvent>,
    ) {
        let config = ServerConfig {
            id: ServerId::new("ghost").unwrap(),
            transport: TransportConfig::Stdio {
                command: "/nonexistent/switchboard-no-such-server".into(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
            enabled: true,
            disabled_tools: Default::default(),
            tool_overrides: Default::default(),
            namespace: None,
            timeouts: Default::default(),
            oauth: None,
            sandbox: Default::default(),
            approval: Default::default(),
            result_secrets: None,
            expanded: Vec::new(),
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let auth = Arc::new(crate::auth::Auth::new(
            crate::auth::store::OpenedStore::memory(crate::auth::store::KeyringKind::Memory, None),
            tx.clone(),
        ));
        let upstream = Upstream::new(
            config,
            Arc::new(Settings::default()),
            CancellationToken::new(),
            Arc::new(reqwest::Client::new),
            Arc::new(
                crate::identity::HubIdentity::new(([127, 0, 0, 1], 9).into())
                    .expect("the system has a random number source"),
            ),
            auth,
            tx,
        );
        (Arc::new(upstream), rx)
    }

    fn start_failures(upstream: &Upstream) -> usize {
        upstream
            .log_lines()
            .iter()
            .filter(|l| l.message.starts_with("start failed"))
            .count()
    }

    #[tokio::test(start_paused = true)]
    async fn failing_starts_open_the_breaker_then_it_lets_one_probe_through() {
        let (upstream, _events) = unstartable();
        let err = upstream.refresh(RefreshTrigger::Manual).await.unwrap_err();
        assert_eq!(err.kind(), "spawnFailed");
        // A listing tries DISCOVERY_ATTEMPTS starts, each a transport failure.
        assert_eq!(start_failures(&upstream), FAILURE_THRESHOLD as usize);
        let view = upstream.view();
        assert_eq!(view.state, ServerState::Failed);
        assert_eq!(view.breaker, BreakerState::Open);
        assert_eq!(view.health, Health::Down);
        assert_eq!(view.consecutive_failures, FAILURE_THRESHOLD);
        assert!(view.retry_at.is_some());
        assert!(
            upstream
                .log_lines()
                .iter()
                .any(|l| l.message.starts_with("circuit breaker opened"))
        );

        // While open, a request fails at once, saying why and when.
        let err = upstream.refresh(RefreshTrigger::Manual).await.unwrap_err();
        let UpstreamError::CircuitOpen {
            reason, retry_in, ..
        } = &err
        else {
            panic!("expected an open circuit, got {err:?}");
        };
        assert!(reason.starts_with("could not be started"), "{reason}");
        assert!(*retry_in <= crate::resilience::BASE_OPEN);
        assert_eq!(start_failures(&upstream), FAILURE_THRESHOLD as usize);

        // Once the open time is over, exactly one probe start is made; its
        // failure opens the breaker again, for twice as long, and the retry
        // within the same listing is refused.
        tokio::time::advance(crate::resilience::BASE_OPEN).await;
        let err = upstream.refresh(RefreshTrigger::Manual).await.unwrap_err();
        let UpstreamError::CircuitOpen { retry_in, .. } = &err else {
            panic!("expected an open circuit, got {err:?}");
        };
        assert!(*retry_in > crate::resilience::BASE_OPEN, "{retry_in:?}");
        assert_eq!(start_failures(&upstream), FAILURE_THRESHOLD as usize + 1);
        assert_eq!(upstream.view().breaker, BreakerState::Open);
    }

    /// The triggers of the listings made so far (each failed listing notes one line).
    fn listings(upstream: &Upstream) -> Vec<String> {
        upstream
            .log_lines()
            .iter()
            .filter_map(|l| l.message.strip_prefix("listing ("))
            .filter_map(|rest| rest.split(')').next().map(str::to_string))
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_refreshes_share_one_listing_unless_a_change_was_announced() {
        let (upstream, _events) = unstartable();
        // The poll asks while the manual listing is under way (between its
        // attempts): it gets that listing's outcome instead of its own.
        let (a, b) = tokio::join!(
            upstream.refresh(RefreshTrigger::Manual),
            upstream.refresh(RefreshTrigger::Poll)
        );
        assert_eq!(a.unwrap_err().kind(), "spawnFailed");
        assert_eq!(b.unwrap_err().kind(), "spawnFailed");
        assert_eq!(listings(&upstream), ["manual"]);
        assert_eq!(start_failures(&upstream), FAILURE_THRESHOLD as usize);

        // A change notification needs a listing that starts after it, so it
        // makes its own even while another one runs.
        let (a, b) = tokio::join!(
            upstream.refresh(RefreshTrigger::Manual),
            upstream.refresh(RefreshTrigger::Notification)
        );
        assert_eq!(a.unwrap_err().kind(), "circuitOpen");
        assert_eq!(b.unwrap_err().kind(), "circuitOpen");
        assert_eq!(listings(&upstream), ["manual", "manual", "notification"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_disabled_server_is_never_started() {
        let (upstream, _events) = unstartable();
        let mut config = (*upstream.config()).clone();
        config.enabled = false;
        let disabled = Upstream::new(
            config,
            upstream.settings.clone(),
            CancellationToken::new(),
            upstream.http.clone(),
            upstream.identity.clone(),
            upstream.auth.clone(),
            upstream.events.clone(),
        );
        let disabled = Arc::new(disabled);
        assert_eq!(disabled.view().state, ServerState::Disabled);
        let err = disabled.refresh(RefreshTrigger::Manual).await.unwrap_err();
        assert_eq!(err.kind(), "disabled");
        assert_eq!(start_failures(&disabled), 0);
        assert_eq!(disabled.view().health, Health::Unknown);
    }

    #[tokio::test(start_paused = true)]
    async fn a_retired_upstream_refuses_to_start() {
        let (upstream, _events) = unstartable();
        upstream.retire().await;
        let err = upstream.refresh(RefreshTrigger::Manual).await.unwrap_err();
        assert_eq!(err.kind(), "shuttingDown");
        assert_eq!(start_failures(&upstream), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn carried_and_warm_listings_are_kept_and_flagged_until_confirmed() {
        let (upstream, _events) = unstartable();
        let caps = crate::listing::Capabilities::empty(RefreshTrigger::Startup);
        upstream.set_warm_listing(caps.clone());
        assert!(upstream.is_unverified());
        assert!(upstream.view().unverified);
        assert_eq!(upstream.capabilities().as_deref(), Some(&caps));

        upstream.carry_listing(Arc::new(caps.clone()));
        let view = upstream.view();
        assert!(view.stale);
        assert_eq!(view.health, Health::Degraded, "a stale listing");

        // A failed listing keeps the lists and leaves them stale.
        assert!(upstream.refresh(RefreshTrigger::Manual).await.is_err());
        assert_eq!(upstream.capabilities().as_deref(), Some(&caps));
        assert!(upstream.view().stale);
        assert!(upstream.is_unverified());
    }

    #[tokio::test(start_paused = true)]
    async fn a_carried_listing_goes_through_the_pins_again_and_keeps_what_was_held() {
        let (upstream, _events) = unstartable();
        let pins = Arc::new(crate::pins::Pins::open(
            crate::config::ToolPinning::Hold,
            None,
        ));
        let upstream = Arc::new(
            Arc::try_unwrap(upstream)
                .ok()
                .unwrap()
                .with_pins(pins.clone()),
        );
        let listing = |description: &str| {
            let mut caps = crate::listing::Capabilities::empty(RefreshTrigger::Startup);
            caps.tools = vec![
                serde_json::from_value(serde_json::json!({
                    "name": "t", "description": description, "inputSchema": {"type": "object"}
                }))
                .unwrap(),
            ];
            caps.hashes = caps.compute_hashes();
            Arc::new(caps)
        };
        pins.apply("ghost", listing("one"), true);
        // A reload rebuilds the upstream with the raw listing: the changed
        // tool is held in what is served, and kept in what the server sent.
        upstream.carry_listing(listing("two"));
        assert!(upstream.capabilities().unwrap().tools.is_empty());
        assert_eq!(upstream.raw_capabilities().unwrap().tools.len(), 1);
        assert!(upstream.is_held("t"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_lost_authorization_waits_for_a_login_that_resets_the_breaker() {
        let (upstream, _events) = unstartable();
        assert!(upstream.refresh(RefreshTrigger::Manual).await.is_err());
        assert_eq!(upstream.view().breaker, BreakerState::Open);

        upstream.set_auth_required("the token was revoked".into());
        let view = upstream.view();
        assert_eq!(view.state, ServerState::AuthRequired);
        assert!(
            view.last_error
                .as_deref()
                .is_some_and(|e| e.contains("the token was revoked")),
            "{:?}",
            view.last_error
        );
        assert!(
            upstream
                .log_lines()
                .iter()
                .any(|l| l.level == "warn" && l.message.contains("requires authorization"))
        );

        upstream.after_login().await;
        let view = upstream.view();
        assert_eq!(view.state, ServerState::Idle);
        assert_eq!(view.breaker, BreakerState::Closed);
        assert_eq!(view.last_error, None);
        // The breaker no longer holds the next start back.
        let err = upstream.refresh(RefreshTrigger::Manual).await.unwrap_err();
        assert_eq!(err.kind(), "spawnFailed");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_closes_the_breaker_and_smooths_the_latency() {
        let (upstream, _events) = unstartable();
        assert!(upstream.refresh(RefreshTrigger::Manual).await.is_err());
        assert_eq!(upstream.view().health, Health::Down);

        upstream.record_success(Some(Duration::from_millis(100)));
        let view = upstream.view();
        assert_eq!(view.state, ServerState::Ready);
        assert_eq!(view.breaker, BreakerState::Closed);
        assert_eq!(view.consecutive_failures, 0);
        assert_eq!(view.last_error, None);
        assert_eq!(view.health, Health::Healthy);
        assert_eq!(view.latency_ms, Some(100.0));
        upstream.record_success(Some(Duration::from_millis(200)));
        upstream.record_success(None);
        assert_eq!(upstream.view().latency_ms, Some(120.0));
    }

    #[tokio::test]
    async fn the_log_about_a_server_keeps_its_last_lines_redacted() {
        let (upstream, _events) = unstartable();
        for i in 0..(status::LOG_LINES + 3) {
            upstream.note("info", format!("line {i}"));
        }
        upstream.note("warn", "fetching https://u:p@h/?token=t".into());
        let lines = upstream.log_lines();
        assert_eq!(lines.len(), status::LOG_LINES);
        assert_eq!(lines[0].message, "line 4");
        let last = lines.last().unwrap();
        assert_eq!(
            (last.level, last.message.as_str()),
            ("warn", "fetching https://***@h/?token=***")
        );
    }
}
