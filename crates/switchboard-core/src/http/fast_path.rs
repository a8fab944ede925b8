//! What the hub does in front of rmcp's Streamable HTTP service, for speed.
//!
//! rmcp answers every request of a session with a `text/event-stream`
//! response: a priming event, then the result, written as a chunked body. The
//! protocol lets a server answer a request with one `application/json` body
//! instead (clients must accept both), which costs the hub and the client
//! less: one write instead of several, no event framing or parsing. So, for
//! POSTed JSON-RPC requests on the MCP routes:
//!
//! 1. **Prepared lists.** `tools/list`, `prompts/list`, `resources/list` and
//!    `resources/templates/list` of a known, live merged session are answered
//!    here, from the catalog's list results serialized once per catalog version
//!    (see [`Catalog::list_result`](crate::catalog::Catalog::list_result)), with
//!    the same session bookkeeping as the rmcp path (`Lister::lists`).
//! 2. **Plain calls.** A `tools/call` of a known, live session (merged or
//!    pass-through, on its own route) with no `_meta` (so no progress token)
//!    and no multi-round-trip fields, from a client that declared neither
//!    sampling, elicitation, roots nor tasks, runs here through the same
//!    routing as rmcp's path (`Gateway::forward_call`), in its own task: only
//!    its answer can flow back, so rmcp's per-request session machinery is
//!    skipped. `notifications/cancelled` for it is passed to it (and to rmcp,
//!    as always); a client that goes away cancels it upstream.
//! 3. **JSON when the answer comes first.** Every other request goes to rmcp;
//!    if the first message on its stream is the answer itself, and it comes
//!    within `JSON_WAIT` (one second), the client gets it as `application/json`. If
//!    progress, a log message or a server→client request (sampling,
//!    elicitation) comes first, or the answer takes longer, the client gets the
//!    event stream as rmcp made it, from its first byte, so ordering, keep-alive
//!    and long calls are unchanged.
//!
//! 4. **2025-11-25 tasks.** A task-augmented `tools/call` and the
//!    `tasks/*` requests of a session that negotiated 2025-11-25 go to rmcp
//!    under a method of the hub's own, so that the gateway reads them as the
//!    client wrote them (see `gateway::experimental_tasks`).
//!
//! Anything unusual (no or large `Content-Length`, batches, unknown sessions,
//! extra parameters, protocol headers rmcp must check) goes to rmcp untouched,
//! so its validation stays the only one. Where rmcp's answers break the
//! protocol, this layer corrects them:
//!
//! - a body that is not JSON is HTTP 400 with JSON-RPC `-32700` (parse
//!   error), valid JSON that is no JSON-RPC message HTTP 400 with `-32600`
//!   (rmcp answers 415 for both);
//! - a standard method with parameters that do not fit it gets `-32602`
//!   (invalid params) saying what is wrong (rmcp takes it for an unknown
//!   method, `-32601`);
//! - `DELETE` of a session answers 200 once it is closed and 404 if the session
//!   is unknown (rmcp: 202 for both), and the status snapshot loses it at once;
//! - an `initialize` when every one of `maxSessions` sessions is busy gets 503
//!   (see `session_manager`).
//!
//! A request body this layer reads must arrive within `headerTimeoutSecs`
//! (else HTTP 408): the listener bounds every request body (see `listener`).
//!
//! Every request this layer answers counts as a use of its session, so the
//! session does not expire while it is used (see `session_manager`).
//!
//! This file holds the middleware and what needs the hub (sessions, calls,
//! prepared lists); `fast_path/sniff.rs` holds what it reads from a request
//! and writes as an answer, including the one dispatch decision ([`Route`]).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::{CallToolResponse, ClientCapabilities, ErrorCode, ErrorData, ServerResult};
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio_util::sync::CancellationToken;

use super::mcp::McpServices;
use crate::catalog::ListResult;
use crate::gateway::Gateway;
use crate::hub::HubHandle;
use crate::sessions::Scope;
use crate::sessions::Session;
use crate::upstream::Downstream;

mod sniff;

use sniff::Route;
#[doc(hidden)]
pub use sniff::fuzz_sniff;
use sniff::{
    MAX_PEEK, Probe, envelope, envelope_head, json_content_type, json_response, json_rpc_error,
    json_rpc_status, parse_error, plain, plain_json_post, prefer_json, small_body,
};

const SESSION_HEADER: &str = "mcp-session-id";

/// What the middleware needs: the hub, and the MCP routes' services with
/// their session managers; rmcp's managers alone decide whether a session
/// still exists.
#[derive(Clone)]
pub(crate) struct FastPath {
    pub(crate) hub: HubHandle,
    pub(crate) services: Arc<McpServices>,
}

