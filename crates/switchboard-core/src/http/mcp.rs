//! The MCP routes: `/mcp`, the merged service (every server behind one
//! session), `/servers/<id>/mcp`, one server's pass-through service
//! (original names; see `sessions::Scope`), and `/profiles/<name>/mcp`, a
//! profile's merged service (behind the token guard of `profiles`); the
//! last two are made on the route's first use.
//!
//! This module owns the services and their session managers: each route's
//! manager is a [`HubSessionManager`] over the hub's one session table, and
//! the fast path in front of the routes asks them whether a session exists.
//! The services live as long as the router.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::middleware;
use axum::response::Response;
use axum::routing::any;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use super::fast_path::{self, FastPath};
use super::session_manager::HubSessionManager;
use crate::config::ServerId;
use crate::gateway::Gateway;
use crate::hub::HubHandle;
use crate::sessions::Scope;

/// One MCP route's rmcp service.
type McpService = StreamableHttpService<Gateway, HubSessionManager>;

/// A route's service and its session manager.
type Served = (McpService, Arc<HubSessionManager>);

/// The services of the MCP routes and their session managers.
pub(crate) struct McpServices {
    hub: HubHandle,
    /// The merged route's session manager.
    pub(crate) merged_sessions: Arc<HubSessionManager>,
    /// The pass-through routes' services and session managers, by server id;
    /// a short lock, never held across an `.await`.
    pass_through: Mutex<HashMap<ServerId, (McpService, Arc<HubSessionManager>)>>,
    /// The profiles' services and session managers, by profile name (a
    /// short lock too).
    profiles: Mutex<HashMap<Arc<str>, Served>>,
}

impl McpServices {
    fn new(hub: HubHandle) -> Self {
        let merged_sessions = Arc::new(HubSessionManager::new(hub.sessions().table().clone()));
        Self {
            hub,
            merged_sessions,
            pass_through: Mutex::new(HashMap::new()),
            profiles: Mutex::new(HashMap::new()),
        }
    }

    /// An rmcp service whose sessions see `scope`, kept by `sessions`.
    fn service(&self, scope: Scope, sessions: Arc<HubSessionManager>) -> McpService {
        let hub = self.hub.clone();
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(self.hub.shutdown_token().child_token())
            .with_sse_keep_alive(Some(Duration::from_secs(15)))
            // Priming events only for sessions whose version allows them: the
            // session manager adds or drops them per session.
            .with_sse_retry(None);
        StreamableHttpService::new(
            move || Ok(Gateway::new(hub.clone(), scope.clone())),
            sessions,
            config,
        )
    }

    /// The pass-through service of `server`, made on first use.
    fn pass_through_service(&self, server: &ServerId) -> McpService {
        let mut services = self.pass_through.lock().unwrap_or_else(|e| e.into_inner());
        services
            .entry(server.clone())
            .or_insert_with(|| {
                let sessions =
                    Arc::new(HubSessionManager::new(self.hub.sessions().table().clone()));
                let service = self.service(Scope::Server(server.clone()), sessions.clone());
                (service, sessions)
            })
            .0
            .clone()
    }

    /// The service of profile `name`, made on first use.
    fn profile_service(&self, name: &Arc<str>) -> McpService {
        let mut services = self.profiles.lock().unwrap_or_else(|e| e.into_inner());
        services
            .entry(name.clone())
            .or_insert_with(|| {
                let sessions =
                    Arc::new(HubSessionManager::new(self.hub.sessions().table().clone()));
                let service = self.service(Scope::Profile(name.clone()), sessions.clone());
                (service, sessions)
            })
            .0
            .clone()
    }

    /// The session manager of a profile's route, once it has one.
    pub(crate) fn profile_sessions(&self, name: &str) -> Option<Arc<HubSessionManager>> {
        let services = self.profiles.lock().unwrap_or_else(|e| e.into_inner());
        services.get(name).map(|(_, sessions)| sessions.clone())
    }

    /// The session manager of a server's pass-through route, once it has one.
    pub(crate) fn pass_through_sessions(
        &self,
        server: &ServerId,
    ) -> Option<Arc<HubSessionManager>> {
        let services = self.pass_through.lock().unwrap_or_else(|e| e.into_inner());
        services.get(server).map(|(_, sessions)| sessions.clone())
    }
}

/// Both MCP routes, with the JSON fast path in front of rmcp (see `fast_path`).
pub(super) fn routes(hub: HubHandle) -> Router {
    let services = Arc::new(McpServices::new(hub.clone()));
    let merged = services.service(Scope::Merged, services.merged_sessions.clone());
    Router::new()
        .nest_service("/mcp", merged)
        .route("/servers/{id}/mcp", any(pass_through))
        .route("/profiles/{name}/mcp", any(profile))
        .layer(middleware::from_fn_with_state(
            FastPath {
                hub: hub.clone(),
                services: services.clone(),
            },
            fast_path::layer,
        ))
        // Outside the fast path: nothing of a profile is served unchecked.
        .layer(middleware::from_fn_with_state(hub, super::profiles::guard))
        .with_state(services)
}

/// `/profiles/<name>/mcp`: the profile's merged service (the guard in front
/// checked that it exists and the request's token).
async fn profile(
    State(services): State<Arc<McpServices>>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    use tower_service::Service;
    let Some(profile) = services.hub.profile(&name).filter(|p| p.project.is_none()) else {
        return super::respond::not_found(&name);
    };
    let mut service = services.profile_service(&profile.name);
    match service.call(request).await {
        Ok(response) => response.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}

/// `/servers/<id>/mcp`: one upstream, original names (see `sessions::Scope`).
/// Each server gets its own MCP service and session manager, made on first use.
async fn pass_through(
    State(services): State<Arc<McpServices>>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    use tower_service::Service;
    let Some(upstream) = services.hub.upstream(&id) else {
        return super::respond::not_found(&id);
    };
    let mut service = services.pass_through_service(&upstream.id);
    match service.call(request).await {
        Ok(response) => response.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}
