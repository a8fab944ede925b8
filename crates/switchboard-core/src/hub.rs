//! The hub: owns the registry, the catalog, the sessions and the listener, and
//! runs until its shutdown future resolves.
//!
//! [`Hub::bind`] opens the listener (so the caller can print the address),
//! [`Hub::run`] serves until shutdown and then closes every upstream with a
//! deadline, leaving no child process behind. [`HubHandle`] is the cheap,
//! cloneable way in for the gateway, the control API, the CLI and tests.
//!
//! Ownership: upstream state is written only by each [`Upstream`]; the merged
//! [`Catalog`] is written only by [`HubHandle::rebuild_catalog`] (under
//! `catalog_write`, a std mutex never held across an `.await`); the snapshot
//! is published only by the event loop. Start-up never waits for upstreams:
//! they start on first need. List requests wait for never-listed servers
//! once per server (one cold-start deadline shared by every list method and
//! session); names are routed by their server part first
//! ([`HubHandle::route_tool`]), so a name of no server starts nothing.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::capabilities::{FreshCache, RefreshTrigger};
use crate::catalog::{Catalog, CatalogSource, Route};
use crate::config::{Config, ConfigError, ServerId, Settings};
use crate::limiter::Limiter;
use crate::registry::Registry;
use crate::reload::ReloadResult;
use crate::sessions::Sessions;
use crate::snapshot::{BreakerSnapshot, HubSnapshot, ServerSnapshot, Totals, timestamp};
use crate::upstream::{Inbound, Upstream, UpstreamError, UpstreamEvent, inbound};

/// How long shutdown waits for upstreams and connections before giving up.
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(15);

/// Errors that stop the hub from starting or running.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Serve(std::io::Error),
    #[error("invalid settings: {0}")]
    Settings(#[from] ConfigError),
    #[error(
        "refusing to listen on {addr}: it is reachable from other machines. Listen on \
         127.0.0.1, or allow it with settings.allowRemote, --allow-remote or \
         SWITCHBOARD_ALLOW_REMOTE=1 (every request then needs the control token)"
    )]
    RemoteNotAllowed { addr: SocketAddr },
    #[error(transparent)]
    Access(#[from] crate::access::AccessError),
}

pub(crate) struct HubInner {
    /// The settings in force (fixed for the hub's lifetime).
    pub(crate) settings: Arc<Settings>,
    /// The listen address the config file asked for at start (`--listen` may
    /// override it), to tell whether a reload changed it.
    initial_listen: SocketAddr,
    config_path: Option<PathBuf>,
    /// Serializes reloads: one arriving mid-apply becomes one more pass.
    pub(crate) reload_lock: tokio::sync::Mutex<()>,
    config_error: Mutex<Option<ConfigError>>,
    last_reload: Mutex<Option<ReloadResult>>,
    pub(crate) registry: Registry,
    catalog: RwLock<Arc<Catalog>>,
    catalog_write: Mutex<()>,
    pub(crate) fresh: FreshCache,
    pub(crate) sessions: Sessions,
    snapshot: watch::Sender<Arc<HubSnapshot>>,
    events: mpsc::UnboundedSender<UpstreamEvent>,
    http: SharedHttp,
    /// This hub's instance id and listener, to never serve itself.
    pub(crate) identity: Arc<crate::identity::HubIdentity>,
    /// OAuth tokens (OS keyring), logins in progress, keyring secrets.
    pub(crate) auth: Arc<crate::auth::Auth>,
    /// Who may use the listener: the control token, dashboard sessions.
    pub(crate) access: Arc<crate::access::Access>,
    pub(crate) cancel: CancellationToken,
    pub(crate) tasks: TaskTracker,
    endpoint: String,
    started_at: SystemTime,
    watch_config: bool,
    /// Wakes the poller when an upstream's state changes.
    poller_wake: Arc<tokio::sync::Notify>,
    /// Wakes the warm-catalog writer when the catalog changes.
    catalog_changed: Arc<tokio::sync::Notify>,
    /// Where the warm catalog is kept (`None` disables it).
    warm_catalog: Option<PathBuf>,
    /// Each server's one cold-start wait for list requests (see
    /// [`HubHandle::merged_catalog`]): the fingerprint it was set for and
    /// when it ends.
    cold_deadlines: Mutex<
        std::collections::HashMap<
            ServerId,
            (crate::fingerprint::Fingerprint, tokio::time::Instant),
        >,
    >,
    /// The MCP services of the pass-through routes, one per server id, each
    /// with its session manager (which the HTTP fast path asks about sessions).
    pass_through:
        Mutex<std::collections::HashMap<ServerId, (PassThroughService, Arc<PassThroughSessions>)>>,
}

/// The one pooled HTTP client for remote servers and OAuth, built when first
/// needed: building it loads the system's root certificates (hundreds of
/// files, most of a hub's start-up time), which a hub of local servers never
/// needs.
#[derive(Clone, Default)]
pub(crate) struct SharedHttp(Arc<std::sync::OnceLock<reqwest::Client>>);

