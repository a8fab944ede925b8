//! Code mode (`settings.toolMode: "code"`, see `docs/search.md`): the hub's
//! side of `switchboard__run_code`. A script runs in the interpreter helper
//! (`crate::interpreter`, a process of its own); this module starts the
//! helper, feeds it the script, makes each call the script asks for through
//! [`InnerCalls`] (the gateway routes them exactly as direct calls), counts
//! them against `codeMaxCalls`, kills the helper at its deadline and builds
//! the result (`{"result", "logs", "calls"}`).
//!
//! - `session`: one run of the helper;
//! - `answer`: the result a client gets, cut to `codeMaxResultBytes`;
//! - `signature`: the TypeScript declaration of a tool as a script calls it
//!   (for search results);
//! - `refs`: the servers a script names statically, started before it runs.
//!
//! Layer 4, beside the gateway; it never imports the gateway (the gateway
//! implements [`InnerCalls`] for it).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::Settings;

mod answer;
mod refs;
mod session;
pub(crate) mod signature;

pub(crate) use refs::referenced_prefixes;
pub(crate) use session::run;

pub(crate) use crate::tool_defs::RUN_CODE;

/// The longest deadline a run may ask for (the `timeoutSecs` schema's
/// maximum in `crate::tool_defs`; a test checks they agree).
pub(crate) const MAX_TIMEOUT_SECS: u64 = 300;

/// What a script runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) memory_bytes: u64,
    pub(crate) max_calls: u64,
    pub(crate) max_result_bytes: usize,
}

/// Makes the calls of a script; the gateway's, so that they take the route
/// of a direct call.
pub(crate) trait InnerCalls: Send + Sync + 'static {
    /// Calls tool `name` (as the session names it) with `arguments`: its
    /// result, or the error text when it failed; `cancel` cancels it.
    fn call(
        &self,
        name: String,
        arguments: Option<JsonObject>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<CallToolResult, String>>;
}

/// A bad argument of `switchboard__run_code`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BadArgument(String);

/// `switchboard__run_code`'s arguments, checked: the code and its limits.
pub(crate) fn arguments(
    arguments: Option<&JsonObject>,
    settings: &Settings,
) -> Result<(String, Limits), BadArgument> {
    let code = match arguments.and_then(|a| a.get("code")) {
        Some(Value::String(code)) if !code.trim().is_empty() => code.clone(),
        Some(Value::String(_)) => return Err(BadArgument("`code` is empty".into())),
        Some(_) => return Err(BadArgument("`code` must be a string".into())),
        None => return Err(BadArgument("`code` is required".into())),
    };
    let timeout = match arguments.and_then(|a| a.get("timeoutSecs")) {
        None | Some(Value::Null) => settings.code_timeout,
        Some(value) => match value.as_u64() {
            Some(n) if (1..=MAX_TIMEOUT_SECS).contains(&n) => Duration::from_secs(n),
            _ => {
                return Err(BadArgument(format!(
                    "`timeoutSecs` must be a whole number from 1 to {MAX_TIMEOUT_SECS}"
                )));
            }
        },
    };
    let limits = Limits {
        timeout,
        memory_bytes: settings.code_memory_mb.saturating_mul(1024 * 1024),
        max_calls: settings.code_max_calls,
        max_result_bytes: usize::try_from(settings.code_max_result_bytes).unwrap_or(usize::MAX),
    };
    Ok((code, limits))
}

/// A new run's id (`r<hub start>-<n>`), unique across the hub's restarts
/// for the activity log.
pub(crate) fn next_run_id() -> Arc<str> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    static STARTED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let started = STARTED.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Arc::from(format!("r{started:x}-{n}"))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn args(value: Value) -> JsonObject {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn arguments_take_the_settings_limits_and_bound_the_timeout() {
        let settings = Settings::default();
        let (code, limits) =
            arguments(Some(&args(json!({"code": "return 1"}))), &settings).unwrap();
        assert_eq!(code, "return 1");
        assert_eq!(
            limits,
            Limits {
                timeout: Duration::from_secs(60),
                memory_bytes: 64 * 1024 * 1024,
                max_calls: 100,
                max_result_bytes: 256 * 1024,
            }
        );
        let (_, limits) = arguments(
            Some(&args(json!({"code": "x", "timeoutSecs": 300}))),
            &settings,
        )
        .unwrap();
        assert_eq!(limits.timeout, Duration::from_secs(300));
        for (bad, says) in [
            (json!({}), "`code` is required"),
            (json!({"code": " "}), "`code` is empty"),
            (json!({"code": 1}), "`code` must be a string"),
            (
                json!({"code": "x", "timeoutSecs": 0}),
                "`timeoutSecs` must be a whole number from 1 to 300",
            ),
            (
                json!({"code": "x", "timeoutSecs": 301}),
                "`timeoutSecs` must be a whole number from 1 to 300",
            ),
        ] {
            assert_eq!(
                arguments(Some(&args(bad)), &settings)
                    .unwrap_err()
                    .to_string(),
                says
            );
        }
    }

    #[test]
    fn the_timeout_schema_allows_what_the_checks_allow() {
        let tools = crate::tool_defs::ToolSet::Code.tools();
        let run_code = tools.iter().find(|t| t.name == RUN_CODE).unwrap();
        let timeout = &run_code.input_schema["properties"]["timeoutSecs"];
        assert_eq!(timeout["maximum"], json!(MAX_TIMEOUT_SECS));
        assert_eq!(timeout["minimum"], json!(1));
    }

    #[test]
    fn run_ids_differ() {
        assert_ne!(next_run_id(), next_run_id());
    }
}
