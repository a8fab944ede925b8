//! Config hot reload: apply a new config touching only what changed.
//!
//! [`HubHandle::apply_config`] diffs the desired servers against the running
//! ones by [`Fingerprint`](crate::fingerprint::Fingerprint):
//! - same fingerprint, same config → the running upstream is kept as is
//!   (same process, same session, in-flight calls untouched);
//! - same fingerprint, other config (only `disabledTools` or timeouts) → the
//!   config is swapped in place and the catalog rebuilt, nothing restarts;
//! - other fingerprint → a new upstream replaces the old one, which drains
//!   (in-flight calls finish or time out) and is then closed;
//! - gone from the file → removed from the catalog at once, then drained and
//!   shut down for real (process group included).
//!
//! Reloads are serialized by `reload_lock`: one arriving while another is
//! applied waits and becomes one more pass. [`HubHandle::reload_from_file`]
//! refuses an invalid file whole, and also a missing, empty or non-regular
//! one ([`Config::load_for_reload`]): the last good config keeps running
//! (same processes) and the snapshot carries the error (path, line, column)
//! until a valid file arrives. Only a valid file removes servers.
//! [`watch_config`] reloads when the file changes (its directory is watched,
//! so editors that save by rename are seen; events are debounced).
//! [`HubHandle::set_enabled`] edits the file through
//! [`crate::files::write_atomic`]: its mode, owner and symlink are kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::capabilities::RefreshTrigger;
use crate::config::{Config, ConfigError};
use crate::hub::HubHandle;
use crate::snapshot::timestamp;
use crate::upstream::Upstream;

/// How long file events are collected before a reload.
const DEBOUNCE: Duration = Duration::from_millis(250);

/// What a reload did (a wire type).
pub use switchboard_api::ReloadResult;

/// Why a reload could not run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReloadError {
    #[error("the hub was started without a config file")]
    NoConfigFile,
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("no server with id '{0}'")]
    UnknownServer(String),
    #[error("cannot write {path}: {message}")]
    Write { path: PathBuf, message: String },
}

impl HubHandle {
    /// Re-reads the config file and applies it; an invalid file is refused
    /// whole and reported in the snapshot until it is fixed.
    pub async fn reload_from_file(&self) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        let _pass = self.inner.reload_lock.lock().await;
        let loaded = Config::load_for_reload(&path).and_then(|mut config| {
            config.settings.apply_env(|name| std::env::var(name).ok())?;
            Ok(config)
        });
        match loaded {
            Ok(config) => {
                self.set_config_error(None);
                Ok(self.apply_locked(config))
            }
            Err(err) => {
                tracing::warn!(error = %err, "config refused; the last good config keeps running");
                self.set_config_error(Some(err.clone()));
                Err(err.into())
            }
        }
    }

    /// Applies `config` (see the module docs).
    pub async fn apply_config(&self, config: Config) -> ReloadResult {
        let _pass = self.inner.reload_lock.lock().await;
        self.apply_locked(config)
    }

    fn apply_locked(&self, config: Config) -> ReloadResult {
        let mut result = ReloadResult {
            at: timestamp(std::time::SystemTime::now()),
            ..ReloadResult::default()
        };
        let running = self.inner.registry.all();
        let mut next: Vec<Arc<Upstream>> = Vec::with_capacity(config.servers.len());
        let mut retire: Vec<Arc<Upstream>> = Vec::new();
        for server in config.servers {
            let id = server.id.to_string();
            match running.iter().find(|u| u.id == server.id) {
                Some(current)
                    if current.fingerprint() == crate::fingerprint::Fingerprint::of(&server) =>
                {
                    if *current.config() == server {
                        result.unchanged.push(id);
                    } else {
                        current.set_config(server);
                        if let Some(caps) = current.capabilities() {
                            let versions = crate::gateway::pass_through_versions(current, &caps);
                            self.inner.sessions.announce_server(
                                &current.id,
                                versions,
                                &self.inner.tasks,
                            );
                        }
                        result.updated.push(id);
                    }
                    next.push(current.clone());
                }
                Some(current) => {
                    let rebuilt = Arc::new(self.new_upstream(server));
                    if rebuilt.is_enabled()
                        && let Some(caps) = current.capabilities()
                    {
                        rebuilt.carry_listing(caps);
                    }
                    retire.push(current.clone());
                    next.push(rebuilt);
                    result.changed.push(id);
                }
                None => {
                    next.push(Arc::new(self.new_upstream(server)));
                    result.added.push(id);
                }
            }
        }
        for upstream in &running {
            if !next.iter().any(|u| u.id == upstream.id) {
                result.removed.push(upstream.id.to_string());
                retire.push(upstream.clone());
            }
        }
        // Settings are fixed for the hub's lifetime: report any the file now
        // sets differently from what is in force (listen: from what the file
        // said at start, since `--listen` may override it).
        let settings = self.settings();
        for (name, differs) in [
            ("listen", config.settings.listen != self.initial_listen()),
            (
                "cacheTtlSecs",
                config.settings.cache_ttl != settings.cache_ttl,
            ),
            (
                "cacheMaxEntries",
                config.settings.cache_max_entries != settings.cache_max_entries,
            ),
            (
                "pollIntervalSecs",
                config.settings.poll_interval != settings.poll_interval,
            ),
            (
                "startupTimeoutSecs",
                config.settings.startup_timeout != settings.startup_timeout,
            ),
            (
                "callTimeoutSecs",
                config.settings.call_timeout != settings.call_timeout,
            ),
            (
                "coldListTimeoutMs",
                config.settings.cold_list_timeout != settings.cold_list_timeout,
            ),
            (
                "idleShutdownSecs",
                config.settings.idle_shutdown != settings.idle_shutdown,
            ),
            (
                "builtinTools",
                config.settings.builtin_tools != settings.builtin_tools,
            ),
            (
                "maxSessions",
                config.settings.max_sessions != settings.max_sessions,
            ),
            (
                "sessionIdleSecs",
                config.settings.session_idle != settings.session_idle,
            ),
            (
                "maxConnections",
                config.settings.max_connections != settings.max_connections,
            ),
            (
                "headerTimeoutSecs",
                config.settings.header_timeout != settings.header_timeout,
            ),
        ] {
            if differs {
                result.errors.push(format!(
                    "settings.{name} changed; restart Switchboard to apply it"
                ));
            }
        }

        self.inner.registry.replace(next);
        for upstream in &retire {
            let fresh = self.inner.fresh.clone();
            let id = upstream.id.clone();
            let upstream = upstream.clone();
            let drain = self.settings().call_timeout;
            self.inner.tasks.spawn(async move {
                fresh.invalidate(&id).await;
                upstream.drain_and_retire(drain).await;
            });
        }
        self.rebuild_catalog();
        self.set_last_reload(result.clone());
        tracing::info!(
            added = ?result.added,
            changed = ?result.changed,
            updated = ?result.updated,
            removed = ?result.removed,
            unchanged = result.unchanged.len(),
            "config applied"
        );
        // Rebuilt servers that had been listed are listed again right away, so
        // their tools do not vanish from clients until the next list.
        for id in result.changed.iter().filter_map(|id| self.upstream(id)) {
            if !id.is_enabled() {
                continue;
            }
            let hub = self.clone();
            let server = id.id.clone();
            if id.capabilities().is_some() {
                self.inner.tasks.spawn(async move {
                    let _ = hub.refresh(&server, RefreshTrigger::Reload).await;
                });
            }
        }
        result
    }

    /// Sets `enabled` for server `id` in the config file (keeping everything
    /// else in it as it was) and applies the file.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes =
                crate::config::read_config_file(&path)?.ok_or_else(|| ConfigError::Missing {
                    path: path.clone(),
                    message: "the config file is missing (deleted or moved away)".into(),
                })?;
            // Refuse to edit a file that does not parse: the person is mid-edit.
            Config::parse_bytes(&bytes, &path)?;
            let text = String::from_utf8_lossy(&bytes);
            let mut doc: serde_json::Value =
                serde_json::from_str(&text).map_err(|err| ConfigError::Invalid {
                    path: path.clone(),
                    line: err.line(),
                    column: err.column(),
                    message: err.to_string(),
                })?;
            let entry = doc
                .get_mut("mcpServers")
                .and_then(|servers| servers.get_mut(id))
                .and_then(|entry| entry.as_object_mut())
                .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
            if enabled {
                entry.remove("enabled");
            } else {
                entry.insert("enabled".into(), serde_json::Value::Bool(false));
            }
            write_atomically(&path, &doc)?;
        }
        self.reload_from_file().await
    }
}

