//! What each conformance tool does when called.
//!
//! Tools that wait (logging, progress, reconnection) stop as soon as the
//! request's cancellation token fires. Tools that ask the client something
//! (sampling, elicitation) check the capability the client declared first and
//! report a missing capability or a failed request as a tool error
//! (`isError: true`), as the suite's scenario descriptions ask. Only bad
//! arguments are JSON-RPC errors.
// Sampling and logging are deprecated by SEP-2577 only from protocol
// 2026-07-28 on; the conformance scenarios negotiate 2025-11-25 and call them.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolResult, ContentBlock, CreateMessageRequestParams, JsonObject, LoggingLevel,
        LoggingMessageNotificationParam, ProgressNotificationParam, ResourceContents,
        SamplingMessage,
    },
    service::RequestContext,
};
use serde_json::Value;

use super::{
    catalog::{PNG_BASE64, ToolName, WAV_BASE64},
    elicitation::Form,
    reconnect::{self, ReconnectingSessionManager},
    session::SessionState,
};

/// Pause between the log messages and between the progress notifications.
const STEP: Duration = Duration::from_millis(50);
/// The logger name on log notifications.
const LOGGER: &str = "switchboard-conformance-fixture";

/// How `test_reconnection` drops and waits for its stream.
#[derive(Debug, Clone, Copy)]
pub struct ReconnectOptions {
    /// The `retry` hint sent in the priming event before the stream closes.
    pub retry: Duration,
    /// How long to wait for the client to resume before answering anyway.
    pub timeout: Duration,
}

