//! The conformance fixture: a fixed MCP server implementing everything the
//! official MCP conformance suite's server scenarios call
//! (`npx @modelcontextprotocol/conformance server --url URL --suite all`), so
//! the suite can run against it directly and through Switchboard.
//!
//! Unlike the scriptable [`crate::server::FixtureServer`], nothing here is
//! configurable beyond the transport and the `test_reconnection` timing:
//!
//! - [`catalog`]: the tool, prompt and resource lists and their payloads;
//! - [`tools`]: what each tool does (logging, progress, sampling, elicitation,
//!   reconnection);
//! - [`elicitation`], [`completion`]: the elicitation forms and `completion/complete`;
//! - [`session`]: per-session log level and subscriptions;
//! - [`reconnect`]: the HTTP session manager that lets `test_reconnection` close
//!   its SSE stream mid-call and answer after the client resumes (SEP-1699);
//! - [`server`]: the `ServerHandler`.
//!
//! [`run`] serves stdio by default, or Streamable HTTP at `/mcp` with `--http`
//! (loopback `Host` and `Origin` validation on, announcing the bound address
//! with the one line it writes to stdout).

pub mod catalog;
pub mod completion;
pub mod elicitation;
pub mod reconnect;
pub mod server;
pub mod session;
pub mod tools;

use std::{sync::Arc, time::Duration};

use clap::Parser;
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};

use self::{
    reconnect::ReconnectingSessionManager, server::ConformanceServer, tools::ReconnectOptions,
};
use crate::serve;

/// Browser origins accepted on requests that carry an `Origin` header: the
/// loopback names on any port (requests without `Origin` always pass).
const ALLOWED_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// An MCP server implementing everything the MCP conformance suite's server scenarios call.
#[derive(Debug, Clone, Parser)]
#[command(name = "switchboard-conformance-fixture", version)]
pub struct Args {
    /// Serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:0) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// `retry` hint (ms) of the priming event sent before `test_reconnection` closes its stream.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub reconnect_retry_ms: u64,
    /// How long (ms) `test_reconnection` waits for the client to resume before answering anyway.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub reconnect_timeout_ms: u64,
}

impl Args {
    fn reconnect_options(&self) -> ReconnectOptions {
        ReconnectOptions {
            retry: Duration::from_millis(self.reconnect_retry_ms),
            timeout: Duration::from_millis(self.reconnect_timeout_ms),
        }
    }
}

/// Serves until the stdio client disconnects, or forever over HTTP.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let options = args.reconnect_options();
    let Some(addr) = &args.http else {
        return serve::stdio(ConformanceServer::new(None, options)).await;
    };
    let manager = Arc::new(ReconnectingSessionManager::new(
        LocalSessionManager::default(),
    ));
    let factory_manager = Arc::clone(&manager);
    let service = StreamableHttpService::new(
        move || {
            Ok(ConformanceServer::new(
                Some(Arc::clone(&factory_manager)),
                options,
            ))
        },
        manager,
        StreamableHttpServerConfig::default().with_allowed_origins(ALLOWED_ORIGINS),
    );
    serve::serve_mcp_router(axum::Router::new().nest_service("/mcp", service), addr).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_command_line() {
        let args = Args::try_parse_from(["switchboard-conformance-fixture"]).unwrap();
        assert_eq!(args.http, None);
        assert_eq!(args.reconnect_options().retry, Duration::from_millis(500));
        let args = Args::try_parse_from([
            "switchboard-conformance-fixture",
            "--http",
            "127.0.0.1:0",
            "--reconnect-timeout-ms",
            "250",
        ])
        .unwrap();
        assert_eq!(args.http.as_deref(), Some("127.0.0.1:0"));
        assert_eq!(args.reconnect_options().timeout, Duration::from_millis(250));
    }
}
