//! Config reload, the doing half: reads the file (refusing an invalid one
//! whole), asks [`crate::reload::plan`] what to do and carries the plan out.
//!
//! Reloads are serialized by `reload_lock`: one arriving while another is
//! applied waits and becomes one more pass. [`HubHandle::reload_from_file`]
//! refuses an invalid file whole, and also a missing, empty or non-regular
//! one ([`config::load`] of a [`Source::reload`]): the last good config keeps running
//! (same processes) and the snapshot carries the error (path, line, column)
//! until a valid file arrives. Only a valid file removes servers. A rebuilt
//! or removed upstream drains (in-flight calls finish or time out) and is
//! then closed, process group included. [`HubHandle::set_enabled`] edits the
//! file through [`crate::util::files::write_atomic`]: its mode, owner and symlink
//! are kept.

use std::path::Path;
use std::sync::Arc;

use super::HubHandle;
use crate::config::{
    self, Config, ConfigError, EditError, ServerId, Source, process_env, set_server_enabled,
};
use crate::listing::RefreshTrigger;
use crate::reload::{self, Action, ReloadError, ReloadResult, Running, RunningServer, Step};
use crate::snapshot::timestamp;
use crate::upstream::Upstream;

impl HubHandle {
    /// Re-reads the config file and applies it; an invalid file is refused
    /// whole and reported in the snapshot until it is fixed.
    pub async fn reload_from_file(&self) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        let _pass = self.inner.reload_lock.lock().await;
        let loaded = config::load(Source::reload(&path).overrides(&process_env));
        match loaded {
            Ok(config) => {
                self.set_config_error(None);
                let profiles = config.profiles.clone();
                let result = self.apply_locked(config);
                self.set_profiles(profiles).await;
                Ok(result)
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
        let profiles = config.profiles.clone();
        let result = self.apply_locked(config);
        self.set_profiles(profiles).await;
        result
    }

    /// Carries out the plan from what runs to `config`: computes the next
    /// set of upstreams, swaps it in, retires what left, then publishes the
    /// outcome once (catalog, last reload, snapshot).
    fn apply_locked(&self, mut config: Config) -> ReloadResult {
        let refused = self.vet(&mut config);
        let running = self.inner.registry.all();
        let views: Vec<RunningServer> = running
            .iter()
            .map(|u| RunningServer {
                id: u.id.clone(),
                fingerprint: u.fingerprint(),
                config: u.config(),
            })
            .collect();
        let plan = reload::plan(
            Running {
                servers: &views,
                settings: &self.inner.settings,
                initial_listen: self.inner.initial_listen,
            },
            &config,
        );
        let mut result = plan.result(timestamp(std::time::SystemTime::now()));
        result.errors.extend(refused);
        let find = |id: &ServerId| running.iter().find(|u| u.id == *id);
        let mut next: Vec<Arc<Upstream>> = Vec::with_capacity(plan.servers.len());
        let mut retire: Vec<Arc<Upstream>> = Vec::new();
        for Step { server, action } in plan.servers {
            match (action, find(&server.id)) {
                (Action::Keep, Some(current)) => next.push(current.clone()),
                (Action::Update, Some(current)) => {
                    current.set_config(server);
                    if let Some(caps) = current.capabilities() {
                        let versions = caps.pass_through_versions(&current.config().disabled_tools);
                        self.inner.sessions.announce_server(
                            &current.id,
                            versions,
                            &self.inner.tasks,
                        );
                    }
                    next.push(current.clone());
                }
                (Action::Restart, Some(current)) => {
                    let rebuilt = Arc::new(self.new_upstream(server));
                    if rebuilt.is_enabled()
                        && let Some(caps) = current.raw_capabilities()
                    {
                        rebuilt.carry_listing(caps);
                    }
                    retire.push(current.clone());
                    next.push(rebuilt);
                }
                // Start (the plan saw no running server of this id).
                _ => next.push(Arc::new(self.new_upstream(server))),
            }
        }
        retire.extend(plan.stop.iter().filter_map(|id| find(id).cloned()));

        self.inner.registry.replace(next);
        for upstream in retire {
            let fresh = self.inner.fresh.clone();
            let drain = self.inner.settings.call_timeout;
            self.inner.tasks.spawn(async move {
                fresh.invalidate(&upstream.id).await;
                upstream.drain_and_retire(drain).await;
            });
        }
        self.rebuild_catalog();
        self.set_tool_view(&config.settings);
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
        for upstream in result.changed.iter().filter_map(|id| self.upstream(id)) {
            if upstream.is_enabled() && upstream.capabilities().is_some() {
                let hub = self.clone();
                self.inner.tasks.spawn(async move {
                    let _ = hub.refresh(&upstream.id, RefreshTrigger::Reload).await;
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
                other => ReloadError::Edit(other),
            })?;
            write_atomically(&path, &text)?;
        }
        self.reload_from_file().await
    }
}

/// Writes `text` over the config atomically, keeping its mode, owner and
/// symlink ([`crate::util::files::write_atomic`]).
pub(super) fn write_atomically(path: &Path, text: &str) -> Result<(), ReloadError> {
    crate::util::files::write_atomic(path, text.as_bytes(), crate::util::files::FileMode::Keep)
        .map(|_| ())
        .map_err(|err| ReloadError::Write {
            path: path.to_path_buf(),
            message: err.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use crate::config::Config;
    use crate::hub::{Hub, HubOptions};
    use crate::reload::ReloadError;

    fn config(json: &str) -> Config {
        let mut config =
            crate::config::load(crate::config::Source::text(json, Path::new("t.json"))).unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        config
    }

    #[tokio::test]
    async fn applying_a_plan_keeps_updates_rebuilds_starts_and_retires() {
        let hub = Hub::bind(
            config(
                r#"{"mcpServers":{
                    "same":{"command":"switchboard-test-no-such-command"},
                    "tools":{"command":"switchboard-test-no-such-command"},
                    "cmd":{"command":"switchboard-test-no-such-command"},
                    "gone":{"command":"switchboard-test-no-such-command"}}}"#,
            ),
            HubOptions::default(),
        )
        .await
        .unwrap();
        let handle = hub.handle();
        let before = |id: &str| handle.upstream(id).unwrap();
        let (same, tools, cmd) = (before("same"), before("tools"), before("cmd"));
        let result = handle
            .apply_config(config(
                r#"{"mcpServers":{
                    "same":{"command":"switchboard-test-no-such-command"},
                    "tools":{"command":"switchboard-test-no-such-command","disabledTools":["x"]},
                    "cmd":{"command":"switchboard-test-no-such-command","args":["2"]},
                    "new":{"command":"switchboard-test-no-such-command"}}}"#,
            ))
            .await;
        assert_eq!(
            (
                result.unchanged.clone(),
                result.updated.clone(),
                result.changed.clone(),
                result.added.clone(),
                result.removed.clone(),
            ),
            (
                vec!["same".to_string()],
                vec!["tools".to_string()],
                vec!["cmd".to_string()],
                vec!["new".to_string()],
                vec!["gone".to_string()],
            )
        );
        assert!(result.errors.is_empty(), "{:?}", result.errors);
        let after = |id: &str| handle.upstream(id);
        assert!(std::sync::Arc::ptr_eq(&same, &after("same").unwrap()));
        let updated = after("tools").unwrap();
        assert!(std::sync::Arc::ptr_eq(&tools, &updated));
        assert!(updated.config().disabled_tools.contains("x"));
        assert!(!std::sync::Arc::ptr_eq(&cmd, &after("cmd").unwrap()));
        assert!(after("new").is_some());
        assert!(after("gone").is_none());
        assert_eq!(handle.snapshot().last_reload.as_ref(), Some(&result));
        assert_eq!(
            handle
                .snapshot()
                .servers
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>(),
            vec!["same", "tools", "cmd", "new"]
        );
        handle.shutdown();
    }

