//! The `startup` measurement: spawn `switchboard serve` with N lazy servers,
//! time until it prints its address and until `/mcp` answers an initialize,
//! then read its idle RSS.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Map, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::time::Instant;

use crate::mcp::{Session, Target};
use crate::stats;

#[derive(clap::Args)]
pub struct StartupArgs {
    /// The `switchboard` binary.
    #[arg(long)]
    hub: PathBuf,
    /// The `switchboard-fixture` binary used as each (never started) server.
    #[arg(long)]
    fixture: PathBuf,
    /// Configured servers (all lazy, so none is started).
    #[arg(long, default_value_t = 0)]
    servers: usize,
    /// Hub starts to time.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Seconds to wait after the first answer before reading the idle RSS.
    #[arg(long, default_value_t = 1.0)]
    settle: f64,
}

struct Run {
    listen_ms: f64,
    ready_ms: f64,
    idle_rss_kib: u64,
}

fn write_config(args: &StartupArgs) -> anyhow::Result<PathBuf> {
    let mut servers = Map::new();
    for i in 0..args.servers {
        let id = format!("s{i:03}");
        servers.insert(
            id.clone(),
            json!({"command": args.fixture, "args": ["--tools", "echo", "--name", id]}),
        );
    }
    // In a folder of its own: the hub refuses a config in a directory others
    // can write to, such as the temp dir itself.
    let dir = std::env::temp_dir().join(format!(
        "switchboard-bench-startup-{}-{}",
        std::process::id(),
        args.servers
    ));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("config.json");
    std::fs::write(&path, json!({"mcpServers": servers}).to_string())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

async fn one_run(args: &StartupArgs, config: &PathBuf) -> anyhow::Result<Run> {
    let started = Instant::now();
    let mut child = tokio::process::Command::new(&args.hub)
        .args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(config)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("spawning {}", args.hub.display()))?;
    let pid = child.id().context("the hub exited at once")?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .context("the hub printed no address within 20 s")??
            .context("the hub closed stdout before printing its address")?;
        if let Some(url) = line.strip_prefix("Switchboard listening on ") {
            break url.trim().to_string();
        }
    };
    let listen = started.elapsed();
    let target = Target::parse(&url, Duration::from_secs(5))?;
    let ready = loop {
        match Session::open(&target, "switchboard-bench-startup").await {
            Ok(session) => {
                let ready = started.elapsed();
                session.close().await;
                break ready;
            }
            Err(err) if started.elapsed() > Duration::from_secs(20) => {
                bail!("the hub did not answer within 20 s: {err:#}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
        }
    };
    tokio::time::sleep(Duration::from_secs_f64(args.settle)).await;
    let idle_rss_kib = stats::rss_kib(pid)?;
    if let Ok(raw) = i32::try_from(pid) {
        let _ = kill(Pid::from_raw(raw), Signal::SIGTERM);
    }
    if tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    Ok(Run {
        listen_ms: listen.as_secs_f64() * 1000.0,
        ready_ms: ready.as_secs_f64() * 1000.0,
        idle_rss_kib,
    })
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

pub async fn startup(args: StartupArgs) -> anyhow::Result<u8> {
    let config = write_config(&args)?;
    let load_before = stats::load1();
    let mut runs = Vec::new();
    for _ in 0..args.repeat.max(1) {
        runs.push(one_run(&args, &config).await?);
    }
    if let Some(dir) = config.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    let listen: Vec<f64> = runs.iter().map(|r| r.listen_ms).collect();
    let ready: Vec<f64> = runs.iter().map(|r| r.ready_ms).collect();
    let rss: Vec<f64> = runs.iter().map(|r| r.idle_rss_kib as f64).collect();
    let record = json!({
        "kind": "startup",
        "servers": args.servers,
        "repeat": runs.len(),
        "listen_ms": listen,
        "ready_ms": ready,
        "idle_rss_kib": rss,
        "listen_ms_median": median(&listen),
        "ready_ms_median": median(&ready),
        "ready_ms_max": ready.iter().copied().fold(f64::NAN, f64::max),
        "idle_rss_kib_median": median(&rss),
        "load1_before": load_before,
        "load1_after": stats::load1(),
    });
    eprintln!(
        "  startup with {} servers: address printed after {:.1} ms, answering after {:.1} ms (median of {}), idle RSS {:.1} MiB",
        args.servers,
        median(&listen),
        median(&ready),
        runs.len(),
        median(&rss) / 1024.0
    );
    println!("{record}");
    Ok(0)
}
