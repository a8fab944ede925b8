//! Input-required results (SEP-2322) across the protocol boundary, for
//! `tools/call` (both ways) and `prompts/get` and `resources/read` (the
//! second way):
//!
//! - **2026-07-28 client, 2026-07-28 server**: the server's input-required
//!   result goes to the client as it is, and the client's retry (its
//!   `requestState` and `inputResponses`) is routed by the tool name like any
//!   call, so it reaches the same server, which checks its own state.
//! - **older client, 2026-07-28 server** ([`InputFlow::ask_and_retry`], for
//!   calls, prompts and resources): the hub asks
//!   the client each input request as a sampling, elicitation or roots
//!   request on the request's stream, and retries the server with the
//!   answers and its `requestState`, for at most [`MAX_ROUNDS`] rounds.
//! - **2026-07-28 client, older server** ([`InputFlow::modern_call`]): the
//!   server's sampling, elicitation and roots requests during the call are
//!   collected (see `Downstream::collect`) and the client gets an
//!   input-required result whose `requestState` is
//!   `switchboard-input:<id>`, naming the call parked on that server (see
//!   `upstream::parked`); the retry's `inputResponses` answer the waiting
//!   requests and the same call goes on. Such a state that names no parked
//!   call of the server its tool routes to (expired, used, altered, or
//!   another tool's) is refused with an error saying so. A `prompts/get` or
//!   `resources/read` of an older server that asks the client something
//!   goes to the client as the request it is, which a 2026-07-28 client
//!   cannot answer (the server gets an error): parking those is not built.
//!
//! A state the hub did not make is never looked at: it belongs to the server.

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577) but are what
// older clients and servers exchange.
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ErrorData, GetPromptRequestParams,
    GetPromptResponse, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ReadResourceRequestParams, ReadResourceResponse, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, RoleServer};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::input_required::{as_input_request, as_server_request, client_result, response_value};
use super::{Router, Target, downstream, upstream_error};
use crate::upstream::{Ask, Asked, ParkedCall, Upstream};
use crate::upstream::{CallFuture, Downstream, Pending};

/// Rounds of input requests the hub answers for an older client before it
/// gives up on a server that keeps asking.
pub(super) const MAX_ROUNDS: usize = 8;
/// How a `requestState` made by the hub starts.
pub(super) const STATE_PREFIX: &str = "switchboard-input:";
/// Server requests of one call collected into one input-required result.
const ASKS_PER_ROUND: usize = 16;

/// A request an older client's request can be retried with, once the hub has
/// asked the client what a 2026-07-28 server wants to know.
pub(super) trait Retry: Clone {
    type Response;
    /// What asks: `tool`, `prompt` or `resource` (messages and error data).
    const KIND: &'static str;
    /// The tool or prompt name, or the resource URI.
    fn subject(&self) -> &str;
    /// The next round: the client's answers and the server's state.
    fn answered(&mut self, responses: InputResponses, state: Option<String>);
    /// The server's input request, or its answer.
    fn input_required(response: Self::Response) -> Result<InputRequiredResult, Self::Response>;
}

/// `Retry` for a request type, its response type (an enum with an
/// `InputRequired` variant), the kind's word and the field naming it.
macro_rules! retry {
    ($params:ty, $response:ident, $kind:literal, $subject:ident) => {
        impl Retry for $params {
            type Response = $response;
            const KIND: &'static str = $kind;
            fn subject(&self) -> &str {
                &self.$subject
            }
            fn answered(&mut self, responses: InputResponses, state: Option<String>) {
                self.input_responses = Some(responses);
                self.request_state = state;
            }
            fn input_required(response: $response) -> Result<InputRequiredResult, $response> {
                match response {
                    $response::InputRequired(result) => Ok(result),
                    other => Err(other),
                }
            }
        }
    };
}

retry!(CallToolRequestParams, CallToolResponse, "tool", name);
retry!(GetPromptRequestParams, GetPromptResponse, "prompt", name);
retry!(
    ReadResourceRequestParams,
    ReadResourceResponse,
    "resource",
    uri
);

