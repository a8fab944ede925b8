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

/// The warm `tools/list` latency quantile `q` (e.g. `"p99_us"`) until the
/// answer's last byte was received. Records from before the two timings were
/// split have only the checked one (in `latency`), so none.
fn list_received(list: &Value, q: &str) -> Option<f64> {
    list.get("checked_latency")?;
    f(list, &["latency", q])
}

/// The same until the answer was parsed and counted by the generator (what
/// older records call `latency`).
fn list_checked(list: &Value, q: &str) -> Option<f64> {
    match list.get("checked_latency") {
        Some(checked) => f(checked, &[q]),
        None => f(list, &["latency", q]),
    }
}

/// The commit a run measured, from its `versions` note
/// ("switchboard 0.1.0 (built from 370c0ed, binary of …), …").
fn built_from(versions: &str) -> Option<&str> {
    let rest = versions.split_once("built from ")?.1;
    let end = rest
        .find(", binary of")
        .or_else(|| rest.find(')'))
        .unwrap_or(rest.len());
    Some(rest[..end].trim()).filter(|c| !c.is_empty())
}

impl Results {
    fn load(path: &std::path::Path) -> anyhow::Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let records = text
            .lines()
            .filter(|l| l.trim_start().starts_with('{'))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        Ok(Self { records })
    }

    fn info(&self, key: &str) -> Option<String> {
        self.kind("info")
            .find(|i| s(i, "key") == key)
            .map(|i| s(i, "value").to_string())
    }

    /// "370c0ed, 2026-11-30 02:19 UTC": which run this is, for column headers.
    fn run_label(&self) -> Option<String> {
        let versions = self.info("versions");
        let parts: Vec<String> = [
            versions.as_deref().and_then(built_from).map(str::to_string),
            self.info("date"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }

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

    /// The 1-session p50 through `target` minus the direct one, in ms.
    fn added_p50_ms(&self, upstream: &str, target: &str) -> Option<f64> {
        let direct = self.call_median(upstream, "direct", 1, &["latency", "p50_us"]);
        let through = self.call_median(upstream, target, 1, &["latency", "p50_us"]);
        through.zip(direct).map(|(t, d)| (t - d) / 1000.0)
    }

    /// Throughput through `target` relative to direct, same session count.
    fn ratio_direct(&self, upstream: &str, target: &str, sessions: u64) -> Option<f64> {
        let direct = self.call_median(upstream, "direct", sessions, &["rps"]);
        let through = self.call_median(upstream, target, sessions, &["rps"]);
        through.zip(direct).map(|(t, d)| t / d)
    }

    /// The `tools/list` measurement the goal is about: the most tools, fresh state.
    fn big_list(&self) -> Option<&Value> {
        self.kind("list")
            .filter(|l| s(l, "target") == "lists")
            .max_by_key(|l| l.get("tools").and_then(Value::as_u64).unwrap_or(0))
    }

    fn startup(&self, servers: u64) -> Option<&Value> {
        self.kind("startup")
            .find(|s| s.get("servers").and_then(Value::as_u64) == Some(servers))
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

/// How a "Before and after" row states the change.
#[derive(Clone, Copy)]
enum Change {
    /// now − before, with this many digits and this unit ("−0.031 ms").
    Diff(usize, &'static str),
    /// now ÷ before: a percentage, or "×2.3" from double on.
    Relative,
    /// Not comparable.
    None,
}

/// `+1.50` / `−1.50` / `±0.00`, with a real minus sign.
fn signed(x: f64, digits: usize) -> String {
    let magnitude = format!("{:.digits$}", x.abs());
    if magnitude.trim_start_matches(['0', '.']).is_empty() {
        format!("±{magnitude}")
    } else if x < 0.0 {
        format!("−{magnitude}")
    } else {
        format!("+{magnitude}")
    }
}

fn change(before: Option<f64>, now: Option<f64>, how: Change) -> String {
    let Some((b, n)) = before
        .zip(now)
        .filter(|(b, n)| b.is_finite() && n.is_finite())
    else {
        return "—".into();
    };
    match how {
        Change::None => "—".into(),
        Change::Diff(digits, unit) => format!("{}{unit}", signed(n - b, digits)),
        Change::Relative if b <= 0.0 => "—".into(),
        Change::Relative => {
            let ratio = n / b;
            if ratio >= 2.0 {
                format!("×{ratio:.1}")
            } else {
                format!("{}%", signed((ratio - 1.0) * 100.0, 0))
            }
        }
    }
}

/// One key figure, before and now.
struct Figure {
    label: String,
    before: Option<f64>,
    now: Option<f64>,
    digits: usize,
    suffix: &'static str,
    change: Change,
}

/// The "Before and after" section: key figures of this run next to an
/// earlier run's (medians over rounds, as in the tables).
fn before_and_after(
    w: &mut String,
    now: &Results,
    before: &Results,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let both = |get: &dyn Fn(&Results) -> Option<f64>| (get(before), get(now));
    let mut rows: Vec<Figure> = Vec::new();
    let mut row = |label: String,
                   (b, n): (Option<f64>, Option<f64>),
                   digits: usize,
                   suffix: &'static str,
                   change: Change| {
        rows.push(Figure {
            label,
            before: b,
            now: n,
            digits,
            suffix,
            change,
        });
    };
    let ms_diff = Change::Diff(3, " ms");
    for (upstream, name, targets) in [
        (
            "fixture",
            "fixture",
            &["hub-http", "hub-stdio", "hub-passthrough"][..],
        ),
        (
            "everything",
            "server-everything",
            &["hub-http", "hub-stdio"][..],
        ),
    ] {
        for &target in targets {
            let path = format!("{name}, {}", now.describe("target", target));
            if upstream == "fixture" {
                row(
                    format!("{path}: added p50 ms, 1 session"),
                    both(&|r| r.added_p50_ms(upstream, target)),
                    3,
                    "",
                    ms_diff,
                );
            }
            row(
                format!("{path}: calls/s, 16 sessions"),
                both(&|r| r.call_median(upstream, target, 16, &["rps"])),
                0,
                "",
                Change::Relative,
            );
            row(
                format!("{path}: ×direct, 16 sessions"),
                both(&|r| r.ratio_direct(upstream, target, 16)),
                2,
                "×",
                Change::Diff(2, ""),
            );
            if upstream == "fixture" {
                row(
                    format!("{path}: proxy CPU µs/call, 16 sessions"),
                    both(&|r| r.cost_median(upstream, target, 16, "proxy", "cpu_us_per_call")),
                    0,
                    "",
                    Change::Relative,
                );
            }
        }
    }
    let tools = |r: &Results| {
        r.big_list()
            .and_then(|l| l.get("tools"))
            .and_then(Value::as_u64)
    };
    // Lists of different sizes are not compared (e.g. a smoke run's).
    let same_list = tools(before) == tools(now);
    let list_change = if same_list {
        Change::Relative
    } else {
        Change::None
    };
    let listing = match (tools(before), tools(now)) {
        (Some(b), Some(n)) if b != n => format!("tools/list of {n} tools (before: {b})"),
        (b, n) => n
            .or(b)
            .map_or("tools/list".into(), |t| format!("tools/list of {t} tools")),
    };
    // Older records timed lists only until the answer was parsed and counted.
    let only_checked = before
        .big_list()
        .is_some_and(|l| l.get("checked_latency").is_none());
    let list_ms = |r: &Results, get: fn(&Value, &str) -> Option<f64>, q: &str| {
        r.big_list().and_then(|l| get(l, q)).map(|us| us / 1000.0)
    };
    for (q, name) in [("p50_us", "p50"), ("p99_us", "p99")] {
        row(
            format!("{listing}: {name} ms, answer received"),
            both(&|r| list_ms(r, list_received, q)),
            3,
            "",
            list_change,
        );
        row(
            format!(
                "{listing}: {name} ms, answer checked{}",
                if only_checked {
                    " (the only figure the baseline has)"
                } else {
                    ""
                }
            ),
            both(&|r| list_ms(r, list_checked, q)),
            3,
            "",
            list_change,
        );
    }
    row(
        format!("{listing}: hub CPU µs/list"),
        both(&|r| {
            r.big_list()
                .and_then(|l| cost(l, "proxy"))
                .and_then(|c| f(c, &["cpu_us_per_call"]))
        }),
        0,
        "",
        list_change,
    );
    row(
        "ready ms with 100 servers (median)".into(),
        both(&|r| r.startup(100).and_then(|s| f(s, &["ready_ms_median"]))),
        1,
        "",
        Change::Diff(1, " ms"),
    );
    for servers in [0, 100] {
        row(
            format!("idle RSS MiB, {servers} servers"),
            both(&|r| {
                r.startup(servers)
                    .and_then(|s| f(s, &["idle_rss_kib_median"]))
                    .map(|k| k / 1024.0)
            }),
            1,
            "",
            Change::Diff(1, " MiB"),
        );
    }

    writeln!(w, "## Before and after\n")?;
    writeln!(
        w,
        "Key figures of this run next to an earlier run's results, `{}`{}. Medians over \
         rounds, taken as in the tables below; \"—\": the figure is missing on that side.\n",
        path.display(),
        before
            .info("versions")
            .map_or(String::new(), |v| format!(" ({v})"))
    )?;
    writeln!(
        w,
        "| figure | before ({}) | now{} | change |\n|---|---|---|---|",
        before.run_label().unwrap_or_else(|| "baseline".into()),
        now.run_label().map_or(String::new(), |l| format!(" ({l})")),
    )?;
    for fig in rows {
        let value = |v: Option<f64>| {
            v.map_or("—".into(), |v| {
                format!("{}{}", num(Some(v), fig.digits), fig.suffix)
            })
        };
        writeln!(
            w,
            "| {} | {} | {} | {} |",
            fig.label,
            value(fig.before),
            value(fig.now),
            change(fig.before, fig.now, fig.change)
        )?;
    }
    writeln!(w)?;
    Ok(())
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
        before_and_after(w, &r, before, path)?;
    }

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
        for target in r.order("target", Some(&upstream)) {
            let m = |c: u64, path: &[&str]| r.call_median(&upstream, &target, c, path);
            let p50 = m(1, &["latency", "p50_us"]);
            let through = target != "direct";
            let added = r.added_p50_ms(&upstream, &target).filter(|_| through);
            let ratio = |c: u64| r.ratio_direct(&upstream, &target, c).filter(|_| through);
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
         lists, answered from the in-memory catalog. Their latency (p50/p90/p99) runs from \
         sending the request to receiving the last byte of the answer (pages summed). Only \
         then does the generator parse every answer and count its tools (a wrong count is an \
         error); that parse is included in the \"checked\" columns (request → answer parsed \
         and counted) and in \"first list\", and costs the same whichever server answers.\n"
    )?;
    writeln!(
        w,
        "| setup | tools (+ built-in) | pages | response KiB | first list ms | p50 ms | p90 ms | p99 ms | checked p50 ms | checked p99 ms | hub CPU µs/list | hub RSS MiB | errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )?;
    for l in r.kind("list") {
        let builtin = l
            .get("builtin_tools")
            .and_then(Value::as_u64)
            .filter(|&b| b > 0)
            .map_or(String::new(), |b| format!(" (+ {b})"));
        writeln!(
            w,
            "| {} | {}{builtin} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.describe("target", s(l, "target")),
            l.get("tools").unwrap_or(&Value::Null),
            l.get("pages").unwrap_or(&Value::Null),
            num(f(l, &["body_bytes"]).map(|b| b / 1024.0), 0),
            num(f(l, &["cold_ms"]), 1),
            ms(list_received(l, "p50_us")),
            ms(list_received(l, "p90_us")),
            ms(list_received(l, "p99_us")),
            ms(list_checked(l, "p50_us")),
            ms(list_checked(l, "p99_us")),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changes_read_as_differences_or_ratios() {
        assert_eq!(
            change(Some(0.58), Some(0.27), Change::Diff(3, " ms")),
            "−0.310 ms"
        );
        assert_eq!(change(Some(100.0), Some(38.0), Change::Relative), "−62%");
        assert_eq!(change(Some(100.0), Some(190.0), Change::Relative), "+90%");
        assert_eq!(change(Some(100.0), Some(230.0), Change::Relative), "×2.3");
        assert_eq!(change(Some(5.0), Some(5.0), Change::Relative), "±0%");
        assert_eq!(change(None, Some(5.0), Change::Relative), "—");
        assert_eq!(change(Some(0.0), Some(5.0), Change::Relative), "—");
    }

    #[test]
    fn old_list_records_have_only_the_checked_latency() {
        let old = json!({"latency": {"p99_us": 26000.0}});
        assert_eq!(list_received(&old, "p99_us"), None);
        assert_eq!(list_checked(&old, "p99_us"), Some(26000.0));
        let new = json!({"latency": {"p99_us": 900.0}, "checked_latency": {"p99_us": 5000.0}});
        assert_eq!(list_received(&new, "p99_us"), Some(900.0));
        assert_eq!(list_checked(&new, "p99_us"), Some(5000.0));
    }

    #[test]
    fn finds_the_measured_commit() {
        assert_eq!(
            built_from("switchboard 0.1.0 (built from 370c0ed, binary of 02:04 UTC), rustc 1.95.0"),
            Some("370c0ed")
        );
        assert_eq!(
            built_from(
                "switchboard 0.1.0 (built from abc + uncommitted changes in crates/, binary of 02:04 UTC)"
            ),
            Some("abc + uncommitted changes in crates/")
        );
        assert_eq!(built_from("switchboard 0.1.0"), None);
    }
}
