//! The control API's per-tool routes, beside `control`:
//! - `POST /servers/<id>/tools/<tool>/enable` and `.../disable`: show or hide
//!   one tool (its own name at the server, percent-encoded in the path) by
//!   editing the server's `disabledTools` in the config file, then applying
//!   it like a reload (the server is not restarted; clients get
//!   `tools/list_changed`). They answer like `enable`/`disable` of a server
//!   ([`api::ReloadResponse`]);
//! - `PUT /servers/<id>/tools/<tool>/override` (body [`api::ToolOverride`])
//!   and `DELETE` of the same path: set or remove the tool's
//!   `toolOverrides` entry in the config file (spliced, every other byte
//!   kept), checked alone and against the tool's listed schema, then applied
//!   like a reload; answers like `enable`/`disable`. An empty override
//!   removes the entry;
//! - `GET /servers/<id>/tools`: the server's last listing with each tool's
//!   switch, override, argument names and token count (never starts the server, nor a count: the
//!   counts are the hub's, made once per listing; `null` until made);
//! - `GET /search?q=...&limit=...`: the catalog search a person can try in
//!   the dashboard: [`crate::search::Index`] over every enabled server's last
//!   known listing (the merged catalog, warm listings included, disabled
//!   tools left out), answering like `switchboard__search_tools`. Nothing is
//!   started. `limit` defaults to 10 and is at most 50.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use super::respond::{not_found, reload_response};
use crate::hub::HubHandle;
use crate::search::Matched;

/// Results of a search when the request does not say.
const DEFAULT_LIMIT: usize = 10;
/// Most results of one search.
const MAX_LIMIT: usize = 50;

pub(super) async fn enable_tool(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    tracing::info!(server = %id, tool = %tool, "tool enabled from the control API");
    reload_response(hub.set_tool_enabled(&id, &tool, true).await)
}

pub(super) async fn disable_tool(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    tracing::info!(server = %id, tool = %tool, "tool disabled from the control API");
    reload_response(hub.set_tool_enabled(&id, &tool, false).await)
}

pub(super) async fn put_override(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
    body: Result<Json<api::ToolOverride>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(body)) => body,
        Err(rejection) => {
            return (
                StatusCode::BAD_REQUEST,
                Json(api::ErrorResponse {
                    error: format!(
                        "the body must be a tool override ({{\"name\", \"description\", \
                         \"arguments\", \"hideArguments\"}}): {}",
                        rejection.body_text()
                    ),
                }),
            )
                .into_response();
        }
    };
    tracing::info!(server = %id, tool = %tool, "tool override set from the control API");
    let value = match serde_json::to_value(&body) {
        Ok(value) if value.as_object().is_some_and(|o| !o.is_empty()) => Some(value),
        _ => None,
    };
    reload_response(hub.set_tool_override(&id, &tool, value.as_ref()).await)
}

pub(super) async fn delete_override(
    State(hub): State<HubHandle>,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    tracing::info!(server = %id, tool = %tool, "tool override removed from the control API");
    reload_response(hub.set_tool_override(&id, &tool, None).await)
}

pub(super) async fn server_tools(State(hub): State<HubHandle>, Path(id): Path<String>) -> Response {
    let Some(upstream) = hub.upstream(&id) else {
        return not_found(&id);
    };
    let config = upstream.config();
    let Some(caps) = upstream.capabilities() else {
        return Json(api::ServerToolsResponse {
            server: id,
            listed: false,
            tools: Vec::new(),
        })
        .into_response();
    };
    // Counted by the hub's counter after the listing came (never here: a
    // request never starts a count); `null` until then.
    let counted = hub.tool_tokens();
    let counts = counted.listed.get(&upstream.id);
    let tools = caps
        .tools
        .iter()
        .map(|tool| api::ServerTool {
            name: tool.name.to_string(),
            description: tool
                .description
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or_default()
                .to_string(),
            enabled: !config.disabled_tools.contains(tool.name.as_ref()),
            tokens: counts.and_then(|c| c.get(tool.name.as_ref()).copied()),
            arguments: tool
                .input_schema
                .get("properties")
                .and_then(serde_json::Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
            tool_override: config.tool_overrides.get(tool.name.as_ref()).map(|o| {
                api::ToolOverride {
                    name: o.name.clone(),
                    description: o.description.clone(),
                    arguments: (!o.arguments.is_empty()).then(|| o.arguments.clone()),
                    hide_arguments: (!o.hide_arguments.is_empty())
                        .then(|| o.hide_arguments.iter().cloned().collect()),
                }
            }),
        })
        .collect();
    Json(api::ServerToolsResponse {
        server: id,
        listed: true,
        tools,
    })
    .into_response()
}

/// The query of `GET /search`.
#[derive(Debug, serde::Deserialize)]
pub(super) struct SearchQuery {
    #[serde(default)]
    q: String,
    limit: Option<usize>,
}

pub(super) async fn search(
    State(hub): State<HubHandle>,
    query: Result<Query<SearchQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(query)) = query else {
        return (
            StatusCode::BAD_REQUEST,
            Json(api::ErrorResponse {
                error: "the query must be ?q=<words>&limit=<1..50>".into(),
            }),
        )
            .into_response();
    };
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let catalog = hub.catalog();
    let snapshot = hub.snapshot();
    let found = tokio::task::spawn_blocking(move || {
        // The index search mode uses: built once per tools version.
        let index = hub.search_index(&catalog);
        index
            .index
            .search(&query.q, limit)
            .into_iter()
            .filter_map(|hit| {
                let doc = index.index.docs().get(hit.doc)?;
                let (tool, _) = index.route(hit.doc)?;
                let running = snapshot
                    .servers
                    .iter()
                    .any(|s| s.id == doc.server && s.state == api::ServerState::Ready);
                Some(api::SearchedTool {
                    name: doc.name.clone(),
                    description: doc.description.clone(),
                    input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
                    server: doc.server.clone(),
                    running,
                    matched: match hit.matched {
                        Matched::Words => api::SearchMatch::Lexical,
                        Matched::Meaning => api::SearchMatch::Semantic,
                        Matched::Both => api::SearchMatch::Both,
                    },
                })
            })
            .collect()
    })
    .await;
    match found {
        Ok(tools) => Json(api::SearchResponse { tools }).into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(api::ErrorResponse {
                error: format!("the search failed: {err}"),
            }),
        )
            .into_response(),
    }
}
