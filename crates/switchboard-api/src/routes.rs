//! The control API's routes as a table of wire facts: method, path (axum's
//! pattern syntax, `/api/v1/servers/{id}/logs`), the privilege the hub
//! declares for it, the body it takes and the answer it gives (the names of
//! this crate's types). `ui/src/api.gen.ts` renders it as `ApiRoutes`, so a
//! call in the dashboard can be typed by its endpoint; the core's route
//! table (`http/routes.rs`) is checked against it by a test, so the two
//! cannot drift.

/// One route of the control API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiRoute {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    pub method: &'static str,
    pub path: &'static str,
    /// `open`, `private read` or `write` (see `docs/status.md`).
    pub privilege: &'static str,
    /// The body's TypeScript type; `None` for no body.
    pub body: Option<&'static str>,
    /// The answer's TypeScript type (an event stream of it for `/events`);
    /// an error answers [`crate::ErrorResponse`] unless the type says otherwise.
    pub answer: &'static str,
}

const fn route(
    method: &'static str,
    path: &'static str,
    privilege: &'static str,
    body: Option<&'static str>,
    answer: &'static str,
) -> ApiRoute {
    ApiRoute {
        method,
        path,
        privilege,
        body,
        answer,
    }
}

const OPEN: &str = "open";
const PRIVATE: &str = "private read";
const WRITE: &str = "write";

/// Every route under `/api/v1`.
pub const API_ROUTES: &[ApiRoute] = &[
    route("GET", "/api/v1/status", OPEN, None, "HubSnapshot"),
    route("GET", "/api/v1/events", OPEN, None, "HubSnapshot"),
    route("POST", "/api/v1/refresh", WRITE, None, "RefreshAllResponse"),
    route("POST", "/api/v1/reload", WRITE, None, "ReloadResponse"),
    route(
        "POST",
        "/api/v1/servers/{id}/refresh",
        WRITE,
        None,
        "RefreshResult",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/enable",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/disable",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route(
        "GET",
        "/api/v1/servers/{id}/logs",
        PRIVATE,
        None,
        "LogsResponse",
    ),
    route(
        "PUT",
        "/api/v1/servers/{id}",
        WRITE,
        Some("Record<string, unknown>"),
        "ReloadResponse",
    ),
    route(
        "DELETE",
        "/api/v1/servers/{id}",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route(
        "GET",
        "/api/v1/servers/{id}/config",
        PRIVATE,
        None,
        "ServerDefinition",
    ),
    route("GET", "/api/v1/import", PRIVATE, None, "ImportOffer"),
    route(
        "POST",
        "/api/v1/import",
        WRITE,
        Some("ImportSelection"),
        "ImportResponse",
    ),
    route(
        "GET",
        "/api/v1/servers/{id}/tools",
        OPEN,
        None,
        "ServerToolsResponse",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/tools/{tool}/enable",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/tools/{tool}/disable",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route(
        "PUT",
        "/api/v1/servers/{id}/tools/{tool}/override",
        WRITE,
        Some("ToolOverride"),
        "ReloadResponse",
    ),
    route(
        "DELETE",
        "/api/v1/servers/{id}/tools/{tool}/override",
        WRITE,
        None,
        "ReloadResponse",
    ),
    route("GET", "/api/v1/search", OPEN, None, "SearchResponse"),
    route(
        "GET",
        "/api/v1/servers/{id}/held",
        PRIVATE,
        None,
        "HeldResponse",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/approve",
        WRITE,
        Some("ApproveRequest"),
        "ApproveResponse",
    ),
    route("GET", "/api/v1/activity", PRIVATE, None, "ActivityResponse"),
    route("GET", "/api/v1/pending", PRIVATE, None, "PendingResponse"),
    route(
        "POST",
        "/api/v1/pending/{id}/allow",
        WRITE,
        Some("DecideRequest"),
        "DecideResponse",
    ),
    route(
        "POST",
        "/api/v1/pending/{id}/deny",
        WRITE,
        None,
        "DecideResponse",
    ),
    route("POST", "/api/v1/dashboard", WRITE, None, "DashboardLink"),
    route(
        "POST",
        "/api/v1/servers/{id}/login",
        WRITE,
        None,
        "LoginResponse",
    ),
    route(
        "POST",
        "/api/v1/servers/{id}/logout",
        WRITE,
        None,
        "LogoutResponse",
    ),
    route(
        "GET",
        "/api/v1/registry",
        PRIVATE,
        None,
        "RegistrySearchResponse",
    ),
    route(
        "POST",
        "/api/v1/registry/install",
        WRITE,
        Some("RegistryInstallRequest"),
        "RegistryInstallResponse",
    ),
];

/// The `ApiRoutes` TypeScript type: `"<METHOD> <path>"` → the route's
/// privilege, body and answer.
#[cfg(any(test, feature = "ts"))]
pub(crate) fn typescript() -> String {
    let mut out = String::from(
        "/** Every control API route, `\"<METHOD> <path>\"` (axum's `{param}` syntax): the\n \
         * privilege it needs, the body it takes (`never`: none), the answer it gives. */\n\
         export type ApiRoutes = {\n",
    );
    for route in API_ROUTES {
        out.push_str(&format!(
            "  \"{} {}\": {{ privilege: \"{}\"; body: {}; answer: {} }};\n",
            route.method,
            route.path,
            route.privilege,
            route.body.unwrap_or("never"),
            route.answer
        ));
    }
    out.push_str("};\n\n/** A control API route's key in [`ApiRoutes`]. */\nexport type ApiRoute = keyof ApiRoutes;\n");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_route_is_listed_once_with_a_known_privilege() {
        let mut seen = std::collections::HashSet::new();
        for route in API_ROUTES {
            assert!(seen.insert((route.method, route.path)), "{route:?} twice");
            assert!(route.path.starts_with("/api/v1/"), "{route:?}");
            assert!(
                [OPEN, PRIVATE, WRITE].contains(&route.privilege),
                "{route:?}"
            );
            let read = route.method == "GET";
            assert_eq!(read, route.privilege != WRITE, "{route:?}");
        }
        let ts = typescript();
        assert!(ts.contains(
            "\"GET /api/v1/status\": { privilege: \"open\"; body: never; answer: HubSnapshot };"
        ));
    }
}