impl SharedHttp {
    pub(crate) fn get(&self) -> reqwest::Client {
        self.0
            .get_or_init(|| {
                reqwest::Client::builder()
                    .pool_idle_timeout(Duration::from_secs(90))
                    .tcp_nodelay(true)
                    .build()
                    .unwrap_or_default()
            })
            .clone()
    }
}

pub(crate) type PassThroughSessions = crate::http_sessions::HubSessionManager;

pub(crate) type PassThroughService =
    rmcp::transport::StreamableHttpService<crate::gateway::Gateway, PassThroughSessions>;

/// Why a tool or prompt name leads to no server (see [`HubHandle::route_tool`]).
#[derive(Debug)]
pub enum Unrouted {
    /// No configured server's names can look like this. `renamed` is set when
    /// the part before `__` is a server id whose names carry another prefix
    /// (its `namespace`): (id, prefix).
    NoServer { renamed: Option<(ServerId, String)> },
    /// Only disabled servers' names can look like this.
    Disabled(Vec<ServerId>),
    /// The servers it could belong to are listed and have no such name.
    NotListed,
    /// The server it could belong to could not be listed (not started, not
    /// reachable...): its own error.
    Failed(UpstreamError),
}

/// A cheap handle on a running hub.
#[derive(Clone)]
pub struct HubHandle {
    pub(crate) inner: Arc<HubInner>,
}

/// How a hub is started besides its config.
#[derive(Debug, Clone, Default)]
pub struct HubOptions {
    /// The config file: shown in the snapshot, watched and re-read on reload.
    pub config_path: Option<PathBuf>,
    /// Listen here instead of `settings.listen` (the CLI's `--listen`).
    pub listen: Option<SocketAddr>,
    /// Watch the config file for changes (on by default in the CLI and app).
    pub watch_config: bool,
    /// Keep the last known catalog across restarts in this file
    /// (normally [`crate::persist::state_dir`]`/catalog.json`).
    pub warm_catalog: Option<PathBuf>,
    /// Keep the control token in this file (normally
    /// [`crate::persist::state_dir`]`/control-token`); `None` keeps a new
    /// one in memory only (then only in-process callers have it).
    pub control_token: Option<PathBuf>,
}

/// A hub whose listener is open but which is not serving yet.
pub struct Hub {
    handle: HubHandle,
    listener: tokio::net::TcpListener,
    events: mpsc::UnboundedReceiver<UpstreamEvent>,
    local_addr: SocketAddr,
}