/// The input one downstream request may need from its client: the requests
/// its server asks during it, carried to the client or parked for its
/// retry. References only, made per request for free.
#[derive(Clone, Copy)]
pub(super) struct InputFlow<'a> {
    /// The session's routing, to find the server a parked call waits on.
    router: Router<'a>,
    /// The client's request: its peer, capabilities, stream and cancellation.
    context: &'a RequestContext<RoleServer>,
}

impl<'a> InputFlow<'a> {
    pub(super) fn new(router: Router<'a>, context: &'a RequestContext<RoleServer>) -> Self {
        Self { router, context }
    }

    /// Forwards a `prompts/get` or `resources/read` to `upstream`, after
    /// `prepare` (the server's own name for a prompt): as it is for a
    /// 2026-07-28 client, through [`Self::ask_and_retry`] for an older one.
    pub(super) async fn forward_asking<R>(
        &self,
        upstream: &Arc<Upstream>,
        request: R,
        prepare: impl Fn(R) -> R,
    ) -> Result<R::Response, ErrorData>
    where
        R: Retry + Ask<Answer = <R as Retry>::Response>,
    {
        let context = self.context;
        let send = |request: R| {
            let upstream = upstream.clone();
            let request = prepare(request);
            async move {
                upstream
                    .send(request, downstream(context), &context.ct)
                    .await
                    .map_err(upstream_error)
            }
        };
        if super::modern::is_modern(context) {
            send(request).await
        } else {
            self.ask_and_retry(request, send).await
        }
    }

    /// Sends an older client's request with `send` and, while the server
    /// answers with an input-required result, asks the client each input
    /// request and sends the request again with the answers, for at most
    /// [`MAX_ROUNDS`] rounds. A client that declared none of sampling,
    /// elicitation and roots gets an error naming what the server wanted.
    pub(super) async fn ask_and_retry<R, F, Fut>(
        &self,
        request: R,
        send: F,
    ) -> Result<R::Response, ErrorData>
    where
        R: Retry,
        F: Fn(R) -> Fut,
        Fut: Future<Output = Result<R::Response, ErrorData>>,
    {
        let context = self.context;
        // Only a client that can be asked something needs the request kept
        // for a retry; the others' requests cost nothing more.
        let askable = context.peer.peer_info().is_some_and(|info| {
            let c = &info.capabilities;
            c.sampling.is_some() || c.elicitation.is_some() || c.roots.is_some()
        });
        if !askable {
            let subject = Subject::of(&request);
            return match R::input_required(send(request).await?) {
                Ok(result) => Err(cannot_ask(&subject, &result, "declared none of them")),
                Err(answer) => Ok(answer),
            };
        }
        let mut retry = request.clone();
        let mut response = send(request).await?;
        for _ in 0..MAX_ROUNDS {
            let result = match R::input_required(response) {
                Ok(result) => result,
                Err(answer) => return Ok(answer),
            };
            let answers = self
                .ask_client(&Subject::of(&retry), result.input_requests)
                .await?;
            retry.answered(answers, result.request_state);
            response = send(retry.clone()).await?;
        }
        match R::input_required(response) {
            Ok(_) => {
                let subject = Subject::of(&retry);
                Err(ErrorData::internal_error(
                    format!(
                        "{subject} still asked for input after {MAX_ROUNDS} rounds; Switchboard gave up"
                    ),
                    Some(json!({subject.kind: subject.name, "kind": "inputRounds"})),
                ))
            }
            Err(answer) => Ok(answer),
        }
    }

