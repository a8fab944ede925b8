//! The `reload` and `freshness` measurements.
//!
//! reload: a hub with N lazy servers; a server is added to the config file
//! and the time until `/api/v1/status` lists it is measured, once through the
//! file watcher and once through `POST /api/v1/reload`.
//!
//! freshness: an HTTP fixture upstream changes its tool list (control file,
//! `notify: true`); the fixture's own stderr line says when it sent
//! `list_changed`, a downstream session's GET event stream says when the hub
//! passed `notifications/tools/list_changed` on, and a `tools/list` right after
//! must show the new tool.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use bytes::Bytes;
use hyper::Method;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, Command};
use tokio::time::Instant;

use crate::mcp::{Session, Target, event_stream, plain_request};
use crate::stats;

#[derive(clap::Args)]
pub struct ReloadArgs {
    #[arg(long)]
    hub: PathBuf,
    #[arg(long)]
    fixture: PathBuf,
    /// Servers in the config besides the one added.
    #[arg(long, default_value_t = 100)]
    servers: usize,
    #[arg(long, default_value_t = 5)]
    repeat: usize,
}

#[derive(clap::Args)]
pub struct FreshnessArgs {
    #[arg(long)]
    hub: PathBuf,
    #[arg(long)]
    fixture: PathBuf,
    #[arg(long, default_value_t = 5)]
    repeat: usize,
}

/// A child process stopped with SIGTERM when dropped... explicitly, via `stop`.
struct Proc {
    child: Child,
    pid: u32,
}

