//! Code mode's interpreter (see `crate::codemode` for the hub's side): the
//! hub's own binary run as `<program> __run-code`, one short-lived process
//! per script, so that a script's endless loop, memory bomb or an engine
//! crash stays outside the hub's address space. The helper contains itself
//! first (`crate::sandbox::interpreter`: no file system, no network), then
//! runs one script with QuickJS-ng (`engine`), talking to the hub over its
//! stdin and stdout in JSON lines (`protocol`).
//!
//! Why QuickJS through `rquickjs`: a complete ES2023 engine in a few hundred
//! kilobytes of C compiled from source by `cc` (nothing prebuilt is
//! downloaded), with a memory limit, an interrupt handler and a stack limit
//! of its own; a fresh runtime starts in well under a millisecond, and
//! `rquickjs` is a maintained binding that ships its bindings for every
//! target we build. V8 or SpiderMonkey would be ten times the size and
//! download prebuilt libraries; a Starlark or Lua interpreter would ask the
//! models to write a language they write less well than JavaScript.
//!
//! Layer 1: it knows nothing of the hub; it is given a script and answers.

use std::process::ExitCode;

pub(crate) mod engine;
pub(crate) mod protocol;

/// The hidden first argument that runs the binary as the interpreter
/// (dispatched with the guard's, see `crate::guard::run_if_guard`).
pub(crate) const RUN_ARG: &str = "__run-code";

/// The helper's whole work: contains itself, then serves one script on
/// stdin and stdout.
pub(crate) fn run_helper() -> ExitCode {
    let report = crate::sandbox::interpreter::contain();
    let ready = protocol::FromHelper::Ready {
        contained: report.enforced,
        mechanism: report.mechanism,
        missing: report.missing,
    };
    let input = std::io::BufReader::new(std::io::stdin());
    match engine::serve(input, std::io::stdout(), ready) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
