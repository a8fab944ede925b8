//! Finding out what servers offer: listing them (on first use, when stale,
//! on demand), the one cold-start wait list requests share per server, and
//! routing an exposed name or URI to the server that owns it.
//!
//! Names are routed by their server part first ([`HubHandle::route_tool`]),
//! so a name of no server starts nothing; a server never listed is listed
//! once (as a hub task, so a caller giving up does not cut a start short).

use std::sync::Arc;
use std::time::Duration;

use super::{HubHandle, Unrouted};
use crate::catalog::{Catalog, Route};
use crate::config::ServerId;
use crate::listing::RefreshTrigger;
use crate::upstream::{Upstream, UpstreamError};

impl HubHandle {
    /// The merged catalog for a client's list request: servers never listed are
    /// started and listed, waiting at most the cold-list timeout (late ones
    /// arrive with `list_changed`); stale ones are revalidated in the background.
    ///
    /// Each server gets one cold-start wait: its deadline is set by the first
    /// list request that waits for it, and every later list request — of any
    /// kind, from any session — waits at most until that same deadline.
    pub async fn merged_catalog(&self) -> Arc<Catalog> {
        self.wait_for_listings(self.inner.registry.enabled()).await;
        self.catalog()
    }

    /// The cold-start waits of [`HubHandle::merged_catalog`] for `upstreams`
    /// only (a profile's servers).
    pub(crate) async fn wait_for_listings(&self, upstreams: Vec<Arc<Upstream>>) {
        let mut cold = Vec::new();
        for upstream in upstreams {
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
            let versions = caps.pass_through_versions(&upstream.config().disabled_tools);
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
    ) -> Result<Arc<crate::listing::Capabilities>, UpstreamError> {
        if let Some(wait) = self.ensure_fresh(upstream).await {
            let _ = wait.await;
        }
        match upstream.capabilities() {
            Some(caps) => Ok(caps),
            None => upstream.refresh(RefreshTrigger::FirstUse).await,
        }
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
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};

    #[tokio::test]
    async fn each_server_gets_one_cold_start_wait_per_fingerprint() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        let first = handle.upstream("a").unwrap();
        let deadline = handle.cold_deadline(&first);
        assert_eq!(handle.cold_deadline(&first), deadline);
        // Rebuilt by a reload (another fingerprint): a wait of its own.
        let mut config = crate::config::load(crate::config::Source::text(
            &format!(r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}","args":["2"]}}}}}}"#),
            std::path::Path::new("t.json"),
        ))
        .unwrap();
        config.settings = handle.settings().clone();
        handle.apply_config(config).await;
        let rebuilt = handle.upstream("a").unwrap();
        let own = handle.cold_deadline(&rebuilt);
        assert!(own > deadline);
        assert_eq!(handle.cold_deadline(&rebuilt), own);
        assert_ne!(first.fingerprint(), rebuilt.fingerprint());
        handle.shutdown();
    }

    #[tokio::test]
    async fn a_uri_is_owned_by_the_server_that_listed_it() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}},
                "b":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);
        let mut caps =
            crate::listing::Capabilities::empty(crate::listing::RefreshTrigger::FirstUse);
        caps.resources = vec![
            serde_json::from_value(serde_json::json!({"uri": "file:///b", "name": "b"})).unwrap(),
        ];
        handle.upstream("b").unwrap().set_warm_listing(caps);
        handle.rebuild_catalog();
        assert_eq!(
            handle
                .resource_owner("file:///b")
                .await
                .map(|s| s.to_string()),
            Some("b".to_string())
        );
        // Every server is listed, so an unknown URI starts nothing.
        assert_eq!(handle.resource_owner("file:///nothing").await, None);
        assert!(handle.upstream("a").unwrap().is_unverified());
        handle.shutdown();
    }

    #[tokio::test]
    async fn the_merged_catalog_does_not_wait_for_a_server_that_cannot_start() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}},
                "b":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);
        let catalog =
            tokio::time::timeout(std::time::Duration::from_secs(30), handle.merged_catalog())
                .await
                .expect("the list answered before the cold-list deadline");
        let names: Vec<String> = catalog.tools.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, vec!["a__t".to_string()]);
        let errors = handle
            .refresh_all(crate::listing::RefreshTrigger::Manual)
            .await;
        assert_eq!(errors.len(), 2);
        assert!(errors.iter().all(|(_, r)| r.is_err()), "{errors:?}");
        handle.shutdown();
    }
}
