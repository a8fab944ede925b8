//! Renders docs/benchmarks.md from the JSON records bench/run.sh collected.
//!
//! Records: `call`, `list`, `startup`, `reload`, `freshness` (measurements),
//! `info` (versions, date), `describe` (what a target or upstream is), `skip`
//! (a target that could not be measured, and why) and `unmeasured` (a feature
//! the hub lacks).
//!
//! This file writes the page's head, "How it was run" and the goals;
//! `results` loads and queries the records, `compare` writes "Before and
//! after" and `tables` the sections after it.

mod compare;
mod results;
mod tables;

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

use results::{Results, f, list_checked, list_received, median};

#[derive(clap::Args)]
pub struct ReportArgs {
    /// The JSON-lines results file.
    #[arg(long)]
    results: PathBuf,
    /// Where to write the Markdown.
    #[arg(long)]
    out: PathBuf,
    /// The command that produced the results, quoted in the report.
    #[arg(long)]
    command: String,
    /// An earlier run's results file (e.g. one saved in bench/results/): adds a
    /// "Before and after" table of the key figures.
    #[arg(long)]
    baseline: Option<PathBuf>,
}

/// The goals stated in the issue.
const ADDED_P50_MAX_MS: f64 = 0.1;
const THROUGHPUT_MIN_RATIO: f64 = 0.95;
const LIST_P99_MAX_MS: f64 = 2.0;
const READY_MAX_MS: f64 = 100.0;
const IDLE_RSS_MAX_BYTES: f64 = 25_000_000.0;

/// How the figures were taken; printed under "How it was run".
const METHOD: &str = "\
Method:

- Load generator: `bench/` (`switchboard-bench`), raw HTTP/1.1 with hyper on one \
  thread (it can take at most one of the cores from what it measures; its own CPU \
  per call is in the last table). Each session is one keep-alive connection with one \
  call in flight: `initialize` (protocol 2025-06-18 offered to every target), \
  `notifications/initialized`, then `tools/call` of the echo tool with a unique text \
  per call; the \"2026-07-28 client\" target instead sends every call statelessly \
  (no `initialize`; `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers and the \
  request's own `_meta`), as a 2026-07-28 client does. Every answer, JSON or SSE, is parsed and the echoed text must match exactly \
  (`Echo: ` + text for server-everything); anything else counts as an error.
- Each measurement: 0.5 s of warm-up calls, then a 2 s window; calls/s counts calls \
  completed in the window. Every target is started afresh (upstream included) and \
  measured with 1, 16 and 64 sessions; the list of targets is run once per round, so \
  direct and proxied runs interleave. Tables show medians over rounds.
- CPU per call: utime + stime of the process (or of all descendants, for stdio servers \
  started by a proxy) from /proc over the window, divided by the calls completed.
- Peers, installed from their registries into `.tools/bench/`, each wrapping the \
  upstream's **stdio** form, so compare them with \"Switchboard, upstream over \
  stdio\": supergateway `--stateful --outputTransport streamableHttp` (it starts one \
  stdio server per session), mcp-proxy `--log-level WARNING` (its default INFO logs \
  every request), FastMCP `create_proxy` with an MCPConfig naming the stdio command \
  (`bench/peers/fastmcp_proxy.py`, log level warning, `FASTMCP_CHECK_FOR_UPDATES=off`).
- Switchboard runs as `switchboard serve --listen 127.0.0.1:0` with `RUST_LOG=warn` \
  and a fresh state directory (`SWITCHBOARD_CACHE_DIR`) per start.
";

fn ms(us: Option<f64>) -> String {
    us.map_or("—".into(), |us| format!("{:.3}", us / 1000.0))
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |v| format!("{v:.digits$}"))
}

fn met(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "**met**",
        Some(false) => "**not met**",
        None => "not measured",
    }
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown".into(), |(_, m)| m.trim().to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("unknown".into(), |kb| {
            format!("{:.1} GiB", kb / 1024.0 / 1024.0)
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let os = std::fs::read_to_string("/etc/os-release")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|n| n.trim_matches('"').to_string())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    format!(
        "- CPU: {model}, {cores} logical cores (`nproc`)\n- Memory: {mem_gib}\n- OS: {os}, Linux {}\n",
        kernel.trim()
    )
}

