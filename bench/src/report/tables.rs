//! The report's sections after the goals (and "Before and after"): call
//! overhead per upstream, lists, start-up and memory, reload and freshness,
//! what was not measured, and every run.

use std::fmt::Write as _;

use serde_json::Value;

use super::results::{Results, cost, f, list_checked, list_received, s};
use super::{ms, num};

/// "Call overhead": one table per upstream, then the targets that could not be measured.
pub(super) fn call_overhead(w: &mut String, r: &Results) -> anyhow::Result<()> {
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
    Ok(())
}

/// "Lists": `tools/list` latency, size and cost per setup.
pub(super) fn lists(w: &mut String, r: &Results) -> anyhow::Result<()> {
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
    Ok(())
}

/// "Start-up and memory": time to address and ready, idle RSS, RSS under load.
pub(super) fn startup_and_memory(w: &mut String, r: &Results) -> anyhow::Result<()> {
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
        for target in ["hub-http", "hub-stdio", "hub-passthrough", "hub-stdio-2026"] {
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
    Ok(())
}

/// "Reload and freshness", if the run measured them.
pub(super) fn reload_and_freshness(w: &mut String, r: &Results) -> anyhow::Result<()> {
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
    Ok(())
}

/// "Not measured": features the hub lacks, if any.
pub(super) fn not_measured(w: &mut String, r: &Results) -> anyhow::Result<()> {
    let unmeasured: Vec<&Value> = r.kind("unmeasured").collect();
    if !unmeasured.is_empty() {
        writeln!(w, "## Not measured\n")?;
        for u in unmeasured {
            writeln!(w, "- **{}**: {}", s(u, "target"), s(u, "value"))?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// "Every run": one row per call measurement.
pub(super) fn every_run(w: &mut String, r: &Results) -> anyhow::Result<()> {
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
    Ok(())
}
