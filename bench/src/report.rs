//! Renders docs/benchmarks.md from the JSON records bench/run.sh collected.
//!
//! Records: `call`, `list`, `startup` (measurements), `info` (versions, date),
//! `describe` (what a target or upstream is), `skip` (a target that could not
//! be measured, and why) and `unmeasured` (a feature the hub lacks).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

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
  per call. Every answer, JSON or SSE, is parsed and the echoed text must match exactly \
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

struct Results {
    records: Vec<Value>,
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn f(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_f64()
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

fn cost<'a>(record: &'a Value, label: &str) -> Option<&'a Value> {
    record
        .get("costs")?
        .as_array()?
        .iter()
        .find(|c| s(c, "label") == label)
}

impl Results {
    fn kind(&self, kind: &str) -> impl Iterator<Item = &Value> {
        let kind = kind.to_string();
        self.records.iter().filter(move |r| s(r, "kind") == kind)
    }

    fn calls(&self, upstream: &str, target: &str, sessions: u64) -> Vec<&Value> {
        self.kind("call")
            .filter(|r| {
                s(r, "upstream") == upstream
                    && s(r, "target") == target
                    && r.get("sessions").and_then(Value::as_u64) == Some(sessions)
            })
            .collect()
    }

    /// Median over rounds of a number in the call records.
    fn call_median(
        &self,
        upstream: &str,
        target: &str,
        sessions: u64,
        path: &[&str],
    ) -> Option<f64> {
        median(
            self.calls(upstream, target, sessions)
                .iter()
                .filter_map(|r| f(r, path))
                .collect(),
        )
    }

    fn cost_median(
        &self,
        upstream: &str,
        target: &str,
        sessions: u64,
        label: &str,
        field: &str,
    ) -> Option<f64> {
        median(
            self.calls(upstream, target, sessions)
                .iter()
                .filter_map(|r| cost(r, label).and_then(|c| f(c, &[field])))
                .collect(),
        )
    }

    fn errors(&self, upstream: &str, target: &str) -> u64 {
        self.kind("call")
            .filter(|r| s(r, "upstream") == upstream && s(r, "target") == target)
            .filter_map(|r| r.get("errors").and_then(Value::as_u64))
            .sum()
    }

    fn first_error(&self, upstream: &str, target: &str) -> Option<&str> {
        self.kind("call")
            .filter(|r| s(r, "upstream") == upstream && s(r, "target") == target)
            .find_map(|r| r.get("first_error").and_then(Value::as_str))
    }

    fn describe(&self, kind: &str, name: &str) -> String {
        self.kind("describe")
            .find(|r| s(r, "key") == kind && s(r, "target") == name)
            .map(|r| s(r, "value").to_string())
            .unwrap_or_else(|| name.to_string())
    }

    /// Upstreams and targets in first-seen order.
    fn order(&self, field: &str, upstream: Option<&str>) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for r in self.kind("call") {
            if upstream.is_some_and(|u| s(r, "upstream") != u) {
                continue;
            }
            let v = s(r, field).to_string();
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        seen
    }

