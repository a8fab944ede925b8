//! One run of the interpreter helper: `<program> __run-code` with piped
//! stdin and stdout, the script sent, then a loop over what the helper
//! says (calls, logs, its end), the answers of the calls in flight, the
//! deadline (the helper is killed [`GRACE`] after it, whatever it is doing)
//! and the client's cancellation (which cancels every call in flight).
//!
//! The hub counts the calls (the script cannot get around `codeMaxCalls`):
//! one over the limit is answered with an error and fails the run, even
//! when the script catches that error.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rmcp::model::CallToolResult;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::answer::{Failure, FailureKind, Run, finish};
use super::{InnerCalls, Limits, RUN_CODE};
use crate::interpreter::RUN_ARG;
use crate::interpreter::protocol::{self, FromHelper, ToHelper};

/// How long after its deadline the helper is killed if it has not ended.
const GRACE: std::time::Duration = std::time::Duration::from_secs(2);
/// The most `console` lines a run keeps.
const MAX_LOGS: usize = 1000;
/// The most bytes of the helper's stderr kept for a crash's message.
const STDERR_TAIL: usize = 2048;

/// How the loop over the helper ended.
enum Ended {
    Done(FromHelper),
    Exited,
    Deadline,
    Cancelled,
    Broken(String),
}

/// Runs `code` in a helper started from `program`, its calls made through
/// `calls`: the result the client gets.
pub(crate) async fn run(
    program: &Path,
    code: String,
    limits: Limits,
    calls: Arc<dyn InnerCalls>,
    cancel: &CancellationToken,
) -> CallToolResult {
    let mut run = Run::new(limits.max_result_bytes);
    let outcome = drive(program, code, &limits, calls, cancel, &mut run).await;
    finish(run, outcome)
}

async fn drive(
    program: &Path,
    code: String,
    limits: &Limits,
    calls: Arc<dyn InnerCalls>,
    cancel: &CancellationToken,
    run: &mut Run,
) -> Result<serde_json::Value, Failure> {
    let mut command = Command::new(program);
    command
        .arg(RUN_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(windows)]
    {
        // No console window flashes up for the desktop app's helper.
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    let started = Instant::now();
    let mut child = command.spawn().map_err(|err| {
        Failure::new(
            FailureKind::Crashed,
            format!("the interpreter could not be started: {err}"),
        )
    })?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(Failure::new(
            FailureKind::Crashed,
            "the interpreter has no pipes",
        ));
    };
    let max_line = usize::try_from(limits.memory_bytes)
        .unwrap_or(usize::MAX)
        .saturating_add(1 << 20);
    let (said, mut hear) = mpsc::channel(64);
    let reader = tokio::spawn(read_lines(BufReader::new(stdout), max_line, said));
    let stderr_tail = tokio::spawn(tail(stderr));
    let first = ToHelper::Run {
        code,
        timeout_ms: u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX),
        memory_bytes: limits.memory_bytes,
    };
    let deadline = tokio::time::Instant::from_std(started) + limits.timeout + GRACE;
    let inner = cancel.child_token();
    let mut in_flight: JoinSet<(u64, usize, Result<CallToolResult, String>)> = JoinSet::new();
    let mut made = 0u64;
    let ended = if let Err(err) = write(&mut stdin, &first).await {
        Ended::Broken(format!("the interpreter did not take the script: {err}"))
    } else {
        loop {
            tokio::select! {
                message = hear.recv() => match message {
                    Some(Ok(FromHelper::Call { id, name, arguments, line })) => {
                        made += 1;
                        let refused = if made > limits.max_calls {
                            let failure = Failure::new(
                                FailureKind::Calls,
                                format!("the script made more than {} tool calls (settings.codeMaxCalls)",
                                    limits.max_calls),
                            ).at(line);
                            let message = failure.message.clone();
                            run.over_limit.get_or_insert(failure);
                            Some(message)
                        } else if name == RUN_CODE {
                            Some(format!("{RUN_CODE} cannot be called from a script"))
                        } else {
                            None
                        };
                        if let Some(error) = refused {
                            let answer = ToHelper::Answer { id, result: None, error: Some(error) };
                            if let Err(err) = write(&mut stdin, &answer).await {
                                break Ended::Broken(err.to_string());
                            }
                            continue;
                        }
                        let index = run.call_started(&name);
                        let arguments = match arguments {
                            serde_json::Value::Object(map) => Some(map),
                            _ => None,
                        };
                        let call = calls.call(name, arguments, inner.child_token());
                        in_flight.spawn(async move { (id, index, call.await) });
                    }
                    Some(Ok(FromHelper::Log { level, text })) => run.log(&level, text, MAX_LOGS),
                    Some(Ok(FromHelper::Ready { contained, mechanism, missing })) => {
                        note_containment(contained, &mechanism, missing.as_deref());
                    }
                    Some(Ok(done @ FromHelper::Done { .. })) => break Ended::Done(done),
                    Some(Err(err)) => break Ended::Broken(err),
                    None => break Ended::Exited,
                },
                Some(joined) = in_flight.join_next(), if !in_flight.is_empty() => {
                    let Ok((id, index, answered)) = joined else { continue };
                    let ok = matches!(&answered, Ok(result) if result.is_error != Some(true));
                    run.call_ended(index, ok);
                    let answer = match answered {
                        Ok(result) => ToHelper::Answer {
                            id,
                            result: Some(serde_json::to_value(&result).unwrap_or_default()),
                            error: None,
                        },
                        Err(error) => ToHelper::Answer { id, result: None, error: Some(error) },
                    };
                    if let Err(err) = write(&mut stdin, &answer).await {
                        break Ended::Broken(err.to_string());
                    }
                }
                () = tokio::time::sleep_until(deadline) => break Ended::Deadline,
                () = cancel.cancelled() => break Ended::Cancelled,
            }
        }
    };
    // Whatever ended the run: the calls still in flight are cancelled, and
    // the helper is gone before the answer is sent.
    inner.cancel();
    let settle = async {
        while let Some(joined) = in_flight.join_next().await {
            if let Ok((_, index, _)) = joined {
                run.call_ended(index, false);
            }
        }
    };
    // Cancelled calls end at once; one that does not is dropped.
    let _ = tokio::time::timeout(GRACE, settle).await;
    in_flight.abort_all();
    drop(stdin);
    if !matches!(ended, Ended::Done(_)) {
        let _ = child.start_kill();
    }
    let status = match tokio::time::timeout(GRACE, child.wait()).await {
        Ok(status) => status.ok(),
        // A helper that said it is done but does not end is killed.
        Err(_) => {
            let _ = child.start_kill();
            child.wait().await.ok()
        }
    };
    reader.abort();
    match ended {
        Ended::Done(FromHelper::Done { result, error }) => match (error, run.over_limit.take()) {
            (_, Some(over)) => Err(over),
            (Some(error), None) => Err(Failure::from_script(error, limits)),
            (None, None) => Ok(result.unwrap_or_default()),
        },
        Ended::Done(_) => Ok(serde_json::Value::Null),
        Ended::Deadline => Err(Failure::deadline(limits, None)),
        Ended::Cancelled => Err(Failure::new(
            FailureKind::Cancelled,
            "the run was cancelled",
        )),
        Ended::Exited | Ended::Broken(_) => {
            let said = stderr_tail.await.unwrap_or_default();
            let how = status.map_or_else(|| "unknown".to_string(), |s| s.to_string());
            let mut message = format!("the interpreter stopped unexpectedly ({how})");
            if let Ended::Broken(why) = &ended {
                message.push_str(&format!(": {why}"));
            }
            if !said.trim().is_empty() {
                message.push_str(&format!("; it said: {}", said.trim()));
            }
            Err(Failure::new(FailureKind::Crashed, message))
        }
    }
}

