//! The hub: the engine's state (registry, merged catalog, sessions, fresh
//! cache, snapshot) behind private fields, and [`HubHandle`], the cheap,
//! cloneable way in for the gateway, the control API, the CLI and tests.
//!
//! [`Hub::bind`] opens the listener (so the caller can print the address);
//! `Hub::serve_with` starts the hub's own tasks, serves with the listener loop
//! the HTTP layer builds ([`Hub::run`], in `server.rs`) until shutdown, and
//! then closes every upstream with a deadline, leaving no child process
//! behind. The work is split by concern: `discovery` (listing servers, routing
//! names and URIs to them), `publish` (catalog, snapshot, event fan-out),
//! `apply` (carrying out a [`crate::reload::plan`]), `watcher` (the config
//! file), `login` (OAuth), `warm` (the warm catalog), `profiles` (the
//! profiles' views, tokens and sessions).
//!
//! Ownership: upstream state is written only by each [`Upstream`]; the merged
//! [`Catalog`] is written only by [`HubHandle::rebuild_catalog`] (under
//! `catalog_write`, a std mutex never held across an `.await`); the snapshot
//! only by [`HubHandle::publish_snapshot`]. Start-up never waits for upstreams:
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

use crate::catalog::Catalog;
use crate::config::{Config, ConfigError, ServerId, Settings};
use crate::listing::FreshCache;
use crate::registry::Registry;
use crate::reload::ReloadResult;
use crate::sessions::Sessions;
use crate::snapshot::HubSnapshot;
use crate::upstream::{Upstream, UpstreamError, UpstreamEvent};

mod apply;
mod approve;
pub use approve::{ApproveError, Approved};
mod discovery;
mod login;
mod mcp_registry;
pub use mcp_registry::{RegistryInstallError, wire_server as registry_server};
mod pending;
mod poll;
mod profiles;
mod projects;
pub(crate) use profiles::Refused;
mod publish;
mod servers;
mod staged;
pub use staged::{StagedError, StagedListing, list_staged_update};
mod tokens;
mod tool_mode;
mod vetting;
pub(crate) use tool_mode::SearchIndex;
mod warm;
mod watcher;

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

struct HubInner {
    /// The settings in force (fixed for the hub's lifetime).
    settings: Arc<Settings>,
    /// The listen address the config file asked for at start (`--listen` may
    /// override it), to tell whether a reload changed it.
    initial_listen: SocketAddr,
    config_path: Option<PathBuf>,
    /// Serializes reloads: one arriving mid-apply becomes one more pass.
    reload_lock: tokio::sync::Mutex<()>,
    config_error: Mutex<Option<ConfigError>>,
    last_reload: Mutex<Option<ReloadResult>>,
    registry: Registry,
    catalog: RwLock<Arc<Catalog>>,
    catalog_write: Mutex<()>,
    fresh: FreshCache,
    sessions: Sessions,
    snapshot: watch::Sender<Arc<HubSnapshot>>,
    events: mpsc::UnboundedSender<UpstreamEvent>,
    http: SharedHttp,
    /// This hub's instance id and listener, to never serve itself.
    identity: Arc<crate::identity::HubIdentity>,
    /// OAuth tokens (OS keyring), logins in progress, keyring secrets.
    auth: Arc<crate::auth::Auth>,
    /// Who may use the listener: the control token, dashboard sessions.
    access: Arc<crate::access::Access>,
    cancel: CancellationToken,
    tasks: TaskTracker,
    endpoint: String,
    started_at: SystemTime,
    watch_config: bool,
    /// Wakes the poller when an upstream's state changes.
    poller_wake: Arc<tokio::sync::Notify>,
    /// Wakes the warm-catalog writer when the catalog changes.
    catalog_changed: Arc<tokio::sync::Notify>,
    /// Token counts of the catalog's tools and the one counter's queue,
    /// counted off the request path after each rebuild (`hub/tokens.rs`).
    tokens: tokens::TokenCounter,
    /// The tool pins every listing passes through (`crate::pins`).
    pins: Arc<crate::pins::Pins>,
    /// The remotes being vetted without their secret headers, as the last
    /// applied config left them (`hub/vetting.rs`).
    withheld_headers: vetting::WithheldHeaders,
    /// The calls waiting for a person's approval (`crate::approval`).
    approvals: Arc<crate::approval::Pending>,
    /// Where the warm catalog is kept (`None` disables it).
    /// The home directory and Switchboard's own places, for the sandbox of
    /// stdio servers.
    sandbox_host: Arc<crate::sandbox::Host>,
    warm_catalog: Option<PathBuf>,
    /// The AI clients' servers for the import offer, given by the binary.
    import_source: std::sync::OnceLock<Arc<dyn crate::import::ImportSource>>,
    /// The activity log's recorder (see `crate::activity`).
    activity: Arc<crate::activity::Activity>,
    /// Each server's one cold-start wait for list requests (see
    /// [`HubHandle::merged_catalog`]): the fingerprint it was set for and
    /// when it ends.
    /// Search mode: the view in force, the search index, search mode's list.
    tool_mode: tool_mode::ToolModeState,
    /// The profiles (`/profiles/<name>/mcp`): configs and views served.
    profiles: profiles::ProfilesState,
    cold_deadlines: Mutex<
        std::collections::HashMap<
            ServerId,
            (crate::fingerprint::Fingerprint, tokio::time::Instant),
        >,
    >,
}

