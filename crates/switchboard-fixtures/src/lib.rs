//! Scriptable fake MCP servers for Switchboard's end-to-end tests.
//!
//! The `switchboard-fixture` binary is a thin `main` over this library, so other
//! fixture binaries (and tests that want to parse what a fixture writes, such as
//! [`counter::RequestCounts`]) can reuse the same pieces:
//!
//! - [`spec`]: the JSON description of tools, prompts and resources, and the
//!   control-file updates that replace them at run time;
//! - [`state`]: the live catalog shared by every session, with its peers and counters;
//! - [`server`]: the hand-written rmcp `ServerHandler`;
//! - [`serve`]: the stdio and Streamable HTTP transports;
//! - [`sse`]: the legacy HTTP+SSE transport (`--sse`), with its misbehaviours;
//! - [`control`], [`counter`], [`lifecycle`]: the test hooks (control file,
//!   request counter file, start-up delay, crashes, grandchild process);
//! - [`faults`]: stdio misbehaviours (bad stderr, a deaf stdin, ignoring EOF).
//! - [`flood`]: notification floods (`--flood`, the `flood` tool behaviour).
//! - [`ask`]: the `ask` tool behaviour (input-required results, SEP-2322).
//! - [`poisoned`]: tool definitions poisoned from the first listing (`--poisoned`).
//!
//! The `switchboard-conformance-fixture` binary is a thin `main` over
//! [`conformance`]: a fixed server for the official MCP conformance suite,
//! reusing [`serve`] and [`uri_template`].
//!
//! The `switchboard-auth-fixture` binary is a thin `main` over [`auth`]: a fake
//! OAuth authorization server plus an MCP server that requires its tokens.
//!
//! Nothing here writes to stdout except the one `listening on ...` line of the
//! HTTP transport: in stdio mode stdout belongs to the protocol.

pub mod ask;
pub mod auth;
pub mod cli;
pub mod conformance;
pub mod control;
pub mod counter;
pub mod faults;
pub mod files;
pub mod flood;
pub mod lifecycle;
pub mod peers;
pub mod poisoned;
pub mod probe;
pub mod registry;
pub mod serve;
pub mod server;
pub mod spec;
pub mod sse;
pub mod state;
pub mod tools;
pub mod uri_template;

/// Writes one line to stderr, ignoring errors (a closed stderr must not turn a
/// scripted exit code into a panic).
///
/// Used for the few lines whose exact text tests look for; everything else goes
/// through `tracing`.
pub fn stderr_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(line);
    let _ = stderr.write_all(b"\n");
    let _ = stderr.flush();
}
