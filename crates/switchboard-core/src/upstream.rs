//! One upstream server: its connection, its lifecycle and its last listing.
//!
//! An [`Upstream`] owns everything that runs for one configured server: the
//! rmcp client (a stdio child in its own process group, or a Streamable HTTP
//! session), the task that watches the connection, the stderr ring buffer and
//! the last known [`Capabilities`](crate::listing::Capabilities). Nothing is started until something needs
//! the server ([`Upstream::connection`]).
//!
//! Ownership: `Upstream` is a small struct (identity, config, the hub's
//! services) composing one owner per kind of state, each with private
//! fields in its own file, so only that file can change it:
//! - `Link` (`link.rs`): the live connection, its number and the protocol
//!   it starts with, and the monitor task that closes and reaps it;
//! - `StatusCell` (`status.rs`, timing rules in `schedule.rs`, login states
//!   in `login.rs`): state, health, breaker, stderr ring and the hub's log
//!   lines about the server;
//! - `Lister` (`refresh.rs`): single-flight listings and the tool pins;
//! - `Traffic` (`traffic.rs`): requests and tasks in flight, forwarded and
//!   parked calls;
//! - `Subscriptions` (`subscriptions.rs`): resource subscriptions and the
//!   server's own notifications.
//!
//! `impl Upstream` is in this file (accessors and thin delegations to the
//! owners), `connect.rs` (starting and ending connections) and `request.rs`
//! (requests and listings): the code that combines several owners.
//!
//! Concurrency: the connection slot is a tokio mutex held while connecting,
//! so concurrent first uses start one process. The status is a std mutex
//! for short reads and writes, never held across an `.await`. The lister's
//! mutex serializes listings; with its sequence numbers it coalesces refresh
//! requests: a request is answered by any listing that *started* after it
//! was made.
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
//! Other files, by job:
//! - `launch`: finding the program a stdio `command` names (the login
//!   shell's PATH, Windows `.cmd`/`.ps1` shims);
//! - `process`: the stdio server's process group (signals) and its death
//!   guard (`process/guard.rs`);
//! - `version`: which protocol version a connection starts with;
//! - `listen`: a 2026-07-28 connection's `subscriptions/listen`;
//! - `parked`: calls parked for a 2026-07-28 client's retry;
//! - `sandbox`: how a start is contained;
//! - `error`: [`UpstreamError`];
//! - `client` (the rmcp client handler), `describe` (rmcp errors in plain
//!   words), `stdio` (the stdio transport and its pipes), `sse_client` (the
//!   legacy HTTP+SSE transport);
//! - `redirect`: the HTTP client remote servers get (same-origin redirects
//!   only, no `Referer`) and its origin rule.

use std::sync::Arc;
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
mod link;
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
mod subscriptions;
mod traffic;
mod version;

pub use crate::events::{Inbound, UpstreamEvent, inbound};
pub(crate) use client::EXPERIMENTAL_TASK_STATUS;
pub use client::{Asked, Downstream};
pub use error::UpstreamError;
use link::Link;
pub(crate) use parked::{CallFuture, Parked, ParkedCall, Pending, new_id as new_random_id};
pub use process::guard;
pub(crate) use redirect::client as http_client;
use refresh::Lister;
#[cfg(test)]
pub(crate) use request::experimental_task_handle;
pub(crate) use request::{Ask, experimental_task};
pub use status::Health;
use status::{ListChange, LogLine, StatusCell, UpstreamView};
use subscriptions::Subscriptions;
pub(crate) use traffic::TaskHold;
use traffic::Traffic;

/// Gives the hub's pooled HTTP client for remote servers and OAuth. The hub
/// builds that client on first use (it loads the system's root certificates),
/// so a hub of local servers never pays for it.
pub(crate) type HttpClient = Arc<dyn Fn() -> reqwest::Client + Send + Sync>;

/// A server's lifecycle state as shown to people (a wire type).
pub use switchboard_api::ServerState;

