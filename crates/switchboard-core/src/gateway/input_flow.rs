//! Input-required results (SEP-2322) across the protocol boundary, for
//! `tools/call`:
//!
//! - **2026-07-28 client, 2026-07-28 server**: the server's input-required
//!   result goes to the client as it is, and the client's retry (its
//!   `requestState` and `inputResponses`) is routed by the tool name like any
//!   call, so it reaches the same server, which checks its own state.
//! - **older client, 2026-07-28 server** ([`Gateway::legacy_call`]): the hub
//!   asks the client each input request as a sampling, elicitation or roots
//!   request on the call's stream, and retries the server with the answers,
//!   for at most [`MAX_ROUNDS`] rounds.
//! - **2026-07-28 client, older server** ([`Gateway::modern_call`]): the
//!   server's sampling, elicitation and roots requests during the call are
//!   collected (see `Downstream::collect`) and the client gets an
//!   input-required result whose `requestState` is
//!   `switchboard-input:<id>`, naming the call parked on that server (see
//!   `upstream::parked`); the retry's `inputResponses` answer the waiting
//!   requests and the same call goes on. Such a state that names no parked
//!   call of the server its tool routes to (expired, used, altered, or
//!   another tool's) is refused with an error saying so.
//!
//! A state the hub did not make is never looked at: it belongs to the server.

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577) but are what
// older clients and servers exchange.
#![allow(deprecated)]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ErrorData, InputRequest,
    InputRequests, InputRequiredResult, InputResponses, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, RoleServer};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::input_required::{as_input_request, as_server_request, client_result, response_value};
use super::{Gateway, Target, downstream};
use crate::upstream::{Asked, ParkedCall};
use crate::upstream::{CallFuture, Pending};

/// Rounds of input requests the hub answers for an older client before it
/// gives up on a server that keeps asking.
pub(super) const MAX_ROUNDS: usize = 8;
/// How a `requestState` made by the hub starts.
pub(super) const STATE_PREFIX: &str = "switchboard-input:";
/// Server requests of one call collected into one input-required result.
const ASKS_PER_ROUND: usize = 16;

impl Gateway {
    /// `tools/call` from an older client: input-required results of a
    /// 2026-07-28 server are turned into requests to the client.
    pub(super) async fn legacy_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Only a client that can be asked something needs the request kept
        // for a retry; the others' calls cost nothing more.
        let askable = context.peer.peer_info().is_some_and(|info| {
            let c = &info.capabilities;
            c.sampling.is_some() || c.elicitation.is_some() || c.roots.is_some()
        });
        if !askable {
            let name = request.name.to_string();
            let response = self
                .forward_call(request, downstream(context), &context.ct)
                .await?;
            return match response {
                CallToolResponse::InputRequired(result) => {
                    Err(cannot_ask(&name, &result, "declared none of them"))
                }
                other => Ok(other),
            };
        }
        let mut retry = request.clone();
        let mut response = self
            .forward_call(request, downstream(context), &context.ct)
            .await?;
        for _ in 0..MAX_ROUNDS {
            let CallToolResponse::InputRequired(result) = response else {
                return Ok(response);
            };
            let answers = self
                .ask_client(&retry.name, result.input_requests, context)
                .await?;
            retry.input_responses = Some(answers);
            retry.request_state = result.request_state;
            response = self
                .forward_call(retry.clone(), downstream(context), &context.ct)
                .await?;
        }
        match response {
            CallToolResponse::InputRequired(_) => Err(ErrorData::internal_error(
                format!(
                    "tool '{}' still asked for input after {MAX_ROUNDS} rounds; Switchboard gave up",
                    retry.name
                ),
                Some(json!({"tool": retry.name, "kind": "inputRounds"})),
            )),
            other => Ok(other),
        }
    }

    /// Asks an older client each input request and collects its answers.
    async fn ask_client(
        &self,
        tool: &str,
        requests: Option<InputRequests>,
        context: &RequestContext<RoleServer>,
    ) -> Result<InputResponses, ErrorData> {
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
                        "tool '{tool}' needs {what} from the client, which did not declare the \
                         `{what}` capability"
                    ),
                    Some(json!({"tool": tool, "kind": "missingCapability", "capability": what})),
                ));
            }
            let Some(request) = as_server_request(input) else {
                return Err(ErrorData::internal_error(
                    format!("tool '{tool}' asked for an input of an unknown kind ('{key}')"),
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
    /// parked resumes it; any other call runs with its server's
    /// server→client requests collected into an input-required result.
    pub(super) async fn modern_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(id) = request
            .request_state
            .as_deref()
            .and_then(|s| s.strip_prefix(STATE_PREFIX))
        {
            return self.resume(id.to_string(), request, context).await;
        }
        let tool = request.name.to_string();
        let (collect, asks) = mpsc::channel(ASKS_PER_ROUND);
        let mut ds = downstream(context);
        if let Some(ds) = ds.as_mut() {
            ds.collect = Some(collect);
            ds.capabilities = Some(context.meta.client_capabilities().unwrap_or_default());
        }
        let cancel = CancellationToken::new();
        let gateway = self.clone();
        let for_call = cancel.clone();
        let call: CallFuture =
            Box::pin(async move { gateway.forward_call(request, ds, &for_call).await });
        self.drive(tool, call, asks, cancel, context).await
    }

    /// The retry of a parked call: answers its server's requests and goes on.
    async fn resume(
        &self,
        id: String,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (upstream, _) = self.route(Target::Tool(&request.name)).await?;
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
        self.drive(tool, call, asks, cancel, context).await
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
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
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
        let upstream = match self.route(Target::Tool(&tool)).await {
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
            return Box::pin(self.drive(tool, call, asks, cancel, context)).await;
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

/// The error for a 2026-07-28 server's input request an older client cannot answer.
fn cannot_ask(tool: &str, result: &InputRequiredResult, why: &str) -> ErrorData {
    let kinds: Vec<&str> = result
        .input_requests
        .iter()
        .flat_map(|r| r.values())
        .map(kind)
        .collect();
    ErrorData::invalid_request(
        format!(
            "tool '{tool}' needs input from the client ({}), which {why}",
            kinds.join(", ")
        ),
        Some(json!({"tool": tool, "kind": "missingCapability"})),
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
