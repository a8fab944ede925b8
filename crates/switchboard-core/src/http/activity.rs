//! `GET /api/v1/activity?limit=N&after=SEQ`: the newest recorded calls,
//! newest first (see `crate::activity` and `docs/status.md`). `limit`
//! defaults to [`DEFAULT_LIMIT`] and is at most [`RING`] (a larger value
//! counts as that); `after` keeps only calls numbered above it, which is how
//! `switchboard activity --follow` polls for new ones. A value that is not a
//! whole number is refused (400) naming the parameter.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::activity::{DEFAULT_LIMIT, RING};
use crate::hub::HubHandle;

pub(super) async fn activity(State(hub): State<HubHandle>, RawQuery(query): RawQuery) -> Response {
    let mut limit = DEFAULT_LIMIT;
    let mut after = None;
    for pair in query.as_deref().unwrap_or_default().split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name != "limit" && name != "after" {
            continue;
        }
        let Ok(number) = value.parse::<u64>() else {
            return (
                StatusCode::BAD_REQUEST,
                Json(api::ErrorResponse {
                    error: format!("`{name}` must be a whole number, not {value:?}"),
                }),
            )
                .into_response();
        };
        if name == "limit" {
            limit = usize::try_from(number).unwrap_or(usize::MAX);
        } else {
            after = Some(number);
        }
    }
    let activity = hub.activity();
    Json(api::ActivityResponse {
        calls: activity.recent(limit.min(RING), after),
        dropped: activity.dropped(),
    })
    .into_response()
}
