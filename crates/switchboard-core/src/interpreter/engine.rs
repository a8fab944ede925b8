//! The interpreter itself: one QuickJS runtime per run (through `rquickjs`),
//! driven on this thread. The script's calls become host promises that the
//! hub settles with [`ToHelper::Answer`] lines; between answers the job
//! queue runs until it is empty, so a `Promise.all` sends all its calls
//! before waiting for the first answer.
//!
//! Limits: QuickJS's own memory limit and a stack limit (a recursion is a
//! `RangeError`, never a crash), and an interrupt handler that stops the
//! script at its deadline with an error it cannot catch; waiting for
//! answers is bounded by the same deadline. The hub kills the helper a
//! little after the deadline regardless.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{Context, Ctx, Exception, Function, Object, Persistent, Promise, Runtime, Value};

use super::protocol::{FailureKind, FromHelper, ScriptError, ToHelper};

/// The scope's definitions (`tools`, `callTool`, `console`).
const PRELUDE: &str = include_str!("prelude.js");
/// The file name errors give the script (the prelude finds lines by it).
const SCRIPT_FILE: &str = "script.js";
/// The interpreter's stack limit.
const STACK_BYTES: usize = 1024 * 1024;
/// What a thrown `null` says. At the memory limit QuickJS may have no room
/// left for its error object and throws `null` instead, so a run that ends
/// so counts as over its memory limit (a script that throws `null` itself
/// is reported the same way).
const THREW_NULL: &str = "the script threw null (the interpreter had no memory left for an error)";
/// The longest `console` line sent to the hub (longer ones are cut).
const MAX_LOG_LINE: usize = 64 * 1024;

/// Where messages to the hub go (the helper's stdout).
type Out = Rc<RefCell<Box<dyn Write>>>;

fn send(out: &Out, message: &FromHelper) -> std::io::Result<()> {
    let mut line = serde_json::to_string(message).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut out = out.borrow_mut();
    out.write_all(line.as_bytes())?;
    out.flush()
}

/// A call the script awaits: how to settle its promise.
struct Pending {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

/// The calls in flight, by id.
#[derive(Default)]
struct Calls {
    next_id: u64,
    pending: HashMap<u64, Pending>,
}

/// Serves one run: writes `ready`, reads the [`ToHelper::Run`] line, runs
/// the script and writes its [`FromHelper::Done`].
pub(crate) fn serve(
    mut input: impl BufRead + Send + 'static,
    output: impl Write + 'static,
    ready: FromHelper,
) -> std::io::Result<()> {
    let out: Out = Rc::new(RefCell::new(Box::new(output)));
    send(&out, &ready)?;
    let mut first = String::new();
    input.read_line(&mut first)?;
    let Ok(ToHelper::Run {
        code,
        timeout_ms,
        memory_bytes,
    }) = serde_json::from_str::<ToHelper>(&first)
    else {
        return Err(std::io::Error::other(
            "the first line is not a script to run",
        ));
    };
    let (answers, received) = channel();
    // Answers are read on a thread of their own, so waiting for one can end
    // at the deadline.
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_str::<ToHelper>(&line) else {
                break;
            };
            if answers.send(message).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let limit = usize::try_from(memory_bytes).unwrap_or(usize::MAX);
    let done = match run(&code, deadline, limit, &out, &received) {
        Ok(result) => FromHelper::Done {
            result: Some(result),
            error: None,
        },
        Err(error) => FromHelper::Done {
            result: None,
            error: Some(error),
        },
    };
    send(&out, &done)
}

fn failure(kind: FailureKind, message: impl Into<String>, line: Option<u32>) -> ScriptError {
    ScriptError {
        kind,
        message: message.into(),
        line,
    }
}

/// Runs `code` to its end: its returned value as JSON, or why it failed.
fn run(
    code: &str,
    deadline: Instant,
    memory: usize,
    out: &Out,
    answers: &Receiver<ToHelper>,
) -> Result<serde_json::Value, ScriptError> {
    let engine = |err: rquickjs::Error| {
        failure(
            FailureKind::Stuck,
            format!("the interpreter could not start: {err}"),
            None,
        )
    };
    let rt = Runtime::new().map_err(engine)?;
    rt.set_memory_limit(memory);
    rt.set_max_stack_size(STACK_BYTES);
    let interrupted = Rc::new(Cell::new(false));
    let flag = interrupted.clone();
    rt.set_interrupt_handler(Some(Box::new(move || {
        let late = Instant::now() >= deadline;
        if late {
            flag.set(true);
        }
        late
    })));
    let context = Context::full(&rt).map_err(engine)?;
    let calls = Rc::new(RefCell::new(Calls::default()));
    let classify = |mut error: ScriptError| {
        if interrupted.get() {
            error.kind = FailureKind::Deadline;
        } else if error.message.ends_with("out of memory") || error.message == THREW_NULL {
            // QuickJS's own text when an allocation passes the memory limit
            // (the engine says nothing more specific).
            error.kind = FailureKind::Memory;
        }
        error
    };
    let promise = context
        .with(|ctx| start(&ctx, code, out, &calls))
        .map_err(classify)?;
    let mut job_error: Option<ScriptError> = None;
    loop {
        loop {
            match rt.execute_pending_job() {
                Ok(true) => {}
                Ok(false) => break,
                Err(job) => {
                    let error = job
                        .0
                        .with(|ctx| describe(&ctx, ctx.catch(), FailureKind::Thrown));
                    job_error.get_or_insert(error);
                }
            }
        }
        if let Some(settled) = context.with(|ctx| settled(&ctx, promise.clone())) {
            return settled.map_err(classify);
        }
        if let Some(error) = job_error.take() {
            return Err(classify(error));
        }
        let waiting = calls.borrow().pending.len();
        if waiting == 0 {
            return Err(failure(
                FailureKind::Stuck,
                "the script awaits a promise that nothing will settle",
                None,
            ));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match answers.recv_timeout(wait) {
            Ok(ToHelper::Answer { id, result, error }) => {
                context.with(|ctx| answer(&ctx, &calls, id, result, error));
            }
            Ok(ToHelper::Run { .. }) => {}
            Err(RecvTimeoutError::Timeout) => {
                return Err(failure(
                    FailureKind::Deadline,
                    format!("the deadline passed while the script awaited {waiting} tool call(s)"),
                    None,
                ));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(failure(
                    FailureKind::Stuck,
                    "the hub stopped answering",
                    None,
                ));
            }
        }
    }
}

/// Defines the scope, compiles the script and calls it: its promise.
fn start<'js>(
    ctx: &Ctx<'js>,
    code: &str,
    out: &Out,
    calls: &Rc<RefCell<Calls>>,
) -> Result<Persistent<Promise<'static>>, ScriptError> {
    define_scope(ctx, out, calls).map_err(|err| caught(ctx, err, FailureKind::Stuck))?;
    // On the first line, so the script's line numbers are its own.
    let wrapped = format!("(async function () {{{code}\n}})");
    let function: Function = ctx
        .eval_with_options(wrapped, options(SCRIPT_FILE))
        .map_err(|err| caught(ctx, err, FailureKind::Syntax))?;
    let promise: Promise = function
        .call(())
        .map_err(|err| caught(ctx, err, FailureKind::Thrown))?;
    Ok(Persistent::save(ctx, promise))
}

