//! The `ask` behaviour: asks the client its name and answers
//! `hello <name>` (`hello, whoever you are` when the client declines).
//! It serves the tools whose behaviour is `ask`, the prompt named [`PROMPT`]
//! and the resource [`RESOURCE`] (when the spec lists them), so that
//! `tools/call`, `prompts/get` and `resources/read` can each be asked.
//!
//! On protocol 2026-07-28 (no server→client requests) the first request is
//! answered with an input-required result holding one elicitation under the
//! key `name` and the `requestState` [`STATE`]; the retry carries the answer
//! in `inputResponses` and must echo that state (another state is refused
//! with an error naming it). Before 2026-07-28 it sends `elicitation/create`
//! and waits for the answer, as older servers do.

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
        ElicitResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest,
        InputRequests, InputRequiredResult, InputResponses, PromptMessage, ProtocolVersion,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
        Role,
    },
    service::RequestContext,
};
use serde_json::json;

/// The `requestState` the first answer carries and the retry must echo.
pub const STATE: &str = "fixture-ask-1";
/// The message of the elicitation.
pub const MESSAGE: &str = "What is your name?";
/// The prompt that asks (when the spec lists a prompt of this name).
pub const PROMPT: &str = "ask";
/// The resource that asks (when the spec lists it).
pub const RESOURCE: &str = "fixture://ask";

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

fn greeting(answer: &ElicitResult) -> String {
    let name = answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(|n| n.as_str());
    match name {
        Some(name) => format!("hello {name}"),
        None => "hello, whoever you are".to_string(),
    }
}

/// One round of asking: the question for the client, or the greeting.
enum Round {
    Ask(InputRequiredResult),
    Done(String),
}

async fn ask(
    request_state: Option<&str>,
    input_responses: Option<&InputResponses>,
    context: &RequestContext<RoleServer>,
) -> Result<Round, ErrorData> {
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if !modern {
        let answer = context
            .peer
            .create_elicitation(question()?)
            .await
            .map_err(|e| ErrorData::internal_error(format!("elicitation failed: {e}"), None))?;
        return Ok(Round::Done(greeting(&answer)));
    }
    match request_state {
        None => {
            let mut requests = InputRequests::new();
            requests.insert(
                "name".into(),
                InputRequest::Elicitation(rmcp::model::ElicitRequest::new(question()?)),
            );
            Ok(Round::Ask(InputRequiredResult::new(
                Some(requests),
                Some(STATE.into()),
            )))
        }
        Some(state) if state != STATE => Err(ErrorData::invalid_params(
            format!("unknown requestState {state:?}"),
            None,
        )),
        Some(_) => {
            let answer = input_responses
                .and_then(|r| r.get("name"))
                .cloned()
                .ok_or_else(|| ErrorData::invalid_params("no inputResponses.name", None))?;
            let answer: ElicitResult = serde_json::from_value(answer)
                .map_err(|e| ErrorData::invalid_params(format!("bad answer: {e}"), None))?;
            Ok(Round::Done(greeting(&answer)))
        }
    }
}

/// One round as `T`: the input request wrapped by `asking`, or the greeting
/// made into an answer by `done`.
async fn answer<T>(
    request_state: Option<&str>,
    input_responses: Option<&InputResponses>,
    context: &RequestContext<RoleServer>,
    asking: fn(InputRequiredResult) -> T,
    done: impl FnOnce(String) -> T,
) -> Result<T, ErrorData> {
    Ok(match ask(request_state, input_responses, context).await? {
        Round::Ask(asked) => asking(asked),
        Round::Done(text) => done(text),
    })
}

/// Answers one call of an `ask` tool.
pub async fn call(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let (state, responses) = (
        request.request_state.as_deref(),
        request.input_responses.as_ref(),
    );
    answer(
        state,
        responses,
        context,
        CallToolResponse::InputRequired,
        |text| CallToolResult::success(vec![ContentBlock::text(text)]).into(),
    )
    .await
}

/// Answers one `prompts/get` of the [`PROMPT`]: one user message, the greeting.
pub async fn prompt(
    request: &GetPromptRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetPromptResponse, ErrorData> {
    let (state, responses) = (
        request.request_state.as_deref(),
        request.input_responses.as_ref(),
    );
    answer(
        state,
        responses,
        context,
        GetPromptResponse::InputRequired,
        |text| GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into(),
    )
    .await
}

/// Answers one `resources/read` of the [`RESOURCE`]: its text is the greeting.
pub async fn resource(
    request: &ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, ErrorData> {
    let (state, responses) = (
        request.request_state.as_deref(),
        request.input_responses.as_ref(),
    );
    answer(
        state,
        responses,
        context,
        ReadResourceResponse::InputRequired,
        |text| {
            ReadResourceResult::new(vec![ResourceContents::text(text, request.uri.clone())]).into()
        },
    )
    .await
}
