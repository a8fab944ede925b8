//! The `switchboard-fixture` command line and the start-up sequence it drives.
//!
//! [`run`] applies the hooks in a fixed order: `--exit-at-start` first (nothing
//! else happens), `--require-env`, then the catalog is built (a bad spec fails before any side
//! effect), the grandchild is spawned, the `--exit-after-ms` timer and the
//! control poller start, `--startup-delay-ms` elapses, and only then does the
//! fixture read stdin or bind its HTTP listener. `--flood` starts per session,
//! once the client has sent `notifications/initialized`.

use std::{path::PathBuf, sync::Arc, time::Duration};

use clap::Parser;
use tokio_util::sync::CancellationToken;

use crate::{
    control,
    counter::RequestCounter,
    faults,
    flood::{Flood, FloodKind},
    lifecycle, serve,
    server::FixtureServer,
    spec::{Spec, ToolSpec},
    state::FixtureState,
};

/// A scriptable fake MCP server for Switchboard's tests.
#[derive(Debug, Clone, Parser)]
#[command(name = "switchboard-fixture", version)]
pub struct Args {
    /// Serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:0) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: serve the legacy HTTP+SSE transport of MCP 2024-11-05
    /// (GET /sse, POST /messages) instead of Streamable HTTP.
    #[arg(long, requires = "http")]
    pub sse: bool,
    /// With --sse: refuse requests without `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "TOKEN", requires = "sse")]
    pub sse_bearer: Option<String>,
    /// With --sse: end each event stream after it carried N messages.
    #[arg(long, value_name = "N", requires = "sse")]
    pub sse_close_after: Option<u64>,
    /// With --sse: answer every POST with this HTTP status.
    #[arg(long, value_name = "CODE", requires = "sse")]
    pub sse_post_status: Option<u16>,
    /// With --sse: announce this URL in the endpoint event.
    #[arg(long, value_name = "URL", requires = "sse")]
    pub sse_endpoint: Option<String>,
    /// The serverInfo name.
    #[arg(long, default_value = "fixture")]
    pub name: String,
    /// Echo tools to serve (comma-separated), before the spec file's tools.
    #[arg(long, value_name = "A,B,C", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Serve the poisoned tools of [`crate::poisoned`] (and one clean tool)
    /// after the echo tools, before the spec file's tools.
    #[arg(long)]
    pub poisoned: bool,
    /// JSON catalog of tools, prompts, resources and resource templates.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// File polled every 50 ms for catalog replacements.
    #[arg(long, value_name = "FILE")]
    pub control: Option<PathBuf>,
    /// File rewritten with request counts after each counted request.
    #[arg(long, value_name = "FILE")]
    pub counter_file: Option<PathBuf>,
    /// Wait this long before serving.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub startup_delay_ms: u64,
    /// Exit at once with this code.
    #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
    pub exit_at_start: Option<i32>,
    /// Read this file before serving; exit 1 naming it when that fails (a
    /// server that needs its credentials file, for the sandbox tests).
    #[arg(long, value_name = "FILE")]
    pub read_at_start: Option<PathBuf>,
    /// Exit 1 at start naming this environment variable when it is not set
    /// or empty (a server that checks for its API key before it starts).
    #[arg(long, value_name = "NAME")]
    pub require_env: Option<String>,
    /// Exit with code 4 after this many milliseconds.
    #[arg(long, value_name = "N")]
    pub exit_after_ms: Option<u64>,
    /// Spawn `sleep 1000` in this process group and write its pid here.
    #[arg(long, value_name = "PIDFILE")]
    pub spawn_grandchild: Option<PathBuf>,
    /// With --http: answer every request with this HTTP status and a plain
    /// text body echoing the request line and every header value (a server
    /// that quotes what it was sent in its error pages).
    #[arg(long, value_name = "CODE", alias = "fail-http")]
    pub fail_status: Option<u16>,
    /// With --http: answer 401 to every request that lacks this header with
    /// exactly this value (`NAME: VALUE`), as a server with an API key does.
    #[arg(long, value_name = "NAME: VALUE")]
    pub require_header: Option<String>,
    /// Write a stderr line that is not UTF-8, then `stderr tick N` every 50 ms.
    #[arg(long)]
    pub stderr_invalid_utf8: bool,
    /// Write this many bytes to stderr without a newline, then `flood done`.
    #[arg(long, value_name = "BYTES")]
    pub stderr_flood_bytes: Option<u64>,
    /// Write `argv: ...` (every argument, as given) to stderr at start, as
    /// servers that echo their command line do.
    #[arg(long)]
    pub stderr_argv: bool,
    /// A credential the fixture takes and ignores (with `--stderr-argv`, a
    /// secret given as a separate argument that the fixture echoes).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Keep running after stdin closes (stdio only).
    #[arg(long)]
    pub ignore_stdin_eof: bool,
    /// Send this many notifications to each session right after it initialized
    /// (the fixture then speaks protocols up to 2025-11-25 only: unasked
    /// notifications need a session).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=crate::flood::MAX_COUNT))]
    pub flood: Option<u64>,
    /// Which notification `--flood` sends.
    #[arg(long, value_name = "KIND", value_enum, default_value = "tools")]
    pub flood_kind: FloodKind,
}