impl Proc {
    async fn stop(mut self) {
        if let Ok(raw) = i32::try_from(self.pid) {
            let _ = kill(Pid::from_raw(raw), Signal::SIGTERM);
        }
        if tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// Spawns `cmd` and returns it with the URL from the first stdout line that
/// starts with `prefix`; stderr lines go to the returned channel.
async fn spawn_announcing(
    mut cmd: Command,
    prefix: &str,
) -> anyhow::Result<(
    Proc,
    String,
    tokio::sync::mpsc::UnboundedReceiver<(Instant, String)>,
)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("spawning")?;
    let pid = child.id().context("exited at once")?;
    let stdout = child.stdout.take().context("no stdout")?;
    let stderr = child.stderr.take().context("no stderr")?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let mut lines = BufReader::new(stdout).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .context("no address within 20 s")??
            .context("stdout closed before the address")?;
        if let Some(url) = line.strip_prefix(prefix) {
            break url.trim().to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((Proc { child, pid }, url, rx))
}

fn write_atomically(path: &Path, content: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, content)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

fn api_target(mcp_url: &str) -> anyhow::Result<Target> {
    Target::parse(mcp_url, Duration::from_secs(30))
}

async fn status_ids(api: &Target) -> anyhow::Result<Vec<String>> {
    let (status, body) = plain_request(api, Method::GET, "/api/v1/status", None).await?;
    if !status.is_success() {
        bail!("GET /api/v1/status answered HTTP {status}");
    }
    let value: Value = serde_json::from_slice(&body)?;
    Ok(value
        .get("servers")
        .and_then(Value::as_array)
        .map(|servers| {
            servers
                .iter()
                .filter_map(|s| s.get("id").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default())
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn reload_config(args: &ReloadArgs, extra: Option<&str>) -> String {
    let mut servers = Map::new();
    let ids = (0..args.servers)
        .map(|i| format!("s{i:03}"))
        .chain(extra.map(String::from));
    for id in ids {
        servers.insert(
            id.clone(),
            json!({"command": args.fixture, "args": ["--tools", "echo", "--name", id]}),
        );
    }
    json!({"mcpServers": servers}).to_string()
}

pub async fn reload(args: ReloadArgs) -> anyhow::Result<u8> {
    let dir = std::env::temp_dir().join(format!("switchboard-bench-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let config = dir.join("config.json");
    write_atomically(&config, &reload_config(&args, None))?;
    let load_before = stats::load1();
    let mut cmd = Command::new(&args.hub);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .env("SWITCHBOARD_CACHE_DIR", dir.join("state"))
        .env("RUST_LOG", "warn");
    let (hub, url, _stderr) = spawn_announcing(cmd, "Switchboard listening on ").await?;
    let mut api = api_target(&url)?;
    // Hubs with a control token need it for POST /api/v1/reload (older ones keep none).
    if let Ok(token) = std::fs::read_to_string(dir.join("state").join("control-token")) {
        api.bearer = Some(hyper::header::HeaderValue::from_str(&format!(
            "Bearer {}",
            token.trim()
        ))?);
    }
    let result = async {
        // Let the watcher settle after start-up.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (mut watched, mut via_api) = (Vec::new(), Vec::new());
        for k in 0..args.repeat.max(1) {
            let id = format!("added{k}w");
            let started = Instant::now();
            write_atomically(&config, &reload_config(&args, Some(&id)))?;
            loop {
                if status_ids(&api).await?.contains(&id) {
                    break;
                }
                if started.elapsed() > Duration::from_secs(10) {
                    bail!("the file watcher did not pick up {id} within 10 s");
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            watched.push(started.elapsed().as_secs_f64() * 1000.0);
            tokio::time::sleep(Duration::from_millis(400)).await;

            let id = format!("added{k}a");
            let started = Instant::now();
            write_atomically(&config, &reload_config(&args, Some(&id)))?;
            let (status, body) =
                plain_request(&api, Method::POST, "/api/v1/reload", Some(Bytes::new())).await?;
            let elapsed = started.elapsed();
            if status == hyper::StatusCode::NOT_FOUND {
                return Ok((watched, None));
            }
            if !status.is_success() {
                bail!(
                    "POST /api/v1/reload answered HTTP {status}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
            if !status_ids(&api).await?.contains(&id) {
                bail!("{id} not listed after POST /api/v1/reload returned");
            }
            via_api.push(elapsed.as_secs_f64() * 1000.0);
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
        anyhow::Ok((watched, Some(via_api)))
    }
    .await;
    hub.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
    let (watched, via_api) = match result {
        Ok((watched, Some(via_api))) => (watched, via_api),
        Ok((_, None)) => {
            eprintln!("  reload: the hub has no POST /api/v1/reload; not measured");
            let record = json!({"kind": "unmeasured", "target": "reload",
                "value": "the hub answers POST /api/v1/reload with 404: no reload to measure yet"});
            println!("{record}");
            return Ok(0);
        }
        Err(err) => return Err(err),
    };
    let record = json!({
        "kind": "reload",
        "servers": args.servers,
        "repeat": watched.len(),
        "watch_ms": watched,
        "api_ms": via_api,
        "watch_ms_median": median(&watched),
        "api_ms_median": median(&via_api),
        "load1_before": load_before,
        "load1_after": stats::load1(),
    });
    eprintln!(
        "  reload with {} servers: file watcher {:.1} ms, POST /api/v1/reload {:.1} ms (medians of {})",
        args.servers,
        median(&watched),
        median(&via_api),
        watched.len()
    );
    println!("{record}");
    Ok(0)
}

async fn next_line_with(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<(Instant, String)>,
    needle: &str,
) -> anyhow::Result<Instant> {
    loop {
        let (at, line) = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .map_err(|_| anyhow!("no {needle:?} from the fixture within 10 s"))?
            .context("the fixture's stderr closed")?;
        if line.contains(needle) {
            return Ok(at);
        }
    }
}

pub async fn freshness(args: FreshnessArgs) -> anyhow::Result<u8> {
    let dir = std::env::temp_dir().join(format!("switchboard-bench-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let control = dir.join("control.json");
    let mut cmd = Command::new(&args.fixture);
    cmd.args(["--http", "127.0.0.1:0", "--tools", "echo", "--control"])
        .arg(&control);
    let (fixture, fixture_url, mut fixture_err) = spawn_announcing(cmd, "listening on ").await?;
    let config = dir.join("config.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"fr": {"url": fixture_url}}}).to_string(),
    )?;
    let mut cmd = Command::new(&args.hub);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .env("RUST_LOG", "warn");
    let hub = match spawn_announcing(cmd, "Switchboard listening on ").await {
        Ok((hub, url, _)) => (hub, url),
        Err(err) => {
            fixture.stop().await;
            return Err(err);
        }
    };
    let (hub, url) = hub;
    let load_before = stats::load1();
    let result = async {
        let target = Target::parse(&url, Duration::from_secs(30))?;
        let mut session = Session::open(&target, "switchboard-bench-freshness").await?;
        let mut events = event_stream(&target, &session).await?;
        session.request("tools/list", &json!({})).await?;
        let (mut applied_to_notified, mut write_to_notified) = (Vec::new(), Vec::new());
        for k in 0..args.repeat.max(1) {
            let extra = format!("extra_{k}");
            let update = json!({"tools": [{"name": "echo"}, {"name": extra}], "notify": true});
            let started = Instant::now();
            write_atomically(&control, &update.to_string())?;
            let applied = next_line_with(&mut fixture_err, "applied").await?;
            let notified = loop {
                let (at, message) = tokio::time::timeout(Duration::from_secs(10), events.recv())
                    .await
                    .map_err(|_| anyhow!("no tools/list_changed downstream within 10 s"))?
                    .context("the event stream closed")?;
                if message.get("method").and_then(Value::as_str)
                    == Some("notifications/tools/list_changed")
                {
                    break at;
                }
            };
            let listed = session.request("tools/list", &json!({})).await?;
            let wanted = format!("fr__{extra}");
            let present = listed
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|tools| {
                    tools
                        .iter()
                        .any(|t| t.get("name").and_then(Value::as_str) == Some(wanted.as_str()))
                });
            if !present {
                bail!("{wanted} missing from tools/list after list_changed");
            }
            applied_to_notified
                .push(notified.saturating_duration_since(applied).as_secs_f64() * 1000.0);
            write_to_notified.push((notified - started).as_secs_f64() * 1000.0);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        session.close().await;
        anyhow::Ok((applied_to_notified, write_to_notified))
    }
    .await;
    hub.stop().await;
    fixture.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
    let (push, total) = result?;
    let record = json!({
        "kind": "freshness",
        "repeat": push.len(),
        "push_ms": push,
        "total_ms": total,
        "push_ms_median": median(&push),
        "total_ms_median": median(&total),
        "load1_before": load_before,
        "load1_after": stats::load1(),
    });
    eprintln!(
        "  freshness: upstream list_changed → downstream list_changed {:.1} ms; control-file write → downstream {:.1} ms (medians of {})",
        median(&push),
        median(&total),
        push.len()
    );
    println!("{record}");
    Ok(0)
}
