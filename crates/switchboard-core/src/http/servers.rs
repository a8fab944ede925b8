//! The control API's routes that edit servers and import them (the
//! dashboard's first run and server form), beside `control`:
//! - `GET /servers/<id>/config`: the definition as written, secrets `***`;
//! - `PUT /servers/<id>`: add or replace a server with the JSON definition
//!   in the body (checked by the loader; refused → `400`, nothing written);
//! - `DELETE /servers/<id>`: remove it;
//! - `GET /import`, `POST /import`: what `switchboard import` would add, and
//!   doing it (`501` when the binary gave the hub no import source).
//!
//! Edits answer like a reload ([`api::ReloadResponse`]). Bodies may carry
//! header and env values: they are never logged, and messages that could
//! quote them are masked ([`crate::config::mask_definition_secrets`]).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use super::respond::reload_response;
use crate::config::redact_definition;
use crate::hub::HubHandle;
use crate::reload::ReloadError;
use crate::util::redact;

pub(super) async fn server_config(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
    match hub.server_definition(&id).await {
        Ok(definition) => Json(api::ServerDefinition { id, definition }).into_response(),
        Err(err) => reload_response(Err(err)),
    }
}

pub(super) async fn put_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let definition: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        Ok(_) => return bad_request("the body must be a server definition: a JSON object"),
        Err(err) => {
            // serde_json's message names a position, never the body's text.
            return bad_request(&format!("the body is not JSON: {err}"));
        }
    };
    tracing::info!(server = %id, "server definition written from the control API");
    reload_response(hub.put_server(&id, &definition).await)
}

pub(super) async fn delete_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
    tracing::info!(server = %id, "server removed from the control API");
    reload_response(hub.remove_server(&id).await)
}

fn bad_request(error: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(api::ReloadResponse::Refused {
            ok: false,
            error: error.to_string(),
            config_error: None,
        }),
    )
        .into_response()
}

fn import_error(code: StatusCode, error: String) -> Response {
    (code, Json(api::ErrorResponse { error })).into_response()
}

/// The source and the config path, or the status and sentence saying why
/// there is none.
type ImportContext = (
    std::sync::Arc<dyn crate::import::ImportSource>,
    std::path::PathBuf,
);

fn import_context(hub: &HubHandle) -> Result<ImportContext, (StatusCode, String)> {
    let source = hub.import_source().ok_or_else(|| {
        (
            StatusCode::NOT_IMPLEMENTED,
            "this hub cannot import from AI clients (it was started without an import \
             source); run `switchboard import` instead"
                .to_string(),
        )
    })?;
    let path = hub
        .config_path()
        .ok_or_else(|| (StatusCode::CONFLICT, ReloadError::NoConfigFile.to_string()))?;
    Ok((source, path))
}

pub(super) async fn import_offer(State(hub): State<HubHandle>) -> Response {
    let (source, path) = match import_context(&hub) {
        Ok(context) => context,
        Err((code, error)) => return import_error(code, error),
    };
    let found = tokio::task::spawn_blocking(move || source.find(&path)).await;
    match found {
        Ok(Ok(mut offer)) => {
            for candidate in &mut offer.candidates {
                candidate.definition = redact_definition(&candidate.definition);
                candidate.notes = candidate.notes.iter().map(|n| redact::text(n)).collect();
            }
            offer.problems = offer.problems.iter().map(|p| redact::text(p)).collect();
            Json(offer).into_response()
        }
        Ok(Err(err)) => import_error(StatusCode::INTERNAL_SERVER_ERROR, redact::text(&err.0)),
        Err(err) => import_error(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()),
    }
}

pub(super) async fn import_apply(State(hub): State<HubHandle>, body: Bytes) -> Response {
    // The config path is checked here; the hub passes it to the source.
    let (source, _path) = match import_context(&hub) {
        Ok(context) => context,
        Err((code, error)) => return import_error(code, error),
    };
    let selection: api::ImportSelection = if body.iter().all(u8::is_ascii_whitespace) {
        api::ImportSelection::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(selection) => selection,
            Err(err) => {
                return import_error(
                    StatusCode::BAD_REQUEST,
                    format!("the body must be {{\"ids\": [...]}} or {{\"all\": true}}: {err}"),
                );
            }
        }
    };
    let applied = match hub.apply_import(source, selection).await {
        Ok(applied) => applied,
        Err(err) => {
            let body = api::ImportResponse {
                ok: false,
                added: Vec::new(),
                backup: None,
                reload: None,
                error: Some(redact::text(&err.0)),
            };
            return (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response();
        }
    };
    tracing::info!(added = ?applied.added, "imported from the AI clients' configs");
    let backup = applied.backup.map(|p| p.display().to_string());
    if applied.added.is_empty() {
        return Json(api::ImportResponse {
            ok: true,
            added: applied.added,
            backup,
            reload: None,
            error: None,
        })
        .into_response();
    }
    match hub.reload_from_file().await {
        Ok(reload) => Json(api::ImportResponse {
            ok: true,
            added: applied.added,
            backup,
            reload: Some(reload),
            error: None,
        })
        .into_response(),
        Err(err) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(api::ImportResponse {
                ok: false,
                added: applied.added,
                backup,
                reload: None,
                error: Some(err.to_string()),
            }),
        )
            .into_response(),
    }
}
