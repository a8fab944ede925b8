//! The `ask` tool behaviour: asks the client its name and answers
//! `hello <name>` (`hello, whoever you are` when the client declines).
//!
//! On protocol 2026-07-28 (no server→client requests) the first call is
//! answered with an input-required result holding one elicitation under the
//! key `name` and the `requestState` [`STATE`]; the retry carries the answer
//! in `inputResponses` and must echo that state (another state is refused
//! with an error naming it). Before 2026-07-28 it sends `elicitation/create`
//! and waits for the answer, as older servers do.

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
        ElicitResult, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
    },
    service::RequestContext,
};
use serde_json::json;

/// The `requestState` the first answer carries and the retry must echo.
pub const STATE: &str = "fixture-ask-1";
/// The message of the elicitation.
pub const MESSAGE: &str = "What is your name?";

fn question() -> Result<ElicitRequestParams, ErrorData> {
    serde_json::from_value(json!({
        "mode": "form",
        "message": MESSAGE,
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }
    }))
    .map_err(|e| ErrorData::internal_error(format!("bad elicitation: {e}"), None))
}

fn greeting(answer: &ElicitResult) -> CallToolResult {
    let name = answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(|n| n.as_str());
    let text = match name {
        Some(name) => format!("hello {name}"),
        None => "hello, whoever you are".to_string(),
    };
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// Answers one call of an `ask` tool.
pub async fn call(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if !modern {
        let answer = context
            .peer
            .create_elicitation(question()?)
            .await
            .map_err(|e| ErrorData::internal_error(format!("elicitation failed: {e}"), None))?;
        return Ok(greeting(&answer).into());
    }
    match (&request.request_state, &request.input_responses) {
        (None, _) => {
            let mut requests = InputRequests::new();
            requests.insert(
                "name".into(),
                InputRequest::Elicitation(rmcp::model::ElicitRequest::new(question()?)),
            );
            Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(STATE.into()),
            )))
        }
        (Some(state), _) if state != STATE => Err(ErrorData::invalid_params(
            format!("unknown requestState {state:?}"),
            None,
        )),
        (Some(_), responses) => {
            let answer = responses
                .as_ref()
                .and_then(|r| r.get("name"))
                .cloned()
                .ok_or_else(|| ErrorData::invalid_params("no inputResponses.name", None))?;
            let answer: ElicitResult = serde_json::from_value(answer)
                .map_err(|e| ErrorData::invalid_params(format!("bad answer: {e}"), None))?;
            Ok(greeting(&answer).into())
        }
    }
}
