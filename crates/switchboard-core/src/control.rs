//! The HTTP surface on the hub's one listener: the merged MCP endpoint at
//! `/mcp` and the local control API under `/api/v1` (JSON).
//!
//! Every answer names the hub (`switchboard-instance`, see `identity`), and a
//! request that came from this very hub (an upstream URL leading back to
//! it) is answered `508 Loop Detected`.
//!
//! Local access is protected the way a loopback service must be against
//! browsers: every request's `Host` must be a loopback name (DNS rebinding),
//! and a request that carries an `Origin` must come from a loopback origin
//! (cross-site requests from web pages). Non-browser clients send no `Origin`.
//!
//! Every request first passes [`crate::access`] (one layer over all routes):
//! loopback `Host` (DNS rebinding), loopback `Origin`, and for state-changing
//! control routes the hub's own `Origin` plus a credential (the control token
//! or the dashboard's session cookie). `/login` turns a one-time sign-in link
//! into that cookie; `POST /api/v1/dashboard` makes such a link.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::json;
use switchboard_api as api;

use crate::capabilities::RefreshTrigger;
use crate::config::ServerId;
use crate::gateway::{Gateway, Scope};
use crate::hub::HubHandle;
use crate::identity::{HubIdentity, INSTANCE_HEADER, VIA_HEADER};
use crate::reload::{ReloadError, ReloadResult};

/// Builds the router for the hub's listener.
pub fn router(hub: HubHandle) -> Router {
    let for_sessions = hub.clone();
    let mcp_config = StreamableHttpServerConfig::default()
        .with_cancellation_token(hub.inner.cancel.child_token())
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)));
    let merged_sessions = Arc::new(crate::http_sessions::HubSessionManager::new(
        hub.inner.sessions.table().clone(),
    ));
    let mcp = StreamableHttpService::new(
        move || Ok(Gateway::new(for_sessions.clone(), Scope::Merged)),
        merged_sessions.clone(),
        mcp_config,
    );
    let api = Router::new()
        .route("/status", get(status))
        .route("/refresh", post(refresh_all))
        .route("/events", get(events))
        .route("/reload", post(reload))
        .route("/servers/{id}/refresh", post(refresh_server))
        .route("/servers/{id}/enable", post(enable_server))
        .route("/servers/{id}/disable", post(disable_server))
        .route("/servers/{id}/logs", get(server_logs))
        .route("/servers/{id}/login", post(login_server))
        .route("/servers/{id}/logout", post(logout_server))
        .route("/dashboard", post(dashboard_link))
        .with_state(hub.clone());
    // Both MCP routes, with the JSON fast path in front of rmcp (see fast_path).
    let mcp_routes = Router::new()
        .nest_service("/mcp", mcp)
        .route("/servers/{id}/mcp", any(pass_through))
        .layer(middleware::from_fn_with_state(
            crate::fast_path::FastPath {
                hub: hub.clone(),
                merged_sessions,
            },
            crate::fast_path::layer,
        ))
        .with_state(hub.clone());
    Router::new()
        .merge(mcp_routes)
        .nest("/api/v1", api)
        .route("/login", get(sign_in).with_state(hub.clone()))
        .merge(crate::ui_assets::router())
        .layer(middleware::from_fn_with_state(
            hub.inner.access.clone(),
            guard,
        ))
        .layer(middleware::from_fn_with_state(
            hub.inner.identity.clone(),
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

/// `/servers/<id>/mcp`: one upstream, original names (see `gateway::Scope`).
/// Each server gets its own MCP service and session manager, made on first use.
async fn pass_through(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    use tower_service::Service;
    let Some(upstream) = hub.upstream(&id) else {
        return not_found(&id);
    };
    let mut service = hub.pass_through_service(&upstream.id, |server, sessions| {
        let for_sessions = hub.clone();
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(hub.inner.cancel.child_token())
            .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)));
        StreamableHttpService::new(
            move || {
                Ok(Gateway::new(
                    for_sessions.clone(),
                    Scope::Server(server.clone()),
                ))
            },
            sessions,
            config,
        )
    });
    match service.call(request).await {
        Ok(response) => response.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}

/// Refuses what [`crate::access`] refuses: 401 (with `WWW-Authenticate`)
/// without a needed credential, 403 for foreign hosts, origins and wrong tokens.
async fn guard(
    State(access): State<Arc<crate::access::Access>>,
    request: Request,
    next: Next,
) -> Response {
    use crate::access::Refusal;
    match access.check(request.method(), request.uri().path(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(Refusal::Forbidden(why)) => {
            (StatusCode::FORBIDDEN, Json(json!({"error": why}))).into_response()
        }
        Err(Refusal::Unauthorized(why)) => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"switchboard\"")],
            Json(json!({"error": why})),
        )
            .into_response(),
    }
}

/// `GET /login?code=...`: a one-time sign-in link becomes the dashboard's
/// session cookie (HttpOnly, SameSite=Strict), then the dashboard.
async fn sign_in(State(hub): State<HubHandle>, RawQuery(query): RawQuery) -> Response {
    let code = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("code="))
        .unwrap_or_default();
    let access = &hub.inner.access;
    match access.redeem(code) {
        Some(session) => {
            tracing::info!("dashboard signed in");
            (
                StatusCode::SEE_OTHER,
                [
                    (header::LOCATION, "/".to_string()),
                    (header::SET_COOKIE, access.session_cookie(&session)),
                    (header::CACHE_CONTROL, "no-store".to_string()),
                    (header::REFERRER_POLICY, "no-referrer".to_string()),
                ],
            )
                .into_response()
        }
        None => (
            StatusCode::FORBIDDEN,
            [(header::CACHE_CONTROL, "no-store")],
            "This sign-in link has expired or was already used. \
             Run `switchboard dashboard` for a new one.\n",
        )
            .into_response(),
    }
}