/// The one pooled HTTP client for remote servers and OAuth, built when first
/// needed: building it loads the system's root certificates (hundreds of
/// files, most of a hub's start-up time), which a hub of local servers never
/// needs. It follows redirects only within a server's origin and sends no
/// `Referer` (see `upstream::redirect`).
#[derive(Clone, Default)]
pub(crate) struct SharedHttp(Arc<std::sync::OnceLock<reqwest::Client>>);

impl SharedHttp {
    pub(crate) fn get(&self) -> reqwest::Client {
        self.0.get_or_init(crate::upstream::http_client).clone()
    }
}

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
    inner: Arc<HubInner>,
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
    /// (normally [`crate::persist::state_dir`]`/catalog.json`). The tool
    /// pins are kept beside it, in `pins.json`; without it, in memory.
    pub warm_catalog: Option<PathBuf>,
    /// Keep the control token in this file (normally
    /// [`crate::persist::state_dir`]`/control-token`); `None` keeps a new
    /// one in memory only (then only in-process callers have it).
    pub control_token: Option<PathBuf>,
    /// Keep the activity log in this file (normally
    /// [`crate::persist::state_dir`]`/activity.jsonl`); `None` keeps the
    /// newest calls in memory only.
    pub activity_log: Option<PathBuf>,
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
        let sandbox_host = Arc::new(crate::sandbox::Host {
            home: dirs::home_dir(),
            own: crate::sandbox::own_places(
                options.config_path.as_deref(),
                &[
                    options.warm_catalog.as_deref(),
                    options.activity_log.as_deref(),
                    options.control_token.as_deref(),
                ],
            ),
            os: None,
        });
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
            tokens: tokens::TokenCounter::default(),
            // The pins live beside the warm catalog; without one, in memory.
            pins: Arc::new(crate::pins::Pins::open(
                settings.tool_pinning,
                options
                    .warm_catalog
                    .as_ref()
                    .map(|path| path.with_file_name("pins.json")),
            )),
            sandbox_host,
            withheld_headers: vetting::WithheldHeaders::default(),
            approvals: Arc::default(),
            warm_catalog: options.warm_catalog,
            import_source: std::sync::OnceLock::new(),
            activity: Arc::new(crate::activity::Activity::new(
                options.activity_log,
                &settings,
            )),
            tool_mode: tool_mode::ToolModeState::new(&settings),
            profiles: profiles::ProfilesState::default(),
            cold_deadlines: Mutex::new(std::collections::HashMap::new()),
            registry: Registry::default(),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            catalog_write: Mutex::new(()),
            sessions: Sessions::new(Arc::new(crate::sessions::SessionTable::new(
                settings.max_sessions,
                settings.session_idle,
                events_tx.clone(),
            ))),
            snapshot: watch::Sender::new(Arc::new(HubSnapshot::default())),
            events: events_tx,
            http,
            identity: Arc::new(crate::identity::HubIdentity::new(local_addr)?),
            auth,
            access,
            cancel,
            tasks: TaskTracker::new(),
            endpoint,
            started_at: SystemTime::now(),
        });
        let handle = HubHandle { inner };
        let mut config = config;
        let refused = handle.vet(&mut config);
        if !refused.is_empty() {
            let mut result = crate::reload::ReloadResult {
                at: crate::snapshot::timestamp(SystemTime::now()),
                ..Default::default()
            };
            result.errors = refused;
            handle.set_last_reload(result);
        }
        let upstreams = config
            .servers
            .into_iter()
            .map(|server| Arc::new(handle.new_upstream(server)))
            .collect();
        handle.inner.registry.replace(upstreams);
        handle.load_warm_catalog();
        handle.set_profiles(config.profiles).await;
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

    /// Starts the hub's own work (event loop, config watcher, poller, warm
    /// catalog writer), serves the listener with `serve` (the HTTP layer,
    /// composed in `server`, so the hub does not depend on it) until
    /// `shutdown` resolves or serving stops, then closes every upstream with
    /// a deadline and waits for the hub's tasks. `serve` gets the handle, the
    /// listener, the token that stops it, and the tracker its background
    /// tasks join so shutdown waits for them.
    pub(crate) async fn serve_with<S, F>(
        self,
        serve: S,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError>
    where
        S: FnOnce(HubHandle, tokio::net::TcpListener, CancellationToken, &TaskTracker) -> F,
        F: Future<Output = std::io::Result<()>>,
    {
        let Self {
            handle,
            listener,
            events,
            ..
        } = self;
        let inner = handle.inner.clone();
        inner.tasks.spawn(publish::event_loop(
            handle.clone(),
            events,
            inner.cancel.clone(),
        ));

        if inner.watch_config
            && let Some(path) = inner.config_path.clone()
        {
            inner.tasks.spawn(watcher::watch_config(
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
        inner.tasks.spawn(tokens::run_counter(
            handle.clone(),
            inner.cancel.child_token(),
        ));
        inner.tasks.spawn(poll::run_poller(
            handle.clone(),
            inner.poller_wake.clone(),
            inner.cancel.child_token(),
        ));
        inner.tasks.spawn(crate::pins::save_loop(
            inner.pins.clone(),
            inner.cancel.child_token(),
        ));
        inner
            .tasks
            .spawn(inner.activity.clone().run(inner.cancel.child_token()));
        if let Some(path) = inner.warm_catalog.clone() {
            inner.tasks.spawn(warm::save_warm_catalog(
                handle.clone(),
                path,
                inner.cancel.child_token(),
            ));
        }
        let serve = serve(handle.clone(), listener, inner.cancel.clone(), &inner.tasks);
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

impl HubHandle {
    pub fn config_path(&self) -> Option<PathBuf> {
        self.inner.config_path.clone()
    }

    pub(crate) fn new_upstream(&self, server: crate::config::ServerConfig) -> Upstream {
        Upstream::new(
            server,
            self.inner.settings.clone(),
            self.inner.cancel.child_token(),
            {
                let http = self.inner.http.clone();
                Arc::new(move || http.get())
            },
            self.inner.identity.clone(),
            self.inner.auth.clone(),
            self.inner.events.clone(),
        )
        .with_pins(self.inner.pins.clone())
        .with_sandbox(self.inner.sandbox_host.clone())
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

    /// Enabled servers with a live connection.
    pub fn running_upstreams(&self) -> Vec<Arc<Upstream>> {
        self.inner
            .registry
            .enabled()
            .into_iter()
            .filter(|u| u.view().state == crate::upstream::ServerState::Ready)
            .collect()
    }

    /// Every enabled server, in config order.
    pub(crate) fn enabled_upstreams(&self) -> Vec<Arc<Upstream>> {
        self.inner.registry.enabled()
    }

    /// Runs `task` as a hub task: shutdown waits for it (with a deadline).
    pub(crate) fn spawn<F>(&self, task: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.tasks.spawn(task)
    }

    /// The tracker of the hub's tasks (waited for at shutdown).
    pub(crate) fn tasks(&self) -> &tokio_util::task::TaskTracker {
        &self.inner.tasks
    }

    /// The downstream MCP sessions.
    /// The activity log's recorder.
    pub(crate) fn activity(&self) -> &Arc<crate::activity::Activity> {
        &self.inner.activity
    }

    pub(crate) fn sessions(&self) -> &Sessions {
        &self.inner.sessions
    }

    /// Who may use the listener: the control token, dashboard sessions.
    pub(crate) fn access(&self) -> &Arc<crate::access::Access> {
        &self.inner.access
    }

    /// This hub's instance id and listener, to never serve itself.
    pub(crate) fn identity(&self) -> &Arc<crate::identity::HubIdentity> {
        &self.inner.identity
    }

    /// Cancelled when the hub shuts down; tasks of the hub's lifetime take a
    /// `child_token()` of it.
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Where OAuth tokens and secrets are kept.
    pub fn keyring(&self) -> crate::auth::KeyringKind {
        self.inner.auth.keyring()
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

/// A hub for unit tests: bound on an ephemeral loopback port, not serving,
/// its upstreams never started unless a test asks for it.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::Path;

    use super::{Hub, HubHandle, HubOptions};
    use crate::config;
    use crate::listing::{Capabilities, RefreshTrigger};

    /// A command no test machine has: starting it fails at once.
    pub(crate) const NO_SUCH_COMMAND: &str = "switchboard-test-no-such-command";

    /// A hub over the config `json` (`mcpServers` ...).
    pub(crate) async fn hub(json: &str) -> (Hub, HubHandle) {
        let mut config = config::load(config::Source::text(json, Path::new("t.json"))).unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let hub = Hub::bind(config, HubOptions::default()).await.unwrap();
        let handle = hub.handle();
        (hub, handle)
    }

    /// Gives server `id` a warm listing of `tools` (and one prompt `p`) and
    /// rebuilds the catalog, without starting it.
    pub(crate) fn listed(hub: &HubHandle, id: &str, tools: &[&str]) {
        let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
        caps.tools = tools
            .iter()
            .map(|name| {
                serde_json::from_value(
                    serde_json::json!({"name": name, "inputSchema": {"type": "object"}}),
                )
                .unwrap()
            })
            .collect();
        caps.prompts = vec![serde_json::from_value(serde_json::json!({"name": "p"})).unwrap()];
        hub.upstream(id).unwrap().set_warm_listing(caps);
        hub.rebuild_catalog();
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
