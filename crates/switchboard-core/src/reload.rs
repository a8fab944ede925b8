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
//! [`watch_config`] reloads when [`ConfigWatch`] says the file changed (its
//! directory is watched, so editors that save by rename are seen; events are
//! debounced).
//! [`HubHandle::set_enabled`] edits the file through
//! [`crate::files::write_atomic`]: its mode, owner and symlink are kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::capabilities::RefreshTrigger;
use crate::config::{
    Config, ConfigError, ConfigWatch, EditError, LoadFor, process_env, set_server_enabled,
};
use crate::hub::HubHandle;
use crate::snapshot::timestamp;
use crate::upstream::Upstream;

/// What a reload did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ReloadResult {
    pub at: String,
    /// Servers new in the config (started lazily).
    pub added: Vec<String>,
    /// Servers whose connection-relevant fields changed: rebuilt.
    pub changed: Vec<String>,
    /// Servers with only catalog-level changes (e.g. `disabledTools`): updated in place.
    pub updated: Vec<String>,
    /// Servers gone from the config: shut down.
    pub removed: Vec<String>,
    pub unchanged: Vec<String>,
    /// Why the reload was refused, or settings that need a restart to apply.
    pub errors: Vec<String>,
}

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
        let loaded = Config::load_effective(&path, LoadFor::Reload, process_env);
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
        let mut in_force = self.settings().clone();
        in_force.listen = self.initial_listen();
        for name in in_force.changed_needing_restart(&config.settings) {
            result.errors.push(format!(
                "settings.{name} changed; restart Switchboard to apply it"
            ));
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
            // Refused on a file that does not parse: the person is mid-edit.
            let text = set_server_enabled(&bytes, &path, id, enabled).map_err(|err| match err {
                EditError::Config(err) => ReloadError::Config(err),
                EditError::UnknownServer(id) => ReloadError::UnknownServer(id),
            })?;
            write_atomically(&path, &text)?;
        }
        self.reload_from_file().await
    }
}

/// Writes `text` over the config atomically, keeping its mode, owner and
/// symlink ([`crate::files::write_atomic`]).
fn write_atomically(path: &Path, text: &str) -> Result<(), ReloadError> {
    crate::files::write_atomic(path, text.as_bytes(), crate::files::FileMode::Keep)
        .map(|_| ())
        .map_err(|err| ReloadError::Write {
            path: path.to_path_buf(),
            message: err.to_string(),
        })
}

/// Reloads the config file each time [`ConfigWatch`] says it changed, until
/// `cancel` fires.
pub(crate) async fn watch_config(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    let Some(mut watch) = ConfigWatch::start(&path) else {
        return;
    };
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            changed = watch.changed() => if !changed { break },
        }
        match hub.reload_from_file().await {
            Ok(result) => tracing::debug!(?result, "reloaded after file change"),
            Err(err) => tracing::debug!(%err, "reload after file change refused"),
        }
    }
}
