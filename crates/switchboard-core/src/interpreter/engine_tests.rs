use std::io::{BufRead, BufReader, Write};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

/// Runs `code` in the engine on a thread, answering each call with
/// `answer(name, arguments)` (a `CallToolResult` or an error text); the
/// messages the engine sent, `Ready` left out, and its `Done` last.
fn run_script(
    code: &str,
    timeout_ms: u64,
    memory_bytes: u64,
    answer: impl Fn(&str, &Value) -> Result<Value, String>,
) -> Vec<FromHelper> {
    let (to_engine_read, mut to_engine) = std::io::pipe().unwrap();
    let (from_engine, from_engine_write) = std::io::pipe().unwrap();
    let ready = FromHelper::Ready {
        contained: false,
        mechanism: "none".into(),
        missing: None,
    };
    let engine =
        std::thread::spawn(move || serve(BufReader::new(to_engine_read), from_engine_write, ready));
    let run = ToHelper::Run {
        code: code.into(),
        timeout_ms,
        memory_bytes,
    };
    writeln!(to_engine, "{}", serde_json::to_string(&run).unwrap()).unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(from_engine).lines() {
        let message: FromHelper = serde_json::from_str(&line.unwrap()).unwrap();
        if let FromHelper::Call {
            id,
            name,
            arguments,
            ..
        } = &message
        {
            let (result, error) = match answer(name, arguments) {
                Ok(result) => (Some(result), None),
                Err(error) => (None, Some(error)),
            };
            let reply = ToHelper::Answer {
                id: *id,
                result,
                error,
            };
            writeln!(to_engine, "{}", serde_json::to_string(&reply).unwrap()).unwrap();
        }
        let done = matches!(message, FromHelper::Done { .. });
        if !matches!(message, FromHelper::Ready { .. }) {
            seen.push(message);
        }
        if done {
            break;
        }
    }
    engine.join().unwrap().unwrap();
    seen
}

fn done(messages: &[FromHelper]) -> (Option<Value>, Option<ScriptError>) {
    match messages.last() {
        Some(FromHelper::Done { result, error }) => (result.clone(), error.clone()),
        other => panic!("no Done: {other:?}"),
    }
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

const MIB: u64 = 1024 * 1024;

#[test]
fn calls_resolve_with_structured_content_or_parsed_text_and_run_in_parallel() {
    let messages = run_script(
        "const [a, b] = await Promise.all([tools.s.one({x: 1}), tools['my-s']['get-two']()]);\n\
         console.log('got', a, b.n);\n\
         const raw = await callTool('s__one', {x: 2});\n\
         return {a, n: b.n, raw: raw.structuredContent};",
        5_000,
        16 * MIB,
        |name, args| match name {
            "s__one" => Ok(json!({"content": [], "structuredContent": {"x": args["x"]}})),
            "my-s__get-two" => Ok(text_result("{\"n\": 2}")),
            other => Err(format!("unknown {other}")),
        },
    );
    let calls: Vec<&str> = messages
        .iter()
        .filter_map(|m| match m {
            FromHelper::Call { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["s__one", "my-s__get-two", "s__one"]);
    // Both calls of `Promise.all` were sent before the first answer was read:
    // the second call's id is 2 although the first was answered at once.
    assert!(matches!(
        &messages[1],
        FromHelper::Call { id: 2, line: 1, .. }
    ));
    assert!(messages.contains(&FromHelper::Log {
        level: "log".into(),
        text: "got {\"x\":1} 2".into()
    }));
    assert_eq!(
        done(&messages),
        (Some(json!({"a": {"x": 1}, "n": 2, "raw": {"x": 2}})), None)
    );
}

#[test]
fn a_tool_error_rejects_with_its_text_and_can_be_caught() {
    let messages = run_script(
        "try { await tools.s.bad(); } catch (e) { return 'caught: ' + e.message; }",
        5_000,
        16 * MIB,
        |_, _| Ok(json!({"content": [{"type": "text", "text": "no such repo"}], "isError": true})),
    );
    assert_eq!(done(&messages).0, Some(json!("caught: no such repo")));
    let messages = run_script("\n\nawait tools.s.bad();", 5_000, 16 * MIB, |_, _| {
        Err("server 's' is down".into())
    });
    let error = done(&messages).1.unwrap();
    assert_eq!(error.kind, FailureKind::Thrown);
    assert_eq!(error.message, "Error: server 's' is down");
    assert_eq!(error.line, Some(3));
}

#[test]
fn syntax_errors_throws_and_limits_name_their_line() {
    let syntax = done(&run_script(
        "let x = 1;\nlet = = 2;",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!((syntax.kind, syntax.line), (FailureKind::Syntax, Some(2)));
    let thrown = done(&run_script(
        "const a = 1;\nnull.x;",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!((thrown.kind, thrown.line), (FailureKind::Thrown, Some(2)));
    assert!(
        thrown.message.starts_with("TypeError"),
        "{}",
        thrown.message
    );
    let endless = done(&run_script(
        "let i = 0;\nwhile (true) { i++; }",
        300,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(endless.kind, FailureKind::Deadline, "{endless:?}");
    // QuickJS knows only the running function at an interrupt: the
    // script's body starts on line 1, `f` on line 2.
    assert_eq!(endless.line, Some(1));
    let in_function = done(&run_script(
        "let i = 0;\nfunction f() { for (;;) { i++; } }\nf();",
        300,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(
        (in_function.kind, in_function.line),
        (FailureKind::Deadline, Some(2))
    );
    let caught_loop = done(&run_script(
        "try { for (;;) {} } catch (e) { return 'escaped'; }",
        300,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(caught_loop.kind, FailureKind::Deadline);
    let bomb = done(&run_script(
        "const a = [];\nfor (;;) { a.push('x'.repeat(1000) + a.length); }",
        10_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(bomb.kind, FailureKind::Memory, "{bomb:?}");
    let deep = done(&run_script(
        "function f(n) { return f(n + 1) + 1; }\nreturn f(0);",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(deep.kind, FailureKind::Thrown);
    assert!(deep.message.starts_with("RangeError"), "{deep:?}");
}

#[test]
fn waiting_on_nothing_or_past_the_deadline_ends_the_run() {
    let stuck = done(&run_script(
        "await new Promise(() => {});",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ))
    .1
    .unwrap();
    assert_eq!(stuck.kind, FailureKind::Stuck);
}

#[test]
fn the_scope_has_no_host_objects() {
    let messages = run_script(
        "return [typeof require, typeof process, typeof fetch, typeof XMLHttpRequest,\n\
         typeof WebSocket, typeof setTimeout, typeof std, typeof os, typeof Deno,\n\
         typeof __sbCall, typeof JSON, typeof Math, typeof Date, typeof Promise];",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    );
    assert_eq!(
        done(&messages).0,
        Some(json!([
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "object",
            "object",
            "function",
            "function"
        ]))
    );
    let import = done(&run_script(
        "return await import('os');",
        5_000,
        16 * MIB,
        |_, _| Err("x".into()),
    ));
    assert!(import.1.is_some(), "{import:?}");
}

#[test]
fn script_lines_are_read_from_stacks() {
    assert_eq!(script_line("at f (script.js:12:3)\n"), Some(12));
    assert_eq!(script_line("at prelude.js:3:1"), None);
}
