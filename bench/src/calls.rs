//! The `call` and `list` measurements.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail};
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::mcp::{Session, Target};
use crate::stats::{self, ProcessCost, Watched};

#[derive(clap::Args)]
pub struct CallArgs {
    /// The MCP endpoint, e.g. http://127.0.0.1:8420/mcp.
    #[arg(long)]
    url: String,
    /// The echo tool's name at this endpoint.
    #[arg(long, default_value = "echo")]
    tool: String,
    /// The argument that carries the text.
    #[arg(long, default_value = "text")]
    arg: String,
    /// What the tool puts before the echoed text (server-everything: "Echo: ").
    #[arg(long, default_value = "")]
    expect_prefix: String,
    /// Concurrent sessions, each with one call in flight.
    #[arg(long, default_value_t = 1)]
    sessions: usize,
    /// Measure for this many seconds...
    #[arg(long, conflicts_with = "count")]
    duration: Option<f64>,
    /// ...or until this many calls have completed.
    #[arg(long)]
    count: Option<u64>,
    /// Calls made before measuring, in seconds.
    #[arg(long, default_value_t = 0.5)]
    warmup: f64,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Processes whose CPU time and RSS are measured during the window.
    #[arg(long, value_name = "LABEL=PID")]
    watch: Vec<Watched>,
    /// Labels copied into the record.
    #[arg(long, default_value = "")]
    target: String,
    #[arg(long, default_value = "")]
    upstream: String,
    #[arg(long, default_value_t = 0)]
    round: u32,
    /// Speak protocol 2026-07-28 (stateless: no `initialize`, per-request
    /// headers and `_meta`) instead of 2025-06-18 sessions.
    #[arg(long)]
    stateless: bool,
}

struct Plan {
    name_json: String,
    /// `,"_meta":{...}` for 2026-07-28 requests, else empty.
    meta: String,
    arg_json: String,
    expect_prefix: String,
    measure_from: Instant,
    measure_until: Option<Instant>,
    remaining: Option<AtomicU64>,
}

#[derive(Default)]
struct WorkerOut {
    latencies_ns: Vec<u64>,
    errors: u64,
    first_error: Option<String>,
}

/// The part of a `tools/call` result that is checked.
#[derive(serde::Deserialize)]
struct CallResult {
    #[serde(default)]
    content: Vec<Content>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
}

#[derive(serde::Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
}

impl CallResult {
    fn text(&self) -> anyhow::Result<&str> {
        if self.is_error == Some(true) {
            bail!(
                "tool reported an error: {:?}",
                self.content.first().and_then(|c| c.text.as_deref())
            );
        }
        self.content
            .first()
            .and_then(|c| c.text.as_deref())
            .ok_or_else(|| anyhow::anyhow!("no text content in the result"))
    }
}