    #[tokio::test]
    async fn an_invalid_file_is_refused_whole_and_shown_until_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let first = r#"{"mcpServers":{"a":{"command":"switchboard-test-no-such-command"}}}"#;
        std::fs::write(&path, first).unwrap();
        let hub = Hub::bind(
            config(first),
            HubOptions {
                config_path: Some(path.clone()),
                ..HubOptions::default()
            },
        )
        .await
        .unwrap();
        let handle = hub.handle();
        std::fs::write(&path, "{ not json").unwrap();
        let err = handle.reload_from_file().await.unwrap_err();
        assert!(matches!(err, ReloadError::Config(_)), "{err}");
        assert!(handle.snapshot().config_error.is_some());
        assert!(
            handle.upstream("a").is_some(),
            "the last good config keeps running"
        );

        std::fs::write(
            &path,
            r#"{"mcpServers":{"b":{"command":"switchboard-test-no-such-command"}}}"#,
        )
        .unwrap();
        let result = handle.reload_from_file().await.unwrap();
        assert_eq!(
            (result.added, result.removed),
            (vec!["b".to_string()], vec!["a".to_string()])
        );
        assert!(handle.snapshot().config_error.is_none());

        // Turning a server off edits the file and applies it.
        let result = handle.set_enabled("b", false).await.unwrap();
        assert_eq!(result.changed, vec!["b".to_string()]);
        assert!(!handle.upstream("b").unwrap().is_enabled());
        // Only the member changed: the compact file stays compact.
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            r#"{"mcpServers":{"b":{"command":"switchboard-test-no-such-command","enabled":false}}}"#
        );
        let err = handle.set_enabled("zz", true).await.unwrap_err();
        assert!(
            matches!(err, ReloadError::UnknownServer(ref id) if id == "zz"),
            "{err}"
        );
        handle.shutdown();
    }

    #[tokio::test]
    async fn a_hub_without_a_config_file_cannot_reload_it() {
        let hub = Hub::bind(config(r#"{"mcpServers":{}}"#), HubOptions::default())
            .await
            .unwrap();
        let handle = hub.handle();
        assert!(matches!(
            handle.reload_from_file().await,
            Err(ReloadError::NoConfigFile)
        ));
        assert!(matches!(
            handle.set_enabled("a", true).await,
            Err(ReloadError::NoConfigFile)
        ));
        handle.shutdown();
    }
}