fn options(file: &str) -> EvalOptions {
    let mut options = EvalOptions::default();
    options.filename = Some(file.to_string());
    options
}

/// `tools`, `callTool` and `console` as globals, over the two host
/// functions (which stay private to the prelude's closures).
fn define_scope<'js>(
    ctx: &Ctx<'js>,
    out: &Out,
    calls: &Rc<RefCell<Calls>>,
) -> rquickjs::Result<()> {
    let prelude: Function = ctx.eval_with_options(PRELUDE, options("prelude.js"))?;
    let (call_out, log_out, calls) = (out.clone(), out.clone(), calls.clone());
    let host_call = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String, arguments: String, line: f64| {
            host_call(&ctx, &call_out, &calls, name, &arguments, line)
        },
    )?;
    let host_log = Function::new(ctx.clone(), move |level: String, mut text: String| {
        if text.len() > MAX_LOG_LINE {
            let mut end = MAX_LOG_LINE;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str(" [cut]");
        }
        // A hub that is gone ends the run at the next wait; nothing to do here.
        let _ = send(&log_out, &FromHelper::Log { level, text });
    })?;
    let scope: Object = prelude.call((host_call, host_log))?;
    let globals = ctx.globals();
    for name in ["tools", "callTool", "console"] {
        globals.set(name, scope.get::<_, Value>(name)?)?;
    }
    Ok(())
}

/// One call of the script: asks the hub, returns the promise its answer settles.
fn host_call<'js>(
    ctx: &Ctx<'js>,
    out: &Out,
    calls: &Rc<RefCell<Calls>>,
    name: String,
    arguments: &str,
    line: f64,
) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    let arguments = serde_json::from_str(arguments).unwrap_or(serde_json::Value::Null);
    let id = {
        let mut calls = calls.borrow_mut();
        calls.next_id += 1;
        let id = calls.next_id;
        calls.pending.insert(
            id,
            Pending {
                resolve: Persistent::save(ctx, resolve),
                reject: Persistent::save(ctx, reject),
            },
        );
        id
    };
    let line = if line.is_finite() && line >= 0.0 && line < f64::from(u32::MAX) {
        line as u32
    } else {
        0
    };
    let call = FromHelper::Call {
        id,
        name,
        arguments,
        line,
    };
    if send(out, &call).is_err() {
        return Err(Exception::throw_internal(ctx, "the hub stopped answering"));
    }
    Ok(promise)
}

