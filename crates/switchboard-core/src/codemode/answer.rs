//! What a run of `switchboard__run_code` answers: `structuredContent`
//! `{"result", "logs", "calls": [{"name", "ok", "ms"}]}` and the same JSON
//! as text; on a failure `isError`, the cause and its script line first
//! (also as `error` in the JSON), with the logs and calls so far. A result
//! longer than `codeMaxResultBytes` is cut, and `note` says so.

use std::time::Instant;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use super::Limits;
use crate::interpreter::protocol::ScriptError;

/// The kinds of failure a run reports (`error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureKind {
    Syntax,
    Thrown,
    Deadline,
    Memory,
    Calls,
    Stuck,
    Crashed,
    Cancelled,
}

impl FailureKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Thrown => "thrown",
            Self::Deadline => "deadline",
            Self::Memory => "memory",
            Self::Calls => "calls",
            Self::Stuck => "stuck",
            Self::Crashed => "crashed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) kind: FailureKind,
    pub(crate) message: String,
    pub(crate) line: Option<u32>,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            line: None,
        }
    }

    /// The same failure at script line `line` (0: unknown).
    pub(crate) fn at(mut self, line: u32) -> Self {
        self.line = (line > 0).then_some(line);
        self
    }

    pub(crate) fn deadline(limits: &Limits, line: Option<u32>) -> Self {
        Self {
            kind: FailureKind::Deadline,
            message: format!(
                "the script ran past its deadline of {} s (timeoutSecs, settings.codeTimeoutSecs)",
                limits.timeout.as_secs()
            ),
            line,
        }
    }

    /// What the helper reported, in words that name the limit concerned.
    pub(crate) fn from_script(error: ScriptError, limits: &Limits) -> Self {
        let kind = super::session::kind_of(error.kind);
        match kind {
            FailureKind::Deadline => {
                let mut failure = Self::deadline(limits, error.line);
                failure.message = format!("{}: {}", failure.message, error.message);
                failure
            }
            FailureKind::Memory => Self {
                kind,
                message: format!(
                    "the script went over its memory limit of {} MiB (settings.codeMemoryMb): {}",
                    limits.memory_bytes / (1024 * 1024),
                    error.message
                ),
                line: error.line,
            },
            _ => Self {
                kind,
                message: error.message,
                line: error.line,
            },
        }
    }

    /// The cause as one sentence, with its line.
    fn text(&self) -> String {
        match (self.line, self.kind) {
            // QuickJS knows only which function was running when it stopped it.
            (Some(line), FailureKind::Deadline) => {
                format!(
                    "{} (in the function starting at script line {line})",
                    self.message
                )
            }
            (Some(line), _) => format!("{} (script line {line})", self.message),
            (None, _) => self.message.clone(),
        }
    }
}

/// One call of the script, for `calls`.
struct CallEntry {
    name: String,
    started: Instant,
    ok: bool,
    ms: Option<f64>,
}

/// What a run gathered as it went.
pub(crate) struct Run {
    logs: Vec<String>,
    log_bytes: usize,
    logs_cut: usize,
    calls: Vec<CallEntry>,
    max_bytes: usize,
    /// Set when the script made one call too many.
    pub(crate) over_limit: Option<Failure>,
}

impl Run {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            logs: Vec::new(),
            log_bytes: 0,
            logs_cut: 0,
            calls: Vec::new(),
            max_bytes,
            over_limit: None,
        }
    }

    /// Keeps a `console` line (`warn` and `error` lines say so), up to
    /// `max` lines and the result's size in all.
    pub(crate) fn log(&mut self, level: &str, text: String, max: usize) {
        let line = match level {
            "warn" | "error" => format!("[{level}] {text}"),
            _ => text,
        };
        if self.logs.len() >= max || self.log_bytes + line.len() > self.max_bytes {
            self.logs_cut += 1;
            return;
        }
        self.log_bytes += line.len();
        self.logs.push(line);
    }

    /// Notes that call `name` started; its index for [`Run::call_ended`].
    pub(crate) fn call_started(&mut self, name: &str) -> usize {
        self.calls.push(CallEntry {
            name: name.to_string(),
            started: Instant::now(),
            ok: false,
            ms: None,
        });
        self.calls.len() - 1
    }

    pub(crate) fn call_ended(&mut self, index: usize, ok: bool) {
        if let Some(call) = self.calls.get_mut(index).filter(|c| c.ms.is_none()) {
            call.ok = ok;
            call.ms = Some(call.started.elapsed().as_secs_f64() * 1000.0);
        }
    }
}