/// `POST /api/v1/dashboard`: a one-time link that signs a browser in to the
/// dashboard (valid for two minutes).
async fn dashboard_link(State(hub): State<HubHandle>) -> Response {
    match hub.sign_in_url() {
        Ok(url) => Json(api::DashboardLink {
            ok: true,
            url: Some(url),
            error: None,
        })
        .into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(api::DashboardLink {
                ok: false,
                url: None,
                error: Some(err.to_string()),
            }),
        )
            .into_response(),
    }
}

async fn status(State(hub): State<HubHandle>) -> Response {
    Json(hub.snapshot().as_ref().clone()).into_response()
}

async fn refresh_all(State(hub): State<HubHandle>) -> Response {
    let results = hub.refresh_all(RefreshTrigger::Manual).await;
    let servers = results
        .into_iter()
        .map(|(id, r)| api::RefreshResult {
            id: id.to_string(),
            ok: r.is_ok(),
            error: r.err().map(|err| err.to_string()),
            kind: None,
        })
        .collect();
    Json(api::RefreshAllResponse { servers }).into_response()
}

async fn refresh_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    let Some(upstream) = hub.upstream(&id) else {
        return not_found(&id);
    };
    let id: ServerId = upstream.id.clone();
    let outcome = hub.refresh(&id, RefreshTrigger::Manual).await;
    let body = api::RefreshResult {
        id: id.to_string(),
        ok: outcome.is_ok(),
        error: outcome.as_ref().err().map(|err| err.to_string()),
        kind: outcome.as_ref().err().map(|err| err.kind().to_string()),
    };
    let code = if body.ok {
        StatusCode::OK
    } else {
        StatusCode::BAD_GATEWAY
    };
    (code, Json(body)).into_response()
}

/// Server-sent events: the snapshot now, then again whenever it changes
/// (coalesced to at most one every 200 ms).
async fn events(State(hub): State<HubHandle>) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let rx = hub.subscribe();
    let cancel = hub.inner.cancel.clone();
    let stream = futures::stream::unfold((rx, true), move |(mut rx, first)| {
        let cancel = cancel.clone();
        async move {
            if !first {
                tokio::select! {
                    changed = rx.changed() => changed.ok()?,
                    () = cancel.cancelled() => return None,
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            let snapshot = rx.borrow_and_update().clone();
            let event = Event::default()
                .event("snapshot")
                .json_data(snapshot.as_ref())
                .unwrap_or_else(|_| Event::default().event("error"));
            Some((Ok::<_, std::convert::Infallible>(event), (rx, false)))
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn reload(State(hub): State<HubHandle>) -> Response {
    reload_response(hub.reload_from_file().await)
}

async fn enable_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    reload_response(hub.set_enabled(&id, true).await)
}

async fn disable_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    reload_response(hub.set_enabled(&id, false).await)
}

fn reload_response(result: Result<ReloadResult, ReloadError>) -> Response {
    match result {
        Ok(reload) => Json(api::ReloadResponse::Applied { ok: true, reload }).into_response(),
        Err(err) => {
            let code = match err {
                ReloadError::UnknownServer(_) => StatusCode::NOT_FOUND,
                ReloadError::NoConfigFile => StatusCode::CONFLICT,
                ReloadError::Config(_) => StatusCode::UNPROCESSABLE_ENTITY,
                ReloadError::Write { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            };
            let config_error = match &err {
                ReloadError::Config(config) => Some(config.clone().into()),
                _ => None,
            };
            let body = api::ReloadResponse::Refused {
                ok: false,
                error: err.to_string(),
                config_error,
            };
            (code, Json(body)).into_response()
        }
    }
}

/// Starts an OAuth login: answers with the URL to open; the hub's loopback
/// listener completes the login when the browser comes back.
async fn login_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    match hub.login(&id).await {
        Ok(started) => Json(api::LoginResponse {
            id,
            ok: true,
            authorization_url: started.authorization_url,
            redirect_uri: started.redirect_uri,
        })
        .into_response(),
        Err(err) => auth_error(&id, &err),
    }
}

async fn logout_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    match hub.logout(&id).await {
        Ok(()) => Json(api::LogoutResponse { id, ok: true }).into_response(),
        Err(err) => auth_error(&id, &err),
    }
}

fn auth_error(id: &str, err: &crate::auth::AuthError) -> Response {
    use crate::auth::AuthError;
    let code = match err {
        AuthError::UnknownServer { .. } => StatusCode::NOT_FOUND,
        AuthError::NotRemote { .. } => StatusCode::CONFLICT,
        AuthError::Store(_) | AuthError::Callback { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_GATEWAY,
    };
    let body = api::AuthFailure {
        id: id.to_string(),
        ok: false,
        error: err.to_string(),
        detail: err.into(),
    };
    (code, Json(body)).into_response()
}

async fn server_logs(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    let Some(upstream) = hub.upstream(&id) else {
        return not_found(&id);
    };
    Json(api::LogsResponse {
        id: upstream.id.to_string(),
        stderr: upstream.stderr_tail(usize::MAX),
        events: upstream
            .log_lines()
            .into_iter()
            .map(|line| api::LogLine {
                at: line.at,
                level: line.level.to_string(),
                message: line.message,
            })
            .collect(),
    })
    .into_response()
}

fn not_found(id: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(api::ErrorResponse {
            error: format!("no server with id '{id}'"),
        }),
    )
        .into_response()
}