/// One configured server and whatever runs for it: its identity and the
/// hub's services it uses, and one owner per kind of state (each in its own
/// file, with private fields).
pub struct Upstream {
    pub id: ServerId,
    /// Swapped only for changes that keep the fingerprint (e.g. `disabledTools`).
    config: std::sync::RwLock<Arc<ServerConfig>>,
    fingerprint: Fingerprint,
    settings: Arc<Settings>,
    /// Child of the hub's root token; cancelled when this upstream is retired.
    cancel: CancellationToken,
    http: HttpClient,
    /// The hub's own id and listener: a remote URL leading back to it is refused.
    identity: Arc<crate::identity::HubIdentity>,
    /// OAuth tokens of remote servers and keyring secrets of stdio servers.
    auth: Arc<crate::auth::Auth>,
    events: EventSender,
    /// How a start is contained, and what the last start got (`sandbox.rs`).
    sandbox: sandbox::SandboxCell,
    /// The live connection, its number and the protocol it starts with (`link.rs`).
    link: Link,
    /// State, health, breaker, stderr ring and log lines (`status.rs`).
    status: StatusCell,
    /// Single-flight listings and the tool pins (`refresh.rs`).
    lister: Lister,
    /// Requests and tasks in flight, forwarded and parked calls (`traffic.rs`).
    traffic: Traffic,
    /// Resource subscriptions and the server's own notifications (`subscriptions.rs`).
    subscriptions: Subscriptions,
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
        let id = config.id.clone();
        Self {
            status: StatusCell::new(id.clone(), state, events.clone()),
            lister: Lister::new(
                id.clone(),
                Arc::new(crate::pins::Pins::open(
                    crate::config::ToolPinning::Off,
                    None,
                )),
            ),
            id,
            fingerprint: Fingerprint::of(&config),
            config: std::sync::RwLock::new(Arc::new(config)),
            settings,
            cancel,
            http,
            identity,
            auth,
            events,
            sandbox: sandbox::SandboxCell::default(),
            link: Link::default(),
            traffic: Traffic::default(),
            subscriptions: Subscriptions::default(),
        }
    }

    /// Uses the hub's tool pins (an upstream made without them pins nothing).
    pub(crate) fn with_pins(mut self, pins: Arc<crate::pins::Pins>) -> Self {
        self.lister = Lister::new(self.id.clone(), pins);
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

    /// Whether this is a stdio server (the only kind put to sleep when idle).
    fn is_stdio(&self) -> bool {
        matches!(
            self.config().transport,
            crate::config::TransportConfig::Stdio { .. }
        )
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
        self.status.listing()
    }

    /// Lists the server now (starting it if needed), coalesced with concurrent
    /// refreshes: if a listing started after this call was made, its outcome is
    /// the answer. A failure keeps the last listing and marks it stale.
    pub async fn refresh(
        self: &Arc<Self>,
        trigger: crate::listing::RefreshTrigger,
    ) -> Result<Arc<crate::listing::Capabilities>, UpstreamError> {
        self.lister
            .refresh(trigger, &self.status, |seq| {
                self.list_with_retries(trigger, seq)
            })
            .await
    }

    /// Starts a rebuilt upstream with its predecessor's lists (see [`Lister::carry`]).
    pub(crate) fn carry_listing(&self, raw: Arc<crate::listing::Capabilities>) {
        self.lister.carry(&self.status, raw);
    }

    /// The last listing as the server sent it, before the pins withheld
    /// anything (what the warm catalog keeps, so that the pins of the next
    /// run, in whatever mode, decide what is served).
    pub(crate) fn raw_capabilities(&self) -> Option<Arc<crate::listing::Capabilities>> {
        self.status.raw_listing()
    }

    /// Marks a listing from a previous run as known but unconfirmed.
    pub(crate) fn set_warm_listing(&self, caps: crate::listing::Capabilities) {
        self.lister.warm(&self.status, caps);
    }

    /// Applies the pins again to the last listing as the server sent it
    /// (after an approval). Returns the listing now served if it changed.
    pub(crate) fn reapply_pins(&self) -> Option<Arc<crate::listing::Capabilities>> {
        self.lister.reapply(&self.status)
    }

    /// Whether this server's tool `name` is held for approval.
    pub fn is_held(&self, name: &str) -> bool {
        self.lister.is_held(name)
    }

    /// Whether the whole server is held: it is being vetted (added from the
    /// registry, not yet approved), so none of its prompts or resources are
    /// served either.
    pub(crate) fn is_held_whole(&self) -> bool {
        self.lister.holds_server()
    }

    /// A view for the snapshot.
    pub(crate) fn view(&self) -> UpstreamView {
        self.status.view(self.is_enabled())
    }

    /// The recent list changes, oldest first.
    pub fn changes(&self) -> Vec<ListChange> {
        self.status.changes()
    }

    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        self.status.stderr().tail(n)
    }

    /// The hub's log lines about this server, oldest first.
    pub(crate) fn log_lines(&self) -> Vec<LogLine> {
        self.status.log_lines()
    }

    /// If a poll is due at `now`, books the next one and returns true.
    pub(crate) fn take_due_poll(&self, now: tokio::time::Instant) -> bool {
        self.status.take_due_poll(now, self.settings.poll_interval)
    }

    /// How long until the poller re-lists this server; `None` while no poll
    /// is booked (polling off, or the server not running).
    pub(crate) fn next_poll_in(&self) -> Option<Duration> {
        self.status.next_poll_in()
    }

    /// When this server wants the poller's attention next: its next poll, or
    /// the moment it has been idle long enough to be put to sleep.
    pub(crate) fn next_wake(&self, idle_shutdown: Duration) -> Option<tokio::time::Instant> {
        self.status.next_wake(idle_shutdown, self.is_stdio())
    }

    /// Whether this stdio server has been unused for `idle_shutdown`.
    pub(crate) fn idle_due(&self, idle_shutdown: Duration) -> bool {
        self.status
            .idle_due(idle_shutdown, self.is_stdio(), self.traffic.busy())
    }

    /// This server's parked calls.
    pub(crate) fn parked(&self) -> &Parked {
        self.traffic.parked()
    }

    /// How long a parked call may wait for its retry: the call timeout.
    pub(crate) fn park_ttl(&self) -> Duration {
        self.call_timeout()
    }

    /// Puts the server in `authRequired` with `reason` (after a logout, a
    /// refused refresh, or a 401 on a running connection).
    pub(crate) fn set_auth_required(&self, reason: String) {
        self.status.set_auth_required(&self.id, reason);
    }

    /// A login succeeded: drop the connection made without (or with the old)
    /// token, so the next need connects with the new one.
    pub(crate) async fn after_login(&self) {
        self.close().await;
        self.status.logged_in(self.is_enabled());
    }

    /// Tasks of this server that have not ended (see `TaskHold`).
    #[cfg(test)]
    pub(crate) fn tasks_in_flight(&self) -> u64 {
        self.traffic.tasks()
    }

    /// Waits for in-flight requests to finish (at most `deadline`), then
    /// closes the connection and stops everything of this upstream.
    pub(crate) async fn drain_and_retire(&self, deadline: Duration) {
        let start = Instant::now();
        while self.traffic.in_flight() > 0 && start.elapsed() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.retire().await;
    }

    /// Whether the server was stopped for being idle (its lists are kept).
    pub(crate) fn is_sleeping(&self) -> bool {
        self.status.lock().state == ServerState::Sleeping
    }

    pub(crate) fn is_unverified(&self) -> bool {
        self.status.lock().unverified
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

        upstream
            .status
            .record_success(Some(Duration::from_millis(100)));
        let view = upstream.view();
        assert_eq!(view.state, ServerState::Ready);
        assert_eq!(view.breaker, BreakerState::Closed);
        assert_eq!(view.consecutive_failures, 0);
        assert_eq!(view.last_error, None);
        assert_eq!(view.health, Health::Healthy);
        assert_eq!(view.latency_ms, Some(100.0));
        upstream
            .status
            .record_success(Some(Duration::from_millis(200)));
        upstream.status.record_success(None);
        assert_eq!(upstream.view().latency_ms, Some(120.0));
    }

    #[tokio::test]
    async fn the_log_about_a_server_keeps_its_last_lines_redacted() {
        let (upstream, _events) = unstartable();
        for i in 0..(status::LOG_LINES + 3) {
            upstream.status.note("info", format!("line {i}"));
        }
        upstream
            .status
            .note("warn", "fetching https://u:p@h/?token=t".into());
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
