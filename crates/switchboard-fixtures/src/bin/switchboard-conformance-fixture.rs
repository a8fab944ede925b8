//! `switchboard-conformance-fixture`: an MCP server implementing everything the
//! official MCP conformance suite's server scenarios call, over stdio or
//! Streamable HTTP (`--http 127.0.0.1:0`).
//!
//! All behaviour lives in `switchboard_fixtures::conformance`; this file only
//! sets up logging (stderr, filtered by `RUST_LOG`) and parses the command line.

use clap::Parser as _;
use switchboard_fixtures::conformance::Args;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    switchboard_fixtures::conformance::run(Args::parse()).await
}
