// This binary is a command-line tool whose product is its output: one JSON
// record per measurement on stdout (collected by bench/run.sh) and the rendered
// Markdown report, so printing to stdout is its purpose.
#![allow(clippy::print_stdout)]

//! `switchboard-bench`: a cheap raw-HTTP MCP load generator.
//!
//! Subcommands: `call` (tools/call throughput and latency, every answer
//! checked), `list` (tools/list latency and the cold first list), `startup`
//! (spawn the hub, time until it answers, idle RSS), `probe`/`wait` (is an MCP
//! endpoint there), `free-port`, `note` (a JSON record for the results file)
//! and `report` (render docs/benchmarks.md from the results).

mod calls;
mod fresh;
mod mcp;
mod report;
mod startup;
mod stats;

use std::time::Duration;

use clap::{Parser, Subcommand};
use serde_json::json;

use crate::mcp::{Session, Target};

#[derive(Parser)]
#[command(name = "switchboard-bench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// tools/call load with N sessions; prints one JSON record.
    Call(calls::CallArgs),
    /// tools/list latency on one session; the first list is reported as cold.
    List(calls::ListArgs),
    /// Spawn the hub with 0 or N lazy servers: time to listen and to answer, idle RSS.
    Startup(startup::StartupArgs),
    /// Add a server to the config file of a hub with N servers: time until it is listed
    /// (file watcher, and POST /api/v1/reload).
    Reload(fresh::ReloadArgs),
    /// Upstream tool list change → downstream notifications/tools/list_changed latency.
    Freshness(fresh::FreshnessArgs),
    /// Exit 0 if an MCP session can be opened at URL, 2 on HTTP 404, 1 otherwise.
    Probe {
        #[arg(long)]
        url: String,
    },
    /// Wait until an MCP session can be opened at URL.
    Wait {
        #[arg(long)]
        url: String,
        #[arg(long, default_value_t = 30.0)]
        timeout: f64,
    },
    /// Wait until the machine is nearly idle (busy ≤ MAX_CORES over one second);
    /// prints the busy figure; exit 1 if the timeout passed first.
    Quiet {
        #[arg(long, default_value_t = 0.3)]
        max_cores: f64,
        #[arg(long, default_value_t = 120.0)]
        timeout: f64,
    },
    /// Print a free loopback TCP port.
    FreePort,
    /// Write a fixture `--spec` file with N echo tools that look like real ones
    /// (a sentence of description, a small input schema).
    Spec {
        #[arg(long)]
        tools: usize,
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Print a JSON record (`info`, `skip` or `unmeasured`) for the results file.
    Note {
        #[arg(long)]
        kind: String,
        #[arg(long, default_value = "")]
        target: String,
        #[arg(long, default_value = "")]
        upstream: String,
        #[arg(long, default_value = "")]
        key: String,
        #[arg(long, default_value = "")]
        value: String,
    },
    /// Render the Markdown report from a results file.
    Report(report::ReportArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // One thread: the generator must not take more than one of the machine's
    // cores from the processes it measures.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("switchboard-bench: cannot start the runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(code) => std::process::ExitCode::from(code),
        Err(err) => {
            eprintln!("switchboard-bench: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Call(args) => calls::call(args).await,
        Command::List(args) => calls::list(args).await,
        Command::Startup(args) => startup::startup(args).await,
        Command::Reload(args) => fresh::reload(args).await,
        Command::Freshness(args) => fresh::freshness(args).await,
        Command::Probe { url } => {
            let target = Target::parse(&url, Duration::from_secs(10))?;
            match Session::open(&target, "switchboard-bench-probe").await {
                Ok(session) => {
                    session.close().await;
                    Ok(0)
                }
                Err(err) => {
                    let text = format!("{err:#}");
                    eprintln!("probe {url}: {text}");
                    Ok(if text.contains("HTTP 404") { 2 } else { 1 })
                }
            }
        }
        Command::Wait { url, timeout } => {
            let target = Target::parse(&url, Duration::from_secs(5))?;
            let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(timeout);
            loop {
                match Session::open(&target, "switchboard-bench-wait").await {
                    Ok(session) => {
                        session.close().await;
                        return Ok(0);
                    }
                    Err(err) if tokio::time::Instant::now() >= deadline => {
                        eprintln!("wait {url}: gave up after {timeout} s: {err:#}");
                        return Ok(1);
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        }
        Command::Quiet { max_cores, timeout } => {
            let (busy, reached) =
                stats::wait_quiet(max_cores, Duration::from_secs_f64(timeout)).await;
            println!("{busy:.2}");
            Ok(if reached { 0 } else { 1 })
        }
        Command::FreePort => {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            println!("{}", listener.local_addr()?.port());
            Ok(0)
        }
        Command::Spec { tools, out } => {
            let tools: Vec<_> = (0..tools)
                .map(|i| {
                    json!({
                        "name": format!("tool_{i:03}"),
                        "description": format!("Tool {i} of this server: returns its `text` argument unchanged; `repeat` and `upper` are accepted and ignored."),
                        "inputSchema": {
                            "type": "object",
                            "properties": {
                                "text": {"type": "string", "description": "The text to return."},
                                "repeat": {"type": "integer", "minimum": 1, "description": "Ignored."},
                                "upper": {"type": "boolean", "description": "Ignored."}
                            },
                            "required": ["text"]
                        }
                    })
                })
                .collect();
            std::fs::write(&out, json!({"tools": tools}).to_string())?;
            Ok(0)
        }
        Command::Note {
            kind,
            target,
            upstream,
            key,
            value,
        } => {
            let record = json!({
                "kind": kind, "target": target, "upstream": upstream,
                "key": key, "value": value,
            });
            println!("{record}");
            Ok(0)
        }
        Command::Report(args) => report::render(&args),
    }
}
