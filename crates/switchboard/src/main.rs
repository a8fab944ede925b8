//! `switchboard`: run the hub headless and control it from a terminal.
//!
//! stdout carries only what a command is for (the one "listening" line of
//! `serve`, the output of status commands); logs go to stderr via `tracing`
//! (`RUST_LOG`, default `info`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use switchboard_core::{Config, Hub, HubOptions};

#[derive(Parser)]
#[command(
    name = "switchboard",
    version,
    about = "One local MCP endpoint for all your MCP servers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the hub headless: merge the configured servers behind one MCP endpoint.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Config file (Claude Desktop style JSON). Default: the OS config dir's
    /// switchboard/config.json. A missing file means no servers yet.
    #[arg(long, env = "SWITCHBOARD_CONFIG")]
    config: Option<PathBuf>,
    /// Address to listen on, e.g. 127.0.0.1:8420 (port 0 picks a free port).
    /// Overrides `settings.listen` and SWITCHBOARD_LISTEN.
    #[arg(long)]
    listen: Option<std::net::SocketAddr>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            // `{:#}` prints the whole cause chain on one line, without a backtrace.
            let _ = writeln!(std::io::stderr(), "switchboard: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    // Two workers are plenty for a local hub and measurably cheaper on small machines.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    match cli.command {
        Command::Serve(args) => runtime.block_on(serve(args)),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let path = args
        .config
        .unwrap_or_else(switchboard_core::config::default_config_path);
    let mut config = Config::load(&path).with_context(|| "the config file was refused")?;
    config.settings.apply_env(|name| std::env::var(name).ok())?;
    tracing::info!(
        config = %path.display(),
        servers = config.servers.len(),
        "starting"
    );
    let options = HubOptions {
        config_path: Some(path),
        listen: args.listen,
        watch_config: true,
        warm_catalog: Some(switchboard_core::persist::state_dir().join("catalog.json")),
    };
    let hub = Hub::bind(config, options).await?;
    let endpoint = hub.endpoint().to_string();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Switchboard listening on {endpoint}")?;
        out.flush()?;
    }
    hub.run(shutdown_signal()).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on SIGINT (ctrl-c) or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(err) => {
                tracing::warn!(%err, "cannot watch SIGTERM; only ctrl-c stops the hub");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
