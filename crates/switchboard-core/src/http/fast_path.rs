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
//!    the same session bookkeeping as the rmcp path (`Gateway::lists`).
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
//!    within [`JSON_WAIT`], the client gets it as `application/json`. If
//!    progress, a log message or a server→client request (sampling,
//!    elicitation) comes first, or the answer takes longer, the client gets the
//!    event stream as rmcp made it, from its first byte, so ordering, keep-alive
//!    and long calls are unchanged.
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
//!   (see `http_sessions`).
//!
//! A request body this layer reads must arrive within `headerTimeoutSecs`
//! (else HTTP 408), so a client cannot hold a connection with a stalled body.
//!
//! Every request this layer answers counts as a use of its session, so the
//! session does not expire while it is used (see `http_sessions`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use rmcp::transport::streamable_http_server::session::SessionManager;
use serde::Deserialize;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ErrorCode, ErrorData, RequestId,
    ServerResult,
};
use tokio_util::sync::CancellationToken;

use crate::catalog::ListResult;
use crate::gateway::{Gateway, Scope};
use crate::http_sessions::HubSessionManager;
use crate::hub::HubHandle;
use crate::sessions::Session;
use crate::upstream::Downstream;

/// How long a response waits for its answer before it is sent as an event
/// stream. Short enough that clients with a response-header timeout never
/// notice; long enough to cover nearly every call to a local server.
pub const JSON_WAIT: Duration = Duration::from_millis(1000);

/// Largest request body looked at; larger ones go to rmcp as they are.
const MAX_PEEK: u64 = 256 * 1024;

const SESSION_HEADER: &str = "mcp-session-id";

/// The parts of a JSON-RPC message the fast path needs.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    jsonrpc: Option<String>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    id: Option<serde_json::Value>,
}

impl Probe {
    /// The probe of a request body; `None` if it is not a JSON object.
    fn read(body: &[u8]) -> Option<Self> {
        serde_json::from_slice(body).ok()
    }

    /// The id of a single JSON-RPC request with a string or integer id;
    /// `None` for anything else (notifications, responses, other ids).
    fn request_id(&self) -> Option<serde_json::Value> {
        let valid_id = matches!(&self.id, Some(serde_json::Value::String(_)))
            || self.id.as_ref().is_some_and(|v| v.is_i64() || v.is_u64());
        (self.jsonrpc.as_deref() == Some("2.0") && self.method.is_some() && valid_id)
            .then(|| self.id.clone())
            .flatten()
    }
}

/// The parameters a list request may carry and still be answered here. Read
/// only to refuse others: every list is one page, so the cursor is ignored, as
/// on rmcp's path.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ListRequest {
    #[serde(default)]
    params: Option<ListParams>,
}

/// What the middleware needs: the hub, and the session manager of the merged
/// endpoint (the pass-through routes' managers are kept by the hub); rmcp's
/// managers alone decide whether a session still exists.
#[derive(Clone)]
pub struct FastPath {
    pub hub: HubHandle,
    pub merged_sessions: Arc<HubSessionManager>,
}