/// The client's answer for a run that gathered `run` and ended with `outcome`.
pub(crate) fn finish(run: Run, outcome: Result<Value, Failure>) -> CallToolResult {
    let calls: Vec<Value> = run
        .calls
        .iter()
        .map(|c| {
            let ms =
                c.ms.unwrap_or_else(|| c.started.elapsed().as_secs_f64() * 1000.0);
            json!({"name": c.name, "ok": c.ok, "ms": (ms * 10.0).round() / 10.0})
        })
        .collect();
    let mut notes = Vec::new();
    if run.logs_cut > 0 {
        notes.push(format!(
            "{} more console lines were left out (at most 1000 lines, and no more than \
             settings.codeMaxResultBytes in all)",
            run.logs_cut
        ));
    }
    let (result, failure) = match outcome {
        Ok(value) => (value, None),
        Err(failure) => (Value::Null, Some(failure)),
    };
    let result = cut(result, run.max_bytes, &mut notes);
    let mut body = json!({"result": result, "logs": run.logs, "calls": calls});
    if let Some(failure) = &failure {
        body["error"] = json!({
            "kind": failure.kind.as_str(),
            "message": failure.message,
            "line": failure.line,
        });
    }
    if !notes.is_empty() {
        body["note"] = Value::String(notes.join("; "));
    }
    let text = serde_json::to_string(&body).unwrap_or_default();
    let mut answer = match &failure {
        None => CallToolResult::success(vec![ContentBlock::text(text)]),
        Some(failure) => CallToolResult::error(vec![
            ContentBlock::text(format!("{}: {}", super::RUN_CODE, failure.text())),
            ContentBlock::text(text),
        ]),
    };
    answer.structured_content = Some(body);
    answer
}

/// `result`, or its JSON text cut to `max` bytes when it is longer.
fn cut(result: Value, max: usize, notes: &mut Vec<String>) -> Value {
    let text = serde_json::to_string(&result).unwrap_or_default();
    if text.len() <= max {
        return result;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    notes.push(format!(
        "the result was {} bytes of JSON, more than settings.codeMaxResultBytes ({max}); \
         `result` holds its first {end} bytes as text",
        text.len()
    ));
    Value::String(text[..end].to_string())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_result_holds_the_value_logs_and_calls_as_json_and_text() {
        let mut run = Run::new(1024);
        run.log("log", "hello".into(), 10);
        run.log("warn", "careful".into(), 10);
        let i = run.call_started("a__t");
        run.call_ended(i, true);
        let answer = finish(run, Ok(json!({"n": 1})));
        let body = answer.structured_content.clone().unwrap();
        assert_eq!(body["result"], json!({"n": 1}));
        assert_eq!(body["logs"], json!(["hello", "[warn] careful"]));
        assert_eq!(body["calls"][0]["name"], "a__t");
        assert_eq!(body["calls"][0]["ok"], true);
        assert!(body["calls"][0]["ms"].as_f64().unwrap() >= 0.0);
        assert_eq!(answer.is_error, Some(false));
        let text = answer.content[0].as_text().unwrap().text.clone();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), body);
    }

    #[test]
    fn a_failure_says_its_cause_and_line_first_and_keeps_what_was_gathered() {
        let mut run = Run::new(1024);
        run.log("log", "before".into(), 10);
        let failure = Failure::new(FailureKind::Thrown, "Error: boom").at(3);
        let answer = finish(run, Err(failure));
        assert_eq!(answer.is_error, Some(true));
        assert_eq!(
            answer.content[0].as_text().unwrap().text,
            "switchboard__run_code: Error: boom (script line 3)"
        );
        let body = answer.structured_content.unwrap();
        assert_eq!(
            body["error"],
            json!({"kind": "thrown", "message": "Error: boom", "line": 3})
        );
        assert_eq!(body["logs"], json!(["before"]));
    }

    #[test]
    fn long_results_and_logs_are_cut_with_a_note() {
        let mut run = Run::new(1024);
        for i in 0..5 {
            run.log("log", "x".repeat(300) + &i.to_string(), 10);
        }
        let answer = finish(run, Ok(json!("é".repeat(2000))));
        let body = answer.structured_content.unwrap();
        let result = body["result"].as_str().unwrap();
        assert!(
            result.len() <= 1024 && result.starts_with("\"éé"),
            "{result}"
        );
        assert_eq!(body["logs"].as_array().unwrap().len(), 3);
        let note = body["note"].as_str().unwrap();
        assert!(note.contains("2 more console lines"), "{note}");
        assert!(
            note.contains("settings.codeMaxResultBytes (1024)"),
            "{note}"
        );
    }
}
