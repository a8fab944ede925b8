//! The one decision point before a `tools/call` leaves the hub
//! (`crate::approval`): the gateway's call path asks [`approve_call`]
//! after routing, on every route (merged,
//! profiles, pass-through, `switchboard__call_tool`, the HTTP fast path).
//!
//! A call that needs no approval costs one settings read and one check of
//! its server's settings ([`crate::approval::may_ask`]); only when those can
//! ask is the tool's listing looked at. A call that needs approval is added
//! to the hub's table and waits for the first of: a decision (control API,
//! dashboard, app, or the calling client's answer to an elicitation, when
//! it declared the capability — on the call's stream, or for a 2026-07-28
//! client as an input request whose answer comes in the call's retry, the
//! call parked meanwhile), `confirmTimeoutSecs`, or the client's
//! cancellation. Meanwhile a client that sent a progress token gets
//! "waiting for approval" progress notifications. A denied call never
//! reaches the server: the client gets a tool result with `isError: true`
//! saying why.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitationAction, ProgressNotificationParam, ServerRequest,
};
use rmcp::service::OriginatingRequestId;
use serde_json::{Value, json};
use switchboard_api::ActivityApproval;
use tokio_util::sync::CancellationToken;

use crate::approval::{Decider, Decision};
use crate::hub::HubHandle;
use crate::sessions::Session;
use crate::upstream::{Asked, Downstream, Upstream};

/// How often a waiting call tells a client with a progress token that it
/// still waits.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);
/// Longest argument text an elicitation's message quotes, in characters.
const MAX_MESSAGE_ARGUMENTS: usize = 1000;

/// What approval decided about one call.
pub(super) enum Approval {
    /// The call needs no approval.
    NotAsked,
    /// A person allowed it.
    Allowed(ActivityApproval),
    /// Denied, timed out or cancelled: the result the client gets instead.
    Denied(CallToolResult, ActivityApproval),
}

type Elicited = Pin<Box<dyn Future<Output = Option<Decision>> + Send>>;

/// Whether `request` (already renamed to the server's own tool name) of a
/// client of `session` may go to `upstream` (see the module docs); the hub
/// keeps the table of calls waiting and its settings decide which wait.
pub(super) async fn approve_call(
    hub: &HubHandle,
    session: &Session,
    upstream: &Upstream,
    request: &CallToolRequestParams,
    downstream: Option<&Downstream>,
    cancel: &CancellationToken,
) -> Approval {
    let config = upstream.config();
    let settings = hub.settings();
    if !crate::approval::may_ask(settings.confirm_calls, &config.approval) {
        return Approval::NotAsked;
    }
    let tool: &str = &request.name;
    let listing = upstream.capabilities();
    let annotations = listing
        .as_ref()
        .and_then(|caps| caps.tools.iter().find(|t| t.name == tool))
        .and_then(|t| t.annotations.as_ref());
    if !crate::approval::needs_approval(settings.confirm_calls, &config.approval, tool, annotations)
    {
        return Approval::NotAsked;
    }
    let mut arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    crate::activity::redact_value(&mut arguments);
    let server = upstream.id.clone();
    let client = session.client_name().map(|c| c.to_string());
    let mut ticket = hub.pending().add(&server, tool, arguments.clone(), client);
    let timeout = settings.confirm_timeout;
    tracing::info!(server = %server, tool, id = ticket.id(), "call waits for approval");
    let mut elicited: Elicited = match downstream.filter(|d| asks_by_elicitation(d)) {
        Some(downstream) => Box::pin(elicit(
            downstream.clone(),
            message(server.as_str(), tool, &arguments),
        )),
        None => Box::pin(std::future::pending()),
    };
    let progress = downstream.and_then(|d| d.progress_token.clone().map(|t| (d, t)));
    let mut tick = tokio::time::interval(PROGRESS_EVERY);
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let decision = loop {
        tokio::select! {
            decision = ticket.decision() => break decision,
            answer = &mut elicited => {
                elicited = Box::pin(std::future::pending());
                if let Some(decision) = answer {
                    let hub = hub.clone();
                    let id = ticket.id().to_string();
                    // The first answer wins: another decider may have been first.
                    tokio::spawn(async move { hub.decide_call(&id, decision).await });
                }
            }
            () = &mut deadline => break None,
            () = cancel.cancelled() => {
                return Approval::Denied(
                    denied("the client cancelled the call while it waited for approval"),
                    record("cancelled", "client", ticket.since().elapsed()),
                );
            }
            _ = tick.tick() => {
                if let Some((downstream, token)) = &progress {
                    let mut note = ProgressNotificationParam::new(token.clone(), 0.0);
                    note.message = Some("waiting for approval".to_string());
                    if let Err(err) = downstream.peer.notify_progress(note).await {
                        tracing::debug!(%err, "could not send approval progress");
                    }
                }
            }
        }
    };
    let waited = ticket.since().elapsed();
    match decision {
        Some(decision) if decision.allow => {
            Approval::Allowed(record("allowed", decision.by.as_str(), waited))
        }
        Some(decision) => Approval::Denied(
            denied(&format!(
                "The user declined the call of tool '{tool}' of server '{server}'; \
                 it was not made."
            )),
            record("denied", decision.by.as_str(), waited),
        ),
        None => Approval::Denied(
            denied(&format!(
                "Nobody answered the approval request for tool '{tool}' of server \
                 '{server}' in {} s; the call was not made.",
                timeout.as_secs()
            )),
            record("timedOut", "timeout", waited),
        ),
    }
}

fn record(decision: &str, by: &str, waited: Duration) -> ActivityApproval {
    ActivityApproval {
        decision: decision.to_string(),
        by: by.to_string(),
        waited_ms: waited.as_secs_f64() * 1000.0,
    }
}

