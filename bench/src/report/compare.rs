//! The "Before and after" section: key figures of this run next to an earlier
//! run's (`--baseline`), each with its change.

use std::fmt::Write as _;

use serde_json::Value;

use super::num;
use super::results::{Results, cost, f, list_checked, list_received};

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
pub(super) fn before_and_after(
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
            &["hub-http", "hub-stdio", "hub-passthrough", "hub-stdio-2026"][..],
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