    /// Asks an older client each input request and collects its answers.
    async fn ask_client(
        &self,
        subject: &Subject,
        requests: Option<InputRequests>,
    ) -> Result<InputResponses, ErrorData> {
        let context = self.context;
        let mut answers = InputResponses::new();
        let caps = context
            .peer
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        for (key, input) in requests.unwrap_or_default() {
            let what = kind(&input);
            if !declares(&caps, &input) {
                return Err(ErrorData::invalid_request(
                    format!(
                        "{subject} needs {what} from the client, which did not declare the \
                         `{what}` capability"
                    ),
                    Some(json!({
                        subject.kind: subject.name,
                        "kind": "missingCapability",
                        "capability": what,
                    })),
                ));
            }
            let Some(request) = as_server_request(input) else {
                return Err(ErrorData::internal_error(
                    format!("{subject} asked for an input of an unknown kind ('{key}')"),
                    None,
                ));
            };
            let request = on_stream(request, context);
            let sent = context.peer.send_request(request);
            let answer = tokio::select! {
                answer = sent => answer.map_err(|err| match err {
                    rmcp::ServiceError::McpError(error) => error,
                    other => ErrorData::internal_error(
                        format!("asking the client for {what} failed: {other}"),
                        None,
                    ),
                })?,
                () = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("cancelled by the client", None));
                }
            };
            answers.insert(key, response_value(&answer));
        }
        Ok(answers)
    }

    /// `tools/call` from a 2026-07-28 client: a retry of a call the hub
    /// parked resumes it; any other call is started by `start` (given the
    /// request, the client collecting its server's server→client requests,
    /// and the call's own cancellation) with those requests collected into
    /// an input-required result.
    pub(super) async fn modern_call(
        &self,
        request: CallToolRequestParams,
        start: impl FnOnce(CallToolRequestParams, Option<Downstream>, CancellationToken) -> CallFuture,
    ) -> Result<CallToolResponse, ErrorData> {
        let context = self.context;
        if let Some(id) = request
            .request_state
            .as_deref()
            .and_then(|s| s.strip_prefix(STATE_PREFIX))
        {
            return self.resume(id.to_string(), request).await;
        }
        let tool = request.name.to_string();
        let (collect, asks) = mpsc::channel(ASKS_PER_ROUND);
        let mut ds = downstream(context);
        if let Some(ds) = ds.as_mut() {
            ds.collect = Some(collect);
            ds.capabilities = Some(context.meta.client_capabilities().unwrap_or_default());
        }
        let cancel = CancellationToken::new();
        let call = start(request, ds, cancel.clone());
        self.drive(tool, call, asks, cancel).await
    }

    /// The retry of a parked call: answers its server's requests and goes on.
    async fn resume(
        &self,
        id: String,
        request: CallToolRequestParams,
    ) -> Result<CallToolResponse, ErrorData> {
        let (upstream, _) = self.router.route(Target::Tool(&request.name)).await?;
        let Some(mut parked) = upstream.parked().take(&id) else {
            return Err(unknown_state(&request.name));
        };
        if parked.tool != request.name {
            upstream.parked().put_back(id, parked);
            return Err(unknown_state(&request.name));
        }
        let responses = request.input_responses.unwrap_or_default();
        let mut answers = Vec::with_capacity(parked.pending.len());
        for pending in &parked.pending {
            match client_result(&pending.key, &pending.request, &responses) {
                Ok(answer) => answers.push(answer),
                Err(err) => {
                    let message = err.to_string();
                    upstream.parked().put_back(id, parked);
                    return Err(ErrorData::invalid_params(
                        message,
                        Some(json!({"tool": request.name, "kind": "inputResponses"})),
                    ));
                }
            }
        }
        for (pending, answer) in std::mem::take(&mut parked.pending).into_iter().zip(answers) {
            let _ = pending.answer.send(Ok(answer));
        }
        let tool = parked.tool.clone();
        let (call, asks, cancel) = parked.disarm();
        self.drive(tool, call, asks, cancel).await
    }

    /// Runs the call until it answers (its answer is the client's) or its
    /// server asks something (parked on the server the tool routes to; the
    /// client gets an input-required result).
    async fn drive(
        &self,
        tool: String,
        mut call: CallFuture,
        mut asks: mpsc::Receiver<Asked>,
        cancel: CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let context = self.context;
        let first = tokio::select! {
            result = &mut call => return result,
            asked = asks.recv() => asked,
            () = context.ct.cancelled() => {
                cancel.cancel();
                return call.await;
            }
        };
        let Some(first) = first else {
            // Every collector is gone: the call is ending.
            return call.await;
        };
        let mut pending = Vec::new();
        let mut inputs = InputRequests::new();
        let mut next = Some(first);
        while let Some(Asked { request, answer }) = next {
            match as_input_request(request) {
                Ok(input) => {
                    let key = format!("input-{}", pending.len() + 1);
                    inputs.insert(key.clone(), input.clone());
                    pending.push(Pending {
                        key,
                        request: input,
                        answer,
                    });
                }
                Err(err) => {
                    let _ = answer.send(Err(ErrorData::internal_error(err.to_string(), None)));
                }
            }
            next = if pending.len() < ASKS_PER_ROUND {
                asks.try_recv().ok()
            } else {
                None
            };
        }
        let upstream = match self.router.route(Target::Tool(&tool)).await {
            Ok((upstream, _)) => Some(upstream),
            // A built-in tool forwarding a call (search mode): no retry can find it.
            Err(_) => None,
        };
        let Some(upstream) = upstream.filter(|_| !pending.is_empty()) else {
            for p in pending {
                let _ = p.answer.send(Err(ErrorData::internal_error(
                    "Switchboard cannot pass this request on to the client",
                    None,
                )));
            }
            return Box::pin(self.drive(tool, call, asks, cancel)).await;
        };
        let parked = ParkedCall::new(tool, call, asks, pending, cancel);
        let id = upstream.parked().park(parked, upstream.park_ttl());
        Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
            Some(inputs),
            Some(format!("{STATE_PREFIX}{id}")),
        )))
    }
}