/// The middleware on the MCP routes (see the module docs).
/// SEP-2663 puts a `tasks/*` request's `taskId` in `Mcp-Name`, and rmcp's
/// server refuses one without it; the Python SDK's client (mcp 2.x, used by
/// FastMCP 4) sends `Mcp-Method` but no `Mcp-Name` for these. The header only
/// repeats the body, so the hub fills it in from the body when it is missing
/// (a header that disagrees with the body is still refused by rmcp).
fn task_name_header(headers: &mut axum::http::HeaderMap, body: &[u8]) {
    const NAME: &str = "mcp-name";
    if headers.contains_key(NAME) || !headers.contains_key("mcp-method") {
        return;
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "taskId")]
        task_id: String,
    }
    #[derive(serde::Deserialize)]
    struct Body {
        params: Params,
    }
    let Ok(parsed) = serde_json::from_slice::<Body>(body) else {
        return;
    };
    let id = parsed.params.task_id;
    // Plain visible ASCII goes as it is; anything else is left to rmcp.
    if id.bytes().all(|b| b.is_ascii_graphic())
        && let Ok(value) = axum::http::HeaderValue::from_str(&id)
    {
        headers.insert(NAME, value);
    }
}

pub(crate) async fn layer(State(state): State<FastPath>, request: Request, next: Next) -> Response {
    let hub = &state.hub;
    if request.method() == Method::DELETE {
        return delete_session(&state, request, next).await;
    }
    if request.method() != Method::POST || !json_content_type(request.headers()) {
        return next.run(request).await;
    }
    if !small_body(request.headers()) {
        return json_rpc_status(next.run(request).await, false);
    }
    let (mut parts, body) = request.into_parts();
    // The listener bounds how long the body may take (HTTP 408 past it).
    let bytes = match axum::body::to_bytes(body, MAX_PEEK as usize).await {
        Ok(bytes) => bytes,
        Err(err) => {
            return plain(
                StatusCode::BAD_REQUEST,
                format!("could not read the request body: {err}"),
            );
        }
    };
    let probe: Option<Probe> = match serde_json::from_slice(&bytes) {
        Ok(probe) => Some(probe),
        Err(err) if err.is_syntax() || err.is_eof() => return parse_error(&err),
        // JSON, but not a JSON-RPC message (rmcp answers, see `json_rpc_status`).
        Err(_) => None,
    };
    if probe
        .as_ref()
        .and_then(|p| p.method.as_deref())
        .is_some_and(|m| m.starts_with("tasks/"))
    {
        task_name_header(&mut parts.headers, &bytes);
    }
    let mut bytes = bytes;
    if let Some(method) = probe.as_ref().and_then(|p| p.method.as_deref())
        && let Some(marked) = experimental_task(hub, &parts.headers, method, &bytes)
    {
        parts
            .headers
            .insert(header::CONTENT_LENGTH, HeaderValue::from(marked.len()));
        bytes = marked;
    }
    if probe.as_ref().and_then(|p| p.method.as_deref()) == Some("initialize")
        && !parts.headers.contains_key(SESSION_HEADER)
        && !hub.sessions().table().has_room()
    {
        return too_many_sessions(hub);
    }
    if !plain_json_post(&parts.headers) {
        let response = next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
        return json_rpc_status(response, true);
    }
    let id = match sniff::route(probe.as_ref(), hub.settings().builtin_tools) {
        // Not a single request (a notification, a response, a batch, or not
        // JSON-RPC at all): rmcp answers it. A cancellation may be for a call
        // running here, which rmcp does not know.
        route @ (Route::Cancelled | Route::NotARequest) => {
            if matches!(route, Route::Cancelled) {
                cancel_fast_call(&state, &parts.headers, &bytes);
            }
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            return json_rpc_status(response, true);
        }
        Route::List { id, which } => {
            if let Some(response) =
                prepared_list(&state, parts.uri.path(), &parts.headers, &bytes, which, &id).await
            {
                return response;
            }
            id
        }
        Route::Call { id } => {
            if let Some(response) =
                fast_call(&state, parts.uri.path(), &parts.headers, &bytes, &id).await
            {
                return response;
            }
            id
        }
        Route::Request { id } => id,
    };
    let method = probe.and_then(|p| p.method).unwrap_or_default();
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    prefer_json(response, &id, &method, &bytes).await
}

