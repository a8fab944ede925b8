//! `switchboard-auth-fixture`: a fake OAuth authorization server and the MCP
//! server it protects, on one loopback port, for Switchboard's OAuth tests.
//!
//! All behaviour lives in `switchboard_fixtures::auth`; this file only sets up
//! logging (stderr, filtered by `RUST_LOG`) and parses the command line.

use clap::Parser as _;
use switchboard_fixtures::auth::Args;
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
    switchboard_fixtures::auth::run(Args::parse()).await
}