/// Settles the promise of call `id`: with the result's JSON text, or
/// rejected with an `Error` of the failure's message.
fn answer(
    ctx: &Ctx<'_>,
    calls: &Rc<RefCell<Calls>>,
    id: u64,
    result: Option<serde_json::Value>,
    error: Option<String>,
) {
    let Some(pending) = calls.borrow_mut().pending.remove(&id) else {
        return;
    };
    let error = match result {
        Some(result) => {
            let resolved = pending
                .resolve
                .restore(ctx)
                .and_then(|resolve| resolve.call::<_, ()>((result.to_string(),)));
            match resolved {
                Ok(()) => return,
                Err(err) => {
                    let _ = ctx.catch();
                    format!("the call's result does not fit in the script's memory ({err})")
                }
            }
        }
        None => error.unwrap_or_else(|| "the call failed".into()),
    };
    let rejected = pending.reject.restore(ctx).and_then(|reject| {
        let error = Exception::from_message(ctx.clone(), &error)?;
        reject.call::<_, ()>((error,))
    });
    if rejected.is_err() {
        let _ = ctx.catch();
    }
}

/// The script's value once its promise settled, `None` while it is pending.
fn settled(
    ctx: &Ctx<'_>,
    promise: Persistent<Promise<'static>>,
) -> Option<Result<serde_json::Value, ScriptError>> {
    let promise = match promise.restore(ctx) {
        Ok(promise) => promise,
        Err(err) => return Some(Err(caught(ctx, err, FailureKind::Stuck))),
    };
    match promise.state() {
        PromiseState::Pending => None,
        PromiseState::Rejected => {
            let _ = promise.result::<Value>();
            Some(Err(describe(ctx, ctx.catch(), FailureKind::Thrown)))
        }
        PromiseState::Resolved => Some(match promise.result::<Value>() {
            Some(Ok(value)) => to_json(ctx, value),
            Some(Err(err)) => Err(caught(ctx, err, FailureKind::Thrown)),
            None => Ok(serde_json::Value::Null),
        }),
    }
}

/// The returned value as JSON (`undefined` is `null`).
fn to_json<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> Result<serde_json::Value, ScriptError> {
    let text = match ctx.json_stringify(value) {
        Ok(Some(text)) => text
            .to_string()
            .map_err(|err| caught(ctx, err, FailureKind::Stuck))?,
        Ok(None) => return Ok(serde_json::Value::Null),
        Err(err) => {
            let mut error = caught(ctx, err, FailureKind::Stuck);
            error.message = format!("the returned value is not JSON: {}", error.message);
            return Err(error);
        }
    };
    serde_json::from_str(&text).map_err(|err| {
        failure(
            FailureKind::Stuck,
            format!("the returned value is not JSON: {err}"),
            None,
        )
    })
}

/// An rquickjs error as a script error: the pending exception, if that is
/// what it is.
fn caught(ctx: &Ctx<'_>, err: rquickjs::Error, kind: FailureKind) -> ScriptError {
    match err {
        rquickjs::Error::Exception => describe(ctx, ctx.catch(), kind),
        other => failure(kind, other.to_string(), None),
    }
}

/// What a thrown value says: `Name: message` for an error (and its script
/// line, from the prelude's mark or the stack), the value itself otherwise.
fn describe<'js>(ctx: &Ctx<'js>, value: Value<'js>, kind: FailureKind) -> ScriptError {
    if value.is_null() {
        return failure(kind, THREW_NULL, None);
    }
    let Some(object) = value.as_object() else {
        let shown = ctx
            .json_stringify(value.clone())
            .ok()
            .flatten()
            .and_then(|s| s.to_string().ok())
            .unwrap_or_else(|| "a value that is not JSON".into());
        return failure(kind, format!("the script threw {shown}"), None);
    };
    let text = |key: &str| {
        object
            .get::<_, Option<rquickjs::Coerced<String>>>(key)
            .ok()
            .flatten()
            .map(|c| c.0)
    };
    let message = match (text("name"), text("message")) {
        (Some(name), Some(message)) if !message.is_empty() => format!("{name}: {message}"),
        (Some(name), _) => name,
        (None, Some(message)) => message,
        (None, None) => "the script threw an object".into(),
    };
    let marked = object
        .get::<_, Option<f64>>("scriptLine")
        .ok()
        .flatten()
        .filter(|l| *l >= 1.0 && *l < f64::from(u32::MAX))
        .map(|l| l as u32);
    let line = marked.or_else(|| text("stack").and_then(|stack| script_line(&stack)));
    failure(kind, message, line)
}

/// The first script line a stack names (`at f (script.js:3:7)`).
fn script_line(stack: &str) -> Option<u32> {
    let at = stack.find(SCRIPT_FILE)? + SCRIPT_FILE.len();
    let digits: String = stack[at..]
        .strip_prefix(':')?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
