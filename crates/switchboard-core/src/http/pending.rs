//! The control API's routes for calls waiting for approval (see
//! `crate::approval`): `GET /api/v1/pending` (a private read: it shows
//! arguments, redacted), `POST /api/v1/pending/<id>/allow` (optional body
//! `{"always": true}`: also add the tool to its server's `allowTools`) and
//! `POST /api/v1/pending/<id>/deny`. A call decided already, timed out or
//! unknown is 404. The decider recorded is `dashboard` for the dashboard's
//! session cookie and `api` for the control token.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::access::Credential;
use crate::approval::{Decider, Decision};
use crate::hub::HubHandle;

pub(super) async fn list(State(hub): State<HubHandle>) -> Response {
    Json(api::PendingResponse {
        calls: hub.pending().list(),
    })
    .into_response()
}

pub(super) async fn allow(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let always = if body.iter().all(u8::is_ascii_whitespace) {
        false
    } else {
        match serde_json::from_slice::<api::DecideRequest>(&body) {
            Ok(request) => request.always.unwrap_or(false),
            Err(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "the body must be {\"always\": true}, {\"always\": false} or empty".into(),
                );
            }
        }
    };
    decide(&hub, &id, &headers, true, always).await
}

pub(super) async fn deny(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    decide(&hub, &id, &headers, false, false).await
}

async fn decide(
    hub: &HubHandle,
    id: &str,
    headers: &HeaderMap,
    allow: bool,
    always: bool,
) -> Response {
    let by = match hub.access().credential(headers) {
        Credential::Session => Decider::Dashboard,
        _ => Decider::Api,
    };
    let decision = Decision { allow, always, by };
    match hub.decide_call(id, decision).await {
        Ok((call, added)) => Json(api::DecideResponse {
            id: call.id,
            decision: if allow { "allow" } else { "deny" }.to_string(),
            always: matches!(added, Some(Ok(()))),
            error: added.and_then(Result::err).map(|err| {
                format!("the call was allowed, but adding it to allowTools failed: {err}")
            }),
        })
        .into_response(),
        Err(err) => error(StatusCode::NOT_FOUND, err.to_string()),
    }
}

fn error(code: StatusCode, error: String) -> Response {
    (code, Json(api::ErrorResponse { error })).into_response()
}
