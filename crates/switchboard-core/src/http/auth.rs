//! The control API's sign-in and login routes: `POST /api/v1/dashboard`
//! (a one-time sign-in link for the dashboard), `GET /login?code=...` (that
//! link turned into the dashboard's session cookie), and a remote server's
//! OAuth `POST /api/v1/servers/<id>/login` and `.../logout`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::hub::HubHandle;

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
pub(super) async fn dashboard_link(State(hub): State<HubHandle>) -> Response {
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

/// Starts an OAuth login: answers with the URL to open; the hub's loopback
/// listener completes the login when the browser comes back.
pub(super) async fn login_server(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
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

pub(super) async fn logout_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
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