/// Writes `doc` as pretty JSON over the config atomically, keeping its mode,
/// owner and symlink ([`crate::files::write_atomic`]).
fn write_atomically(path: &Path, doc: &serde_json::Value) -> Result<(), ReloadError> {
    let fail = |err: std::io::Error| ReloadError::Write {
        path: path.to_path_buf(),
        message: err.to_string(),
    };
    let mut text = serde_json::to_string_pretty(doc).map_err(|e| fail(e.into()))?;
    text.push('\n');
    crate::files::write_atomic(path, text.as_bytes(), crate::files::FileMode::Keep)
        .map(|_| ())
        .map_err(fail)
}

/// Whether a file event can mean new content: creation, removal, a write or a
/// rename; not an access or a metadata change.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(access) => {
            // A file closed after writing is the end of a save.
            matches!(
                access,
                notify::event::AccessKind::Close(notify::event::AccessMode::Write)
            )
        }
        EventKind::Any | EventKind::Other => false,
    }
}

/// Watches the config file and reloads it on change until `cancel` fires.
pub(crate) async fn watch_config(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    use notify::{RecursiveMode, Watcher};
    let Some(dir) = path.parent().map(Path::to_path_buf) else {
        return;
    };
    let Some(name) = path.file_name().map(|n| n.to_os_string()) else {
        return;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let watched_name = name.clone();
    let handler = move |event: notify::Result<notify::Event>| {
        // Reading the file (our own reload included) must not trigger a reload.
        if let Ok(event) = event
            && changes_content(&event.kind)
            && event
                .paths
                .iter()
                .any(|p| p.file_name() == Some(watched_name.as_os_str()))
        {
            let _ = tx.send(());
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(err) => {
            tracing::warn!(%err, "cannot watch the config file; use `switchboard reload`");
            return;
        }
    };
    if let Err(err) = crate::files::private_dir(&dir)
        .map_err(notify::Error::io)
        .and_then(|()| watcher.watch(&dir, RecursiveMode::NonRecursive))
    {
        tracing::warn!(%err, dir = %dir.display(), "cannot watch the config directory");
        return;
    }
    tracing::debug!(path = %path.display(), "watching config");
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            event = rx.recv() => {
                if event.is_none() {
                    break;
                }
            }
        }
        // Debounce: let a burst of events (write, rename, chmod) settle.
        loop {
            tokio::select! {
                () = tokio::time::sleep(DEBOUNCE) => break,
                more = rx.recv() => if more.is_none() { break },
            }
        }
        match hub.reload_from_file().await {
            Ok(result) => tracing::debug!(?result, "reloaded after file change"),
            Err(err) => tracing::debug!(%err, "reload after file change refused"),
        }
    }
    drop(watcher);
}
