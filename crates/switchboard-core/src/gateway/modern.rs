//! What protocol 2026-07-28 adds to the downstream side (rmcp serves those
//! clients statelessly; see `docs/architecture.md`, "Protocol versions"):
//! `server/discover` (the merged endpoint's own capabilities and server info,
//! or, on a pass-through route, its server's), caching hints on lists and
//! resource reads from the hub's knowledge of its catalog's freshness, and
//! `subscriptions/listen` streams wired to the hub's list-change and
//! resource-update fan-out (see `sessions::listen`). Requests from sessions
//! that began with `initialize` (2025-11-25 and older) get none of this.

use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolResponse, CompleteResult, DiscoverResult, ErrorData, GetPromptResponse,
    ProtocolVersion, ReadResourceResponse, ResultType, ServerCapabilities, ServerConfig,
    SubscriptionFilter,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext};

use super::{Router, Target, upstream_error};
use crate::hub::HubHandle;
use crate::sessions::{Scope, Session};

/// Whether a request is served on protocol 2026-07-28 or later (its own
/// `_meta` says so; a session's requests go by its `initialize`).
pub(super) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Caching hints for a result: the hub's lists stay as they are until the
/// next poll of the servers behind them (a change pushed by a server before
/// then reaches `subscriptions/listen` streams at once). Every result is
/// `private`: what a client sees depends on its route and token, and resource
/// contents are the user's.
pub(super) struct CacheHint {
    pub(super) ttl_ms: u64,
    pub(super) scope: CacheScope,
}

/// A 2026-07-28 request names its client in its own `_meta` (there is no
/// `initialize`): remembered in `session` for the activity log.
pub(super) fn note_client(session: &Session, context: &RequestContext<RoleServer>) {
    if is_modern(context)
        && let Some(info) = context.meta.client_info()
    {
        session.set_client_name(&info.name);
    }
}

/// Which notifications a `subscriptions/listen` stream may have: what it
/// asked for, within what this route advertises.
pub(super) fn accepted_filter(
    requested: &SubscriptionFilter,
    capabilities: &ServerCapabilities,
) -> SubscriptionFilter {
    requested.intersection(&requested.supported_by(capabilities))
}

/// One session's endpoint as its client sees it: its server info, the
/// freshness of its lists, its `subscriptions/listen` streams. References
/// only, made per request for free.
#[derive(Clone, Copy)]
pub(super) struct Endpoint<'a> {
    /// The hub whose servers, polls and listeners are used.
    hub: &'a HubHandle,
    /// The session whose scope decides which servers are behind it.
    session: &'a Session,
}