impl Hub {
    /// Opens the listener on `config.settings.listen` and prepares the upstreams
    /// (none is started).
    pub async fn bind(config: Config, options: HubOptions) -> Result<Self, HubError> {
        let initial_listen = config.settings.listen;
        let mut settings = config.settings.clone();
        if let Some(listen) = options.listen {
            settings.listen = listen;
        }
        let settings = Arc::new(settings);
        let addr = settings.listen;
        if !addr.ip().is_loopback() && !settings.allow_remote {
            return Err(HubError::RemoteNotAllowed { addr });
        }
        let token = match &options.control_token {
            Some(path) => crate::access::load_or_create_token(path)?,
            None => crate::access::new_token()?,
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| HubError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| HubError::Bind { addr, source })?;
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let http = SharedHttp::default();
        let endpoint = format!("http://{local_addr}/mcp");
        if settings.allow_remote {
            tracing::warn!(
                "allowRemote is on (listening on {local_addr}): requests from other machines \
                 are accepted with the control token, and every MCP request needs it"
            );
        }
        let access = Arc::new(crate::access::Access::new(
            token,
            settings.allow_remote,
            local_addr.port(),
        ));
        // Off the runtime and with a deadline: D-Bus may be slow or absent.
        let opened = crate::auth::store::open_async(settings.token_store).await;
        tracing::info!(keyring = %opened.kind(), "token store");
        let auth = Arc::new(crate::auth::Auth::new(opened, events_tx.clone()));
        let inner = Arc::new(HubInner {
            fresh: FreshCache::new(settings.cache_ttl, settings.cache_max_entries),
            settings: settings.clone(),
            initial_listen,
            config_path: options.config_path,
            reload_lock: tokio::sync::Mutex::new(()),
            config_error: Mutex::new(None),
            last_reload: Mutex::new(None),
            watch_config: options.watch_config,
            poller_wake: Arc::new(tokio::sync::Notify::new()),
            catalog_changed: Arc::new(tokio::sync::Notify::new()),
            warm_catalog: options.warm_catalog,
            pass_through: Mutex::new(std::collections::HashMap::new()),
            cold_deadlines: Mutex::new(std::collections::HashMap::new()),
            registry: Registry::default(),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            catalog_write: Mutex::new(()),
            sessions: Sessions::new(Arc::new(crate::http_sessions::SessionTable::new(
                settings.max_sessions,
                settings.session_idle,
                events_tx.clone(),
            ))),
            snapshot: watch::Sender::new(Arc::new(HubSnapshot::default())),
            events: events_tx,
            http,
            identity: Arc::new(crate::identity::HubIdentity::new(local_addr)),
            auth,
            access,
            cancel,
            tasks: TaskTracker::new(),
            endpoint,
            started_at: SystemTime::now(),
        });
        let handle = HubHandle { inner };
        let upstreams = config
            .servers
            .into_iter()
            .map(|server| Arc::new(handle.new_upstream(server)))
            .collect();
        handle.inner.registry.replace(upstreams);
        handle.load_warm_catalog();
        handle.publish_snapshot();
        Ok(Self {
            handle,
            listener,
            events: events_rx,
            local_addr,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The merged MCP endpoint URL.
    pub fn endpoint(&self) -> &str {
        &self.handle.inner.endpoint
    }

    pub fn handle(&self) -> HubHandle {
        self.handle.clone()
    }

    /// Serves until `shutdown` resolves, then closes everything.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError> {
        let Self {
            handle,
            listener,
            events,
            ..
        } = self;
        let inner = handle.inner.clone();
        inner
            .tasks
            .spawn(event_loop(handle.clone(), events, inner.cancel.clone()));

        if inner.watch_config
            && let Some(path) = inner.config_path.clone()
        {
            inner.tasks.spawn(crate::reload::watch_config(
                handle.clone(),
                path,
                inner.cancel.child_token(),
            ));
        }
        // Learn who is logged in (one keyring read per remote server).
        let remote: Vec<ServerId> = inner
            .registry
            .all()
            .iter()
            .filter(|u| {
                matches!(
                    u.config().transport,
                    crate::config::TransportConfig::Http { .. }
                )
            })
            .map(|u| u.id.clone())
            .collect();
        let auth = inner.auth.clone();
        inner.tasks.spawn(async move { auth.preload(remote).await });
        inner.tasks.spawn(crate::freshness::run_poller(
            handle.clone(),
            inner.poller_wake.clone(),
            inner.cancel.child_token(),
        ));
        if let Some(path) = inner.warm_catalog.clone() {
            inner.tasks.spawn(save_warm_catalog(
                handle.clone(),
                path,
                inner.cancel.child_token(),
            ));
        }
        inner.tasks.spawn(crate::http_sessions::run_reaper(
            handle.clone(),
            inner.cancel.child_token(),
        ));
        let router = crate::control::router(handle.clone());
        let limits = crate::listener::ConnectionLimits::from_settings(&inner.settings);
        let serve = crate::listener::serve(listener, router, limits, inner.cancel.clone());
        let mut serve = std::pin::pin!(serve);

        // `served` is set when the listener stopped by itself (an error, or
        // `HubHandle::shutdown`); it must not be polled again then.
        let (result, served) = tokio::select! {
            r = &mut serve => (r.map_err(HubError::Serve), true),
            () = shutdown => (Ok(()), false),
        };
        tracing::info!("shutting down");
        inner.cancel.cancel();
        let upstreams = inner.registry.all();
        let closing = futures::future::join_all(upstreams.iter().map(|u| u.retire()));
        if tokio::time::timeout(SHUTDOWN_DEADLINE, closing)
            .await
            .is_err()
        {
            tracing::warn!("some upstreams did not close within {SHUTDOWN_DEADLINE:?}");
        }
        if !served
            && tokio::time::timeout(Duration::from_secs(5), &mut serve)
                .await
                .is_err()
        {
            tracing::debug!("connections still open at shutdown; dropping them");
        }
        inner.tasks.close();
        if tokio::time::timeout(Duration::from_secs(5), inner.tasks.wait())
            .await
            .is_err()
        {
            tracing::debug!("background tasks still running at shutdown");
        }
        result
    }
}

/// Writes the warm catalog after changes (debounced) and once more at shutdown.
async fn save_warm_catalog(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    loop {
        let stop = tokio::select! {
            () = hub.inner.catalog_changed.notified() => false,
            () = cancel.cancelled() => true,
        };
        if !stop {
            tokio::select! {
                () = tokio::time::sleep(crate::persist::SAVE_DEBOUNCE) => {}
                () = cancel.cancelled() => {}
            }
        }
        let upstreams = hub.inner.registry.all();
        let listings: Vec<_> = upstreams
            .iter()
            .filter_map(|u| {
                Some((
                    u.id.to_string(),
                    u.fingerprint().to_string(),
                    u.capabilities()?,
                ))
            })
            .collect();
        let entries = listings
            .iter()
            .map(|(id, fp, caps)| (id.clone(), fp.clone(), caps.as_ref()));
        if let Err(err) = crate::persist::save(&path, entries) {
            tracing::warn!(path = %path.display(), %err, "cannot save the warm catalog");
        }
        if stop {
            break;
        }
    }
}

/// Records a failed login on the server (snapshot message, state, log).
fn login_failed(
    upstream: &Upstream,
    server_auth: &crate::auth::tokens::ServerAuth,
    err: &crate::auth::AuthError,
) {
    tracing::warn!(server = %upstream.id, error = %err, "login failed");
    let text = err.to_string();
    let prefix = format!("server '{}': ", upstream.id);
    let detail = text.strip_prefix(&prefix).unwrap_or(&text);
    server_auth.update(|s| s.problem = Some(format!("login failed: {detail}")));
    upstream.set_auth_required(format!("login failed: {detail}"));
}

/// Applies upstream events: snapshot republishing (coalesced) and refreshes
/// announced by upstreams.
async fn event_loop(
    hub: HubHandle,
    mut events: mpsc::UnboundedReceiver<UpstreamEvent>,
    cancel: CancellationToken,
) {
    loop {
        let event = tokio::select! {
            e = events.recv() => e,
            () = cancel.cancelled() => None,
        };
        let Some(first) = event else { break };
        let mut dirty = false;
        let mut next = Some(first);
        while let Some(event) = next {
            match event {
                UpstreamEvent::StateChanged => dirty = true,
                UpstreamEvent::Log(server, params) => hub.inner.sessions.log(&server, &params),
                UpstreamEvent::ResourcesUpdated(server, inbound) => {
                    let hub = hub.clone();
                    hub.inner
                        .clone()
                        .tasks
                        .spawn(forward_resource_updates(hub, server, inbound));
                }
                UpstreamEvent::Verify(server) => {
                    let hub = hub.clone();
                    hub.inner.clone().tasks.spawn(async move {
                        if let Err(err) = hub.refresh(&server, RefreshTrigger::FirstUse).await {
                            tracing::warn!(%server, error = %err, "verifying the warm catalog failed");
                        }
                    });
                }
                UpstreamEvent::ListChanged(server, inbound) => {
                    let hub = hub.clone();
                    hub.inner
                        .clone()
                        .tasks
                        .spawn(refresh_list_changes(hub, server, inbound));
                }
            }
            next = events.try_recv().ok();
        }
        if dirty {
            hub.publish_snapshot();
            hub.inner.poller_wake.notify_one();
        }
    }
}

/// Refreshes `server` while it has list changes pending: one refresh under
/// way, and at most one more for the changes announced meanwhile, however
/// many notifications arrive (see `upstream/inbound.rs`).
async fn refresh_list_changes(hub: HubHandle, server: ServerId, inbound: Arc<Inbound>) {
    static FAILED: Limiter = Limiter::new(5, Duration::from_secs(10));
    while let Some(bits) = inbound.take_list_changes() {
        if hub.inner.cancel.is_cancelled() {
            return;
        }
        tracing::debug!(%server, lists = ?inbound::kinds(bits), "refreshing after list_changed");
        if let Err(err) = hub.refresh(&server, RefreshTrigger::Notification).await {
            crate::limited!(
                FAILED,
                warn,
                "refresh after list_changed failed",
                %server,
                error = %err,
                "refresh after list_changed failed"
            );
        }
    }
}

/// Sends `server`'s pending resource updates to the subscribed sessions,
/// a round at most every [`inbound::UPDATE_SPACING`], until none is pending.
async fn forward_resource_updates(hub: HubHandle, server: ServerId, inbound: Arc<Inbound>) {
    loop {
        let updates = inbound.take_resource_updates();
        if updates.is_empty() {
            return;
        }
        for update in &updates {
            hub.inner.sessions.resource_updated(&server, update);
        }
        tokio::select! {
            () = tokio::time::sleep(inbound::UPDATE_SPACING) => {}
            () = hub.inner.cancel.cancelled() => return,
        }
    }
}

impl HubHandle {
    pub fn config_path(&self) -> Option<PathBuf> {
        self.inner.config_path.clone()
    }

    pub(crate) fn set_config_error(&self, error: Option<ConfigError>) {
        if let Ok(mut current) = self.inner.config_error.lock() {
            *current = error;
        }
        self.publish_snapshot();
    }

    pub(crate) fn set_last_reload(&self, result: ReloadResult) {
        if let Ok(mut current) = self.inner.last_reload.lock() {
            *current = Some(result);
        }
        self.publish_snapshot();
    }

    /// The listen address the config file asked for at start.
    pub(crate) fn initial_listen(&self) -> SocketAddr {
        self.inner.initial_listen
    }

    pub(crate) fn new_upstream(&self, server: crate::config::ServerConfig) -> Upstream {
        Upstream::new(
            server,
            self.inner.settings.clone(),
            self.inner.cancel.child_token(),
            self.inner.http.clone(),
            self.inner.identity.clone(),
            self.inner.auth.clone(),
            self.inner.events.clone(),
        )
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }

    pub fn snapshot(&self) -> Arc<HubSnapshot> {
        self.inner.snapshot.borrow().clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<Arc<HubSnapshot>> {
        self.inner.snapshot.subscribe()
    }

    pub fn upstream(&self, id: &str) -> Option<Arc<Upstream>> {
        self.inner.registry.get(id)
    }

    /// The merged catalog as it is now (no upstream is contacted).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.inner
            .catalog
            .read()
            .map(|c| c.clone())
            .unwrap_or_default()
    }

    /// The merged catalog for a client's list request: servers never listed are
    /// started and listed, waiting at most the cold-list timeout (late ones
    /// arrive with `list_changed`); stale ones are revalidated in the background.
    ///
    /// Each server gets one cold-start wait: its deadline is set by the first
    /// list request that waits for it, and every later list request — of any
    /// kind, from any session — waits at most until that same deadline.
    pub async fn merged_catalog(&self) -> Arc<Catalog> {
        let mut cold = Vec::new();
        for upstream in self.inner.registry.enabled() {
            if let Some(wait) = self.ensure_fresh(&upstream).await {
                cold.push((self.cold_deadline(&upstream), wait));
            }
        }
        if !cold.is_empty() {
            let waits = cold.into_iter().map(|(deadline, wait)| async move {
                let _ = tokio::time::timeout_at(deadline, wait).await;
            });
            futures::future::join_all(waits).await;
        }
        self.catalog()
    }

    /// Until when list requests wait for `upstream`'s first listing: set on
    /// first use to now + `coldListTimeoutMs`, per server id and fingerprint
    /// (a server rebuilt by a reload gets a wait of its own).
    fn cold_deadline(&self, upstream: &Upstream) -> tokio::time::Instant {
        let mut deadlines = self
            .inner
            .cold_deadlines
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let fingerprint = upstream.fingerprint();
        match deadlines.get(&upstream.id) {
            Some((fp, deadline)) if *fp == fingerprint => *deadline,
            _ => {
                let now = tokio::time::Instant::now();
                // A huge setting means "wait as long as it takes" (about 30 years).
                let deadline = now
                    .checked_add(self.inner.settings.cold_list_timeout)
                    .unwrap_or_else(|| now + Duration::from_secs(30 * 365 * 86_400));
                deadlines.insert(upstream.id.clone(), (fingerprint, deadline));
                deadline
            }
        }
    }

    /// Makes sure `upstream`'s listing is fresh. Returns a handle to await when
    /// the server has never been listed; a stale listing is refreshed in the
    /// background while callers keep using it.
    async fn ensure_fresh(&self, upstream: &Arc<Upstream>) -> Option<tokio::task::JoinHandle<()>> {
        // A warm listing from the last run is served as it is; the server is
        // verified when something first uses it.
        // A sleeping server keeps its lists until a call wakes it; listing it
        // would undo the idle shutdown.
        if upstream.is_unverified()
            || upstream.is_sleeping()
            || self.inner.fresh.is_fresh(&upstream.id)
        {
            return None;
        }
        let has_listing = upstream.capabilities().is_some();
        let trigger = if has_listing {
            RefreshTrigger::Ttl
        } else {
            RefreshTrigger::FirstUse
        };
        let hub = self.clone();
        let id = upstream.id.clone();
        let task = self.inner.tasks.spawn(async move {
            if let Err(err) = hub.refresh(&id, trigger).await {
                tracing::debug!(server = %id, error = %err, "background listing failed");
            }
        });
        (!has_listing).then_some(task)
    }

    /// Re-lists one server now (single-flight per server) and updates the
    /// catalog; clients hear `list_changed` only if what they see changed.
    pub async fn refresh(
        &self,
        id: &ServerId,
        trigger: RefreshTrigger,
    ) -> Result<(), UpstreamError> {
        let upstream = self
            .upstream(id.as_str())
            .ok_or_else(|| UpstreamError::Protocol {
                server: id.clone(),
                message: "no such server".into(),
            })?;
        let before = upstream.capabilities();
        let caps = upstream.refresh(trigger).await?;
        self.inner.fresh.mark_fresh(id, caps.listed_at).await;
        if before.is_some_and(|b| b.hashes != caps.hashes) {
            let versions = crate::gateway::pass_through_versions(&upstream, &caps);
            self.inner
                .sessions
                .announce_server(id, versions, &self.inner.tasks);
        }
        self.rebuild_catalog();
        Ok(())
    }

    /// One server's lists for its pass-through route: cached, fresh or being
    /// revalidated, listed now if never listed.
    pub async fn server_lists(
        &self,
        upstream: &Arc<Upstream>,
    ) -> Result<Arc<crate::capabilities::Capabilities>, UpstreamError> {
        if let Some(wait) = self.ensure_fresh(upstream).await {
            let _ = wait.await;
        }
        match upstream.capabilities() {
            Some(caps) => Ok(caps),
            None => upstream.refresh(RefreshTrigger::FirstUse).await,
        }
    }

    /// The pass-through MCP service of `server`, made by `make` on first use.
    pub(crate) fn pass_through_service(
        &self,
        server: &ServerId,
        make: impl FnOnce(ServerId, Arc<PassThroughSessions>) -> PassThroughService,
    ) -> PassThroughService {
        let mut services = self
            .inner
            .pass_through
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        services
            .entry(server.clone())
            .or_insert_with(|| {
                let sessions = Arc::new(PassThroughSessions::new(
                    self.inner.sessions.table().clone(),
                ));
                (make(server.clone(), sessions.clone()), sessions)
            })
            .0
            .clone()
    }

    /// The session manager of a server's pass-through route, once it has one.
    pub(crate) fn pass_through_sessions(
        &self,
        server: &ServerId,
    ) -> Option<Arc<PassThroughSessions>> {
        let services = self
            .inner
            .pass_through
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        services.get(server).map(|(_, sessions)| sessions.clone())
    }

    /// Enabled servers with a live connection.
    pub fn running_upstreams(&self) -> Vec<Arc<Upstream>> {
        self.inner
            .registry
            .enabled()
            .into_iter()
            .filter(|u| u.view().state == crate::upstream::ServerState::Ready)
            .collect()
    }

    /// Re-lists every enabled server concurrently.
    pub async fn refresh_all(
        &self,
        trigger: RefreshTrigger,
    ) -> Vec<(ServerId, Result<(), UpstreamError>)> {
        let upstreams = self.inner.registry.enabled();
        let results =
            futures::future::join_all(upstreams.iter().map(|u| self.refresh(&u.id, trigger))).await;
        upstreams
            .into_iter()
            .map(|u| u.id.clone())
            .zip(results)
            .collect()
    }

    /// Where an exposed tool name leads (see [`HubHandle::route_name`]).
    pub async fn route_tool(&self, name: &str) -> Result<Route, Unrouted> {
        self.route_name(name, |c| c.tool(name).cloned()).await
    }

    /// Where an exposed prompt name leads (see [`HubHandle::route_name`]).
    pub async fn route_prompt(&self, name: &str) -> Result<Route, Unrouted> {
        self.route_name(name, |c| c.prompt(name).cloned()).await
    }

    pub async fn resource_owner(&self, uri: &str) -> Option<ServerId> {
        if let Some(found) = self.catalog().resource_owner(uri).cloned() {
            return Some(found);
        }
        // A URI names no server: every server never listed may own it.
        let unlisted: Vec<_> = self
            .inner
            .registry
            .enabled()
            .into_iter()
            .filter(|u| u.capabilities().is_none())
            .collect();
        if unlisted.is_empty() {
            return None;
        }
        self.list_first_time(&unlisted).await;
        self.catalog().resource_owner(uri).cloned()
    }

    /// Routes a tool or prompt name by its server part first. A name in the
    /// catalog leads to its server at once. Otherwise only the servers whose
    /// prefix the name could carry ([`crate::catalog::could_expose`]) are
    /// considered: none configured → [`Unrouted::NoServer`] at once, only
    /// disabled ones → [`Unrouted::Disabled`]; those never listed are listed
    /// now (one start each, bounded by their start-up timeout, so a call made
    /// right after start-up without a list still works), and if the name is
    /// still unknown, a server that could not be listed answers with its own
    /// error ([`Unrouted::Failed`]).
    async fn route_name(
        &self,
        name: &str,
        find: impl Fn(&Catalog) -> Option<Route>,
    ) -> Result<Route, Unrouted> {
        if let Some(found) = find(&self.catalog()) {
            return Ok(found);
        }
        let mut candidates: Vec<Arc<Upstream>> = self
            .inner
            .registry
            .all()
            .into_iter()
            .filter(|u| crate::catalog::could_expose(u.config().prefix(), name))
            .collect();
        // The longest prefix is the likeliest owner: its error is the one reported.
        candidates.sort_by_key(|u| std::cmp::Reverse(u.config().prefix().len()));
        let (enabled, disabled): (Vec<_>, Vec<_>) =
            candidates.into_iter().partition(|u| u.is_enabled());
        if enabled.is_empty() {
            if !disabled.is_empty() {
                return Err(Unrouted::Disabled(
                    disabled.iter().map(|u| u.id.clone()).collect(),
                ));
            }
            // Named after a server whose names carry another prefix?
            let renamed = name.split_once("__").and_then(|(part, _)| {
                let upstream = self.upstream(part)?;
                let prefix = upstream.config().prefix().to_string();
                Some((upstream.id.clone(), prefix))
            });
            return Err(Unrouted::NoServer { renamed });
        }
        let unlisted: Vec<_> = enabled
            .into_iter()
            .filter(|u| u.capabilities().is_none())
            .collect();
        if unlisted.is_empty() {
            return Err(Unrouted::NotListed);
        }
        let outcomes = self.list_first_time(&unlisted).await;
        if let Some(found) = find(&self.catalog()) {
            return Ok(found);
        }
        match outcomes.into_iter().find_map(Result::err) {
            Some(err) => Err(Unrouted::Failed(err)),
            None => Err(Unrouted::NotListed),
        }
    }

    /// Lists servers that were never listed, concurrently, and waits for the
    /// outcomes. The listings run as hub tasks, so a caller that gives up does
    /// not cut a start short.
    async fn list_first_time(&self, upstreams: &[Arc<Upstream>]) -> Vec<Result<(), UpstreamError>> {
        let waits = upstreams.iter().map(|u| {
            let hub = self.clone();
            let id = u.id.clone();
            let task = self
                .inner
                .tasks
                .spawn(async move { hub.refresh(&id, RefreshTrigger::FirstUse).await });
            let id = u.id.clone();
            async move {
                task.await
                    .unwrap_or_else(|_| Err(UpstreamError::ShuttingDown { server: id }))
            }
        });
        futures::future::join_all(waits).await
    }

    /// Rebuilds the merged catalog from every enabled server's last listing and
    /// announces what changed to connected clients.
    pub(crate) fn rebuild_catalog(&self) {
        let Ok(_writer) = self.inner.catalog_write.lock() else {
            return;
        };
        let sources = self
            .inner
            .registry
            .enabled()
            .into_iter()
            .filter_map(|u| {
                let caps = u.capabilities()?;
                let config = u.config();
                Some(CatalogSource {
                    server: u.id.clone(),
                    prefix: config.prefix().to_string(),
                    disabled_tools: config.disabled_tools.iter().cloned().collect(),
                    capabilities: caps,
                })
            })
            .collect();
        let mut next = Catalog::build(sources);
        let Ok(mut current) = self.inner.catalog.write() else {
            return;
        };
        let diff = current.diff(&next);
        next.versions = current.versions.bumped(diff);
        let next = Arc::new(next);
        *current = next.clone();
        drop(current);
        if diff.any() {
            static CHANGED: Limiter = Limiter::new(10, Duration::from_secs(10));
            crate::limited!(
                CHANGED,
                info,
                "catalog changed",
                tools = next.tools.len(),
                prompts = next.prompts.len(),
                resources = next.resources.len(),
                "catalog changed"
            );
            self.inner
                .sessions
                .announce(diff, next.versions, &self.inner.tasks);
            self.inner.catalog_changed.notify_one();
            self.publish_snapshot();
        }
    }

    /// Rebuilds the snapshot from every upstream and publishes it if it changed.
    pub(crate) fn publish_snapshot(&self) {
        let next = self.build_snapshot();
        self.inner.snapshot.send_if_modified(|current| {
            let mut a = (**current).clone();
            a.generated_at = None;
            let mut b = next.clone();
            b.generated_at = None;
            if a == b {
                false
            } else {
                *current = Arc::new(next);
                true
            }
        });
    }

    fn build_snapshot(&self) -> HubSnapshot {
        let ttl = self.inner.settings.cache_ttl;
        let servers: Vec<ServerSnapshot> = self
            .inner
            .registry
            .all()
            .iter()
            .map(|u| {
                let view = u.view();
                let config = u.config();
                let caps = view.capabilities.as_ref();
                let tool_count = caps
                    .map(|c| {
                        c.tools
                            .iter()
                            .filter(|t| !config.disabled_tools.contains(t.name.as_ref()))
                            .count()
                    })
                    .unwrap_or(0);
                ServerSnapshot {
                    id: u.id.to_string(),
                    transport: config.transport.kind().to_string(),
                    enabled: config.enabled,
                    state: view.state,
                    tool_count,
                    prompt_count: caps.map_or(0, |c| c.prompts.len()),
                    resource_count: caps.map_or(0, |c| c.resources.len()),
                    resource_template_count: caps.map_or(0, |c| c.resource_templates.len()),
                    listed_at: caps.map(|c| timestamp(c.listed_at)),
                    refresh_trigger: caps.map(|c| c.trigger),
                    ttl_expires_at: caps
                        .and_then(|c| c.listed_at.checked_add(ttl))
                        .map(timestamp),
                    stale: view.stale,
                    last_error: view.last_error.map(|e| crate::redact::text(&e)),
                    last_ok_at: view.last_ok_at.map(timestamp),
                    last_failure_at: view.last_failure_at.map(timestamp),
                    consecutive_failures: view.consecutive_failures,
                    pid: view.pid,
                    server_name: caps
                        .map(|c| c.server_name.clone())
                        .filter(|s| !s.is_empty()),
                    server_version: caps
                        .map(|c| c.server_version.clone())
                        .filter(|s| !s.is_empty()),
                    protocol_version: caps
                        .map(|c| c.protocol_version.clone())
                        .filter(|s| !s.is_empty()),
                    stderr_tail: view.stderr_tail,
                    health: view.health,
                    breaker: BreakerSnapshot {
                        state: view.breaker,
                        retry_at: view.retry_at.map(timestamp),
                    },
                    latency_ms: view.latency_ms,
                    last_change: view.last_change,
                    unverified: view.unverified,
                    next_poll_at: view.next_poll_at.map(timestamp),
                    auth: matches!(
                        config.transport,
                        crate::config::TransportConfig::Http { .. }
                    )
                    .then(|| {
                        let mut auth = self.inner.auth.snapshot(&u.id, config.oauth.as_ref());
                        auth.message = auth.message.map(|m| crate::redact::text(&m));
                        auth
                    }),
                }
            })
            .collect();
        let catalog = self.catalog();
        HubSnapshot {
            version: env!("CARGO_PKG_VERSION").to_string(),
            endpoint: self.inner.endpoint.clone(),
            config_path: self
                .inner
                .config_path
                .as_ref()
                .map(|p| p.display().to_string()),
            config_error: self
                .inner
                .config_error
                .lock()
                .ok()
                .and_then(|e| e.clone())
                .map(ConfigError::redacted)
                .map(Into::into),
            last_reload: self.inner.last_reload.lock().ok().and_then(|r| r.clone()),
            started_at: Some(timestamp(self.inner.started_at)),
            generated_at: Some(timestamp(SystemTime::now())),
            totals: Totals {
                servers: servers.len(),
                tools: catalog.tools.len(),
                prompts: catalog.prompts.len(),
                resources: catalog.resources.len(),
            },
            servers,
            sessions: self.inner.sessions.snapshot(),
        }
    }

    /// Serves the listings a previous run saved for servers whose config is
    /// unchanged, marked unverified.
    fn load_warm_catalog(&self) {
        let Some(path) = &self.inner.warm_catalog else {
            return;
        };
        let mut saved = crate::persist::load(path);
        let mut loaded = 0;
        for upstream in self.inner.registry.enabled() {
            if let Some((fingerprint, caps)) = saved.remove(upstream.id.as_str())
                && fingerprint == upstream.fingerprint().to_string()
            {
                upstream.set_warm_listing(caps);
                loaded += 1;
            }
        }
        if loaded > 0 {
            tracing::info!(servers = loaded, path = %path.display(), "warm catalog loaded");
            self.rebuild_catalog();
        }
    }

    /// Where OAuth tokens and secrets are kept.
    pub fn keyring(&self) -> crate::auth::KeyringKind {
        self.inner.auth.keyring()
    }

    /// Starts an OAuth login of remote server `id` and returns the URL to
    /// open in a browser. The loopback callback listener is already bound;
    /// when the browser comes back the tokens are stored and the server
    /// reconnects with them. A login already waiting for `id` is cancelled.
    pub async fn login(
        &self,
        id: &str,
    ) -> Result<crate::auth::LoginStarted, crate::auth::AuthError> {
        use crate::auth::AuthError;
        let upstream = self.upstream(id).ok_or_else(|| AuthError::UnknownServer {
            server: id.to_string(),
        })?;
        let config = upstream.config();
        let crate::config::TransportConfig::Http { url, .. } = &config.transport else {
            return Err(AuthError::NotRemote {
                server: upstream.id.clone(),
            });
        };
        let auth = self.inner.auth.clone();
        let server_auth = auth.server(&upstream.id);
        server_auth.cancel_login();
        let oauth = config.oauth.as_ref();
        let client_secret = match oauth.and_then(|o| o.client_secret.as_ref()) {
            Some(value) => Some(auth.resolve(value).await?),
            None => None,
        };
        let (started, pending) =
            match crate::auth::login::begin(server_auth.clone(), url, oauth, client_secret).await {
                Ok(started) => started,
                Err(err) => {
                    login_failed(&upstream, &server_auth, &err);
                    self.publish_snapshot();
                    return Err(err);
                }
            };
        let cancel = self.inner.cancel.child_token();
        server_auth.update(|s| {
            s.login = Some(cancel.clone());
            s.problem = None;
        });
        let hub = self.clone();
        self.inner.tasks.spawn(async move {
            let finished = pending.finish(cancel.clone()).await;
            // Still ours unless a newer login cancelled it (and took the slot).
            if !cancel.is_cancelled() {
                server_auth.update(|s| s.login = None);
            }
            match finished {
                Ok(()) => {
                    upstream.after_login().await;
                    if let Err(err) = hub.refresh(&upstream.id, RefreshTrigger::Manual).await {
                        tracing::warn!(server = %upstream.id, error = %err, "listing after login failed");
                    }
                }
                // A newer login replaced this one: it reports for itself.
                Err(crate::auth::AuthError::Cancelled { .. }) => {}
                Err(err) => login_failed(&upstream, &server_auth, &err),
            }
            hub.publish_snapshot();
        });
        // The answer's reader sees `loginPending` at once.
        self.publish_snapshot();
        Ok(started)
    }

    /// Forgets server `id`'s tokens and client registration (deletes its
    /// keyring entry) and puts it in `authRequired`.
    pub async fn logout(&self, id: &str) -> Result<(), crate::auth::AuthError> {
        use crate::auth::AuthError;
        let upstream = self.upstream(id).ok_or_else(|| AuthError::UnknownServer {
            server: id.to_string(),
        })?;
        if !matches!(
            upstream.config().transport,
            crate::config::TransportConfig::Http { .. }
        ) {
            return Err(AuthError::NotRemote {
                server: upstream.id.clone(),
            });
        }
        let server_auth = self.inner.auth.server(&upstream.id);
        server_auth.cancel_login();
        server_auth.clear().await?;
        server_auth.update(|s| {
            s.problem = Some("logged out".into());
            s.challenged = true;
        });
        upstream.close().await;
        upstream.set_auth_required(format!("logged out; log in with `switchboard login {id}`"));
        tracing::info!(server = %upstream.id, "logged out");
        self.publish_snapshot();
        Ok(())
    }

    /// The control token: what `Authorization: Bearer` must carry to change
    /// the hub (for in-process callers such as the desktop app).
    pub fn control_token(&self) -> &str {
        self.inner.access.token()
    }

    /// A one-time link (valid two minutes) that signs a browser in to the
    /// dashboard, so that its page may change the hub.
    pub fn sign_in_url(&self) -> Result<String, crate::access::AccessError> {
        let base = self.inner.endpoint.trim_end_matches("/mcp");
        Ok(format!("{base}{}", self.inner.access.sign_in_link()?))
    }

    /// Asks the hub to stop (the same as the shutdown future resolving).
    pub fn shutdown(&self) {
        self.inner.cancel.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_through_the_handle_stops_run() {
        let mut config = Config::default();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let hub = Hub::bind(config, HubOptions::default()).await.unwrap();
        let handle = hub.handle();
        let running = tokio::spawn(hub.run(std::future::pending()));
        handle.shutdown();
        let result = tokio::time::timeout(Duration::from_secs(10), running)
            .await
            .expect("run returns after shutdown")
            .expect("run did not panic");
        assert!(result.is_ok(), "{result:?}");
    }
}