/// A 2025-11-25 task request (a `tools/call` with `params.task`, or
/// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`) of a session
/// that negotiated 2025-11-25, with its method marked for the gateway (see
/// `gateway::experimental_tasks`): rmcp would read the call without its task
/// and the `tasks/*` requests as 2026-07-28's. `None` for anything else.
fn experimental_task(
    hub: &HubHandle,
    headers: &HeaderMap,
    method: &str,
    body: &[u8],
) -> Option<Bytes> {
    if method != "tools/call" && !crate::gateway::TASK_METHODS.contains(&method) {
        return None;
    }
    // A plain call (no `"task"` key anywhere) costs no second parse.
    if method == "tools/call" && !body.windows(6).any(|w| w == b"\"task\"") {
        return None;
    }
    let session = headers.get(SESSION_HEADER)?.to_str().ok()?;
    let version = hub
        .sessions()
        .by_http_id(session)?
        .peer()?
        .peer_info()?
        .protocol_version
        .clone();
    if version.as_str() != rmcp::model::ProtocolVersion::V_2025_11_25.as_str() {
        return None;
    }
    let mut message: serde_json::Value = serde_json::from_slice(body).ok()?;
    if method == "tools/call"
        && !message
            .pointer("/params/task")
            .is_some_and(|t| t.is_object())
    {
        return None;
    }
    message["method"] = serde_json::Value::String(format!(
        "{}{method}",
        crate::gateway::EXPERIMENTAL_TASK_PREFIX
    ));
    serde_json::to_vec(&message).ok().map(Bytes::from)
}

/// `DELETE` of a session: 404 if the route has no such session, else rmcp
/// closes it and the answer is 200 (see the module docs).
async fn delete_session(state: &FastPath, request: Request, next: Next) -> Response {
    let Some(session_id) = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    else {
        // rmcp says what is missing.
        return next.run(request).await;
    };
    let session_id: rmcp::transport::streamable_http_server::session::SessionId =
        Arc::from(session_id);
    let path = request.uri().path();
    let manager = if path == "/mcp" {
        Some(state.services.merged_sessions.clone())
    } else if let Some(name) = super::profiles::profile_of(path) {
        state.services.profile_sessions(name)
    } else {
        path.strip_prefix("/servers/")
            .and_then(|p| p.strip_suffix("/mcp"))
            .and_then(|server| state.hub.upstream(server))
            .and_then(|upstream| state.services.pass_through_sessions(&upstream.id))
    };
    let exists = match manager {
        Some(manager) => manager.has_session(&session_id).await.unwrap_or(false),
        None => false,
    };
    if !exists {
        return plain(
            StatusCode::NOT_FOUND,
            "Not Found: Session not found".to_string(),
        );
    }
    let response = next.run(request).await;
    if response.status() != StatusCode::ACCEPTED {
        return response;
    }
    // Closed: the status must not show it a moment longer.
    state.hub.publish_snapshot();
    Response::new(Body::empty())
}

