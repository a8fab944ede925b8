//! `switchboard-fixture`: a scriptable fake MCP server run by Switchboard's
//! end-to-end tests as a real upstream process (stdio, Streamable HTTP or the
//! legacy HTTP+SSE transport).
//!
//! All behaviour lives in the `switchboard_fixtures` library; this file only
//! sets up logging (stderr, filtered by `RUST_LOG`) and parses the command line.

use clap::Parser as _;
use switchboard_fixtures::cli::Args;
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
    switchboard_fixtures::cli::run(Args::parse()).await
}