/// Sends one line to the helper.
async fn write(stdin: &mut ChildStdin, message: &ToHelper) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stdin.write_all(&line).await?;
    stdin.flush().await
}

/// Reads the helper's lines (each at most `max` bytes) into `said`, until
/// its stdout ends or says something that is no message.
async fn read_lines(
    mut stdout: BufReader<tokio::process::ChildStdout>,
    max: usize,
    said: mpsc::Sender<Result<FromHelper, String>>,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut stdout)
            .take(max as u64)
            .read_until(b'\n', &mut line)
            .await;
        let message = match read {
            Ok(0) | Err(_) => return,
            Ok(_) if !line.ends_with(b"\n") && line.len() >= max => {
                Err(format!("it sent a line longer than {max} bytes"))
            }
            Ok(_) => serde_json::from_slice::<FromHelper>(&line)
                .map_err(|err| format!("it sent a line that is no message ({err})")),
        };
        let stop = message.is_err();
        if said.send(message).await.is_err() || stop {
            return;
        }
    }
}

/// The last [`STDERR_TAIL`] bytes the helper wrote to stderr.
async fn tail(mut stderr: tokio::process::ChildStderr) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > STDERR_TAIL {
            kept.drain(..kept.len() - STDERR_TAIL);
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// Logs once per hub that the interpreter runs uncontained, and why.
fn note_containment(contained: bool, mechanism: &str, missing: Option<&str>) {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if contained {
        tracing::debug!(mechanism, "code mode's interpreter is contained");
    } else if !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            mechanism,
            missing = missing.unwrap_or_default(),
            "code mode's interpreter is not fully contained on this machine"
        );
    }
}

/// The helper's failure kinds, as the result names them.
pub(super) fn kind_of(kind: protocol::FailureKind) -> FailureKind {
    match kind {
        protocol::FailureKind::Syntax => FailureKind::Syntax,
        protocol::FailureKind::Thrown => FailureKind::Thrown,
        protocol::FailureKind::Deadline => FailureKind::Deadline,
        protocol::FailureKind::Memory => FailureKind::Memory,
        protocol::FailureKind::Stuck => FailureKind::Stuck,
    }
}
