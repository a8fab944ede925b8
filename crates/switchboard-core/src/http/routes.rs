//! The route table: every route of the hub's listener, grouped by resource
//! (the hub, servers, tools, pins, activity, pending calls, auth, the
//! registry, the dashboard, MCP), each declared with the [`Privilege`] it
//! needs. Declaring a route attaches that privilege as a layer in front of
//! its handler (`require`), so what a route needs is written where the
//! route is, never in a second table matching path strings.
//!
//! Anything not declared is denied: the layer over the whole router
//! (`admit`) looks up the route a request matched (axum's `MatchedPath`,
//! the route's pattern, not the request's path) in the declarations; a
//! route that is in the router but not declared is refused with 403 before
//! its handler runs, a method not declared for a declared path is 405. A
//! request that matched no route (a 404) or the tail of a nested service
//! (`/mcp/...`, checked by its group's own layer) passes the checks of an
//! open route first.
//!
//! Handlers live in their resource's module (`control`, `servers`, `tools`,
//! `pins`, `activity`, `pending`, `auth`); this module imports them, they
//! import only `respond` (the shared answers): no import circle.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::handler::Handler;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{self, MethodRouter};
use axum::{Json, Router};
use serde_json::json;

use super::{activity, auth, control, mcp, pending, pins, registry, servers, tools, ui_assets};
use crate::access::{Access, Privilege, Refusal};
use crate::hub::HubHandle;

/// The control API's prefix.
macro_rules! api {
    ($path:literal) => {
        concat!("/api/v1", $path)
    };
}

/// An HTTP method a route is declared for (`Any`: every method, the MCP
/// endpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    Get,
    Post,
    Put,
    Delete,
    Any,
}

impl Verb {
    /// The method's name as HTTP spells it (`ANY` for every method).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Delete => "DELETE",
            Self::Any => "ANY",
        }
    }

    /// Whether a request's method is this one (`HEAD` is served as `GET`).
    fn admits(self, method: &Method) -> bool {
        match self {
            Self::Get => method == Method::GET || method == Method::HEAD,
            Self::Post => method == Method::POST,
            Self::Put => method == Method::PUT,
            Self::Delete => method == Method::DELETE,
            Self::Any => true,
        }
    }
}

/// One declared route: its method, its path pattern (axum syntax,
/// `/api/v1/servers/{id}/logs`), the privilege it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub verb: Verb,
    pub path: &'static str,
    pub privilege: Privilege,
}

/// The routes declared so far, and the router they make.
struct Table {
    access: Arc<Access>,
    /// Routes whose handlers take the hub as state.
    api: Router<HubHandle>,
    /// Routers built elsewhere (MCP, the dashboard's files), each behind the
    /// layer of its group's privilege.
    groups: Vec<Router>,
    declared: Vec<Declared>,
}

impl Table {
    fn new(access: Arc<Access>) -> Self {
        Self {
            access,
            api: Router::new(),
            groups: Vec::new(),
            declared: Vec::new(),
        }
    }