/// The error for a retry whose hub-made `requestState` names nothing.
fn unknown_state(tool: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "the requestState of this retry of tool '{tool}' names no call waiting for input: \
             it expired, was already used, or was altered. Call the tool again without it"
        ),
        Some(json!({"tool": tool, "kind": "unknownRequestState"})),
    )
}

/// What asks for input, for messages: `tool 'name'`, `prompt 'name'`,
/// `resource 'uri'`.
pub(super) struct Subject {
    kind: &'static str,
    name: String,
}

impl Subject {
    fn of<R: Retry>(request: &R) -> Self {
        Self {
            kind: R::KIND,
            name: request.subject().to_string(),
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} '{}'", self.kind, self.name)
    }
}

/// The error for a 2026-07-28 server's input request an older client cannot answer.
fn cannot_ask(subject: &Subject, result: &InputRequiredResult, why: &str) -> ErrorData {
    let kinds: Vec<&str> = result
        .input_requests
        .iter()
        .flat_map(|r| r.values())
        .map(kind)
        .collect();
    ErrorData::invalid_request(
        format!(
            "{subject} needs input from the client ({}), which {why}",
            kinds.join(", ")
        ),
        Some(json!({subject.kind: subject.name, "kind": "missingCapability"})),
    )
}

fn kind(input: &InputRequest) -> &'static str {
    match input {
        InputRequest::CreateMessage(_) => "sampling",
        InputRequest::Elicitation(_) => "elicitation",
        InputRequest::ListRoots(_) => "roots",
        _ => "input",
    }
}

fn declares(caps: &ClientCapabilities, input: &InputRequest) -> bool {
    match input {
        InputRequest::CreateMessage(_) => caps.sampling.is_some(),
        InputRequest::Elicitation(_) => caps.elicitation.is_some(),
        InputRequest::ListRoots(_) => caps.roots.is_some(),
        _ => false,
    }
}

/// Sends a request on the stream of the client's call.
fn on_stream(mut request: ServerRequest, context: &RequestContext<RoleServer>) -> ServerRequest {
    let origin = OriginatingRequestId(context.id.clone());
    match &mut request {
        ServerRequest::CreateMessageRequest(r) => {
            r.extensions.insert(origin);
        }
        ServerRequest::ElicitRequest(r) => {
            r.extensions.insert(origin);
        }
        ServerRequest::ListRootsRequest(r) => {
            r.extensions.insert(origin);
        }
        _ => {}
    }
    request
}