async fn worker(session: &mut Session, index: usize, plan: &Plan) -> WorkerOut {
    let mut out = WorkerOut::default();
    let mut seq = 0u64;
    loop {
        let started = Instant::now();
        let measuring = started >= plan.measure_from;
        if let Some(until) = plan.measure_until
            && started >= until
        {
            break;
        }
        if measuring
            && let Some(remaining) = &plan.remaining
            && remaining
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_err()
        {
            break;
        }
        seq += 1;
        let text = format!("s{index}-c{seq}-{}", if measuring { "m" } else { "w" });
        let id = session.fresh_id();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":{{{}:"{text}"}}{}}}}}"#,
            plan.name_json, plan.arg_json, plan.meta
        );
        let result = session
            .request_raw_as::<CallResult>(Bytes::from(body), id)
            .await;
        let finished = Instant::now();
        let checked = result.and_then(|value| {
            let got = value.text()?;
            let ok = got
                .strip_prefix(plan.expect_prefix.as_str())
                .is_some_and(|rest| rest == text);
            if !ok {
                bail!("expected {:?}{text:?}, got {got:?}", plan.expect_prefix);
            }
            Ok(())
        });
        match checked {
            Ok(()) => {
                let in_window = plan.measure_until.is_none_or(|until| finished <= until);
                if measuring && in_window {
                    out.latencies_ns
                        .push(u64::try_from((finished - started).as_nanos()).unwrap_or(u64::MAX));
                }
            }
            Err(err) => {
                out.errors += 1;
                if out.first_error.is_none() {
                    out.first_error = Some(format!("{err:#}"));
                }
                // Don't spin on a broken session.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    out
}

/// The watched processes resolved to pid sets, plus the generator itself.
fn resolve(watched: &[Watched]) -> Vec<(String, Vec<u32>)> {
    let mut sets: Vec<(String, Vec<u32>)> = watched
        .iter()
        .map(|w| (w.label.clone(), w.resolve()))
        .collect();
    sets.push(("generator".to_string(), vec![std::process::id()]));
    sets
}

fn cpu_snapshot(sets: &[(String, Vec<u32>)]) -> Vec<Option<Duration>> {
    sets.iter()
        .map(|(_, pids)| stats::cpu_time_sum(pids))
        .collect()
}

fn costs(
    sets: &[(String, Vec<u32>)],
    before: &[Option<Duration>],
    after: &[Option<Duration>],
    rss: &[u64],
    calls: usize,
    window: Duration,
) -> Vec<ProcessCost> {
    sets.iter()
        .enumerate()
        .filter_map(|(i, (label, pids))| {
            let used = after
                .get(i)
                .copied()
                .flatten()?
                .checked_sub(before.get(i).copied().flatten()?)?;
            Some(ProcessCost {
                label: label.clone(),
                pids: pids.clone(),
                cpu_us_per_call: used.as_secs_f64() * 1e6 / calls.max(1) as f64,
                cpu_cores: used.as_secs_f64() / window.as_secs_f64().max(1e-9),
                rss_max_kib: rss.get(i).copied().unwrap_or(0),
            })
        })
        .collect()
}

/// Cores used during the window by processes other than the watched ones and
/// the generator: other work on the machine disturbing the measurement.
fn other_cores(
    costs: &[ProcessCost],
    before: Option<Duration>,
    after: Option<Duration>,
    window: Duration,
) -> Option<f64> {
    let total = after?.checked_sub(before?)?.as_secs_f64() / window.as_secs_f64().max(1e-9);
    let ours: f64 = costs.iter().map(|c| c.cpu_cores).sum();
    Some((total - ours).max(0.0))
}

pub async fn call(args: CallArgs) -> anyhow::Result<u8> {
    let mut target = Target::parse(&args.url, Duration::from_secs_f64(args.timeout))?;
    if args.stateless {
        target.stateless = Some(crate::mcp::Stateless {
            method: hyper::header::HeaderValue::from_static("tools/call"),
            name: hyper::header::HeaderValue::from_str(&args.tool)?,
        });
    }
    let load_before = stats::load1();
    let mut opening = tokio::task::JoinSet::new();
    for i in 0..args.sessions {
        let (target, url) = (target.clone(), args.url.clone());
        opening.spawn(async move {
            Session::open(&target, "switchboard-bench")
                .await
                .with_context(|| format!("opening session {i} at {url}"))
        });
    }
    let mut sessions = Vec::with_capacity(args.sessions);
    while let Some(opened) = opening.join_next().await {
        sessions.push(opened.context("opening a session panicked")??);
    }
    let start = Instant::now();
    let measure_from = start + Duration::from_secs_f64(args.warmup);
    let measure_until = args
        .duration
        .map(|d| measure_from + Duration::from_secs_f64(d));
    if measure_until.is_none() && args.count.is_none() {
        bail!("give --duration or --count");
    }
    let plan = Arc::new(Plan {
        name_json: serde_json::to_string(&args.tool)?,
        meta: if args.stateless {
            format!(",{}", crate::mcp::stateless_meta("switchboard-bench"))
        } else {
            String::new()
        },
        arg_json: serde_json::to_string(&args.arg)?,
        expect_prefix: args.expect_prefix.clone(),
        measure_from,
        measure_until,
        remaining: args.count.map(AtomicU64::new),
    });
    let mut tasks = tokio::task::JoinSet::new();
    for (index, mut session) in sessions.into_iter().enumerate() {
        let plan = plan.clone();
        tasks.spawn(async move {
            let out = worker(&mut session, index, &plan).await;
            (session, out)
        });
    }
    let (stop_rss, rss_stopped) = tokio::sync::oneshot::channel();
    tokio::time::sleep_until(measure_from).await;
    let sets = resolve(&args.watch);
    let cpu_before = cpu_snapshot(&sets);
    let busy_before = stats::machine_busy();
    let window_start = Instant::now();
    let rss_task = tokio::spawn(stats::sample_rss(
        sets.iter().map(|(_, pids)| pids.clone()).collect(),
        rss_stopped,
    ));
    let mut cpu_after = None;
    if let Some(until) = measure_until {
        tokio::time::sleep_until(until).await;
        cpu_after = Some((cpu_snapshot(&sets), Instant::now(), stats::machine_busy()));
    }
    let mut all = WorkerOut::default();
    let mut done_sessions = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        let (session, out) = joined.context("a worker panicked")?;
        all.latencies_ns.extend(out.latencies_ns);
        all.errors += out.errors;
        if all.first_error.is_none() {
            all.first_error = out.first_error;
        }
        done_sessions.push(session);
    }
    let (cpu_after, window_end, busy_after) =
        cpu_after.unwrap_or_else(|| (cpu_snapshot(&sets), Instant::now(), stats::machine_busy()));
    let _ = stop_rss.send(());
    let rss = rss_task.await.unwrap_or_default();
    futures_close(done_sessions).await;

    let window = window_end - window_start;
    let calls = all.latencies_ns.len();
    let latency = stats::latency(&mut all.latencies_ns);
    let rps = calls as f64 / window.as_secs_f64().max(1e-9);
    let costs = costs(&sets, &cpu_before, &cpu_after, &rss, calls, window);
    let other = other_cores(&costs, busy_before, busy_after, window);
    let record = json!({
        "kind": "call",
        "other_cores": other,
        "target": args.target,
        "upstream": args.upstream,
        "round": args.round,
        "url": args.url,
        "tool": args.tool,
        "sessions": args.sessions,
        "window_s": window.as_secs_f64(),
        "calls": calls,
        "errors": all.errors,
        "first_error": all.first_error,
        "rps": rps,
        "latency": latency,
        "costs": costs,
        "load1_before": load_before,
        "load1_after": stats::load1(),
    });
    eprintln!(
        "  {:<16} {:<10} c={:<3} {:>8.0} calls/s  p50 {:>7.3} ms  p99 {:>7.3} ms  errors {}{}",
        args.target,
        args.upstream,
        args.sessions,
        rps,
        latency.p50_us / 1000.0,
        latency.p99_us / 1000.0,
        all.errors,
        record["costs"]
            .as_array()
            .map(|c| c
                .iter()
                .map(|c| format!(
                    "  {} {:.0} µs/call",
                    c["label"].as_str().unwrap_or(""),
                    c["cpu_us_per_call"].as_f64().unwrap_or(0.0)
                ))
                .collect::<String>())
            .unwrap_or_default(),
    );
    if let Some(err) = &all.first_error {
        eprintln!("    first error: {err}");
    }
    println!("{record}");
    Ok(if all.errors == 0 && calls > 0 { 0 } else { 1 })
}

async fn futures_close(sessions: Vec<Session>) {
    let mut closing = tokio::task::JoinSet::new();
    for session in sessions {
        closing.spawn(session.close());
    }
    while closing.join_next().await.is_some() {}
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[arg(long)]
    url: String,
    /// Warm lists to time after the first (cold) one.
    #[arg(long, default_value_t = 200)]
    count: usize,
    /// Fail unless every list has exactly this many tools (not counting the
    /// ones named with --ignore-prefix).
    #[arg(long)]
    expect_tools: Option<usize>,
    /// Tools named so are the hub's own (built-in) and are not counted.
    #[arg(long, default_value = "switchboard__")]
    ignore_prefix: String,
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    #[arg(long, value_name = "LABEL=PID")]
    watch: Vec<Watched>,
    #[arg(long, default_value = "")]
    target: String,
    #[arg(long, default_value = "")]
    upstream: String,
}

/// One page of `tools/list`: only the names are built.
#[derive(serde::Deserialize)]
struct ToolsPage {
    tools: Vec<ToolName>,
    #[serde(rename = "nextCursor", default)]
    next_cursor: Option<Value>,
}

#[derive(serde::Deserialize)]
struct ToolName {
    name: String,
}

/// What one full listing returned.
struct Listing {
    /// Tools not named with the ignored prefix (the hub's built-in ones).
    tools: usize,
    ignored: usize,
    pages: usize,
    bytes: usize,
    /// Summed over the pages: from sending the request until the last byte of
    /// the answer was received, i.e. without the generator's parsing.
    received: Duration,
}

/// Lists every page.
async fn list_all(session: &mut Session, ignore_prefix: &str) -> anyhow::Result<Listing> {
    let mut cursor: Option<Value> = None;
    let mut listing = Listing {
        tools: 0,
        ignored: 0,
        pages: 0,
        bytes: 0,
        received: Duration::ZERO,
    };
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let sent = Instant::now();
        let page: ToolsPage = session
            .request_as("tools/list", &params)
            .await
            .context("tools/list")?;
        let received = session
            .last_received_at
            .context("tools/list: the answer's arrival was not recorded")?;
        listing.received += received.saturating_duration_since(sent);
        listing.pages += 1;
        listing.bytes += session.last_body_len;
        let ignored = page
            .tools
            .iter()
            .filter(|t| !ignore_prefix.is_empty() && t.name.starts_with(ignore_prefix))
            .count();
        listing.ignored += ignored;
        listing.tools += page.tools.len() - ignored;
        cursor = page.next_cursor.filter(|c| !c.is_null());
        if cursor.is_none() {
            return Ok(listing);
        }
    }
}