    /// A `GET` route anyone on loopback may read.
    fn open<H, T>(self, path: &'static str, handler: H) -> Self
    where
        H: Handler<T, HubHandle>,
        T: 'static,
    {
        self.add(Verb::Get, Privilege::Open, path, routing::get(handler))
    }

    /// A `GET` route that shows server output or definitions.
    fn private_read<H, T>(self, path: &'static str, handler: H) -> Self
    where
        H: Handler<T, HubHandle>,
        T: 'static,
    {
        self.add(
            Verb::Get,
            Privilege::PrivateRead,
            path,
            routing::get(handler),
        )
    }

    /// A route that changes the hub (`POST`, `PUT` or `DELETE`).
    fn write<H, T>(self, verb: Verb, path: &'static str, handler: H) -> Self
    where
        H: Handler<T, HubHandle>,
        T: 'static,
    {
        let method = match verb {
            Verb::Put => routing::put(handler),
            Verb::Delete => routing::delete(handler),
            // A write is never a read: anything else is declared as POST.
            Verb::Post | Verb::Get | Verb::Any => routing::post(handler),
        };
        let verb = match verb {
            Verb::Put | Verb::Delete => verb,
            Verb::Post | Verb::Get | Verb::Any => Verb::Post,
        };
        self.add(verb, Privilege::Write, path, method)
    }

    fn add(
        mut self,
        verb: Verb,
        privilege: Privilege,
        path: &'static str,
        method: MethodRouter<HubHandle>,
    ) -> Self {
        let method = method.route_layer(middleware::from_fn_with_state(
            (self.access.clone(), privilege),
            require,
        ));
        self.api = self.api.route(path, method);
        self.declared.push(Declared {
            verb,
            path,
            privilege,
        });
        self
    }

    /// A router built elsewhere whose routes (`routes`, as the router names
    /// them) all need `privilege`. A route of `router` left out of `routes`
    /// is refused (see [`admit`]).
    fn group(
        mut self,
        privilege: Privilege,
        routes: &[(Verb, &'static str)],
        router: Router,
    ) -> Self {
        self.groups
            .push(router.layer(middleware::from_fn_with_state(
                (self.access.clone(), privilege),
                require,
            )));
        self.declared
            .extend(routes.iter().map(|&(verb, path)| Declared {
                verb,
                path,
                privilege,
            }));
        self
    }

    /// The router: every declared route behind its privilege, and all of
    /// it behind [`admit`].
    fn build(self, hub: HubHandle) -> (Router, Arc<Declarations>) {
        let declarations = Arc::new(Declarations::new(self.access.clone(), &self.declared));
        let mut router = self.api.with_state(hub);
        for group in self.groups {
            router = router.merge(group);
        }
        let router = router.layer(middleware::from_fn_with_state(declarations.clone(), admit));
        (router, declarations)
    }
}

/// Every route of the hub's listener, with its privilege.
fn table(hub: &HubHandle) -> Table {
    use Verb::{Delete, Post, Put};
    let table = Table::new(hub.access().clone())
        // The hub: its state, its event stream, refresh and reload.
        .open(api!("/status"), control::status)
        .open(api!("/events"), control::events)
        .write(Post, api!("/refresh"), control::refresh_all)
        .write(Post, api!("/reload"), control::reload)
        // Servers: their running state, their definitions, importing them.
        .write(Post, api!("/servers/{id}/refresh"), control::refresh_server)
        .write(Post, api!("/servers/{id}/enable"), control::enable_server)
        .write(Post, api!("/servers/{id}/disable"), control::disable_server)
        .private_read(api!("/servers/{id}/logs"), control::server_logs)
        .write(Put, api!("/servers/{id}"), servers::put_server)
        .write(Delete, api!("/servers/{id}"), servers::delete_server)
        .private_read(api!("/servers/{id}/config"), servers::server_config)
        .private_read(api!("/import"), servers::import_offer)
        .write(Post, api!("/import"), servers::import_apply)
        // Tools: one server's listing, switches and overrides; the search.
        .open(api!("/servers/{id}/tools"), tools::server_tools)
        .write(
            Post,
            api!("/servers/{id}/tools/{tool}/enable"),
            tools::enable_tool,
        )
        .write(
            Post,
            api!("/servers/{id}/tools/{tool}/disable"),
            tools::disable_tool,
        )
        .write(
            Put,
            api!("/servers/{id}/tools/{tool}/override"),
            tools::put_override,
        )
        .write(
            Delete,
            api!("/servers/{id}/tools/{tool}/override"),
            tools::delete_override,
        )
        .open(api!("/search"), tools::search)
        // Pins: held definitions and approving them.
        .private_read(api!("/servers/{id}/held"), pins::held)
        .write(Post, api!("/servers/{id}/approve"), pins::approve)
        // Activity: what clients called.
        .private_read(api!("/activity"), activity::activity)
        // Calls waiting for approval.
        .private_read(api!("/pending"), pending::list)
        .write(Post, api!("/pending/{id}/allow"), pending::allow)
        .write(Post, api!("/pending/{id}/deny"), pending::deny)
        // Auth: the dashboard's sign-in, a remote server's OAuth login.
        .write(Post, api!("/dashboard"), auth::dashboard_link)
        .open("/login", auth::sign_in)
        .write(Post, api!("/servers/{id}/login"), auth::login_server)
        .write(Post, api!("/servers/{id}/logout"), auth::logout_server);
    let table = registry(table);
    table
        // The dashboard's page and files.
        .group(
            Privilege::Open,
            &[
                (Verb::Get, "/"),
                (Verb::Get, "/index.html"),
                (Verb::Get, "/assets/{*path}"),
            ],
            ui_assets::router(),
        )
        // MCP: the merged endpoint, one server's pass-through, profiles.
        .group(
            Privilege::Mcp,
            &[
                (Verb::Any, "/mcp"),
                (Verb::Any, "/mcp/"),
                (Verb::Any, "/servers/{id}/mcp"),
                (Verb::Any, "/profiles/{name}/mcp"),
            ],
            mcp::routes(hub.clone()),
        )
}

/// The registry's routes (`/api/v1/registry...`, see `docs/registry.md`):
/// searching shows which servers are installed, installing adds one.
fn registry(table: Table) -> Table {
    table
        .private_read(api!("/registry"), registry::search)
        .write(Verb::Post, api!("/registry/install"), registry::install)
}

/// The hub's router: every route of [`table`] behind its privilege.
pub(super) fn router(hub: HubHandle) -> Router {
    table(&hub).build(hub).0
}

/// The declared routes, for [`admit`]'s look-up.
struct Declarations {
    access: Arc<Access>,
    /// Path pattern → the methods declared for it.
    by_path: HashMap<&'static str, Vec<Verb>>,
}

/// What the declarations say of a matched route.
enum Lookup {
    Declared,
    /// The path is declared, not for this method: 405 with these.
    OtherMethods(String),
    Undeclared,
}

impl Declarations {
    fn new(access: Arc<Access>, declared: &[Declared]) -> Self {
        let mut by_path: HashMap<&'static str, Vec<Verb>> = HashMap::new();
        for route in declared {
            by_path.entry(route.path).or_default().push(route.verb);
        }
        Self { access, by_path }
    }

    fn lookup(&self, method: &Method, path: &str) -> Lookup {
        match self.by_path.get(path) {
            None => Lookup::Undeclared,
            Some(verbs) if verbs.iter().any(|verb| verb.admits(method)) => Lookup::Declared,
            Some(verbs) => {
                let allow: Vec<&str> = verbs.iter().map(|verb| verb.as_str()).collect();
                Lookup::OtherMethods(allow.join(","))
            }
        }
    }
}

/// Over the whole router: a matched route must be declared (its own layer
/// then checks its privilege); anything else passes the checks of an open
/// route, then goes on to its 404 (or its nested service's own layer).
async fn admit(
    State(declarations): State<Arc<Declarations>>,
    request: Request,
    next: Next,
) -> Response {
    let lookup = request
        .extensions()
        .get::<MatchedPath>()
        .map(|matched| declarations.lookup(request.method(), matched.as_str()));
    match lookup {
        Some(Lookup::Declared) => next.run(request).await,
        Some(Lookup::Undeclared) => {
            tracing::error!(
                path = %request.uri().path(),
                "refused a request to a route that declares no privilege"
            );
            (
                StatusCode::FORBIDDEN,
                Json(json!({"error": "this route declares no privilege: it is not served"})),
            )
                .into_response()
        }
        other => {
            if let Err(refusal) = declarations
                .access
                .check(Privilege::Open, request.headers())
            {
                return refuse(refusal);
            }
            match other {
                Some(Lookup::OtherMethods(allow)) => {
                    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
                    if let Ok(value) = HeaderValue::from_str(&allow) {
                        response.headers_mut().insert(header::ALLOW, value);
                    }
                    response
                }
                _ => next.run(request).await,
            }
        }
    }
}

/// In front of each declared route: what its privilege needs of the
/// request (see [`crate::access`]).
async fn require(
    State((access, privilege)): State<(Arc<Access>, Privilege)>,
    request: Request,
    next: Next,
) -> Response {
    match access.check(privilege, request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refuse(refusal),
    }
}

/// 401 (with `WWW-Authenticate`) without a needed credential, 403 for
/// foreign hosts, origins and wrong tokens.
fn refuse(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Forbidden(why) => {
            (StatusCode::FORBIDDEN, Json(json!({"error": why}))).into_response()
        }
        Refusal::Unauthorized(why) => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"switchboard\"")],
            Json(json!({"error": why})),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::atomic::{AtomicBool, Ordering};

    use axum::body::Body;
    use pretty_assertions::assert_eq;
    use tower_service::Service;

    use super::*;
    use crate::hub::Hub;

    /// A hub without servers, bound on a free loopback port.
    async fn bound() -> Hub {
        crate::hub::testing::hub("{}").await.0
    }

    async fn send(router: &Router, request: Request) -> Response {
        router.clone().call(request).await.unwrap()
    }

    /// A request for a declared route, its parameters filled in.
    fn request(route: &Declared, headers: &[(header::HeaderName, &str)]) -> Request {
        let path = route
            .path
            .replace("{id}", "nope")
            .replace("{tool}", "t")
            .replace("{name}", "nope")
            .replace("{*path}", "nope.js");
        let method = match route.verb {
            Verb::Get => Method::GET,
            Verb::Post | Verb::Any => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Delete => Method::DELETE,
        };
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, "127.0.0.1");
        for (name, value) in headers {
            builder = builder.header(name, *value);
        }
        builder.body(Body::empty()).unwrap()
    }

    #[tokio::test]
    async fn a_route_added_without_a_privilege_is_refused_before_its_handler_runs() {
        let hub = bound().await;
        let handle = hub.handle();
        static RAN: AtomicBool = AtomicBool::new(false);
        let mut table = Table::new(handle.access().clone()).open(api!("/status"), control::status);
        // Added to the router, not declared.
        table.api = table.api.route(
            api!("/sneaky"),
            routing::post(|| async {
                RAN.store(true, Ordering::SeqCst);
                "done"
            }),
        );
        let (router, _) = table.build(handle.clone());
        let token = format!("Bearer {}", handle.control_token());
        let sneaky = Request::post(api!("/sneaky"))
            .header(header::HOST, "127.0.0.1")
            .header(header::AUTHORIZATION, &token)
            .body(Body::empty())
            .unwrap();
        let answer = send(&router, sneaky).await;
        assert_eq!(answer.status(), StatusCode::FORBIDDEN);
        assert!(!RAN.load(Ordering::SeqCst), "the handler ran");

        // A method not declared for a declared path: 405, naming the declared ones.
        let post_status = Request::post(api!("/status"))
            .header(header::HOST, "127.0.0.1")
            .header(header::AUTHORIZATION, &token)
            .body(Body::empty())
            .unwrap();
        let answer = send(&router, post_status).await;
        assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(answer.headers()[header::ALLOW], "GET");

        // A path of no route is a 404, after the checks every route has.
        let nothing = |host: &str| {
            Request::get(api!("/nothing"))
                .header(header::HOST, host)
                .body(Body::empty())
                .unwrap()
        };
        assert_eq!(
            send(&router, nothing("127.0.0.1")).await.status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            send(&router, nothing("evil.example")).await.status(),
            StatusCode::FORBIDDEN
        );
    }

    #[tokio::test]
    async fn every_route_of_the_table_declares_the_privilege_it_needs() {
        let hub = bound().await;
        let table = table(&hub.handle());
        let private: Vec<&str> = table
            .declared
            .iter()
            .filter(|r| r.privilege == Privilege::PrivateRead)
            .map(|r| r.path)
            .collect();
        assert_eq!(
            private,
            [
                api!("/servers/{id}/logs"),
                api!("/servers/{id}/config"),
                api!("/import"),
                api!("/servers/{id}/held"),
                api!("/activity"),
                api!("/pending"),
                api!("/registry"),
            ]
        );
        let mut seen = std::collections::HashSet::new();
        for route in &table.declared {
            assert!(seen.insert((route.verb, route.path)), "{route:?} twice");
            let expected = match route.verb {
                Verb::Post | Verb::Put | Verb::Delete => Privilege::Write,
                Verb::Any => Privilege::Mcp,
                Verb::Get if private.contains(&route.path) => Privilege::PrivateRead,
                Verb::Get => Privilege::Open,
            };
            assert_eq!(route.privilege, expected, "{route:?}");
            let mcp =
                route.path == "/mcp" || route.path == "/mcp/" || route.path.ends_with("}/mcp");
            assert_eq!(route.privilege == Privilege::Mcp, mcp, "{route:?}");
        }
    }

    /// The wire crate's table (`switchboard_api::API_ROUTES`, rendered into
    /// `ui/src/api.gen.ts` as `ApiRoutes`) is this table's `/api/v1` part.
    #[tokio::test]
    async fn the_api_route_types_list_exactly_the_declared_control_routes() {
        let hub = bound().await;
        let name = |p: Privilege| match p {
            Privilege::Open => "open",
            Privilege::PrivateRead => "private read",
            Privilege::Write => "write",
            Privilege::Mcp => "mcp",
        };
        let mut declared: Vec<(&str, &str, &str)> = table(&hub.handle())
            .declared
            .iter()
            .filter(|r| r.path.starts_with("/api/v1/"))
            .map(|r| (r.verb.as_str(), r.path, name(r.privilege)))
            .collect();
        let mut typed: Vec<(&str, &str, &str)> = switchboard_api::API_ROUTES
            .iter()
            .map(|r| (r.method, r.path, r.privilege))
            .collect();
        declared.sort_unstable();
        typed.sort_unstable();
        assert_eq!(declared, typed);
    }

    #[tokio::test]
    async fn every_declared_route_is_behind_its_privilege() {
        let hub = bound().await;
        let handle = hub.handle();
        let declared = table(&handle).declared;
        let router = super::router(handle.clone());
        let token = format!("Bearer {}", handle.control_token());
        for route in &declared {
            let plain = send(&router, request(route, &[])).await.status();
            match route.privilege {
                Privilege::Write | Privilege::PrivateRead => {
                    assert_eq!(plain, StatusCode::UNAUTHORIZED, "{route:?}");
                }
                // `/login` without a code is the handler's own 403.
                Privilege::Open | Privilege::Mcp => {
                    assert_ne!(plain, StatusCode::UNAUTHORIZED, "{route:?}");
                    if route.path != "/login" {
                        assert_ne!(plain, StatusCode::FORBIDDEN, "{route:?}");
                    }
                }
            }
            // Every route refuses a foreign Host; a write also a foreign
            // (even loopback) Origin, token or not.
            let mut foreign = request(route, &[]);
            foreign
                .headers_mut()
                .insert(header::HOST, HeaderValue::from_static("evil.example"));
            assert_eq!(
                send(&router, foreign).await.status(),
                StatusCode::FORBIDDEN,
                "{route:?}"
            );
            if route.privilege == Privilege::Write {
                let cross = request(
                    route,
                    &[
                        (header::AUTHORIZATION, &token),
                        (header::ORIGIN, "http://127.0.0.1:3000"),
                    ],
                );
                assert_eq!(
                    send(&router, cross).await.status(),
                    StatusCode::FORBIDDEN,
                    "{route:?}"
                );
            }
        }
    }
}
