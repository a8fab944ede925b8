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
//! leaves no process of the server's process group behind.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ClientRequest,
    ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, Request, ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RoleClient, RoleServer, RunningService,
    ServiceError,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde::Serialize;
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::capabilities::{Capabilities, RefreshTrigger};
use crate::config::{ServerConfig, ServerId, Settings, TransportConfig};
use crate::fingerprint::Fingerprint;

/// How many stderr lines are kept per server.
const STDERR_LINES: usize = 200;
/// How many stderr lines an error message quotes.
const STDERR_TAIL_IN_ERRORS: usize = 5;
/// How long a closing stdio server gets after stdin is closed, and again after SIGTERM.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long closing a connection may take in all.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(6);

/// A server's lifecycle state as shown to people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ServerState {
    Disabled,
    Idle,
    Starting,
    Ready,
    Sleeping,
    Failed,
    AuthRequired,
}

/// Why an upstream could not serve a request. Each names the server.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    #[error("server '{server}' is disabled")]
    Disabled { server: ServerId },
    #[error("server '{server}' could not be started (`{command}`): {message}")]
    Spawn {
        server: ServerId,
        command: String,
        message: String,
    },
    #[error("server '{server}' exited{}", tail_suffix(.stderr_tail))]
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
    #[error("server '{server}' is unreachable at {url}: {message}")]
    Connect {
        server: ServerId,
        url: String,
        message: String,
    },
    #[error("server '{server}' requires authorization")]
    AuthRequired { server: ServerId },
    #[error("server '{server}' closed the connection")]
    Closed { server: ServerId },
    #[error("server '{server}' answered with an error: {}", .error.message)]
    Rpc { server: ServerId, error: ErrorData },
    #[error("server '{server}': {message}")]
    Protocol { server: ServerId, message: String },
    #[error("server '{server}' is shutting down")]
    ShuttingDown { server: ServerId },
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
            | Self::AuthRequired { server }
            | Self::Closed { server }
            | Self::Rpc { server, .. }
            | Self::Protocol { server, .. }
            | Self::ShuttingDown { server } => server,
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
        }
    }
}

/// The stderr of a stdio server, last lines kept.
#[derive(Debug, Default)]
pub struct StderrLog {
    lines: Mutex<VecDeque<String>>,
}