pub async fn list(args: ListArgs) -> anyhow::Result<u8> {
    let target = Target::parse(&args.url, Duration::from_secs_f64(args.timeout))?;
    let load_before = stats::load1();
    let mut session = Session::open(&target, "switchboard-bench").await?;
    let cold_start = Instant::now();
    let first = list_all(&mut session, &args.ignore_prefix).await?;
    let cold = cold_start.elapsed();
    let (cold_tools, pages, bytes) = (first.tools, first.pages, first.bytes);
    let mut errors = 0u64;
    let mut first_error = None;
    let mut note = |msg: String, errors: &mut u64| {
        *errors += 1;
        if first_error.is_none() {
            first_error = Some(msg);
        }
    };
    if let Some(expected) = args.expect_tools
        && cold_tools != expected
    {
        note(
            format!("cold list had {cold_tools} tools, expected {expected}"),
            &mut errors,
        );
    }
    let sets = resolve(&args.watch);
    let cpu_before = cpu_snapshot(&sets);
    let busy_before = stats::machine_busy();
    let (stop_rss, rss_stopped) = tokio::sync::oneshot::channel();
    let rss_task = tokio::spawn(stats::sample_rss(
        sets.iter().map(|(_, pids)| pids.clone()).collect(),
        rss_stopped,
    ));
    let window_start = Instant::now();
    // Two timings per listing: until the answer's last byte was received (the
    // server's figure), and until it was parsed and counted (adds the
    // generator's own work, the same for any server).
    let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    let mut samples = Vec::with_capacity(args.count);
    let mut checked_samples = Vec::with_capacity(args.count);
    for _ in 0..args.count {
        let started = Instant::now();
        match list_all(&mut session, &args.ignore_prefix).await {
            Ok(Listing {
                tools, received, ..
            }) => {
                checked_samples.push(nanos(started.elapsed()));
                samples.push(nanos(received));
                let expected = args.expect_tools.unwrap_or(cold_tools);
                if tools != expected {
                    note(
                        format!("list had {tools} tools, expected {expected}"),
                        &mut errors,
                    );
                }
            }
            Err(err) => note(format!("{err:#}"), &mut errors),
        }
    }
    let window = window_start.elapsed();
    let cpu_after = cpu_snapshot(&sets);
    let _ = stop_rss.send(());
    let rss = rss_task.await.unwrap_or_default();
    session.close().await;
    let busy_after = stats::machine_busy();
    let latency = stats::latency(&mut samples);
    let checked_latency = stats::latency(&mut checked_samples);
    let costs = costs(&sets, &cpu_before, &cpu_after, &rss, samples.len(), window);
    let other = other_cores(&costs, busy_before, busy_after, window);
    let record = json!({
        "other_cores": other,
        "kind": "list",
        "target": args.target,
        "upstream": args.upstream,
        "url": args.url,
        "tools": cold_tools,
        "builtin_tools": first.ignored,
        "pages": pages,
        "body_bytes": bytes,
        "cold_ms": cold.as_secs_f64() * 1000.0,
        "cold_received_ms": first.received.as_secs_f64() * 1000.0,
        "latency": latency,
        "checked_latency": checked_latency,
        "errors": errors,
        "first_error": first_error,
        "costs": costs,
        "load1_before": load_before,
        "load1_after": stats::load1(),
    });
    eprintln!(
        "  tools/list {} tools ({} KiB): first {:.1} ms, then received p50 {:.3} ms p99 {:.3} ms, checked p50 {:.3} ms p99 {:.3} ms, errors {errors}",
        cold_tools,
        bytes / 1024,
        cold.as_secs_f64() * 1000.0,
        latency.p50_us / 1000.0,
        latency.p99_us / 1000.0,
        checked_latency.p50_us / 1000.0,
        checked_latency.p99_us / 1000.0
    );
    if let Some(err) = record["first_error"].as_str() {
        eprintln!("    first error: {err}");
    }
    println!("{record}");
    Ok(if errors == 0 && !samples.is_empty() {
        0
    } else {
        1
    })
}