impl Args {
    /// The catalog from `--tools` and `--spec`.
    pub fn build_spec(&self) -> anyhow::Result<Spec> {
        let mut spec = match &self.spec {
            Some(path) => Spec::load(path)?,
            None => Spec::default(),
        };
        let echo_tools = self
            .tools
            .iter()
            .map(|name| name.trim())
            .filter(|name| !name.is_empty())
            .map(ToolSpec::echo);
        let poisoned = self
            .poisoned
            .then(crate::poisoned::tools)
            .unwrap_or_default();
        spec.tools.splice(0..0, echo_tools.chain(poisoned));
        spec.validate()?;
        Ok(spec)
    }
}

/// Runs the fixture until its client disconnects (stdio) or forever (HTTP).
pub async fn run(args: Args) -> anyhow::Result<()> {
    if let Some(path) = &args.read_at_start {
        crate::probe::read_at_start(path);
    }
    if let Some(code) = args.exit_at_start {
        lifecycle::exit_at_start(code);
    }
    if let Some(name) = &args.require_env {
        lifecycle::require_env(name);
    }
    let spec = args.build_spec()?;
    let _grandchild = args
        .spawn_grandchild
        .as_deref()
        .map(lifecycle::spawn_grandchild)
        .transpose()?;
    if args.stderr_argv {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        crate::stderr_line(format_args!("argv: {}", argv.join(" ")));
    }
    if args.stderr_invalid_utf8 {
        faults::stderr_invalid_utf8();
    }
    if let Some(bytes) = args.stderr_flood_bytes {
        faults::stderr_flood(bytes);
    }
    if let Some(ms) = args.exit_after_ms {
        lifecycle::exit_after(Duration::from_millis(ms));
    }

    let state = Arc::new(FixtureState::new(
        spec,
        RequestCounter::new(args.counter_file.clone()),
    ));
    let stop_control = CancellationToken::new();
    let _stop_control_on_return = stop_control.clone().drop_guard();
    if let Some(path) = &args.control {
        tokio::spawn(control::watch(
            path.clone(),
            Arc::clone(&state),
            stop_control,
        ));
    }

    if args.startup_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(args.startup_delay_ms)).await;
    }
    let mut server = FixtureServer::new(args.name.as_str(), state);
    if args.http.is_none() {
        crate::flood::use_raw_stdout();
    }
    if let Some(count) = args.flood {
        server = server.with_flood(Flood {
            count,
            kind: args.flood_kind,
        });
    }
    match &args.http {
        Some(addr) if args.fail_status.is_some() => {
            serve::failing(addr, args.fail_status.unwrap_or(500)).await
        }
        Some(addr) if args.sse => {
            let options = crate::sse::SseOptions {
                bearer: args.sse_bearer.clone(),
                close_after: args.sse_close_after,
                post_status: args.sse_post_status,
                endpoint: args.sse_endpoint.clone(),
            };
            crate::sse::serve(server, addr, options).await
        }
        Some(addr) => serve::http(server, addr, args.require_header.as_deref()).await,
        None => {
            serve::stdio(server).await?;
            if args.ignore_stdin_eof {
                faults::linger().await;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_command_line() {
        let args = Args::try_parse_from([
            "switchboard-fixture",
            "--http",
            "127.0.0.1:0",
            "--name",
            "alpha",
            "--tools",
            "a,b",
            "--tools",
            "c",
            "--startup-delay-ms",
            "10",
            "--exit-at-start",
            "-1",
        ])
        .unwrap();
        assert_eq!(args.http.as_deref(), Some("127.0.0.1:0"));
        assert_eq!(args.name, "alpha");
        assert_eq!(args.tools, ["a", "b", "c"]);
        assert_eq!(args.exit_at_start, Some(-1));
        let spec = args.build_spec().unwrap();
        let names: Vec<_> = spec.tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn rejects_duplicate_tool_names() {
        let args = Args::try_parse_from(["switchboard-fixture", "--tools", "a,a"]).unwrap();
        assert!(args.build_spec().is_err());
    }
}