/// The middleware on the MCP routes (see the module docs).
pub async fn layer(State(state): State<FastPath>, request: Request, next: Next) -> Response {
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
    let (parts, body) = request.into_parts();
    // A body that stalls holds its connection: it gets as long as a head.
    let limit = hub.settings().header_timeout;
    let bytes =
        match tokio::time::timeout(limit, axum::body::to_bytes(body, MAX_PEEK as usize)).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(err)) => {
                return plain(
                    StatusCode::BAD_REQUEST,
                    format!("could not read the request body: {err}"),
                );
            }
            Err(_) => {
                return plain(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within {} s (setting headerTimeoutSecs)",
                        limit.as_secs()
                    ),
                );
            }
        };
    let probe: Option<Probe> = match serde_json::from_slice(&bytes) {
        Ok(probe) => Some(probe),
        Err(err) if err.is_syntax() || err.is_eof() => return parse_error(&err),
        // JSON, but not a JSON-RPC message (rmcp answers, see `json_rpc_status`).
        Err(_) => None,
    };
    if probe.as_ref().and_then(|p| p.method.as_deref()) == Some("initialize")
        && !parts.headers.contains_key(SESSION_HEADER)
        && !hub.inner.sessions.table().has_room()
    {
        return too_many_sessions(hub);
    }
    if !plain_json_post(&parts.headers) {
        let response = next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
        return json_rpc_status(response, true);
    }
    let id = probe.as_ref().and_then(Probe::request_id);
    let Some(id) = id else {
        // Not a single request (a notification, a response, a batch, or not
        // JSON-RPC at all): rmcp answers it. A cancellation may be for a call
        // running here, which rmcp does not know.
        if probe.as_ref().and_then(|p| p.method.as_deref()) == Some("notifications/cancelled") {
            cancel_fast_call(&state, &parts.headers, &bytes);
        }
        let response = next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
        return json_rpc_status(response, true);
    };
    let method = probe.and_then(|p| p.method).unwrap_or_default();
    if let Some(which) = list_kind(&method, hub)
        && let Some(response) =
            prepared_list(&state, parts.uri.path(), &parts.headers, &bytes, which, &id).await
    {
        return response;
    }
    if method == "tools/call"
        && let Some(response) =
            fast_call(&state, parts.uri.path(), &parts.headers, &bytes, &id).await
    {
        return response;
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    prefer_json(response, &id, &method, &bytes).await
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
        Some(state.merged_sessions.clone())
    } else {
        path.strip_prefix("/servers/")
            .and_then(|p| p.strip_suffix("/mcp"))
            .and_then(|server| state.hub.upstream(server))
            .and_then(|upstream| state.hub.pass_through_sessions(&upstream.id))
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

/// A JSON-RPC error answer with no id, as HTTP `status`.
fn json_rpc_error(status: StatusCode, code: i32, message: String) -> Response {
    let error = ErrorData::new(ErrorCode(code), message, None);
    let body = serde_json::to_vec(&error)
        .map(|error| envelope(&serde_json::Value::Null, "error", &error))
        .unwrap_or_default();
    let mut response = json_response(HeaderMap::new(), Body::from(body));
    *response.status_mut() = status;
    response
}

/// HTTP 400 with JSON-RPC `-32700` for a body that is not JSON.
fn parse_error(err: &serde_json::Error) -> Response {
    json_rpc_error(
        StatusCode::BAD_REQUEST,
        ErrorCode::PARSE_ERROR.0,
        format!("Parse error: the request body is not valid JSON ({err})"),
    )
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

/// rmcp answers 415 for a JSON body it cannot read as a JSON-RPC message (the
/// content type was checked before): that is HTTP 400 with JSON-RPC `-32600`
/// when the body is known to be JSON (`json`), else `-32700`.
fn json_rpc_status(response: Response, json: bool) -> Response {
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    if json {
        json_rpc_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST.0,
            "Invalid Request: the body is JSON but not a JSON-RPC request, \
             notification or response"
                .to_string(),
        )
    } else {
        json_rpc_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::PARSE_ERROR.0,
            "Parse error: the request body is not a JSON-RPC message".to_string(),
        )
    }
}

/// A JSON body.
fn json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        })
}

/// A body of a stated length small enough to be read here.
fn small_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n <= MAX_PEEK)
}

/// A POST whose request may be answered here: JSON, of a stated, small
/// length, from a client that accepts JSON answers, with no headers that rmcp
/// validates against the body.
fn plain_json_post(headers: &HeaderMap) -> bool {
    let json_body = json_content_type(headers);
    let small = small_body(headers);
    // rmcp refuses (406) a client that does not accept both; so does this.
    let accepts = |wanted: &str| {
        headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| {
                t.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case(wanted))
            })
    };
    let accepts_json = accepts("application/json") && accepts("text/event-stream");
    // SEP-2243 request headers are checked against the body by rmcp.
    let standard_headers = headers.contains_key("mcp-method") || headers.contains_key("mcp-name");
    json_body && small && accepts_json && !standard_headers
}

