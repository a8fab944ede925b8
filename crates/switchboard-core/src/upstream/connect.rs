//! Starting and ending the connection to one server: a stdio child in its
//! own process group, a Streamable HTTP session or a legacy SSE one, handing
//! it to its monitor task (`link.rs`), closing it, the idle sleep, and what a
//! lost connection or a lost authorization does.
//!
//! `Upstream::connection` is the only way in: it starts the server when
//! there is no live connection (one start for concurrent first uses, under
//! the connection slot's lock) and records the outcome in the status. These
//! are `Upstream` methods because a start uses every owner: the slot, the
//! status cell, the stderr ring, the traffic's call table and the
//! subscriptions' notification queue.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::service::ClientServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::client::UpstreamClient;
use crate::limiter::Limiter;

use super::launch;
use super::link::Connection;
use super::login;
use super::process::guard::Guard;
use super::process::kill_process_group;
use super::status::STDERR_TAIL_IN_ERRORS;
use super::stdio::{self, StdioHealth};
use super::{ServerState, Upstream, UpstreamError, UpstreamEvent, describe};
use crate::config::TransportConfig;
use crate::util::humanize;
use crate::util::redact;

/// "upstream failed to start" lines: 20 per 10 s across all servers.
static START_FAILED: Limiter = Limiter::new(20, Duration::from_secs(10));

