//! Answers shared by the control API's routes: a server that is not
//! configured, and the outcome of a config change (a reload, an edit).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::reload::{ReloadError, ReloadResult};

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

pub(super) fn not_found(id: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(api::ErrorResponse {
            error: format!("no server with id '{id}'"),
        }),
    )
        .into_response()
}