fn list_kind(method: &str, hub: &HubHandle) -> Option<ListResult> {
    Some(match method {
        "tools/list" => ListResult::Tools {
            builtin: hub.settings().builtin_tools,
        },
        "prompts/list" => ListResult::Prompts,
        "resources/list" => ListResult::Resources,
        "resources/templates/list" => ListResult::ResourceTemplates,
        _ => return None,
    })
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
    serde_json::from_slice::<ListRequest>(body).ok()?;
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
    let session = state.hub.inner.sessions.by_http_id(session_id)?;
    // A deleted or expired session may linger in the hub's table for a moment;
    // rmcp's manager is the one that knows, and answers 404 then.
    let exists = match session.scope() {
        Scope::Merged if path == "/mcp" => {
            state
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
                .hub
                .pass_through_sessions(id)?
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
    #[derive(Deserialize)]
    struct CallRequest {
        params: CallToolRequestParams,
    }
    let session = known_session(state, headers, path).await?;
    let peer = session.peer()?.clone();
    let quiet_client = peer.peer_info().is_some_and(|info| {
        let c = &info.capabilities;
        c.sampling.is_none() && c.elicitation.is_none() && c.roots.is_none() && !c.supports_tasks()
    });
    if !quiet_client {
        return None;
    }
    let params = serde_json::from_slice::<CallRequest>(body).ok()?.params;
    if params.meta.is_some() || params.input_responses.is_some() || params.request_state.is_some() {
        return None;
    }
    let request_id: RequestId = serde_json::from_value(id.clone()).ok()?;
    // Counts as a use of the session until the answer is made.
    let _in_use = session.begin_use();
    let downstream = Downstream {
        peer,
        request_id,
        progress_token: None,
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
    #[derive(Deserialize)]
    struct Cancelled {
        params: CancelledParams,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct CancelledParams {
        request_id: serde_json::Value,
    }
    let Some(session_id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return;
    };
    let Some(session) = state.hub.inner.sessions.by_http_id(session_id) else {
        return;
    };
    if let Ok(cancelled) = serde_json::from_slice::<Cancelled>(body) {
        session.cancel_fast_call(&cancelled.params.request_id.to_string());
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"<field>":` — an answer up to its value.
fn envelope_head(id: &serde_json::Value, field: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"{field}":"#)
}

/// `{"jsonrpc":"2.0","id":<id>,"<field>":<value>}`.
fn envelope(id: &serde_json::Value, field: &str, value: &[u8]) -> Vec<u8> {
    let head = envelope_head(id, field);
    let mut out = Vec::with_capacity(head.len() + value.len() + 1);
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(value);
    out.push(b'}');
    out
}

fn json_response(mut headers: HeaderMap, body: Body) -> Response {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let mut response = Response::new(body);
    *response.headers_mut() = headers;
    response
}

fn plain(status: StatusCode, message: String) -> Response {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = status;
    response
}

/// Turns rmcp's event-stream answer into a JSON one when the answer is the
/// stream's first message and arrives within [`JSON_WAIT`] (see module docs);
/// `method` and `request` are the request's, to correct rmcp's error code for
/// invalid parameters.
async fn prefer_json(
    response: Response,
    id: &serde_json::Value,
    method: &str,
    request: &[u8],
) -> Response {
    let is_stream = response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_stream {
        return json_rpc_status(response, true);
    }
    let (parts, body) = response.into_parts();
    let mut stream = body.into_data_stream();
    let mut seen: Vec<Bytes> = Vec::new();
    let mut events = EventReader::default();
    let deadline = tokio::time::sleep(JSON_WAIT);
    tokio::pin!(deadline);
    let answer = loop {
        let chunk = tokio::select! {
            chunk = stream.next() => chunk,
            _ = &mut deadline => break None,
        };
        let Some(Ok(chunk)) = chunk else {
            // The stream ended or failed before any message: pass on what came.
            break None;
        };
        let data = events.push(&chunk);
        seen.push(chunk);
        if let Some(data) = data {
            break answer_error(&data, id).map(|error| (data, error));
        }
    };
    match answer {
        Some((data, error)) => {
            let data = match error {
                Some(code) if code == ErrorCode::METHOD_NOT_FOUND.0 => {
                    invalid_params(id, method, request).unwrap_or(data)
                }
                _ => data,
            };
            let mut headers = parts.headers;
            for name in [
                header::CONTENT_TYPE,
                header::CONTENT_LENGTH,
                header::TRANSFER_ENCODING,
                header::CACHE_CONTROL,
            ] {
                headers.remove(name);
            }
            json_response(headers, Body::from(data))
        }
        None => {
            let replay = futures::stream::iter(seen.into_iter().map(Ok::<_, axum::Error>));
            Response::from_parts(parts, Body::from_stream(replay.chain(stream)))
        }
    }
}

/// True if `data` is the JSON-RPC answer (result or error) to request `id`.
fn is_answer(data: &[u8], id: &serde_json::Value) -> bool {
    answer_error(data, id).is_some()
}

/// `Some` if `data` is the JSON-RPC answer (result or error) to request `id`,
/// with the error's code if it is an error.
fn answer_error(data: &[u8], id: &serde_json::Value) -> Option<Option<i32>> {
    #[derive(Deserialize)]
    struct Answer {
        #[serde(default)]
        id: Option<serde_json::Value>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        result: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        error: Option<AnswerError>,
    }
    #[derive(Deserialize)]
    struct AnswerError {
        #[serde(default)]
        code: Option<i32>,
    }
    let answer = serde_json::from_slice::<Answer>(data).ok()?;
    let is_answer = answer.method.is_none()
        && (answer.result.is_some() || answer.error.is_some())
        && answer.id.as_ref() == Some(id);
    is_answer.then(|| answer.error.map(|e| e.code.unwrap_or_default()))
}

/// The `-32602` answer for a standard method whose parameters do not fit it,
/// which rmcp answered as an unknown method; `None` if they fit after all.
fn invalid_params(id: &serde_json::Value, method: &str, request: &[u8]) -> Option<Vec<u8>> {
    let problem = params_problem(method, request)?;
    let error = ErrorData::invalid_params(format!("invalid params for {method}: {problem}"), None);
    Some(envelope(id, "error", &serde_json::to_vec(&error).ok()?))
}

/// What is wrong with the parameters of a request for a standard method, or
/// `None` if they fit (or the method is not one rmcp knows).
// `logging/setLevel` is deprecated for 2026-07-28 (SEP-2577); older clients use it.
#[allow(deprecated)]
fn params_problem(method: &str, request: &[u8]) -> Option<String> {
    use rmcp::model::{
        CompleteRequestParams, GetPromptRequestParams, PaginatedRequestParams,
        ReadResourceRequestParams, SetLevelRequestParams, SubscribeRequestParams,
        UnsubscribeRequestParams,
    };
    use serde::de::DeserializeOwned;
    #[derive(Deserialize)]
    struct Params {
        #[serde(default)]
        params: Option<serde_json::Value>,
    }
    fn check<T: DeserializeOwned>(
        params: Option<serde_json::Value>,
        required: bool,
    ) -> Option<String> {
        match params {
            None | Some(serde_json::Value::Null) if required => {
                Some("params must be an object".to_string())
            }
            None | Some(serde_json::Value::Null) => None,
            Some(value) if !value.is_object() => Some("params must be an object".to_string()),
            Some(value) => serde_json::from_value::<T>(value)
                .err()
                .map(|err| describe(&err)),
        }
    }
    let params = serde_json::from_slice::<Params>(request).ok()?.params;
    match method {
        "tools/call" => check::<CallToolRequestParams>(params, true),
        "prompts/get" => check::<GetPromptRequestParams>(params, true),
        "resources/read" => check::<ReadResourceRequestParams>(params, true),
        "resources/subscribe" => check::<SubscribeRequestParams>(params, true),
        "resources/unsubscribe" => check::<UnsubscribeRequestParams>(params, true),
        "logging/setLevel" => check::<SetLevelRequestParams>(params, true),
        "completion/complete" => check::<CompleteRequestParams>(params, true),
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
            check::<PaginatedRequestParams>(params, false)
        }
        _ => None,
    }
}

/// A deserialization error as a client may read it: serde names the Rust
/// type it expected, which says nothing to a client.
fn describe(err: &serde_json::Error) -> String {
    let text = err.to_string();
    for marker in ["expected struct ", "expected enum "] {
        if let Some(at) = text.find(marker) {
            let rest = &text[at + marker.len()..];
            let tail = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or("", |end| &rest[end..]);
            let what = if marker.contains("struct") {
                "an object"
            } else {
                "one of the allowed values"
            };
            return format!("{}expected {what}{tail}", &text[..at]);
        }
    }
    text
}

/// Reads server-sent events until the first one with data, and returns that
/// data (comments, `id:`/`retry:`-only and empty priming events are skipped).
#[derive(Default)]
struct EventReader {
    pending: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
}

impl EventReader {
    fn push(&mut self, chunk: &[u8]) -> Option<Vec<u8>> {
        self.pending.extend_from_slice(chunk);
        let mut start = 0;
        let mut found = None;
        while let Some(end) = self.pending[start..].iter().position(|b| *b == b'\n') {
            let line = &self.pending[start..start + end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            start += end + 1;
            if line.is_empty() {
                // End of an event.
                if self.has_data && !self.data.is_empty() {
                    found = Some(std::mem::take(&mut self.data));
                    break;
                }
                self.data.clear();
                self.has_data = false;
                continue;
            }
            if let Some(value) = line.strip_prefix(b"data:") {
                let value = value.strip_prefix(b" ").unwrap_or(value);
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            // `id:`, `event:`, `retry:` and `:` comments carry nothing needed here.
        }
        self.pending.drain(..start);
        found
    }
}

/// The fuzz target's way in (`fuzz/fuzz_targets/fast_path_sniff.rs`): runs
/// everything the fast path reads from a request body and from an answer
/// stream on arbitrary bytes, with no hub. Panics only if an invariant
/// breaks: an answer envelope built for a sniffed id must be JSON that
/// [`is_answer`] recognises as the answer to that id.
#[doc(hidden)]
pub fn fuzz_sniff(body: &[u8], split: usize) {
    #[derive(Deserialize)]
    struct CallRequest {
        #[allow(dead_code)]
        params: CallToolRequestParams,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct CancelledParams {
        request_id: serde_json::Value,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Cancelled {
        params: CancelledParams,
    }
    let probe = Probe::read(body);
    let method = probe.as_ref().and_then(|p| p.method.clone());
    match probe.as_ref().and_then(Probe::request_id) {
        Some(id) => {
            match method.as_deref() {
                Some("tools/list" | "prompts/list" | "resources/list") => {
                    let _ = serde_json::from_slice::<ListRequest>(body);
                }
                Some("tools/call") => {
                    let _ = serde_json::from_slice::<CallRequest>(body);
                    let _ = serde_json::from_value::<RequestId>(id.clone());
                }
                _ => {}
            }
            let _ = id.to_string();
            for field in ["result", "error"] {
                let answer = envelope(&id, field, b"{}");
                assert!(
                    is_answer(&answer, &id),
                    "envelope {:?} is not an answer to {id}",
                    String::from_utf8_lossy(&answer)
                );
            }
        }
        None => {
            if method.as_deref() == Some("notifications/cancelled") {
                let _ = serde_json::from_slice::<Cancelled>(body);
            }
        }
    }
    // The same bytes as an answer stream, in two chunks split anywhere.
    let split = split.min(body.len());
    let mut events = EventReader::default();
    let first = events.push(&body[..split]);
    let data = first.or_else(|| events.push(&body[split..]));
    if let Some(data) = data {
        let _ = is_answer(&data, &serde_json::Value::from(1));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn reads_the_first_event_with_data_across_chunks() {
        let mut reader = EventReader::default();
        assert_eq!(reader.push(b"id: 0\nretry: 3000\ndata:\n\n"), None);
        assert_eq!(reader.push(b": keep-alive\n\n"), None);
        assert_eq!(reader.push(b"data: {\"jsonrpc\":\"2.0\","), None);
        assert_eq!(
            reader.push(b"\"id\":1}\r\nid: 1\r\n\r\n"),
            Some(br#"{"jsonrpc":"2.0","id":1}"#.to_vec())
        );
    }

    #[test]
    fn joins_multi_line_data() {
        let mut reader = EventReader::default();
        assert_eq!(reader.push(b"data: a\ndata: b\n\n"), Some(b"a\nb".to_vec()));
    }

    #[test]
    fn an_answer_is_a_result_or_error_with_the_request_id() {
        let id = serde_json::json!(7);
        assert!(is_answer(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#, &id));
        assert!(is_answer(
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}"#,
            &id
        ));
        assert!(!is_answer(br#"{"jsonrpc":"2.0","id":8,"result":{}}"#, &id));
        // Progress first, or a server→client request that happens to reuse the id.
        assert!(!is_answer(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
            &id
        ));
        assert!(!is_answer(
            br#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}"#,
            &id
        ));
    }

    #[test]
    fn the_envelope_is_a_json_rpc_message() {
        let message = envelope(&serde_json::json!("a"), "result", br#"{"tools":[]}"#);
        let value: serde_json::Value = serde_json::from_slice(&message).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"jsonrpc": "2.0", "id": "a", "result": {"tools": []}})
        );
    }

    #[test]
    fn only_plain_small_json_posts_are_looked_at() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("120"));
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert!(plain_json_post(&headers));
        let mut large = headers.clone();
        large.insert(header::CONTENT_LENGTH, HeaderValue::from_static("10000000"));
        assert!(!plain_json_post(&large));
        let mut sse_only = headers.clone();
        sse_only.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        assert!(!plain_json_post(&sse_only));
        let mut json_only = headers.clone();
        json_only.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!plain_json_post(&json_only));
        let mut standard = headers.clone();
        standard.insert("mcp-method", HeaderValue::from_static("tools/call"));
        assert!(!plain_json_post(&standard));
    }
}