impl<'a> Endpoint<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Session) -> Self {
        Self { hub, session }
    }

    fn router(&self) -> Router<'a> {
        Router::new(self.hub, self.session)
    }

    fn scope(&self) -> std::borrow::Cow<'a, Scope> {
        self.session.served()
    }

    /// This session's server-info, capabilities and instructions: the hub's
    /// own on `/mcp`, the server's (with list changes announced by the hub)
    /// on a pass-through route.
    pub(super) async fn endpoint_info(
        &self,
        mut result: ServerConfig,
    ) -> Result<ServerConfig, ErrorData> {
        if let Some(upstream) = self.router().single()? {
            let info = upstream.server_info().await.map_err(upstream_error)?;
            let mut capabilities = info.capabilities.clone();
            // Switchboard announces list changes itself (after its own re-list).
            if let Some(tools) = capabilities.tools.as_mut() {
                tools.list_changed = Some(true);
            }
            if let Some(prompts) = capabilities.prompts.as_mut() {
                prompts.list_changed = Some(true);
            }
            if let Some(resources) = capabilities.resources.as_mut() {
                resources.list_changed = Some(true);
            }
            result.capabilities = capabilities;
            if let Some(server_info) = &info.server_info {
                result.server_info = server_info.clone();
            }
            result.instructions = info.instructions.clone();
        }
        Ok(result)
    }

    /// `server/discover`: the versions the hub speaks and this route's
    /// capabilities and server info.
    pub(super) async fn discover_result(
        &self,
        versions: Vec<ProtocolVersion>,
        info: ServerConfig,
    ) -> Result<DiscoverResult, ErrorData> {
        let info = self.endpoint_info(info).await?;
        let hint = self.cache_hint();
        Ok(DiscoverResult::from_server_info(versions, info)
            .with_ttl_ms(hint.ttl_ms)
            .with_cache_scope(hint.scope))
    }

    /// How long this session's lists stay fresh: until the soonest next poll
    /// of a running server in scope; zero when one of them is not polled
    /// (`pollIntervalSecs` 0) or none runs.
    pub(super) fn cache_hint(&self) -> CacheHint {
        let upstreams = match &*self.scope() {
            Scope::Merged => self.hub.running_upstreams(),
            Scope::Profile(_) => self
                .hub
                .running_upstreams()
                .into_iter()
                .filter(|u| self.router().in_scope(&u.id))
                .collect(),
            Scope::Server(id) => self.hub.upstream(id.as_str()).into_iter().collect(),
        };
        let mut ttl: Option<Duration> = None;
        for upstream in &upstreams {
            match upstream.next_poll_in() {
                Some(next) => ttl = Some(ttl.map_or(next, |t| t.min(next))),
                None => {
                    ttl = Some(Duration::ZERO);
                    break;
                }
            }
        }
        CacheHint {
            ttl_ms: ttl
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0),
            scope: CacheScope::Private,
        }
    }

    /// Runs one `subscriptions/listen` stream until the client cancels it or
    /// the hub stops: subscribes upstream to the resources it names (once per
    /// URI however many listeners want it) and registers it for the hub's
    /// change notifications.
    pub(super) async fn listen_until_closed(
        &self,
        context: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let mut resources = Vec::new();
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            let (upstream, route) = self.router().route(Target::Resource(uri)).await?;
            // The server's own URI for a renamed `ui://` one.
            let upstream_uri = route.map_or_else(|| uri.clone(), |r| r.name.to_string());
            upstream
                .subscribe(&upstream_uri)
                .await
                .map_err(upstream_error)?;
            resources.push((uri.clone(), upstream_uri, upstream));
        }
        let guard = self.hub.sessions().listeners().add(
            self.scope().into_owned(),
            context.sink().clone(),
            resources
                .iter()
                .map(|(uri, _, upstream)| (uri.clone(), upstream.id.clone()))
                .collect(),
        );
        let stop = self.hub.shutdown_token();
        // A profile's stream also ends when a reload removes the profile.
        let removed = match &*self.scope() {
            Scope::Profile(name) => self
                .hub
                .profile_removed(name)
                .ok_or_else(|| super::route::profile_removed(name))?,
            _ => tokio_util::sync::CancellationToken::new(),
        };
        tokio::select! {
            () = context.cancelled() => {}
            () = stop.cancelled() => {}
            () = removed.cancelled() => {}
        }
        drop(guard);
        for (_, uri, upstream) in resources {
            if let Err(err) = upstream.unsubscribe(&uri).await {
                tracing::debug!(server = %upstream.id, error = %err, "unsubscribe after listen failed");
            }
        }
        Ok(())
    }
}

/// A result that 2026-07-28 clients must receive with `resultType`: results
/// forwarded from older upstreams have none, and rmcp adds it only to the
/// results it makes itself.
pub(super) trait Completed: Sized {
    fn result_type(&mut self) -> Option<&mut Option<ResultType>>;

    /// Marks a complete result as such for a 2026-07-28 request.
    fn for_request(mut self, context: &RequestContext<RoleServer>) -> Self {
        if is_modern(context)
            && let Some(result_type) = self.result_type()
        {
            result_type.get_or_insert(ResultType::COMPLETE);
        }
        self
    }
}

impl Completed for CallToolResponse {
    fn result_type(&mut self) -> Option<&mut Option<ResultType>> {
        match self {
            Self::Complete(result) => Some(&mut result.result_type),
            _ => None,
        }
    }
}

impl Completed for GetPromptResponse {
    fn result_type(&mut self) -> Option<&mut Option<ResultType>> {
        match self {
            Self::Complete(result) => Some(&mut result.result_type),
            _ => None,
        }
    }
}

impl Completed for ReadResourceResponse {
    fn result_type(&mut self) -> Option<&mut Option<ResultType>> {
        match self {
            Self::Complete(result) => Some(&mut result.result_type),
            _ => None,
        }
    }
}

impl Completed for CompleteResult {
    fn result_type(&mut self) -> Option<&mut Option<ResultType>> {
        Some(&mut self.result_type)
    }
}
