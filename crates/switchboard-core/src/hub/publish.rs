//! What the hub tells the world: the merged catalog (rebuilt from every
//! enabled server's last listing, changes announced to sessions), the status
//! snapshot (published on a `watch` channel only when it changed), and the
//! event loop that fans upstream events out (state changes coalesced into one
//! snapshot, log lines and resource updates to sessions, list changes into
//! refreshes). The totals count the built-in tools too, as many as the
//! merged `/mcp` serves in `all` mode (`crate::tool_defs`, with
//! `settings.builtinTools`; [`HubHandle::own_tools`]).
//!
//! The catalog is written only by [`HubHandle::rebuild_catalog`] (under
//! `catalog_write`, a std mutex never held across an `.await`); the snapshot
//! only by [`HubHandle::publish_snapshot`].

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::HubHandle;
use crate::catalog::{Catalog, CatalogSource};
use crate::config::{ConfigError, ServerId};
use crate::limiter::Limiter;
use crate::listing::RefreshTrigger;
use crate::reload::ReloadResult;
use crate::snapshot::{BreakerSnapshot, HubSnapshot, ServerSnapshot, Totals, timestamp};
use crate::upstream::{Inbound, UpstreamEvent, inbound};

/// Applies upstream events: snapshot republishing (coalesced) and refreshes
/// announced by upstreams.
pub(super) async fn event_loop(
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
                UpstreamEvent::TaskStatus(server, notice) => task_status(&hub, &server, notice),
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

/// A task status a server sent: logged once per change, and told to the
/// task's client as its revision has it: 2025-11-25's
/// `notifications/tasks/status` goes to the session that made the task, with
/// the hub's id. (2026-07-28's `notifications/tasks` has no way to a client in
/// rmcp 3.11, whose `subscriptions/listen` refuses it: those clients poll.)
fn task_status(hub: &HubHandle, server: &ServerId, notice: crate::events::TaskNotice) {
    let tasks = hub.inner.sessions.tasks();
    let Some((id, origin)) = tasks.by_upstream(server, &notice.upstream_id) else {
        return;
    };
    let message = notice
        .params
        .get("statusMessage")
        .and_then(|m| m.as_str())
        .map(str::to_string);
    if let Some(changed) = tasks.observe(&id, notice.status) {
        let failed = notice.status == rmcp::model::TaskStatus::Failed;
        hub.activity()
            .record(changed.record(message.filter(|_| failed)));
    }
    if !(notice.experimental && origin.experimental) {
        return;
    }
    let Some(peer) = origin
        .session
        .as_deref()
        .and_then(|s| hub.inner.sessions.by_http_id(s))
        .and_then(|session| session.peer().cloned())
    else {
        return;
    };
    let mut params = notice.params;
    params.insert("taskId".into(), serde_json::Value::String(id));
    let notification =
        rmcp::model::ServerNotification::CustomNotification(rmcp::model::CustomNotification::new(
            crate::upstream::EXPERIMENTAL_TASK_STATUS,
            Some(serde_json::Value::Object(params)),
        ));
    tokio::spawn(async move {
        if let Err(err) = peer.send_notification(notification).await {
            tracing::debug!(%err, "could not forward a task status");
        }
    });
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

    /// Rebuilds the merged catalog from every enabled server's last listing and
    /// announces what changed to connected clients.
    pub(crate) fn rebuild_catalog(&self) {
        let Ok(_writer) = self.inner.catalog_write.lock() else {
            return;
        };
        let sources: Vec<CatalogSource> = self
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
                    pinned_at: self.inner.pins.pinned_at(u.id.as_str()),
                    tool_overrides: config.tool_overrides.clone(),
                })
            })
            .collect();
        // What the token counter needs of the sources (they move into the catalog).
        let listed: Vec<_> = sources
            .iter()
            .map(|s| (s.server.clone(), s.capabilities.clone()))
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
            if diff.tools {
                self.refresh_search_index(&next);
            }
            self.refresh_profiles();
            self.publish_snapshot();
        }
        // Also when the tools clients see did not change: a listing may have
        // changed a disabled tool, whose count the control API shows. The
        // counter counts only definitions it has not counted before.
        self.count_tool_tokens(next, listed);
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
        let tokens = self.tool_tokens();
        let servers: Vec<ServerSnapshot> = self
            .inner
            .registry
            .all()
            .iter()
            .map(|u| {
                let view = u.view();
                let config = u.config();
                let (held_tools, changed_tools, new_tools) = self.inner.pins.status(u.id.as_str());
                let withheld = self.inner.withheld_headers.of(u.id.as_str());
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
                    sandbox: u.sandbox_status(),
                    tool_count,
                    tool_tokens: tokens.per_server.get(&u.id).copied().unwrap_or(0),
                    prompt_count: caps.map_or(0, |c| c.prompts.len()),
                    resource_count: caps.map_or(0, |c| c.resources.len()),
                    resource_template_count: caps.map_or(0, |c| c.resource_templates.len()),
                    listed_at: caps.map(|c| timestamp(c.listed_at)),
                    refresh_trigger: caps.map(|c| c.trigger),
                    ttl_expires_at: caps
                        .and_then(|c| c.listed_at.checked_add(ttl))
                        .map(timestamp),
                    stale: view.stale,
                    last_error: view.last_error.map(|e| {
                        let e = crate::util::redact::text(&e);
                        // Any failure of a remote vetted without its headers
                        // (refused, or answering an error while listing).
                        if !withheld.is_empty() {
                            let hint =
                                super::vetting::credentials_hint(u.id.as_str(), &withheld, true);
                            format!("{e}; {hint}")
                        } else {
                            e
                        }
                    }),
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
                    stderr_tail: Some(view.stderr_tail),
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
                        auth.message = auth.message.map(|m| crate::util::redact::text(&m));
                        auth
                    }),
                    held_tools,
                    changed_tools,
                    new_tools,
                    notes: caps
                        .map_or_else(Vec::new, |c| {
                            let mut notes = c.notes.clone();
                            notes.extend(crate::catalog::reserved_notes(config.prefix(), c));
                            notes
                        })
                        .into_iter()
                        .chain((!withheld.is_empty()).then(|| {
                            super::vetting::credentials_hint(u.id.as_str(), &withheld, false)
                        }))
                        .collect(),
                }
            })
            .collect();
        let catalog = self.catalog();
        // The totals count what a client of `/mcp` in `all` mode gets.
        let builtin = self.own_tools(crate::config::ToolMode::All);
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
                tools: catalog.tools.len() + builtin.tools,
                builtin_tools: builtin.tools,
                prompts: catalog.prompts.len(),
                resources: catalog.resources.len(),
                tool_tokens: tokens.total + builtin.tokens,
            },
            servers,
            sessions: self.inner.sessions.snapshot(),
            endpoints: self.endpoints_snapshot(),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};

    #[tokio::test]
    async fn the_snapshot_counts_what_clients_see() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{
                "a":{{"command":"{NO_SUCH_COMMAND}","disabledTools":["hidden"]}},
                "off":{{"command":"{NO_SUCH_COMMAND}","enabled":false}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t", "hidden"]);
        let snapshot = handle.snapshot();
        let rows: Vec<(&str, bool, usize, usize)> = snapshot
            .servers
            .iter()
            .map(|s| (s.id.as_str(), s.enabled, s.tool_count, s.prompt_count))
            .collect();
        assert_eq!(rows, vec![("a", true, 1, 1), ("off", false, 0, 0)]);
        // The three built-in tools (on by default) count as tools.
        assert_eq!(
            (
                snapshot.totals.servers,
                snapshot.totals.tools,
                snapshot.totals.builtin_tools,
                snapshot.totals.prompts
            ),
            (2, 4, 3, 1)
        );
        assert_eq!(snapshot.endpoints[0].tools, 4);
        // Not counted before the counter ran (this hub does not serve).
        assert!(!snapshot.endpoints[0].tokens_counted);
        assert_eq!(snapshot.endpoint, handle.endpoint());
        handle.shutdown();
    }

    #[tokio::test]
    async fn with_the_built_in_tools_off_the_totals_have_none() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}}}},
                "settings":{{"builtinTools":false}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);
        let snapshot = handle.snapshot();
        assert_eq!(
            (snapshot.totals.tools, snapshot.totals.builtin_tools),
            (1, 0)
        );
        assert_eq!(snapshot.endpoints[0].tools, 1);
        handle.shutdown();
    }

    #[tokio::test]
    async fn a_catalog_change_bumps_only_the_lists_that_changed() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);
        let before = handle.catalog().versions;
        listed(&handle, "a", &["t", "u"]);
        let after = handle.catalog().versions;
        assert_ne!(after.tools, before.tools);
        assert_eq!(after.prompts, before.prompts);
        // Nothing changed: the same catalog versions.
        handle.rebuild_catalog();
        assert_eq!(handle.catalog().versions, after);
        handle.shutdown();
    }
}