impl StderrLog {
    fn push(&self, line: String) {
        if let Ok(mut lines) = self.lines.lock() {
            if lines.len() == STDERR_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    /// The last `n` lines.
    pub fn tail(&self, n: usize) -> Vec<String> {
        self.lines
            .lock()
            .map(|lines| {
                lines
                    .iter()
                    .skip(lines.len().saturating_sub(n))
                    .cloned()
                    .collect()
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

/// What an upstream tells the hub.
#[derive(Debug, Clone)]
pub enum UpstreamEvent {
    /// State, error or pid changed: republish the snapshot.
    StateChanged,
    /// The server announced that a list changed: refresh it.
    ListChanged(ServerId),
}

/// A downstream request waiting on progress from an upstream request.
#[derive(Clone)]
struct ProgressRoute {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

type ProgressRoutes = Arc<Mutex<HashMap<ProgressToken, ProgressRoute>>>;

/// The rmcp client handler of one upstream connection.
struct UpstreamClient {
    server: ServerId,
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    progress: ProgressRoutes,
}

impl ClientHandler for UpstreamClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self
            .events
            .send(UpstreamEvent::ListChanged(self.server.clone()));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self
            .events
            .send(UpstreamEvent::ListChanged(self.server.clone()));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self
            .events
            .send(UpstreamEvent::ListChanged(self.server.clone()));
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self
            .progress
            .lock()
            .ok()
            .and_then(|routes| routes.get(&params.progress_token).cloned());
        if let Some(route) = route {
            let mut forwarded = params;
            forwarded.progress_token = route.token;
            if let Err(err) = route.peer.notify_progress(forwarded).await {
                tracing::debug!(server = %self.server, %err, "could not forward progress");
            }
        }
    }
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
    consecutive_failures: u32,
}

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
    http: reqwest::Client,
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    status: Mutex<Status>,
    stderr: Arc<StderrLog>,
    progress: ProgressRoutes,
    /// The last listing attempt, numbered by the order listings started in.
    refresh_lock: tokio::sync::Mutex<Option<(u64, ListOutcome)>>,
    list_seq: AtomicU64,
    generation: AtomicU64,
}

impl Upstream {
    pub(crate) fn new(
        config: ServerConfig,
        settings: Arc<Settings>,
        cancel: CancellationToken,
        http: reqwest::Client,
        events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    ) -> Self {
        let state = if config.enabled {
            ServerState::Idle
        } else {
            ServerState::Disabled
        };
        Self {
            id: config.id.clone(),
            fingerprint: Fingerprint::of(&config),
            config: std::sync::RwLock::new(Arc::new(config)),
            in_flight: AtomicU64::new(0),
            events_log: Mutex::new(VecDeque::new()),
            settings,
            cancel,
            http,
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
                consecutive_failures: 0,
            }),
            stderr: Arc::new(StderrLog::default()),
            progress: Arc::new(Mutex::new(HashMap::new())),
            refresh_lock: tokio::sync::Mutex::new(None),
            list_seq: AtomicU64::new(0),
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
        UpstreamView {
            state: status.state,
            last_error: status.last_error,
            pid: status.pid,
            capabilities: status.listing,
            stale: status.stale,
            last_ok_at: status.last_ok_at,
            last_failure_at: status.last_failure_at,
            consecutive_failures: status.consecutive_failures,
            stderr_tail: self.stderr.tail(20),
        }
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

    fn note(&self, level: &'static str, message: String) {
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
        self.update(|s| {
            if let Some(state) = state {
                s.state = state;
            }
            s.last_error = Some(Arc::from(err.to_string()));
            s.last_failure_at = Some(SystemTime::now());
            s.consecutive_failures = s.consecutive_failures.saturating_add(1);
        });
    }

    fn record_success(&self) {
        let needs_update = {
            let s = self.lock_status();
            s.consecutive_failures != 0 || s.last_error.is_some() || s.state != ServerState::Ready
        };
        if needs_update {
            self.update(|s| {
                s.state = ServerState::Ready;
                s.last_error = None;
                s.consecutive_failures = 0;
                s.last_ok_at = Some(SystemTime::now());
            });
        } else {
            self.lock_status().last_ok_at = Some(SystemTime::now());
        }
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
                self.update(|s| {
                    s.state = ServerState::Ready;
                    s.pid = pid;
                    s.last_error = None;
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
            progress: self.progress.clone(),
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
        env: &std::collections::BTreeMap<String, String>,
        cwd: Option<&std::path::Path>,
    ) -> Result<Connection, UpstreamError> {
        let mut wrapped = process_wrap::tokio::CommandWrap::with_new(command, |cmd| {
            cmd.args(args).envs(env);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
        });
        #[cfg(unix)]
        wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
        #[cfg(windows)]
        wrapped.wrap(process_wrap::tokio::JobObject);
        let (transport, stderr) = TokioChildProcess::builder(wrapped)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| UpstreamError::Spawn {
                server: self.id.clone(),
                command: command.to_string(),
                message: err.to_string(),
            })?;
        let pid = transport.id();
        let stderr_done = stderr.map(|stderr| {
            let log = self.stderr.clone();
            let server = self.id.clone();
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(target: "switchboard::upstream::stderr", server = %server, "{line}");
                    log.push(line);
                }
            })
        });
        match self.client().serve(transport).await {
            Ok(service) => Ok(self.watch(service, pid)),
            Err(err) => {
                // Give the stderr reader a moment to drain what the process said before dying.
                if let Some(done) = stderr_done {
                    let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
                }
                if let Some(pid) = pid {
                    kill_process_group(pid);
                }
                let tail = self.stderr.tail(STDERR_TAIL_IN_ERRORS).join(" | ");
                tracing::debug!(server = %self.id, error = %err, "stdio initialize failed");
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
        let config = StreamableHttpClientTransportConfig::with_uri(url)
            .custom_headers(custom)
            .reinit_on_expired_session(true)
            .max_concurrent_requests(256);
        let transport = StreamableHttpClientTransport::with_client(self.http.clone(), config);
        match self.client().serve(transport).await {
            Ok(service) => Ok(self.watch(service, None)),
            Err(err) => {
                if err.is_authorization_required() {
                    return Err(UpstreamError::AuthRequired {
                        server: self.id.clone(),
                    });
                }
                Err(UpstreamError::Connect {
                    server: self.id.clone(),
                    url: url.to_string(),
                    message: error_chain(&err),
                })
            }
        }
    }

    /// Hands the running service to a monitor task and returns the connection.
    fn watch(
        self: &Arc<Self>,
        service: RunningService<RoleClient, UpstreamClient>,
        pid: Option<u32>,
    ) -> Connection {
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
            let died = tokio::select! {
                _ = &mut waiting => true,
                _ = stop_for_task.cancelled() => false,
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
        }
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
                stderr_tail: self.stderr.tail(STDERR_TAIL_IN_ERRORS).join(" | "),
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
        let asked_at = self.list_seq.load(Ordering::SeqCst);
        let mut last = self.refresh_lock.lock().await;
        if let Some((seq, outcome)) = last.as_ref()
            && *seq > asked_at
        {
            return outcome.clone();
        }
        let seq = self.list_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let outcome = self.list_now(trigger).await;
        match &outcome {
            Ok(caps) => {
                let caps = caps.clone();
                self.update(|s| {
                    s.listing = Some(caps);
                    s.stale = false;
                });
            }
            Err(err) => {
                tracing::warn!(server = %self.id, error = %err, ?trigger, "listing failed");
                self.note("warn", format!("listing ({trigger:?}) failed: {err}"));
                self.update(|s| s.stale = s.listing.is_some());
            }
        }
        *last = Some((seq, outcome.clone()));
        outcome
    }

    async fn list_now(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        let conn = self.connection().await?;
        let timeout = self.call_timeout();
        let result = tokio::select! {
            r = tokio::time::timeout(timeout, Capabilities::list(&conn.peer, trigger)) => r,
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        match result {
            Ok(Ok(caps)) => {
                self.record_success();
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
        let mapped = match err {
            ServiceError::McpError(error) => {
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
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                // Wait briefly for the monitor to record why (exit status, stderr).
                let mut closed = conn.closed.clone();
                let _ = tokio::time::timeout(Duration::from_millis(500), closed.changed()).await;
                match &self.config().transport {
                    TransportConfig::Stdio { .. } => UpstreamError::ProcessExited {
                        server: self.id.clone(),
                        stderr_tail: self.stderr.tail(STDERR_TAIL_IN_ERRORS).join(" | "),
                    },
                    TransportConfig::Http { .. } => UpstreamError::Closed {
                        server: self.id.clone(),
                    },
                }
            }
            other => UpstreamError::Protocol {
                server: self.id.clone(),
                message: other.to_string(),
            },
        };
        match mapped {
            // The monitor records a dead connection once (`on_connection_lost`).
            UpstreamError::ProcessExited { .. } | UpstreamError::Closed { .. } => {}
            _ => self.record_failure(&mapped, None),
        }
        mapped
    }

    /// Sends one request, with the call timeout (reset by progress), progress
    /// forwarded to `progress_to`, and cancellation when `cancel` fires.
    async fn request(
        self: &Arc<Self>,
        request: ClientRequest,
        progress_to: Option<ProgressRoute>,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, UpstreamError> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let _in_flight = InFlight(&self.in_flight);
        let conn = self.connection().await?;
        let options =
            PeerRequestOptions::with_timeout(self.call_timeout()).reset_timeout_on_progress();
        let handle = conn
            .peer
            .send_request_with_option(request, options)
            .await
            .map_err(|err| UpstreamError::Protocol {
                server: self.id.clone(),
                message: err.to_string(),
            });
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
        let _route =
            progress_to.map(|route| ProgressGuard::new(&self.progress, upstream_token, route));
        let result = tokio::select! {
            r = handle.await_response() => r,
            _ = cancel.cancelled() => {
                let _ = conn.peer.notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                    Some(request_id),
                    Some("cancelled by the client".into()),
                )).await;
                return Err(UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: "request cancelled by the client".into(),
                });
            }
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        match result {
            Ok(result) => {
                self.record_success();
                Ok(result)
            }
            Err(err) => Err(self.service_failure(&conn, err).await),
        }
    }

    pub async fn call_tool(
        self: &Arc<Self>,
        params: CallToolRequestParams,
        downstream: Option<(Peer<RoleServer>, ProgressToken)>,
        cancel: &CancellationToken,
    ) -> Result<CallToolResponse, UpstreamError> {
        let request = ClientRequest::CallToolRequest(Request::new(params));
        match self.request(request, route(downstream), cancel).await? {
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
        downstream: Option<(Peer<RoleServer>, ProgressToken)>,
        cancel: &CancellationToken,
    ) -> Result<GetPromptResponse, UpstreamError> {
        let request = ClientRequest::GetPromptRequest(Request::new(params));
        match self.request(request, route(downstream), cancel).await? {
            ServerResult::GetPromptResult(r) => Ok(GetPromptResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(GetPromptResponse::InputRequired(r)),
            other => Err(self.unexpected(&other)),
        }
    }

    pub async fn read_resource(
        self: &Arc<Self>,
        params: ReadResourceRequestParams,
        downstream: Option<(Peer<RoleServer>, ProgressToken)>,
        cancel: &CancellationToken,
    ) -> Result<ReadResourceResponse, UpstreamError> {
        let request = ClientRequest::ReadResourceRequest(Request::new(params));
        match self.request(request, route(downstream), cancel).await? {
            ServerResult::ReadResourceResult(r) => Ok(ReadResourceResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(ReadResourceResponse::InputRequired(r)),
            other => Err(self.unexpected(&other)),
        }
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

fn route(downstream: Option<(Peer<RoleServer>, ProgressToken)>) -> Option<ProgressRoute> {
    downstream.map(|(peer, token)| ProgressRoute { peer, token })
}

/// Counts one request in flight until dropped.
struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Keeps a progress route registered for as long as its request runs.
struct ProgressGuard {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl ProgressGuard {
    fn new(routes: &ProgressRoutes, token: ProgressToken, route: ProgressRoute) -> Self {
        if let Ok(mut map) = routes.lock() {
            map.insert(token.clone(), route);
        }
        Self {
            routes: routes.clone(),
            token,
        }
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        if let Ok(mut map) = self.routes.lock() {
            map.remove(&self.token);
        }
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
fn error_chain(err: &dyn std::error::Error) -> String {
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
        for i in 0..(STDERR_LINES + 5) {
            log.push(format!("line {i}"));
        }
        assert_eq!(
            log.tail(2),
            vec![
                format!("line {}", STDERR_LINES + 3),
                format!("line {}", STDERR_LINES + 4)
            ]
        );
        assert_eq!(log.tail(10_000).len(), STDERR_LINES);
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
}