fn denied(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// Whether the client can be asked: it declared elicitation. A client that
/// takes server→client requests is sent the elicitation on its call's
/// stream; a 2026-07-28 client (whose call collects them, see
/// `input_flow`) gets it as an input request of an input-required result,
/// and its retry answers it.
fn asks_by_elicitation(downstream: &Downstream) -> bool {
    downstream.client_capabilities().elicitation.is_some()
}

/// The elicitation's message: server, tool, redacted arguments.
fn message(server: &str, tool: &str, arguments: &Value) -> String {
    let mut text = arguments.to_string();
    if let Some((end, _)) = text.char_indices().nth(MAX_MESSAGE_ARGUMENTS) {
        text.truncate(end);
        text.push('…');
    }
    format!(
        "Switchboard: allow the call of tool '{tool}' of server '{server}' with arguments {text}? \
         Answer allow, always (allow and stop asking for this tool) or deny."
    )
}

/// Asks the client; `None` when it could not answer or its answer is not a
/// decision (the call keeps waiting for another decider).
async fn elicit(downstream: Downstream, message: String) -> Option<Decision> {
    let params: ElicitRequestParams = serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "decision": {"type": "string", "enum": ["allow", "always", "deny"]}
            },
            "required": ["decision"]
        }
    }))
    .ok()?;
    let mut request = ElicitRequest::new(params);
    request
        .extensions
        .insert(OriginatingRequestId(downstream.request_id.clone()));
    let request = ServerRequest::ElicitRequest(request);
    let answer = match &downstream.collect {
        // A 2026-07-28 client: the call (parked meanwhile) answers with an
        // input-required result; the retry's answer comes back here.
        Some(collect) => {
            let (answer, answered) = tokio::sync::oneshot::channel();
            if collect.send(Asked { request, answer }).await.is_err() {
                return None;
            }
            match answered.await {
                Ok(answer) => answer.map_err(|err| err.message.to_string()),
                Err(_) => Err("the call ended before the client answered".to_string()),
            }
        }
        None => downstream
            .peer
            .send_request(request)
            .await
            .map_err(|err| err.to_string()),
    };
    let result = match answer {
        Ok(ClientResult::ElicitResult(result)) => result,
        Ok(_) => return None,
        Err(err) => {
            tracing::debug!(%err, "the client did not answer the approval elicitation");
            return None;
        }
    };
    let by = Decider::Elicitation;
    let deny = Decision {
        allow: false,
        always: false,
        by,
    };
    match result.action {
        ElicitationAction::Accept => {
            let choice = result
                .content
                .as_ref()
                .and_then(|c| c.get("decision"))
                .and_then(Value::as_str);
            match choice {
                Some("allow") => Some(Decision {
                    allow: true,
                    always: false,
                    by,
                }),
                Some("always") => Some(Decision {
                    allow: true,
                    always: true,
                    by,
                }),
                Some("deny") => Some(deny),
                _ => None,
            }
        }
        // Declined, cancelled (or an action this version does not know).
        _ => Some(deny),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};
    use crate::sessions::Scope;

    /// The cost of the check on a call that is not asked, measured rather
    /// than asserted (tests never assert speed): run with
    /// `cargo test -p switchboard-core --release approval_check_cost -- --ignored --nocapture`.
    /// Figures in `docs/benchmarks.md` ("Approval check").
    #[tokio::test]
    #[ignore = "a measurement, not a test"]
    async fn approval_check_cost() {
        const N: u32 = 1_000_000;
        for (label, settings) in [
            ("confirmCalls off (the default)", r#""settings":{}"#),
            (
                "confirmCalls destructive, a tool without annotations",
                r#""settings":{"confirmCalls":"destructive"}"#,
            ),
        ] {
            let (_hub, handle) = hub(&format!(
                r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}}}},{settings}}}"#
            ))
            .await;
            let names: Vec<String> = (0..50).map(|i| format!("tool_{i}")).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            listed(&handle, "a", &names);
            let session = Session::new(Scope::Merged);
            let upstream = handle.upstream("a").unwrap();
            let request: CallToolRequestParams =
                serde_json::from_value(json!({"name": "tool_25", "arguments": {"text": "x"}}))
                    .unwrap();
            let cancel = CancellationToken::new();
            let started = std::time::Instant::now();
            for _ in 0..N {
                let approval =
                    approve_call(&handle, &session, &upstream, &request, None, &cancel).await;
                assert!(matches!(approval, Approval::NotAsked));
            }
            let per_call = started.elapsed() / N;
            println!("approval check, {label}: {per_call:?} per call");
            handle.shutdown();
        }
    }

    #[tokio::test]
    async fn a_call_of_a_server_that_cannot_ask_is_not_asked() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}","allowTools":["t*"]}},
                              "b":{{"command":"{NO_SUCH_COMMAND}","confirmCalls":"all"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);
        listed(&handle, "b", &["t"]);
        let session = Session::new(Scope::Merged);
        let request: CallToolRequestParams = serde_json::from_value(json!({"name": "t"})).unwrap();
        let cancel = CancellationToken::new();
        let a = handle.upstream("a").unwrap();
        assert!(matches!(
            approve_call(&handle, &session, &a, &request, None, &cancel).await,
            Approval::NotAsked
        ));
        // `b` asks every call: cancelled while waiting, it is denied and leaves the table.
        let b = handle.upstream("b").unwrap();
        cancel.cancel();
        let Approval::Denied(result, record) =
            approve_call(&handle, &session, &b, &request, None, &cancel).await
        else {
            panic!("a call of `b` was not asked");
        };
        assert_eq!(result.is_error, Some(true));
        assert_eq!(record.decision, "cancelled");
        assert!(handle.pending().is_empty());
        handle.shutdown();
    }
}
