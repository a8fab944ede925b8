//! The results of one run, loaded from its JSON-lines file, and the lookups
//! the report is made of: records by kind, medians over rounds, costs and
//! `tools/list` timings (old and new record shapes).

use anyhow::Context as _;
use serde_json::Value;

pub(super) struct Results {
    records: Vec<Value>,
}

pub(super) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(super) fn f(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_f64()
}

pub(super) fn median(mut values: Vec<f64>) -> Option<f64> {
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

pub(super) fn cost<'a>(record: &'a Value, label: &str) -> Option<&'a Value> {
    record
        .get("costs")?
        .as_array()?
        .iter()
        .find(|c| s(c, "label") == label)
}

/// The warm `tools/list` latency quantile `q` (e.g. `"p99_us"`) until the
/// answer's last byte was received. Records from before the two timings were
/// split have only the checked one (in `latency`), so none.
pub(super) fn list_received(list: &Value, q: &str) -> Option<f64> {
    list.get("checked_latency")?;
    f(list, &["latency", q])
}

/// The same until the answer was parsed and counted by the generator (what
/// older records call `latency`).
pub(super) fn list_checked(list: &Value, q: &str) -> Option<f64> {
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
    pub(super) fn load(path: &std::path::Path) -> anyhow::Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let records = text
            .lines()
            .filter(|l| l.trim_start().starts_with('{'))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        Ok(Self { records })
    }

    pub(super) fn info(&self, key: &str) -> Option<String> {
        self.kind("info")
            .find(|i| s(i, "key") == key)
            .map(|i| s(i, "value").to_string())
    }

    /// "370c0ed, 2026-11-30 02:19 UTC": which run this is, for column headers.
    pub(super) fn run_label(&self) -> Option<String> {
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

    pub(super) fn kind(&self, kind: &str) -> impl Iterator<Item = &Value> {
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
    pub(super) fn call_median(
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

    pub(super) fn cost_median(
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
    pub(super) fn added_p50_ms(&self, upstream: &str, target: &str) -> Option<f64> {
        let direct = self.call_median(upstream, "direct", 1, &["latency", "p50_us"]);
        let through = self.call_median(upstream, target, 1, &["latency", "p50_us"]);
        through.zip(direct).map(|(t, d)| (t - d) / 1000.0)
    }

    /// Throughput through `target` relative to direct, same session count.
    pub(super) fn ratio_direct(&self, upstream: &str, target: &str, sessions: u64) -> Option<f64> {
        let direct = self.call_median(upstream, "direct", sessions, &["rps"]);
        let through = self.call_median(upstream, target, sessions, &["rps"]);
        through.zip(direct).map(|(t, d)| t / d)
    }

    /// The `tools/list` measurement the goal is about: the most tools, fresh state.
    pub(super) fn big_list(&self) -> Option<&Value> {
        self.kind("list")
            .filter(|l| s(l, "target") == "lists")
            .max_by_key(|l| l.get("tools").and_then(Value::as_u64).unwrap_or(0))
    }

    pub(super) fn startup(&self, servers: u64) -> Option<&Value> {
        self.kind("startup")
            .find(|s| s.get("servers").and_then(Value::as_u64) == Some(servers))
    }

    pub(super) fn errors(&self, upstream: &str, target: &str) -> u64 {
        self.kind("call")
            .filter(|r| s(r, "upstream") == upstream && s(r, "target") == target)
            .filter_map(|r| r.get("errors").and_then(Value::as_u64))
            .sum()
    }

    pub(super) fn first_error(&self, upstream: &str, target: &str) -> Option<&str> {
        self.kind("call")
            .filter(|r| s(r, "upstream") == upstream && s(r, "target") == target)
            .find_map(|r| r.get("first_error").and_then(Value::as_str))
    }

    pub(super) fn describe(&self, kind: &str, name: &str) -> String {
        self.kind("describe")
            .find(|r| s(r, "key") == kind && s(r, "target") == name)
            .map(|r| s(r, "value").to_string())
            .unwrap_or_else(|| name.to_string())
    }

    /// Upstreams and targets in first-seen order.
    pub(super) fn order(&self, field: &str, upstream: Option<&str>) -> Vec<String> {
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

    pub(super) fn loads(&self) -> Vec<f64> {
        self.records
            .iter()
            .flat_map(|r| [f(r, &["load1_before"]), f(r, &["load1_after"])])
            .flatten()
            .filter(|l| l.is_finite())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
