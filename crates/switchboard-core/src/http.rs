//! The hub's HTTP surface (layer 5): one router on the hub's one listener.
//!
//! - the MCP routes (`mcp`): `/mcp`, the merged endpoint,
//!   `/servers/<id>/mcp`, one server's pass-through endpoint, and
//!   `/profiles/<name>/mcp`, the profiles (token check: `profiles`), with the JSON
//!   fast path in front of rmcp (`fast_path`) and the session lifetimes of
//!   `session_manager`;
//! - the control API under `/api/v1` and the sign-in link at `/login`, one
//!   module per resource holding its handlers (`control`: the hub and a
//!   server's running state; `servers`, `tools`, `pins`, `activity`,
//!   `pending`, `auth`), sharing the answers of `respond`;
//! - the dashboard's files at `/` and `/assets/*` (`ui_assets`);
//! - the route table (`routes`): every route above, each declared with its
//!   privilege;
//! - the listener that serves it all within connection bounds (`listener`).
//!
//! Every answer names the hub (`switchboard-instance`, see `identity`), and a
//! request that came from this very hub (an upstream URL leading back to
//! it) is answered `508 Loop Detected`.
//!
//! Local access is protected the way a loopback service must be against
//! browsers: every route is declared in `routes` with its privilege, which
//! puts [`crate::access`]'s check for it in front of the route's handler, and
//! a route not declared is refused: loopback `Host` (DNS rebinding), loopback
//! `Origin` (cross-site requests from web pages; non-browser clients send
//! none), and for state-changing control routes the hub's own `Origin` plus a
//! credential (the control token or the dashboard's session cookie). `/login` turns a
//! one-time sign-in link into that cookie; `POST /api/v1/dashboard` makes
//! such a link.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;

use crate::hub::HubHandle;
use crate::identity::{HubIdentity, INSTANCE_HEADER, VIA_HEADER};

mod activity;
mod auth;
mod control;
pub mod fast_path;
pub mod listener;
mod mcp;
mod pending;
mod pins;
mod profiles;
mod registry;
mod respond;
mod routes;
mod servers;
pub mod session_manager;
mod tools;
pub mod ui_assets;

/// Builds the router for the hub's listener: the route table (each route
/// behind its declared privilege, see `routes`), every answer named.
pub fn router(hub: HubHandle) -> Router {
    routes::router(hub.clone()).layer(middleware::from_fn_with_state(
        hub.identity().clone(),
        identify,
    ))
}

/// Names this hub on every answer ([`INSTANCE_HEADER`]), and answers a
/// request that came from this very hub ([`VIA_HEADER`] = its own id: an
/// upstream URL that leads back here) with `508 Loop Detected` instead of
/// serving it. Outermost, so it holds whatever `Host` the request used.
async fn identify(
    State(identity): State<Arc<HubIdentity>>,
    request: Request,
    next: Next,
) -> Response {
    let from_itself = request
        .headers()
        .get(VIA_HEADER)
        .is_some_and(|via| via.as_bytes() == identity.instance.as_bytes());
    let mut response = if from_itself {
        tracing::warn!(
            path = %request.uri().path(),
            "refused a request from this hub itself: a server's URL leads back to it"
        );
        (
            StatusCode::LOOP_DETECTED,
            Json(json!({
                "error": "this request came from this Switchboard itself: a server in its config \
                          points back at it, and a hub cannot serve itself"
            })),
        )
            .into_response()
    } else {
        next.run(request).await
    };
    if let Ok(value) = header::HeaderValue::from_str(&identity.instance) {
        response.headers_mut().insert(INSTANCE_HEADER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use axum::body::Body;
    use tower_service::Service;

    use super::*;
    use crate::hub::Hub;

    /// A hub without servers, bound on a free loopback port.
    async fn bound() -> Hub {
        crate::hub::testing::hub("{}").await.0
    }

    async fn send(router: &Router, request: Request) -> Response {
        let mut router = router.clone();
        router.call(request).await.unwrap()
    }

    fn get(path: &str, host: &str) -> axum::http::request::Builder {
        Request::get(path).header(header::HOST, host)
    }

    #[tokio::test]
    async fn every_answer_names_the_hub_and_its_own_requests_are_refused() {
        let hub = bound().await;
        let handle = hub.handle();
        let router = router(handle.clone());
        let instance = handle.identity().instance.clone();

        let ok = send(
            &router,
            get("/api/v1/status", "127.0.0.1")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(ok.status(), StatusCode::OK);
        assert_eq!(ok.headers()[INSTANCE_HEADER], &*instance);

        let looped = get("/api/v1/status", "127.0.0.1")
            .header(VIA_HEADER, &*instance)
            .body(Body::empty())
            .unwrap();
        let looped = send(&router, looped).await;
        assert_eq!(looped.status(), StatusCode::LOOP_DETECTED);
        assert_eq!(looped.headers()[INSTANCE_HEADER], &*instance);

        // Another hub's id is just a request to serve.
        let other = get("/api/v1/status", "127.0.0.1")
            .header(VIA_HEADER, "0123456789abcdef")
            .body(Body::empty())
            .unwrap();
        assert_eq!(send(&router, other).await.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn the_access_layer_guards_every_route() {
        let hub = bound().await;
        let handle = hub.handle();
        let router = router(handle.clone());

        // DNS rebinding: a foreign Host is refused on every route, MCP included.
        for path in ["/api/v1/status", "/mcp", "/"] {
            let response = send(
                &router,
                get(path, "evil.example").body(Body::empty()).unwrap(),
            )
            .await;
            assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
            assert!(response.headers().contains_key(INSTANCE_HEADER), "{path}");
        }

        // A state change needs the token.
        let refresh = || Request::post("/api/v1/refresh").header(header::HOST, "localhost");
        let refused = send(&router, refresh().body(Body::empty()).unwrap()).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        assert!(refused.headers().contains_key(header::WWW_AUTHENTICATE));
        let allowed = refresh()
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", handle.control_token()),
            )
            .body(Body::empty())
            .unwrap();
        assert_eq!(send(&router, allowed).await.status(), StatusCode::OK);

        // A pass-through route of no configured server.
        let unknown = Request::post("/servers/nope/mcp")
            .header(header::HOST, "127.0.0.1")
            .body(Body::empty())
            .unwrap();
        assert_eq!(send(&router, unknown).await.status(), StatusCode::NOT_FOUND);
    }
}