/// HTTP 503 for an `initialize` while every allowed session is busy.
fn too_many_sessions(hub: &HubHandle) -> Response {
    let max = hub.settings().max_sessions;
    let mut response = json_rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::INTERNAL_ERROR.0,
        format!(
            "Switchboard already has {max} sessions, all in use (setting maxSessions); \
             end one or try again later"
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// Answers a list request of a live merged session, or `None` to leave it to
/// rmcp (unknown session, parameters beyond a cursor, a protocol version
/// header rmcp would refuse).
async fn prepared_list(
    state: &FastPath,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
    which: ListResult,
    id: &serde_json::Value,
) -> Option<Response> {
    if !sniff::list_params_fit(body) {
        return None;
    }
    let session = known_session(state, headers, path).await?;
    let _in_use = session.begin_use();
    let gateway = Gateway::for_session(state.hub.clone(), session);
    match gateway.prepared_list(which).await? {
        Ok(result) => {
            // The shared result bytes go out as they are, between the envelope's
            // head and tail: no copy of a list that can be megabytes long.
            let head = envelope_head(id, "result");
            let length = head.len() + result.len() + 1;
            let parts = [Bytes::from(head), result, Bytes::from_static(b"}")];
            let body = Body::from_stream(futures::stream::iter(
                parts.into_iter().map(Ok::<_, std::convert::Infallible>),
            ));
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            Some(json_response(headers, body))
        }
        Err(error) => {
            let error = serde_json::to_vec(&error).ok()?;
            Some(json_response(
                HeaderMap::new(),
                Body::from(envelope(id, "error", &error)),
            ))
        }
    }
}

/// The live session a request names, if the hub knows it, it belongs to the
/// route the request came in on, rmcp still has it, and the request's protocol
/// version header (if any) is one rmcp accepts.
async fn known_session(state: &FastPath, headers: &HeaderMap, path: &str) -> Option<Arc<Session>> {
    let session_id = headers.get(SESSION_HEADER)?.to_str().ok()?;
    if let Some(version) = headers.get("mcp-protocol-version") {
        let version = version.to_str().ok()?;
        let known =
            rmcp::model::ProtocolVersion::known_up_to(&rmcp::model::ProtocolVersion::V_2025_11_25)
                .iter()
                .any(|v| v.as_str() == version);
        if !known {
            return None;
        }
    }
    let session = state.hub.sessions().by_http_id(session_id)?;
    // A deleted or expired session may linger in the hub's table for a moment;
    // rmcp's manager is the one that knows, and answers 404 then.
    let exists = match session.scope() {
        Scope::Merged if path == "/mcp" => {
            state
                .services
                .merged_sessions
                .has_session(&Arc::from(session_id))
                .await
        }
        Scope::Server(id)
            if path
                .strip_prefix("/servers/")
                .and_then(|p| p.strip_suffix("/mcp"))
                == Some(id.as_str()) =>
        {
            state
                .services
                .pass_through_sessions(id)?
                .has_session(&Arc::from(session_id))
                .await
        }
        Scope::Profile(name) if super::profiles::profile_of(path) == Some(name.as_ref()) => {
            state
                .services
                .profile_sessions(name)?
                .has_session(&Arc::from(session_id))
                .await
        }
        _ => return None,
    };
    exists.unwrap_or(false).then_some(session)
}

/// Runs a `tools/call` here instead of in rmcp, when
/// nothing but the answer can flow back on its stream: no progress token or
/// other `_meta`, no multi-round-trip fields, and a client that declared
/// neither sampling, elicitation, roots nor tasks (so no server→client request
/// can be meant for it). `None` leaves the request to rmcp.
async fn fast_call(
    state: &FastPath,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
    id: &serde_json::Value,
) -> Option<Response> {
    let session = known_session(state, headers, path).await?;
    let peer = session.peer()?.clone();
    let quiet_client = peer.peer_info().is_some_and(|info| {
        let c = &info.capabilities;
        c.sampling.is_none() && c.elicitation.is_none() && c.roots.is_none() && !c.supports_tasks()
    });
    if !quiet_client {
        return None;
    }
    let params = sniff::call_params(body)?;
    if params.meta.is_some() || params.input_responses.is_some() || params.request_state.is_some() {
        return None;
    }
    let request_id = sniff::rpc_request_id(id)?;
    // Counts as a use of the session until the answer is made.
    let _in_use = session.begin_use();
    let downstream = Downstream {
        peer,
        request_id,
        progress_token: None,
        collect: None,
        capabilities: None,
        task: None,
        related_task: None,
    };
    // The call runs in its own task: if the client goes away, this handler is
    // dropped, the guard cancels the token, and the task tells the upstream.
    let cancel = CancellationToken::new();
    let _registered = session.start_fast_call(id.to_string(), cancel.clone());
    let _cancel_on_drop = cancel.clone().drop_guard();
    let gateway = Gateway::for_session(state.hub.clone(), session);
    let for_task = cancel.clone();
    let task = tokio::spawn(async move {
        gateway
            .forward_call(params, Some(downstream), &for_task)
            .await
    });
    let outcome = match task.await {
        Ok(outcome) => outcome,
        Err(err) => Err(ErrorData::internal_error(
            format!("the call failed inside Switchboard: {err}"),
            None,
        )),
    };
    if cancel.is_cancelled() && outcome.is_err() {
        // Cancelled by the client: no answer is sent for a cancelled request,
        // just as rmcp's stream for it ends without one.
        let mut response = Response::new(Body::empty());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        return Some(response);
    }
    let message = match outcome {
        // Clients that declared tasks never come here; a task handle is refused
        // as rmcp refuses it for such clients.
        Ok(CallToolResponse::Task(_)) => {
            let error = ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            );
            envelope(id, "error", &serde_json::to_vec(&error).ok()?)
        }
        // Switchboard negotiates protocols before 2026-07-28 only, where rmcp
        // refuses an input-required result and sends the legacy shape.
        Ok(CallToolResponse::InputRequired(_)) => {
            let error = ErrorData::invalid_request(
                "InputRequiredResult requires negotiated protocol version 2026-07-28 or newer",
                None,
            );
            envelope(id, "error", &serde_json::to_vec(&error).ok()?)
        }
        Ok(response) => {
            let mut result = ServerResult::from(response);
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
            envelope(id, "result", &serde_json::to_vec(&result).ok()?)
        }
        Err(error) => envelope(id, "error", &serde_json::to_vec(&error).ok()?),
    };
    Some(json_response(HeaderMap::new(), Body::from(message)))
}

/// Passes a client's `notifications/cancelled` to the fast-path call it names.
fn cancel_fast_call(state: &FastPath, headers: &HeaderMap, body: &[u8]) {
    let Some(session_id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return;
    };
    let Some(session) = state.hub.sessions().by_http_id(session_id) else {
        return;
    };
    if let Some(request_id) = sniff::cancelled_request_id(body) {
        session.cancel_fast_call(&request_id.to_string());
    }
}