impl Upstream {
    /// The live connection, started now if there is none.
    pub(super) async fn connection(self: &Arc<Self>) -> Result<Arc<Connection>, UpstreamError> {
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
        self.status.admit()?;
        let mut slot = self.link.lock().await;
        if let Some(conn) = slot.as_ref() {
            if !conn.peer.is_transport_closed() && !conn.stop.is_cancelled() {
                return Ok(conn.clone());
            }
            *slot = None;
        }
        self.status.update(|s| {
            s.state = ServerState::Starting;
            s.pid = None;
        });
        let started = Instant::now();
        let connected = tokio::select! {
            result = tokio::time::timeout(self.startup_timeout(), self.connect_negotiated()) => match result {
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
                    pid = conn.pid,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "upstream connected"
                );
                let conn = Arc::new(conn);
                self.status.note(
                    "info",
                    match conn.pid {
                        Some(pid) => format!("started (pid {pid})"),
                        None => "connected".to_string(),
                    },
                );
                *slot = Some(conn.clone());
                let pid = conn.pid;
                let poll = super::schedule::first_poll_delay(
                    self.settings.poll_interval,
                    self.fingerprint.as_u64(),
                );
                if self.status.lock().unverified {
                    let _ = self.events.send(UpstreamEvent::Verify(self.id.clone()));
                }
                self.status.update(|s| {
                    s.state = ServerState::Ready;
                    s.pid = pid;
                    s.last_error = None;
                    s.next_poll_at = poll.and_then(|d| tokio::time::Instant::now().checked_add(d));
                });
                Ok(conn)
            }
            Err(err) => {
                // Each server's failure is in its status; the log gets a
                // burst, then a count (1,000 unreachable servers, 3 tries each).
                crate::limited!(
                    START_FAILED,
                    warn,
                    "upstream failed to start",
                    server = %self.id,
                    error = %err,
                    "upstream failed to start"
                );
                self.status.note("error", format!("start failed: {err}"));
                let state = if matches!(err, UpstreamError::AuthRequired { .. }) {
                    ServerState::AuthRequired
                } else {
                    ServerState::Failed
                };
                self.status.record_failure(&err, Some(state));
                Err(err)
            }
        }
    }

    /// Starts the server ahead of a call that is likely to follow (a search
    /// found one of its tools): counts as a use, so idle shutdown starts
    /// counting from now; a failure is in the status as for any start.
    pub(crate) async fn warm(self: &Arc<Self>) {
        self.status.touch();
        if let Err(err) = self.connection().await {
            tracing::debug!(server = %self.id, error = %err, "warming after a search failed");
        }
    }

    pub(super) fn client(&self) -> UpstreamClient {
        UpstreamClient {
            server: self.id.clone(),
            events: self.events.clone(),
            calls: self.traffic.calls().clone(),
            inbound: self.subscriptions.inbound(),
        }
    }

    /// Connects; a server that just turned out to want the legacy
    /// `initialize` (see `version.rs`) is started once more that way.
    async fn connect_negotiated(self: &Arc<Self>) -> Result<Connection, UpstreamError> {
        let was_legacy = self.link.is_legacy();
        let first = self.connect().await;
        if first.is_err() && !was_legacy && self.link.is_legacy() {
            return self.connect().await;
        }
        first
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
            TransportConfig::Http {
                url,
                headers,
                sse: true,
            } => self.connect_sse(url, headers).await,
            TransportConfig::Http { url, headers, .. } => self.connect_http(url, headers).await,
        }
    }

    pub(super) async fn connect_stdio(
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
        let server_path = env
            .iter()
            .find(|(name, _)| launch::is_path_variable(name))
            .map(|(_, value)| value.as_str());
        let launch =
            launch::resolve(command, server_path)
                .await
                .map_err(|err| UpstreamError::Spawn {
                    server: self.id.clone(),
                    command: command.to_string(),
                    message: err.to_string(),
                })?;
        let instance = self.identity.instance.clone();
        let config = self.config();
        let prepared = self
            .sandbox
            .prepare(&config, self.settings.sandbox, &launch, args, env, cwd)
            .map_err(|message| UpstreamError::Spawn {
                server: self.id.clone(),
                command: command.to_string(),
                message,
            })?;
        let mut wrapped = process_wrap::tokio::CommandWrap::with_new(&prepared.program, |cmd| {
            // The sandbox's wrapper (helper or `sandbox-exec`) and the
            // server's own program come first.
            cmd.args(&prepared.prefix).args(&launch.prefix);
            for name in &prepared.env_remove {
                cmd.env_remove(name);
            }
            if let Some(path) = &launch.path {
                cmd.env("PATH", path);
            }
            for (name, value) in &prepared.env_set {
                cmd.env(name, value);
            }
            // A `switchboard stdio` bridge started by this hub sends it back
            // (see `identity`), so a bridge to this very hub is refused.
            cmd.args(args)
                .env(crate::identity::VIA_ENV, &*instance)
                .envs(env);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
        });
        let private_tmp = prepared.private_tmp;
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
        let guard = pid.and_then(Guard::spawn);
        if let Some(guard) = &guard {
            tracing::debug!(server = %self.id, pid = ?pid, guard = ?guard.pid(), "process guard started");
        }
        let run = self.status.stderr().start_run();
        let stderr_done = stderr.map(|stderr| {
            let log = self.status.stderr().clone();
            let server = self.id.clone();
            let this = Arc::downgrade(self);
            let mut first = true;
            tokio::spawn(stdio::read_stderr(stderr, move |line| {
                // The sandbox helper's report is the first line of a start;
                // any later line that looks like one is the server's own.
                if std::mem::take(&mut first)
                    && let Some(report) = crate::sandbox::Report::parse(&line)
                {
                    if let Some(upstream) = this.upgrade() {
                        upstream.sandbox.on_report(&server, report);
                    }
                    return;
                }
                if let Some(upstream) = this.upgrade() {
                    upstream.sandbox.on_line(&server, &line);
                }
                tracing::debug!(target: "switchboard::upstream::stderr", server = %server, "{}", redact::text(&line));
                log.push(run, &line);
            }))
        });
        match self
            .client()
            .serve_with_lifecycle(transport, self.link.lifecycle())
            .await
        {
            Ok(service) => Ok(self.watch(service, pid, Some((health, guard, private_tmp)))),
            Err(err) => {
                self.link.note_version_refusal(&self.id, &err);
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
                drop(private_tmp);
                let mut tail = self.status.stderr().run_tail(STDERR_TAIL_IN_ERRORS);
                if let Some(denial) = self.sandbox.last_denial() {
                    tail = format!("{denial}\n{tail}");
                }
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

    /// A URL that leads back to this hub is refused before anything is sent.
    pub(super) fn refuse_own_address(&self, url: &str) -> Result<(), UpstreamError> {
        if self.identity.is_own_address(url) {
            return Err(UpstreamError::SelfReference {
                server: self.id.clone(),
                url: url.to_string(),
            });
        }
        Ok(())
    }

    /// The configured headers of a remote server (Streamable HTTP or SSE),
    /// marked sensitive, plus the header naming this hub (so that a URL
    /// leading back to it by another way, a forwarded port or another name,
    /// is answered 508 by its listener). `{"keyring": "<name>"}` values are
    /// read now, as for a stdio server's env: a changed secret applies at the
    /// next connect.
    pub(super) async fn request_headers(
        &self,
        headers: &std::collections::BTreeMap<String, crate::config::ConfigValue>,
    ) -> Result<http::HeaderMap, UpstreamError> {
        let mut map = http::HeaderMap::new();
        for (name, value) in headers {
            let value = self
                .auth
                .resolve(value)
                .await
                .map_err(|err| UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: format!("header {name}: {err}"),
                })?;
            let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| {
                UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: format!("header {name:?}: {e}"),
                }
            })?;
            // The value itself is never quoted: it may be a secret.
            let mut value =
                http::HeaderValue::from_str(&value).map_err(|_| UpstreamError::Protocol {
                    server: self.id.clone(),
                    message: format!(
                        "the value of header {name} has characters an HTTP header cannot carry"
                    ),
                })?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        if let Ok(value) = http::HeaderValue::from_str(&self.identity.instance) {
            map.insert(
                http::HeaderName::from_static(crate::identity::VIA_HEADER),
                value,
            );
        }
        Ok(map)
    }

    /// The stored OAuth login to send with requests to `url`, if any; none
    /// when a configured `Authorization` header is the person's own scheme.
    pub(super) async fn stored_login(
        &self,
        url: &str,
        headers: &std::collections::BTreeMap<String, crate::config::ConfigValue>,
    ) -> Result<Option<crate::auth::Authorized>, UpstreamError> {
        if headers
            .keys()
            .any(|h| h.eq_ignore_ascii_case("authorization"))
        {
            return Ok(None);
        }
        let server_config = self.config();
        self.auth
            .authorized_client(&self.id, url, server_config.oauth.as_ref(), (self.http)())
            .await
            .map_err(|err| login::setup_error(&self.id, url, err))
    }

    pub(super) async fn connect_http(
        self: &Arc<Self>,
        url: &str,
        headers: &std::collections::BTreeMap<String, crate::config::ConfigValue>,
    ) -> Result<Connection, UpstreamError> {
        self.refuse_own_address(url)?;
        let custom: HashMap<_, _> = self
            .request_headers(headers)
            .await?
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let config = StreamableHttpClientTransportConfig::with_uri(url)
            .custom_headers(custom)
            .reinit_on_expired_session(true)
            .max_concurrent_requests(256);
        let authorized = self.stored_login(url, headers).await?;
        let (served, refresher) = match authorized {
            Some(authorized) => {
                let refresher = authorized.refresher();
                let transport =
                    StreamableHttpClientTransport::with_client(authorized.client, config);
                (
                    self.client()
                        .serve_with_lifecycle(transport, self.link.lifecycle())
                        .await,
                    Some(refresher),
                )
            }
            None => {
                let transport = StreamableHttpClientTransport::with_client((self.http)(), config);
                (
                    self.client()
                        .serve_with_lifecycle(transport, self.link.lifecycle())
                        .await,
                    None,
                )
            }
        };
        match served {
            Ok(service) => {
                let conn = self.watch(service, None, None);
                self.keep_login_fresh(&conn, refresher);
                Ok(conn)
            }
            Err(err) => {
                self.link.note_version_refusal(&self.id, &err);
                if err.is_authorization_required() {
                    let server_auth = self.auth.server(&self.id);
                    server_auth.set_challenge(err.auth_challenge());
                    return Err(UpstreamError::AuthRequired {
                        server: self.id.clone(),
                        reason: login::reason(&self.auth, &self.id),
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

    /// Connects to a legacy HTTP+SSE server: headers and a stored OAuth login
    /// as for Streamable HTTP, then the MCP handshake over the new session.
    async fn connect_sse(
        self: &Arc<Self>,
        url: &str,
        headers: &std::collections::BTreeMap<String, crate::config::ConfigValue>,
    ) -> Result<Connection, UpstreamError> {
        self.refuse_own_address(url)?;
        let header_map = self.request_headers(headers).await?;
        let authorized = self.stored_login(url, headers).await?;
        let refresher = authorized.as_ref().map(|a| a.refresher());
        let session = super::sse_client::Session {
            http: (self.http)(),
            headers: header_map,
            auth: authorized.map(|a| a.client),
            timeout: self.call_timeout(),
        };
        let transport = super::sse_client::open_session(&self.id, url, session, &self.auth).await?;
        let service =
            self.client()
                .serve(transport)
                .await
                .map_err(|err| UpstreamError::Connect {
                    server: self.id.clone(),
                    url: redact::url(url),
                    message: describe::init_failure(&err),
                })?;
        let conn = self.watch(service, None, None);
        self.keep_login_fresh(&conn, refresher);
        Ok(conn)
    }

    /// Refreshes a remote connection's OAuth tokens while it lives; when a
    /// refresh is refused, the connection is closed to wait for a login.
    fn keep_login_fresh(
        self: &Arc<Self>,
        conn: &Connection,
        refresher: Option<crate::auth::Refresher>,
    ) {
        let Some((manager, server_auth)) = refresher else {
            return;
        };
        let this = Arc::downgrade(self);
        let stop = conn.stop.clone();
        let generation = conn.generation;
        tokio::spawn(async move {
            let Some(reason) = crate::auth::keep_fresh(manager, server_auth, stop).await else {
                return;
            };
            if let Some(upstream) = this.upgrade() {
                upstream.auth_lost(generation, reason).await;
            }
        });
    }

    /// Hands the running service to a monitor task and returns the connection.
    pub(super) fn watch(
        self: &Arc<Self>,
        service: RunningService<RoleClient, UpstreamClient>,
        pid: Option<u32>,
        stdio: Option<(Arc<StdioHealth>, Option<Guard>, Option<tempfile::TempDir>)>,
    ) -> Connection {
        let (health, guard, private_tmp) = match stdio {
            Some((health, guard, tmp)) => (Some(health), guard, tmp),
            None => (None, None, None),
        };
        let peer = service.peer().clone();
        let stop = self.cancel.child_token();
        super::listen::spawn(self, peer.clone(), service.service().clone(), stop.clone());
        let (closed_tx, closed_rx) = tokio::sync::watch::channel(());
        let generation = self.link.next_generation();
        let monitor = super::link::Monitor {
            service,
            pid,
            health: health.clone(),
            guard,
            private_tmp,
            stop: stop.clone(),
            generation,
            upstream: Arc::downgrade(self),
            closed: closed_tx,
        };
        tokio::spawn(monitor.run());
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
    pub(super) fn stdin_stuck_error(&self, health: &StdioHealth) -> UpstreamError {
        UpstreamError::StdinStuck {
            server: self.id.clone(),
            after: health.stall_limit(),
        }
    }

    /// Marks the server failed because its stdin is stuck (once per process).
    pub(super) fn report_stdin_stuck(&self, health: &StdioHealth) {
        if !health.take_stuck_report() {
            return;
        }
        let err = self.stdin_stuck_error(health);
        tracing::warn!(server = %self.id, error = %err, "stdin stuck; closing the server");
        self.status.note("error", err.to_string());
        self.status.record_failure(&err, Some(ServerState::Failed));
    }

    /// The connection ended without being asked to.
    pub(super) async fn on_connection_lost(&self, generation: u64) {
        // Let the stderr reader catch the last words.
        tokio::time::sleep(Duration::from_millis(50)).await;
        if self.link.take_if(generation).await.is_none() {
            return;
        }
        let err = match &self.config().transport {
            TransportConfig::Stdio { .. } => UpstreamError::ProcessExited {
                server: self.id.clone(),
                stderr_tail: self.status.stderr().run_tail(STDERR_TAIL_IN_ERRORS),
            },
            TransportConfig::Http { sse: true, .. } => UpstreamError::SseClosed {
                server: self.id.clone(),
            },
            TransportConfig::Http { .. } => UpstreamError::Closed {
                server: self.id.clone(),
            },
        };
        tracing::warn!(server = %self.id, error = %err, "upstream connection lost");
        self.status.note("error", format!("connection lost: {err}"));
        self.status.record_failure(&err, Some(ServerState::Failed));
        self.status.update(|s| s.pid = None);
    }

    /// Stops a stdio server nobody has used for `idle_shutdown` (keeping its
    /// lists); returns true if it did. A call wakes it again.
    pub(crate) async fn sleep_if_idle(&self, idle_shutdown: Duration) -> bool {
        if !self.idle_due(idle_shutdown) {
            return false;
        }
        tracing::info!(server = %self.id, "idle; stopping until next use");
        self.status.note(
            "info",
            format!("idle for {}; sleeping", humanize(idle_shutdown)),
        );
        self.close().await;
        self.status.update(|s| {
            if s.state == ServerState::Idle {
                s.state = ServerState::Sleeping;
            }
        });
        true
    }

    /// Closes the connection, if any, and waits until its process group is gone.
    pub async fn close(&self) {
        if self.link.close().await {
            tracing::info!(server = %self.id, "upstream closed");
            self.status.note("info", "stopped".to_string());
        }
        self.status.update(|s| {
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

    /// The tokens of connection `generation` stopped working (a refresh was
    /// refused): close it and wait for a login.
    pub(super) async fn auth_lost(&self, generation: u64, reason: String) {
        if let Some(conn) = self.link.take_if(generation).await {
            conn.stop.cancel();
        }
        self.set_auth_required(reason);
    }
}