pub fn render(args: &ReportArgs) -> anyhow::Result<u8> {
    let r = Results::load(&args.results)?;
    let baseline = args
        .baseline
        .as_deref()
        .map(|path| Results::load(path).map(|b| (path, b)))
        .transpose()?;
    let mut md = String::new();
    let w = &mut md;
    let info = |key: &str| r.info(key);

    writeln!(w, "# Benchmarks\n")?;
    writeln!(
        w,
        "Switchboard side by side with direct connections and peer proxies. \
         Generated by `bench/run.sh`; do not edit by hand — rerun it. The profile \
         behind these figures, and what was changed because of it, is in \
         [performance.md](performance.md).\n"
    )?;
    writeln!(w, "## How it was run\n")?;
    writeln!(w, "```sh\n{}\n```\n", args.command)?;
    if let Some(date) = info("date") {
        writeln!(w, "- Date: {date}")?;
    }
    write!(w, "{}", machine())?;
    let loads = r.loads();
    if !loads.is_empty() {
        let lo = loads.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = loads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        writeln!(
            w,
            "- Load (1-min average, sampled before and after every measurement; it counts the benchmark's own processes too, e.g. the 64 servers supergateway starts): {lo:.2}–{hi:.2}{}",
            info("load_start").map_or(String::new(), |l| format!("; at start: {l}"))
        )?;
    }
    let others: Vec<f64> = r
        .kind("call")
        .chain(r.kind("list"))
        .filter_map(|c| f(c, &["other_cores"]))
        .collect();
    if !others.is_empty() {
        let worst = others.iter().copied().fold(0.0, f64::max);
        let noisy = others.iter().filter(|&&o| o > 0.25).count();
        writeln!(
            w,
            "- Other work on the machine during measurements (busy cores not used by the measured processes or the generator, from /proc/stat): median {}, max {worst:.2}; {noisy} of {} measurements had more than 0.25 cores of it (column \"other\" below)",
            num(median(others.clone()), 2),
            others.len()
        )?;
    }
    if let Some(v) = info("versions") {
        writeln!(w, "- Versions: {v}")?;
    }
    writeln!(w, "\n{METHOD}")?;

    // Goals first: the reason this page exists.
    writeln!(w, "## Goals from the issue\n")?;
    writeln!(w, "| goal | measured | result |\n|---|---|---|")?;
    for target in ["hub-http", "hub-stdio"] {
        let added = r.added_p50_ms("fixture", target);
        writeln!(
            w,
            "| added p50 per call ≤ {ADDED_P50_MAX_MS} ms (fixture, 1 session, {}) | {} ms | {} |",
            r.describe("target", target),
            num(added, 3),
            met(added.map(|a| a <= ADDED_P50_MAX_MS))
        )?;
    }
    for upstream in r.order("upstream", None) {
        for target in ["hub-http", "hub-stdio"] {
            let ratio = r.ratio_direct(&upstream, target, 16);
            if ratio.is_none() {
                continue;
            }
            writeln!(
                w,
                "| throughput ≥ {THROUGHPUT_MIN_RATIO}× direct at 16 sessions ({}, {}) | {}× | {} |",
                r.describe("upstream", &upstream),
                r.describe("target", target),
                num(ratio, 2),
                met(ratio.map(|x| x >= THROUGHPUT_MIN_RATIO))
            )?;
        }
    }
    let big_list = r.big_list();
    // The server's figure: until the answer's last byte was received.
    let list_p99 = big_list.and_then(|l| list_received(l, "p99_us"));
    let measured = match (list_p99, big_list.and_then(|l| list_checked(l, "p99_us"))) {
        (Some(p99), _) => format!("{} ms", ms(Some(p99))),
        // An older record: it timed lists only until they were parsed and counted.
        (None, Some(checked)) => format!(
            "— (this record has only the time until the answer was checked: {} ms)",
            ms(Some(checked))
        ),
        (None, None) => "—".into(),
    };
    writeln!(
        w,
        "| `tools/list` of {} tools p99 < {LIST_P99_MAX_MS} ms (request → last byte of the answer received) | {measured} | {} |",
        big_list
            .and_then(|l| l.get("tools"))
            .map_or("5,000".into(), Value::to_string),
        met(list_p99.map(|p| p / 1000.0 < LIST_P99_MAX_MS))
    )?;
    let startup = |servers: u64| r.startup(servers);
    let ready100 = startup(100).and_then(|s| f(s, &["ready_ms_median"]));
    let ready100_max = startup(100).and_then(|s| f(s, &["ready_ms_max"]));
    writeln!(
        w,
        "| ready < {READY_MAX_MS} ms with 100 servers | {} ms median, {} ms max | {} |",
        num(ready100, 1),
        num(ready100_max, 1),
        met(ready100.map(|x| x < READY_MAX_MS))
    )?;
    for servers in [0, 100] {
        let rss = startup(servers).and_then(|s| f(s, &["idle_rss_kib_median"]));
        writeln!(
            w,
            "| idle RSS < 25 MB ({servers} servers) | {} MB | {} |",
            num(rss.map(|k| k * 1024.0 / 1e6), 1),
            met(rss.map(|k| k * 1024.0 < IDLE_RSS_MAX_BYTES))
        )?;
    }
    writeln!(w)?;

    if let Some((path, before)) = &baseline {
        compare::before_and_after(w, &r, before, path)?;
    }

    tables::call_overhead(w, &r)?;
    tables::lists(w, &r)?;
    tables::startup_and_memory(w, &r)?;
    tables::reload_and_freshness(w, &r)?;
    tables::not_measured(w, &r)?;
    tables::every_run(w, &r)?;
    if let Some(notes) = info("notes") {
        writeln!(w, "## Notes\n\n{notes}\n")?;
    }

    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&args.out, md).with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(0)
}
