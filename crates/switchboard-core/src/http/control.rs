//! The control API's hub-wide routes and those of one server's running
//! state under `/api/v1`: the status snapshot and its event stream, refresh,
//! reload, enabling and disabling a server, its logs. Routes and their
//! privileges are declared in `routes` (the route table); requests reach
//! these handlers only past its checks.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use super::respond::{not_found, reload_response};
use crate::config::ServerId;
use crate::hub::HubHandle;
use crate::listing::RefreshTrigger;

/// The snapshot; its private fields only for a request with the control
/// token or the dashboard's session (see [`crate::snapshot::open_view`]).
pub(super) async fn status(State(hub): State<HubHandle>, headers: HeaderMap) -> Response {
    let snapshot = hub.snapshot();
    if hub.access().may_read_private(&headers) {
        Json(snapshot.as_ref()).into_response()
    } else {
        Json(crate::snapshot::open_view(&snapshot)).into_response()
    }
}

pub(super) async fn refresh_all(State(hub): State<HubHandle>) -> Response {
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

pub(super) async fn refresh_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
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
pub(super) async fn events(State(hub): State<HubHandle>, headers: HeaderMap) -> Response {
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

pub(super) async fn reload(State(hub): State<HubHandle>) -> Response {
    reload_response(hub.reload_from_file().await)
}

pub(super) async fn enable_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
    reload_response(hub.set_enabled(&id, true).await)
}

pub(super) async fn disable_server(
    State(hub): State<HubHandle>,
    Path(id): Path<String>,
) -> Response {
    reload_response(hub.set_enabled(&id, false).await)
}

pub(super) async fn server_logs(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
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
