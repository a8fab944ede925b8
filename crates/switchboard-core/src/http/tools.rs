//! The control API's per-tool routes, beside [`super::control`]:
//! - `POST /servers/<id>/tools/<tool>/enable` and `.../disable`: show or hide
//!   one tool (its own name at the server, percent-encoded in the path) by
//!   editing the server's `disabledTools` in the config file, then applying
//!   it like a reload (the server is not restarted; clients get
//!   `tools/list_changed`). They answer like `enable`/`disable` of a server
//!   ([`api::ReloadResponse`]).

use axum::Router;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::post;

use super::control::reload_response;
use crate::hub::HubHandle;

/// The routes, merged into the control API by [`super::control::api`].
pub(super) fn routes() -> Router<HubHandle> {
    Router::new()
        .route("/servers/{id}/tools/{tool}/enable", post(enable_tool))
        .route("/servers/{id}/tools/{tool}/disable", post(disable_tool))
}

async fn enable_tool(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    tracing::info!(server = %id, tool = %tool, "tool enabled from the control API");
    reload_response(hub.set_tool_enabled(&id, &tool, true).await)
}

async fn disable_tool(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    tracing::info!(server = %id, tool = %tool, "tool disabled from the control API");
    reload_response(hub.set_tool_enabled(&id, &tool, false).await)
}
