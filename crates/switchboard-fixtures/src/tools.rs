//! What each tool [`Behavior`] does when called.
//!
//! Every behaviour that waits (`sleep`, `hang`) stops as soon as the request's
//! cancellation token fires (`notifications/cancelled`, or the session closing)
//! and then returns an error that rmcp does not send, since the request was
//! cancelled. `crash` never returns: it exits the whole process. `deaf`
//! answers, then stops reading stdin; `large` answers with a big text. `flood`
//! answers once all its notifications are written (bounded by
//! [`crate::flood::MAX_COUNT`]).

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolResult, ContentBlock, JsonObject, ProgressNotificationParam, ProgressToken},
    service::RequestContext,
};
use serde_json::Value;
use tokio::time::{Instant, MissedTickBehavior};

use crate::flood::{Flood, FloodKind};
use crate::spec::Behavior;

/// Default `ms` argument of the `sleep` behaviour.
const DEFAULT_SLEEP_MS: u64 = 1000;
/// How often `sleep` reports progress when asked to.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Default `bytes` argument of the `large` behaviour (over the hub's 16 MiB cap).
const DEFAULT_LARGE_BYTES: u64 = 20_000_000;
/// Exit code of the `crash` behaviour.
pub const CRASH_EXIT_CODE: i32 = 3;

/// A `data` tool's answer to `arguments`: the first matching response.
pub fn data(responses: &[crate::spec::DataResponse], arguments: &JsonObject) -> CallToolResult {
    let found = responses.iter().find(|r| {
        r.when
            .iter()
            .all(|(key, value)| arguments.get(key) == Some(value))
    });
    match found {
        Some(response) => {
            let text = response.result.to_string();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            if response.result.is_object() {
                result.structured_content = Some(response.result.clone());
            }
            result
        }
        None => CallToolResult::error(vec![ContentBlock::text(format!(
            "nothing found for {}",
            Value::Object(arguments.clone())
        ))]),
    }
}

/// Runs `behavior` on `arguments` for the request described by `context`.
pub async fn call(
    behavior: Behavior,
    arguments: JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    match behavior {
        Behavior::Echo => Ok(CallToolResult::success(vec![ContentBlock::text(
            echo_text(&arguments),
        )])),
        Behavior::Sleep => sleep(&arguments, context).await,
        Behavior::Hang => {
            context.ct.cancelled().await;
            Err(cancelled())
        }
        Behavior::Crash => {
            crate::stderr_line(format_args!("fixture crashing on purpose"));
            std::process::exit(CRASH_EXIT_CODE)
        }
        Behavior::Error => Ok(CallToolResult::error(vec![ContentBlock::text(
            "tool failed on purpose",
        )])),
        Behavior::Fail => Err(ErrorData::internal_error("fail on purpose", None)),
        Behavior::Structured => Ok(CallToolResult::structured(Value::Object(arguments))),
        Behavior::Deaf => {
            let text = echo_text(&arguments);
            crate::faults::go_deaf();
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        }
        Behavior::Large => {
            let bytes = arguments
                .get("bytes")
                .and_then(Value::as_u64)
                .unwrap_or(DEFAULT_LARGE_BYTES);
            let len = usize::try_from(bytes).unwrap_or(usize::MAX);
            Ok(CallToolResult::success(vec![ContentBlock::text(
                "x".repeat(len),
            )]))
        }
        Behavior::Flood => flood(&arguments, context).await,
        Behavior::Probe => Ok(crate::probe::call(&arguments)),
        // Answered by `crate::ask` before it gets here (it needs the whole request).
        Behavior::Ask => Err(ErrorData::internal_error("ask is not a plain tool", None)),
        // Answered by `data` before it gets here (it needs the tool's responses).
        Behavior::Data => Err(ErrorData::internal_error("data is not a plain tool", None)),
    }
}

/// Default `count` argument of the `flood` behaviour.
const DEFAULT_FLOOD_COUNT: u64 = 10_000;

/// Sends the flood the arguments ask for, then says how many went out.
async fn flood(
    arguments: &JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let count = arguments
        .get("count")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_FLOOD_COUNT);
    let kind = match arguments.get("kind") {
        Some(kind) => serde_json::from_value(kind.clone())
            .map_err(|err| ErrorData::invalid_params(format!("bad flood kind: {err}"), None))?,
        None => FloodKind::Progress,
    };
    let flood = Flood { count, kind };
    let sent = crate::flood::send(&context.peer, flood, context.meta.get_progress_token()).await;
    Ok(CallToolResult::success(vec![ContentBlock::text(format!(
        "flooded {sent}"
    ))]))
}

/// The `text` argument if it is a string, else the arguments as compact JSON.
pub fn echo_text(arguments: &JsonObject) -> String {
    match arguments.get("text") {
        Some(Value::String(text)) => text.clone(),
        _ => Value::Object(arguments.clone()).to_string(),
    }
}

/// The `ms` argument: a non-negative number of milliseconds.
fn sleep_ms(arguments: &JsonObject) -> u64 {
    match arguments.get("ms") {
        Some(Value::Number(ms)) => ms
            .as_u64()
            .or_else(|| ms.as_f64().map(|ms| ms.max(0.0).round() as u64))
            .unwrap_or(DEFAULT_SLEEP_MS),
        _ => DEFAULT_SLEEP_MS,
    }
}

async fn sleep(
    arguments: &JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let ms = sleep_ms(arguments);
    let progress_token = context.meta.get_progress_token();
    let start = Instant::now();
    let deadline = tokio::time::sleep_until(start + Duration::from_millis(ms));
    tokio::pin!(deadline);
    let mut ticks = tokio::time::interval_at(start + PROGRESS_INTERVAL, PROGRESS_INTERVAL);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = context.ct.cancelled() => return Err(cancelled()),
            () = &mut deadline => break,
            _ = ticks.tick(), if progress_token.is_some() => {
                if let Some(token) = &progress_token {
                    report_progress(context, token.clone(), start.elapsed(), ms).await;
                }
            }
        }
    }
    Ok(CallToolResult::success(vec![ContentBlock::text(format!(
        "slept {ms} ms"
    ))]))
}

async fn report_progress(
    context: &RequestContext<RoleServer>,
    token: ProgressToken,
    elapsed: Duration,
    total_ms: u64,
) {
    let total = total_ms as f64;
    let progress = (elapsed.as_secs_f64() * 1000.0).round().min(total);
    let params = ProgressNotificationParam::new(token, progress).with_total(total);
    if let Err(error) = context.peer.notify_progress(params).await {
        tracing::debug!("cannot send progress: {error}");
    }
}

fn cancelled() -> ErrorData {
    ErrorData::internal_error("request cancelled", None)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn echo_returns_text_or_compact_arguments() {
        assert_eq!(echo_text(&object(json!({"text": "hi", "x": 1}))), "hi");
        assert_eq!(
            echo_text(&object(json!({"text": 5, "b": [1, 2]}))),
            r#"{"text":5,"b":[1,2]}"#
        );
        assert_eq!(echo_text(&JsonObject::new()), "{}");
    }

    #[test]
    fn sleep_reads_ms_leniently() {
        assert_eq!(sleep_ms(&object(json!({"ms": 250}))), 250);
        assert_eq!(sleep_ms(&object(json!({"ms": 12.6}))), 13);
        assert_eq!(sleep_ms(&object(json!({"ms": -5}))), 0);
        assert_eq!(sleep_ms(&object(json!({"ms": "x"}))), DEFAULT_SLEEP_MS);
        assert_eq!(sleep_ms(&JsonObject::new()), DEFAULT_SLEEP_MS);
    }
}
