//! `switchboard-registry-fixture`: a fake MCP Registry serving a folder of
//! `server.json` documents on loopback, for the registry tests. All
//! behaviour lives in `switchboard_fixtures::registry`.

use clap::Parser as _;
use switchboard_fixtures::registry::Args;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    switchboard_fixtures::registry::run(Args::parse()).await
}
