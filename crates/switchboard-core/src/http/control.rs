//! The local control API under `/api/v1` (JSON): status, events, refresh,
//! reload, enabling and disabling servers, their logs, logins, the activity
//! log (`control/activity.rs`), and the
//! dashboard's sign-in links; and `/login`, which turns a one-time sign-in
//! link into the dashboard's session cookie. Requests reach these handlers
//! only past the router's access checks (see [`super`]).

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use switchboard_api as api;

use crate::config::ServerId;
use crate::hub::HubHandle;
use crate::listing::RefreshTrigger;
use crate::reload::{ReloadError, ReloadResult};

mod activity;

/// The control API, nested under `/api/v1` by [`super::router`].
pub(super) fn api(hub: HubHandle) -> Router {
    Router::new()
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
        .route("/servers/{id}/held", get(super::pins::held))
        .route("/servers/{id}/approve", post(super::pins::approve))
        .route("/dashboard", post(dashboard_link))
        .merge(super::servers::routes())
        .merge(super::tools::routes())
        .merge(super::pending::routes())
        .merge(super::registry::routes())
        .route("/activity", get(activity::activity))
        .with_state(hub)
}

/// `GET /login?code=...`: a one-time sign-in link becomes the dashboard's
/// session cookie (HttpOnly, SameSite=Strict), then the dashboard.
pub(super) async fn sign_in(State(hub): State<HubHandle>, RawQuery(query): RawQuery) -> Response {
    let code = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("code="))
        .unwrap_or_default();
    let access = hub.access();
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

/// The snapshot; its private fields only for a request with the control
/// token or the dashboard's session (see [`crate::snapshot::open_view`]).
async fn status(State(hub): State<HubHandle>, headers: HeaderMap) -> Response {
    let snapshot = hub.snapshot();
    if hub.access().may_read_private(&headers) {
        Json(snapshot.as_ref()).into_response()
    } else {
        Json(crate::snapshot::open_view(&snapshot)).into_response()
    }
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
/// (coalesced to at most one every 200 ms); private fields as for
/// [`status`], decided once for the stream.
async fn events(State(hub): State<HubHandle>, headers: HeaderMap) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let private = hub.access().may_read_private(&headers);
    let rx = hub.subscribe();
    let cancel = hub.shutdown_token().clone();
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
            let event = Event::default().event("snapshot");
            let event = if private {
                event.json_data(snapshot.as_ref())
            } else {
                event.json_data(crate::snapshot::open_view(&snapshot))
            }
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

pub(super) fn reload_response(result: Result<ReloadResult, ReloadError>) -> Response {
    match result {
        Ok(reload) => Json(api::ReloadResponse::Applied { ok: true, reload }).into_response(),
        Err(err) => {
            let code = match err {
                ReloadError::UnknownServer(_) => StatusCode::NOT_FOUND,
                ReloadError::NoConfigFile => StatusCode::CONFLICT,
                ReloadError::Config(_) => StatusCode::UNPROCESSABLE_ENTITY,
                ReloadError::Write { .. } => StatusCode::INTERNAL_SERVER_ERROR,
                ReloadError::Edit(_) => StatusCode::BAD_REQUEST,
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

pub(super) fn not_found(id: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(api::ErrorResponse {
            error: format!("no server with id '{id}'"),
        }),
    )
        .into_response()
}
