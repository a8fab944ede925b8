//! The control API's tool-pinning routes (see `crate::pins`):
//! `GET /api/v1/servers/<id>/held` (both definitions of each held or changed
//! tool, for a diff) and `POST /api/v1/servers/<id>/approve` (body
//! `{"tools": [...]}`, or none for every held, changed and new tool; each
//! tool a name, or `{"name", "hash"}` to approve only the definition with
//! that hash: 409 and nothing approved when it is not the held one).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use super::respond::not_found;
use crate::hub::{ApproveError, HubHandle};

pub(super) async fn held(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    match hub.held_definitions(&id) {
        Some(tools) => Json(api::HeldResponse { server: id, tools }).into_response(),
        None => not_found(&id),
    }
}

pub(super) async fn approve(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let request = if body.iter().all(u8::is_ascii_whitespace) {
        api::ApproveRequest::default()
    } else {
        match serde_json::from_slice::<api::ApproveRequest>(&body) {
            Ok(request) => request,
            // serde's own message would name the wire type: say the shape.
            Err(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "the body must be {\"tools\": [\"<tool>\" or {\"name\": \"<tool>\", \"hash\": \"<hash>\"}, ...]} or empty".to_string(),
                );
            }
        }
    };
    match hub.approve(&id, request.tools).await {
        Ok(approved) => Json(api::ApproveResponse {
            server: id,
            approved: approved.tools,
            headers: (!approved.headers.is_empty()).then_some(approved.headers),
        })
        .into_response(),
        Err(ApproveError::UnknownServer(_)) => not_found(&id),
        Err(err @ (ApproveError::NotPending { .. } | ApproveError::Update(_))) => {
            error(StatusCode::CONFLICT, err.to_string())
        }
    }
}

fn error(code: StatusCode, error: String) -> Response {
    (code, Json(api::ErrorResponse { error })).into_response()
}