    fn loads(&self) -> Vec<f64> {
        self.records
            .iter()
            .flat_map(|r| [f(r, &["load1_before"]), f(r, &["load1_after"])])
            .flatten()
            .filter(|l| l.is_finite())
            .collect()
    }
}

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
    let text = std::fs::read_to_string(&args.results)
        .with_context(|| format!("reading {}", args.results.display()))?;
    let records = text
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let r = Results { records };
    let mut md = String::new();
    let w = &mut md;
    let info = |key: &str| {
        r.kind("info")
            .find(|i| s(i, "key") == key)
            .map(|i| s(i, "value").to_string())
    };

    writeln!(w, "# Benchmarks\n")?;
    writeln!(
        w,
        "Switchboard side by side with direct connections and peer proxies. \
         Generated by `bench/run.sh`; do not edit by hand — rerun it.\n"
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
    let direct_p50 = r.call_median("fixture", "direct", 1, &["latency", "p50_us"]);
    for target in ["hub-http", "hub-stdio"] {
        let through = r.call_median("fixture", target, 1, &["latency", "p50_us"]);
        let added = through.zip(direct_p50).map(|(t, d)| (t - d) / 1000.0);
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
            let direct = r.call_median(&upstream, "direct", 16, &["rps"]);
            let through = r.call_median(&upstream, target, 16, &["rps"]);
            let ratio = through.zip(direct).map(|(t, d)| t / d);
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
    let big_list = r
        .kind("list")
        .filter(|l| s(l, "target") == "lists")
        .max_by_key(|l| l.get("tools").and_then(Value::as_u64).unwrap_or(0));
    let list_p99 = big_list.and_then(|l| f(l, &["latency", "p99_us"]));
    writeln!(
        w,
        "| `tools/list` of {} tools p99 < {LIST_P99_MAX_MS} ms | {} ms | {} |",
        big_list
            .and_then(|l| l.get("tools"))
            .map_or("5,000".into(), Value::to_string),
        ms(list_p99),
        met(list_p99.map(|p| p / 1000.0 < LIST_P99_MAX_MS))
    )?;
    let startup = |servers: u64| {
        r.kind("startup")
            .find(|s| s.get("servers").and_then(Value::as_u64) == Some(servers))
    };
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

    // Call overhead, one table per upstream.
    writeln!(w, "## Call overhead: `tools/call` of an echo tool\n")?;
    writeln!(
        w,
        "Every answer is checked (the echoed text must be the unique text sent). \
         Figures are medians over rounds; \"×direct\" is throughput relative to \
         the same upstream reached directly with the same number of sessions; \
         \"added p50\" is the 1-session p50 minus the direct one. CPU columns are \
         CPU time per completed call at 16 sessions, read from /proc: the proxy \
         process (Switchboard or the peer) and the upstream server process(es).\n"
    )?;
    for upstream in r.order("upstream", None) {
        writeln!(w, "### {}\n", r.describe("upstream", &upstream))?;
        writeln!(
            w,
            "| path | p50 ms (1 session) | p99 ms (1 session) | added p50 ms | calls/s (1) | calls/s (16) | ×direct (16) | p99 ms (16) | calls/s (64) | ×direct (64) | proxy CPU µs/call | upstream CPU µs/call | errors |"
        )?;
        writeln!(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")?;
        let direct = |c: u64| r.call_median(&upstream, "direct", c, &["rps"]);
        let d50 = r.call_median(&upstream, "direct", 1, &["latency", "p50_us"]);
        for target in r.order("target", Some(&upstream)) {
            let m = |c: u64, path: &[&str]| r.call_median(&upstream, &target, c, path);
            let p50 = m(1, &["latency", "p50_us"]);
            let added = if target == "direct" {
                None
            } else {
                p50.zip(d50).map(|(a, b)| (a - b) / 1000.0)
            };
            let ratio = |c: u64| {
                if target == "direct" {
                    None
                } else {
                    m(c, &["rps"]).zip(direct(c)).map(|(a, b)| a / b)
                }
            };
            writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.describe("target", &target),
                ms(p50),
                ms(m(1, &["latency", "p99_us"])),
                added.map_or("—".into(), |a| format!("{a:+.3}")),
                num(m(1, &["rps"]), 0),
                num(m(16, &["rps"]), 0),
                ratio(16).map_or("—".into(), |x| format!("{x:.2}×")),
                ms(m(16, &["latency", "p99_us"])),
                num(m(64, &["rps"]), 0),
                ratio(64).map_or("—".into(), |x| format!("{x:.2}×")),
                num(
                    r.cost_median(&upstream, &target, 16, "proxy", "cpu_us_per_call"),
                    0
                ),
                num(
                    r.cost_median(&upstream, &target, 16, "upstream", "cpu_us_per_call"),
                    0
                ),
                r.errors(&upstream, &target),
            )?;
        }
        writeln!(w)?;
        let note = r.describe("upstream-note", &upstream);
        if note != upstream {
            writeln!(w, "{note}\n")?;
        }
        for target in r.order("target", Some(&upstream)) {
            if let Some(err) = r.first_error(&upstream, &target) {
                writeln!(
                    w,
                    "- {}: first error: `{}`",
                    r.describe("target", &target),
                    err.replace('`', "'")
                )?;
            }
        }
        writeln!(w)?;
    }
    let skips: Vec<&Value> = r.kind("skip").collect();
    if !skips.is_empty() {
        writeln!(w, "Not measured:\n")?;
        for skip in skips {
            writeln!(
                w,
                "- {} ({}): {}",
                r.describe("target", s(skip, "target")),
                r.describe("upstream", s(skip, "upstream")),
                s(skip, "value")
            )?;
        }
        writeln!(w)?;
    }

    writeln!(w, "## Lists\n")?;
    writeln!(
        w,
        "`tools/list` on Switchboard's `/mcp`, one session. \"First list\" is the first list \
         after the hub started: with fresh state it starts and lists every server; after a \
         restart it is answered from the saved warm catalog. The other figures are later \
         lists, answered from the in-memory catalog. The generator only counts the tools \
         (it does not build them), so the figures are the hub's.\n"
    )?;
    writeln!(
        w,
        "| setup | tools (+ built-in) | pages | response KiB | first list ms | p50 ms | p90 ms | p99 ms | hub CPU µs/list | hub RSS MiB | errors |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for l in r.kind("list") {
        let builtin = l
            .get("builtin_tools")
            .and_then(Value::as_u64)
            .filter(|&b| b > 0)
            .map_or(String::new(), |b| format!(" (+ {b})"));
        writeln!(
            w,
            "| {} | {}{builtin} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.describe("target", s(l, "target")),
            l.get("tools").unwrap_or(&Value::Null),
            l.get("pages").unwrap_or(&Value::Null),
            num(f(l, &["body_bytes"]).map(|b| b / 1024.0), 0),
            num(f(l, &["cold_ms"]), 1),
            ms(f(l, &["latency", "p50_us"])),
            ms(f(l, &["latency", "p90_us"])),
            ms(f(l, &["latency", "p99_us"])),
            num(cost(l, "proxy").and_then(|c| f(c, &["cpu_us_per_call"])), 0),
            num(
                cost(l, "proxy")
                    .and_then(|c| f(c, &["rss_max_kib"]))
                    .map(|k| k / 1024.0),
                1
            ),
            l.get("errors").unwrap_or(&Value::Null),
        )?;
    }
    writeln!(w)?;

    writeln!(w, "## Start-up and memory\n")?;
    writeln!(
        w,
        "`switchboard serve --listen 127.0.0.1:0` with N configured (lazy, never started) stdio \
         servers; \"address\" is when it printed its URL, \"ready\" when `/mcp` first answered \
         an `initialize`, both from process spawn. Idle RSS is VmRSS one second later.\n"
    )?;
    writeln!(
        w,
        "| servers | runs | address ms (median) | ready ms (median) | ready ms (max) | idle RSS MiB |\n|---|---|---|---|---|---|"
    )?;
    for st in r.kind("startup") {
        writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} |",
            st.get("servers").unwrap_or(&Value::Null),
            st.get("repeat").unwrap_or(&Value::Null),
            num(f(st, &["listen_ms_median"]), 1),
            num(f(st, &["ready_ms_median"]), 1),
            num(f(st, &["ready_ms_max"]), 1),
            num(f(st, &["idle_rss_kib_median"]).map(|k| k / 1024.0), 1),
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "RSS under load (peak VmRSS of the hub while serving calls, median over rounds):\n"
    )?;
    writeln!(
        w,
        "| upstream | path | 16 sessions MiB | 64 sessions MiB |\n|---|---|---|---|"
    )?;
    for upstream in r.order("upstream", None) {
        for target in ["hub-http", "hub-stdio", "hub-passthrough"] {
            let at = |c| r.cost_median(&upstream, target, c, "proxy", "rss_max_kib");
            if at(16).is_none() && at(64).is_none() {
                continue;
            }
            writeln!(
                w,
                "| {} | {} | {} | {} |",
                r.describe("upstream", &upstream),
                r.describe("target", target),
                num(at(16).map(|k| k / 1024.0), 1),
                num(at(64).map(|k| k / 1024.0), 1)
            )?;
        }
    }
    writeln!(w)?;

    let reloads: Vec<&Value> = r.kind("reload").collect();
    let fresh: Vec<&Value> = r.kind("freshness").collect();
    if !reloads.is_empty() || !fresh.is_empty() {
        writeln!(
            w,
            "## Reload and freshness
"
        )?;
        writeln!(
            w,
            "| what | runs | median ms | all runs ms |\n|---|---|---|---|"
        )?;
        let all = |v: &Value, key: &str| {
            v.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_f64)
                        .map(|x| format!("{x:.1}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        for rl in &reloads {
            let n = rl.get("servers").unwrap_or(&Value::Null);
            writeln!(
                w,
                "| config file rewritten with one more server (hub has {n}) → listed in `/api/v1/status` (file watcher, includes its 250 ms debounce) | {} | {} | {} |",
                rl.get("repeat").unwrap_or(&Value::Null),
                num(f(rl, &["watch_ms_median"]), 1),
                all(rl, "watch_ms")
            )?;
            writeln!(
                w,
                "| same, then `POST /api/v1/reload` → response (server listed) | {} | {} | {} |",
                rl.get("repeat").unwrap_or(&Value::Null),
                num(f(rl, &["api_ms_median"]), 1),
                all(rl, "api_ms")
            )?;
        }
        for fr in &fresh {
            writeln!(
                w,
                "| upstream (HTTP fixture) sends `tools/list_changed` → downstream session receives `tools/list_changed` (hub re-lists the upstream in between) | {} | {} | {} |",
                fr.get("repeat").unwrap_or(&Value::Null),
                num(f(fr, &["push_ms_median"]), 1),
                all(fr, "push_ms")
            )?;
            writeln!(
                w,
                "| fixture control file written → downstream notified (includes the fixture's 50 ms file poll) | {} | {} | {} |",
                fr.get("repeat").unwrap_or(&Value::Null),
                num(f(fr, &["total_ms_median"]), 1),
                all(fr, "total_ms")
            )?;
        }
        writeln!(
            w,
            "\nAfter each notification a `tools/list` on the same session must show the new tool.\n"
        )?;
    }

    let unmeasured: Vec<&Value> = r.kind("unmeasured").collect();
    if !unmeasured.is_empty() {
        writeln!(w, "## Not measured\n")?;
        for u in unmeasured {
            writeln!(w, "- **{}**: {}", s(u, "target"), s(u, "value"))?;
        }
        writeln!(w)?;
    }

    writeln!(w, "## Every run\n")?;
    writeln!(
        w,
        "| upstream | path | round | sessions | calls | calls/s | p50 ms | p90 ms | p99 ms | errors | proxy CPU µs/call | upstream CPU µs/call | generator CPU µs/call | other cores | load before |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for c in r.kind("call") {
        let cpu = |label| cost(c, label).and_then(|x| f(x, &["cpu_us_per_call"]));
        writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s(c, "upstream"),
            s(c, "target"),
            c.get("round").unwrap_or(&Value::Null),
            c.get("sessions").unwrap_or(&Value::Null),
            c.get("calls").unwrap_or(&Value::Null),
            num(f(c, &["rps"]), 0),
            ms(f(c, &["latency", "p50_us"])),
            ms(f(c, &["latency", "p90_us"])),
            ms(f(c, &["latency", "p99_us"])),
            c.get("errors").unwrap_or(&Value::Null),
            num(cpu("proxy"), 0),
            num(cpu("upstream"), 0),
            num(cpu("generator"), 0),
            num(f(c, &["other_cores"]), 2),
            num(f(c, &["load1_before"]), 2),
        )?;
    }
    writeln!(w)?;
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