impl Default for ReconnectOptions {
    fn default() -> Self {
        Self {
            retry: Duration::from_millis(500),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Everything a tool call may use besides its arguments.
pub struct ToolContext<'a> {
    /// The MCP request (peer, cancellation, progress token, HTTP parts).
    pub request: &'a RequestContext<RoleServer>,
    /// The calling session's log level.
    pub session: &'a SessionState,
    /// The HTTP session manager; `None` over stdio.
    pub reconnect: Option<&'a ReconnectingSessionManager>,
    /// Settings of `test_reconnection`.
    pub reconnect_options: ReconnectOptions,
}

/// Runs `tool` with `arguments`.
pub async fn call(
    tool: ToolName,
    arguments: JsonObject,
    cx: ToolContext<'_>,
) -> Result<CallToolResult, ErrorData> {
    let png = || ContentBlock::image(PNG_BASE64, "image/png");
    match tool {
        ToolName::SimpleText => Ok(text("This is a simple text response for testing.")),
        ToolName::ImageContent => Ok(CallToolResult::success(vec![png()])),
        ToolName::AudioContent => Ok(CallToolResult::success(vec![ContentBlock::audio(
            WAV_BASE64,
            "audio/wav",
        )])),
        ToolName::EmbeddedResource => Ok(CallToolResult::success(vec![ContentBlock::resource(
            ResourceContents::text(
                "This is an embedded resource content.",
                "test://embedded-resource",
            )
            .with_mime_type("text/plain"),
        )])),
        ToolName::MultipleContentTypes => Ok(CallToolResult::success(vec![
            ContentBlock::text("Multiple content types test:"),
            png(),
            ContentBlock::resource(
                ResourceContents::text(
                    r#"{"test":"data","value":123}"#,
                    "test://mixed-content-resource",
                )
                .with_mime_type("application/json"),
            ),
        ])),
        ToolName::ToolWithLogging => logging(&cx).await,
        ToolName::ToolWithProgress => progress(&cx).await,
        ToolName::ErrorHandling => Ok(CallToolResult::error(vec![ContentBlock::text(
            "This tool intentionally returns an error for testing",
        )])),
        ToolName::Sampling => {
            let prompt = required_string(&arguments, "prompt")?;
            sampling(prompt, &cx).await
        }
        ToolName::Elicitation => {
            let message = required_string(&arguments, "message")?;
            elicitation(Form::UserInfo, Some(message), &cx).await
        }
        ToolName::ElicitationDefaults => elicitation(Form::Defaults, None, &cx).await,
        ToolName::ElicitationEnums => elicitation(Form::Enums, None, &cx).await,
        ToolName::Reconnection => reconnection(&cx).await,
        ToolName::JsonSchema2020_12 => Ok(text(format!(
            "json_schema_2020_12_tool called with {}",
            Value::Object(arguments)
        ))),
    }
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The string argument `name`, or an `invalid_params` error.
fn required_string<'a>(arguments: &'a JsonObject, name: &str) -> Result<&'a str, ErrorData> {
    match arguments.get(name) {
        Some(Value::String(value)) => Ok(value),
        _ => Err(ErrorData::invalid_params(
            format!("missing string argument `{name}`"),
            None,
        )),
    }
}

/// The error rmcp expects from a handler whose request was cancelled (it sends nothing).
fn cancelled() -> ErrorData {
    ErrorData::internal_error("request cancelled", None)
}

/// Sleeps `duration`, or fails as soon as the request is cancelled.
async fn pause(duration: Duration, cx: &ToolContext<'_>) -> Result<(), ErrorData> {
    tokio::select! {
        () = tokio::time::sleep(duration) => Ok(()),
        () = cx.request.ct.cancelled() => Err(cancelled()),
    }
}

async fn logging(cx: &ToolContext<'_>) -> Result<CallToolResult, ErrorData> {
    let messages = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (index, message) in messages.into_iter().enumerate() {
        if index > 0 {
            pause(STEP, cx).await?;
        }
        if !cx.session.should_log(LoggingLevel::Info) {
            continue;
        }
        let params = LoggingMessageNotificationParam::new(LoggingLevel::Info, message.into())
            .with_logger(LOGGER);
        if let Err(error) = cx.request.peer.notify_logging_message(params).await {
            tracing::warn!("cannot send a log notification: {error}");
        }
    }
    Ok(text("Tool with logging executed successfully"))
}

async fn progress(cx: &ToolContext<'_>) -> Result<CallToolResult, ErrorData> {
    let token = cx.request.meta.get_progress_token();
    for (index, (progress, message)) in [(0.0, "Started"), (50.0, "Halfway"), (100.0, "Done")]
        .into_iter()
        .enumerate()
    {
        if index > 0 {
            pause(STEP, cx).await?;
        }
        let Some(token) = &token else { continue };
        let params = ProgressNotificationParam::new(token.clone(), progress)
            .with_total(100.0)
            .with_message(message);
        if let Err(error) = cx.request.peer.notify_progress(params).await {
            tracing::warn!("cannot send a progress notification: {error}");
        }
    }
    Ok(text("Tool with progress executed successfully"))
}

async fn sampling(prompt: &str, cx: &ToolContext<'_>) -> Result<CallToolResult, ErrorData> {
    let peer = &cx.request.peer;
    let supported = peer
        .peer_info()
        .is_some_and(|client| client.capabilities.sampling.is_some());
    if !supported {
        return Ok(tool_error(
            "the client does not support sampling (no `sampling` capability)",
        ));
    }
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
    let request = peer.create_message(params);
    let result = tokio::select! {
        result = request => result,
        () = cx.request.ct.cancelled() => return Err(cancelled()),
    };
    match result {
        Ok(result) => {
            let reply = result
                .message
                .content
                .into_vec()
                .into_iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(text(format!("LLM response: {reply}")))
        }
        Err(error) => Ok(tool_error(format!("sampling failed: {error}"))),
    }
}

async fn elicitation(
    form: Form,
    message: Option<&str>,
    cx: &ToolContext<'_>,
) -> Result<CallToolResult, ErrorData> {
    let peer = &cx.request.peer;
    let supported = peer
        .peer_info()
        .is_some_and(|client| client.capabilities.elicitation.is_some());
    if !supported {
        return Ok(tool_error(
            "the client does not support elicitation (no `elicitation` capability)",
        ));
    }
    let params = form.request(message).map_err(|error| {
        ErrorData::internal_error(format!("bad elicitation schema: {error}"), None)
    })?;
    let request = peer.create_elicitation(params);
    let result = tokio::select! {
        result = request => result,
        () = cx.request.ct.cancelled() => return Err(cancelled()),
    };
    match result {
        Ok(result) => Ok(text(form.report(&result))),
        Err(error) => Ok(tool_error(format!("elicitation failed: {error}"))),
    }
}

/// Closes the SSE stream of this call (Streamable HTTP only), waits until the
/// client resumes it with `Last-Event-ID`, then answers on the resumed stream.
/// Elsewhere (stdio, or no known stream) it answers after a short pause.
async fn reconnection(cx: &ToolContext<'_>) -> Result<CallToolResult, ErrorData> {
    let session = reconnect::session_of(cx.request);
    let resumed = match (cx.reconnect, &session) {
        (Some(manager), Some(session)) => manager
            .disconnect(session, &cx.request.id, cx.reconnect_options.retry)
            .await
            .map_err(|error| {
                ErrorData::internal_error(format!("cannot close the SSE stream: {error}"), None)
            })?,
        _ => None,
    };
    let Some(resumed) = resumed else {
        pause(Duration::from_millis(100), cx).await?;
        return Ok(text(
            "Reconnection test completed (no SSE stream to close on this transport)",
        ));
    };
    tokio::select! {
        outcome = tokio::time::timeout(cx.reconnect_options.timeout, resumed) => match outcome {
            Ok(Ok(())) => Ok(text(
                "Reconnection test completed: the stream was closed and the client resumed it",
            )),
            Ok(Err(_)) => Err(ErrorData::internal_error("the session closed", None)),
            Err(_) => {
                tracing::warn!(
                    ?session,
                    "the client did not resume the test_reconnection stream within {:?}",
                    cx.reconnect_options.timeout
                );
                Ok(text(
                    "Reconnection test completed, but the client did not resume the closed stream",
                ))
            }
        },
        () = cx.request.ct.cancelled() => Err(cancelled()),
    }
}
