//! What the fast path reads and writes, with no hub: which requests it may
//! take ([`route`], the one dispatch decision, shared with the fuzz target),
//! the parts of a body it reads, the answers it writes (JSON-RPC envelopes
//! and errors), and rmcp's event-stream answers turned into JSON
//! ([`prefer_json`]). Everything here is a pure function of bytes and headers
//! except [`prefer_json`], which reads a response stream.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;
use rmcp::model::{CallToolRequestParams, ErrorCode, ErrorData, RequestId};
use serde::Deserialize;

use crate::catalog::ListResult;

/// How long a response waits for its answer before it is sent as an event
/// stream. Short enough that clients with a response-header timeout never
/// notice; long enough to cover nearly every call to a local server.
pub(super) const JSON_WAIT: Duration = Duration::from_millis(1000);

/// Largest request body looked at; larger ones go to rmcp as they are.
pub(super) const MAX_PEEK: u64 = 256 * 1024;

/// The parts of a JSON-RPC message the fast path needs.
#[derive(Deserialize)]
pub(super) struct Probe {
    #[serde(default)]
    pub(super) jsonrpc: Option<String>,
    #[serde(default)]
    pub(super) method: Option<String>,
    #[serde(default)]
    pub(super) id: Option<serde_json::Value>,
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

/// A JSON-RPC error answer with no id, as HTTP `status`.
pub(super) fn json_rpc_error(status: StatusCode, code: i32, message: String) -> Response {
    let error = ErrorData::new(ErrorCode(code), message, None);
    let body = serde_json::to_vec(&error)
        .map(|error| envelope(&serde_json::Value::Null, "error", &error))
        .unwrap_or_default();
    let mut response = json_response(HeaderMap::new(), Body::from(body));
    *response.status_mut() = status;
    response
}

/// HTTP 400 with JSON-RPC `-32700` for a body that is not JSON.
pub(super) fn parse_error(err: &serde_json::Error) -> Response {
    json_rpc_error(
        StatusCode::BAD_REQUEST,
        ErrorCode::PARSE_ERROR.0,
        format!("Parse error: the request body is not valid JSON ({err})"),
    )
}

/// rmcp answers 415 for a JSON body it cannot read as a JSON-RPC message (the
/// content type was checked before): that is HTTP 400 with JSON-RPC `-32600`
/// when the body is known to be JSON (`json`), else `-32700`.
pub(super) fn json_rpc_status(response: Response, json: bool) -> Response {
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
pub(super) fn json_content_type(headers: &HeaderMap) -> bool {
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
pub(super) fn small_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n <= MAX_PEEK)
}

/// A POST whose request may be answered here: JSON, of a stated, small
/// length, from a client that accepts JSON answers, with no headers that rmcp
/// validates against the body.
pub(super) fn plain_json_post(headers: &HeaderMap) -> bool {
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

/// The prepared list a list method asks for; `None` for other methods.
/// `builtin_tools` is the setting that adds Switchboard's own tools to
/// `tools/list`.
fn list_kind(method: &str, builtin_tools: bool) -> Option<ListResult> {
    Some(match method {
        "tools/list" => ListResult::Tools {
            builtin: builtin_tools,
        },
        "prompts/list" => ListResult::Prompts,
        "resources/list" => ListResult::Resources,
        "resources/templates/list" => ListResult::ResourceTemplates,
        _ => return None,
    })
}

/// What the fast path does with a POSTed JSON-RPC body, decided from the
/// body alone (the session and headers decide the rest).
#[derive(Debug, PartialEq)]
pub(super) enum Route {
    /// A list request: answered from the prepared list if its session is
    /// known and its parameters fit ([`list_params_fit`]).
    List {
        id: serde_json::Value,
        which: ListResult,
    },
    /// A `tools/call`: run here if its session and parameters allow.
    Call { id: serde_json::Value },
    /// Any other request: rmcp answers, as JSON if the answer comes first.
    Request { id: serde_json::Value },
    /// `notifications/cancelled`: passed to rmcp and to a call running here.
    Cancelled,
    /// Not a single request (a notification, a response, a batch, or not
    /// JSON-RPC at all): rmcp answers it.
    NotARequest,
}

/// The one dispatch decision of the fast path (see [`Route`]).
pub(super) fn route(probe: Option<&Probe>, builtin_tools: bool) -> Route {
    let method = probe.and_then(|p| p.method.as_deref()).unwrap_or_default();
    let Some(id) = probe.and_then(Probe::request_id) else {
        return if method == "notifications/cancelled" {
            Route::Cancelled
        } else {
            Route::NotARequest
        };
    };
    match list_kind(method, builtin_tools) {
        Some(which) => Route::List { id, which },
        None if method == "tools/call" => Route::Call { id },
        None => Route::Request { id },
    }
}

/// Whether a list request carries no parameters beyond a cursor.
pub(super) fn list_params_fit(body: &[u8]) -> bool {
    serde_json::from_slice::<ListRequest>(body).is_ok()
}

/// The parameters of a `tools/call` request, if they read as such.
pub(super) fn call_params(body: &[u8]) -> Option<CallToolRequestParams> {
    #[derive(Deserialize)]
    struct CallRequest {
        params: CallToolRequestParams,
    }
    serde_json::from_slice::<CallRequest>(body)
        .ok()
        .map(|r| r.params)
}

/// The request id a `notifications/cancelled` names.
pub(super) fn cancelled_request_id(body: &[u8]) -> Option<serde_json::Value> {
    #[derive(Deserialize)]
    struct Cancelled {
        params: CancelledParams,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct CancelledParams {
        request_id: serde_json::Value,
    }
    serde_json::from_slice::<Cancelled>(body)
        .ok()
        .map(|c| c.params.request_id)
}

/// A sniffed request id as rmcp's type.
pub(super) fn rpc_request_id(id: &serde_json::Value) -> Option<RequestId> {
    serde_json::from_value(id.clone()).ok()
}

/// `{"jsonrpc":"2.0","id":<id>,"<field>":` — an answer up to its value.
pub(super) fn envelope_head(id: &serde_json::Value, field: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"{field}":"#)
}

/// `{"jsonrpc":"2.0","id":<id>,"<field>":<value>}`.
pub(super) fn envelope(id: &serde_json::Value, field: &str, value: &[u8]) -> Vec<u8> {
    let head = envelope_head(id, field);
    let mut out = Vec::with_capacity(head.len() + value.len() + 1);
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(value);
    out.push(b'}');
    out
}

pub(super) fn json_response(mut headers: HeaderMap, body: Body) -> Response {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let mut response = Response::new(body);
    *response.headers_mut() = headers;
    response
}

pub(super) fn plain(status: StatusCode, message: String) -> Response {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = status;
    response
}

/// Turns rmcp's event-stream answer into a JSON one when the answer is the
/// stream's first message and arrives within [`JSON_WAIT`] (see module docs);
/// `method` and `request` are the request's, to correct rmcp's error code for
/// invalid parameters.
pub(super) async fn prefer_json(
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
    let probe = Probe::read(body);
    // What the middleware reads for each route, in the order it reads it.
    let id = match route(probe.as_ref(), true) {
        Route::List { id, .. } => {
            let _ = list_params_fit(body);
            Some(id)
        }
        Route::Call { id } => {
            let _ = call_params(body);
            let _ = rpc_request_id(&id);
            Some(id)
        }
        Route::Request { id } => Some(id),
        Route::Cancelled => {
            let _ = cancelled_request_id(body);
            None
        }
        Route::NotARequest => None,
    };
    if let Some(id) = id {
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

    fn routed(body: &str) -> Route {
        route(Probe::read(body.as_bytes()).as_ref(), true)
    }

    #[test]
    fn routes_by_method_and_id() {
        use serde_json::json;
        assert_eq!(
            routed(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Route::List {
                id: json!(1),
                which: ListResult::Tools { builtin: true }
            }
        );
        assert_eq!(
            route(
                Probe::read(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#).as_ref(),
                false
            ),
            Route::List {
                id: json!("a"),
                which: ListResult::Tools { builtin: false }
            }
        );
        for (method, which) in [
            ("prompts/list", ListResult::Prompts),
            ("resources/list", ListResult::Resources),
            ("resources/templates/list", ListResult::ResourceTemplates),
        ] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"{method}"}}"#);
            assert_eq!(
                routed(&body),
                Route::List {
                    id: json!(2),
                    which
                },
                "{method}"
            );
        }
        assert_eq!(
            routed(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#),
            Route::Call { id: json!(3) }
        );
        assert_eq!(
            routed(r#"{"jsonrpc":"2.0","id":4,"method":"prompts/get"}"#),
            Route::Request { id: json!(4) }
        );
    }

    #[test]
    fn anything_but_a_single_request_goes_to_rmcp() {
        assert_eq!(
            routed(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            ),
            Route::Cancelled
        );
        for body in [
            // A notification, a response, a batch, not JSON-RPC, odd ids.
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            r#"{"id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call"}"#,
            "not json",
        ] {
            assert_eq!(routed(body), Route::NotARequest, "{body}");
        }
        assert_eq!(route(None, true), Route::NotARequest);
    }

    #[test]
    fn reads_the_parts_each_route_needs() {
        assert!(list_params_fit(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(list_params_fit(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#
        ));
        // Anything beyond a cursor is left to rmcp.
        assert!(!list_params_fit(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}"#
        ));
        let params = call_params(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__b","arguments":{"x":1}}}"#,
        )
        .unwrap();
        assert_eq!(params.name, "a__b");
        assert!(call_params(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#).is_none());
        assert_eq!(
            cancelled_request_id(
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1"}}"#
            ),
            Some(serde_json::json!("r1"))
        );
        assert_eq!(cancelled_request_id(br#"{"params":{}}"#), None);
        assert!(rpc_request_id(&serde_json::json!(7)).is_some());
        assert!(rpc_request_id(&serde_json::json!("x")).is_some());
        assert!(rpc_request_id(&serde_json::json!(null)).is_none());
    }

    #[test]
    fn invalid_params_of_standard_methods_are_named_without_rust_types() {
        let id = serde_json::json!(1);
        let answer = invalid_params(
            &id,
            "tools/call",
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
        )
        .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(value["id"], 1);
        assert_eq!(value["error"]["code"], -32602);
        let message = value["error"]["message"].as_str().unwrap();
        assert!(message.contains("name"), "{message}");
        assert!(!message.contains("CallToolRequestParam"), "{message}");
        assert_eq!(
            params_problem("prompts/get", br#"{"params":[1]}"#).as_deref(),
            Some("params must be an object")
        );
        assert_eq!(
            params_problem("resources/read", br#"{"jsonrpc":"2.0"}"#).as_deref(),
            Some("params must be an object")
        );
        // Lists may omit params; unknown methods are not judged here.
        assert_eq!(params_problem("tools/list", br#"{}"#), None);
        assert_eq!(params_problem("custom/thing", br#"{"params":5}"#), None);
        assert!(
            invalid_params(&id, "tools/call", br#"{"params":{"name":"x"}}"#).is_none(),
            "parameters that fit are not an error"
        );
    }

    #[test]
    fn rmcp_media_type_refusals_become_json_rpc_errors() {
        let unsupported = || {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::UNSUPPORTED_MEDIA_TYPE;
            response
        };
        let code = |response: Response| async move {
            assert_eq!(response.status(), StatusCode::BAD_REQUEST);
            let body = axum::body::to_bytes(response.into_body(), 4096)
                .await
                .unwrap();
            let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(value["id"], serde_json::Value::Null);
            value["error"]["code"].as_i64().unwrap()
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            assert_eq!(code(json_rpc_status(unsupported(), true)).await, -32600);
            assert_eq!(code(json_rpc_status(unsupported(), false)).await, -32700);
            let ok = json_rpc_status(Response::new(Body::empty()), true);
            assert_eq!(ok.status(), StatusCode::OK);
        });
    }

    #[test]
    fn the_fuzz_entry_holds_on_sample_bodies() {
        for body in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#[..],
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
            b"",
        ] {
            for split in [0, 1, body.len() / 2, body.len()] {
                fuzz_sniff(body, split);
            }
        }
    }
}
