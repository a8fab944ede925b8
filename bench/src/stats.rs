//! Latency percentiles and what /proc says about the processes under test.

use std::time::Duration;

use anyhow::Context as _;
use serde::Serialize;

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    pub count: usize,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
}

/// Summarises latencies given in nanoseconds (sorts them in place).
pub fn latency(samples: &mut [u64]) -> Latency {
    if samples.is_empty() {
        return Latency::default();
    }
    samples.sort_unstable();
    let at = |q: f64| {
        let rank = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len());
        samples[rank - 1] as f64 / 1000.0
    };
    let sum: u128 = samples.iter().map(|&s| u128::from(s)).sum();
    Latency {
        count: samples.len(),
        p50_us: at(0.50),
        p90_us: at(0.90),
        p99_us: at(0.99),
        max_us: at(1.0),
        mean_us: sum as f64 / samples.len() as f64 / 1000.0,
    }
}

/// Resident set size of `pid` in KiB (VmRSS).
pub fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    status_field(pid, "VmRSS:")
}

fn status_field(pid: u32, field: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("no {field} in /proc/{pid}/status"))
}

/// CPU time (user + system) consumed so far by `pid` (all its threads).
pub fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    // Fields after the command name (which may contain spaces) start at ")".
    let rest = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .context("malformed /proc/PID/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 overall, i.e. 12 and 13 after ")".
    let ticks = |i: usize| -> anyhow::Result<u64> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .context("malformed /proc/PID/stat")
    };
    let total = ticks(11)? + ticks(12)?;
    let hz = clock_ticks_per_second();
    Ok(Duration::from_nanos(total * 1_000_000_000 / hz))
}

fn clock_ticks_per_second() -> u64 {
    // USER_HZ is 100 on every Linux architecture this runs on.
    100
}

/// CPU time all cores spent busy (user, nice, system, irq, softirq, steal)
/// since boot, from /proc/stat.
pub fn machine_busy() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal
    let busy: u64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| fields.get(i))
        .sum();
    Some(Duration::from_nanos(
        busy * 1_000_000_000 / clock_ticks_per_second(),
    ))
}

/// Waits until the whole machine is nearly idle: busy below `max_cores` over
/// a one-second window. Returns the last busy figure and whether it was reached.
pub async fn wait_quiet(max_cores: f64, timeout: Duration) -> (f64, bool) {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let before = machine_busy();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let busy = match (before, machine_busy()) {
            (Some(a), Some(b)) => b.saturating_sub(a).as_secs_f64(),
            _ => return (f64::NAN, true),
        };
        if busy <= max_cores {
            return (busy, true);
        }
        if tokio::time::Instant::now() >= deadline {
            return (busy, false);
        }
    }
}

/// The 1-minute load average.
pub fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// A labelled process (or all descendants of one) watched during a measurement.
#[derive(Debug, Clone)]
pub struct Watched {
    pub label: String,
    pub pid: u32,
    /// Watch every descendant of `pid` instead of `pid` itself (e.g. the
    /// stdio servers a proxy spawned), summed.
    pub descendants: bool,
}

impl std::str::FromStr for Watched {
    type Err = String;
    /// `LABEL=PID` or `LABEL=children:PID`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (label, pid) = s
            .split_once('=')
            .ok_or_else(|| format!("expected LABEL=PID or LABEL=children:PID, got {s:?}"))?;
        let (descendants, pid) = match pid.strip_prefix("children:") {
            Some(pid) => (true, pid),
            None => (false, pid),
        };
        let pid = pid.parse().map_err(|_| format!("bad pid in {s:?}"))?;
        Ok(Self {
            label: label.to_string(),
            pid,
            descendants,
        })
    }
}

impl Watched {
    /// The pids this watch covers now.
    pub fn resolve(&self) -> Vec<u32> {
        if !self.descendants {
            return vec![self.pid];
        }
        let mut found = Vec::new();
        let mut queue = vec![self.pid];
        while let Some(pid) = queue.pop() {
            for child in children(pid) {
                found.push(child);
                queue.push(child);
            }
        }
        found
    }
}

fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Summed CPU time of `pids` (those that still exist).
pub fn cpu_time_sum(pids: &[u32]) -> Option<Duration> {
    let times: Vec<Duration> = pids.iter().filter_map(|&p| cpu_time(p).ok()).collect();
    (!times.is_empty()).then(|| times.iter().sum())
}

/// Summed VmRSS of `pids` in KiB.
pub fn rss_sum_kib(pids: &[u32]) -> Option<u64> {
    let rss: Vec<u64> = pids.iter().filter_map(|&p| rss_kib(p).ok()).collect();
    (!rss.is_empty()).then(|| rss.iter().sum())
}

/// Per-process cost over a measurement window.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessCost {
    pub label: String,
    pub pids: Vec<u32>,
    /// CPU time per completed call, in microseconds.
    pub cpu_us_per_call: f64,
    /// Share of one core used during the window.
    pub cpu_cores: f64,
    /// Largest VmRSS sampled during the window, KiB.
    pub rss_max_kib: u64,
}

/// Samples the summed RSS of each pid set until told to stop; returns the peaks.
pub async fn sample_rss(
    watched: Vec<Vec<u32>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> Vec<u64> {
    let mut peaks = vec![0u64; watched.len()];
    let sample = |peaks: &mut Vec<u64>| {
        for (peak, pids) in peaks.iter_mut().zip(&watched) {
            if let Some(rss) = rss_sum_kib(pids) {
                *peak = (*peak).max(rss);
            }
        }
    };
    loop {
        sample(&mut peaks);
        tokio::select! {
            _ = &mut stop => break,
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
    sample(&mut peaks);
    peaks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let mut samples: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        let l = latency(&mut samples);
        assert_eq!(l.p50_us, 50.0);
        assert_eq!(l.p99_us, 99.0);
        assert_eq!(l.max_us, 100.0);
    }

    #[test]
    fn reads_its_own_process() {
        let pid = std::process::id();
        assert!(rss_kib(pid).unwrap() > 0);
        cpu_time(pid).unwrap();
        let w: Watched = format!("me=children:{pid}").parse().unwrap();
        assert!(w.descendants);
        assert!(
            "x=1"
                .parse::<Watched>()
                .is_ok_and(|w| w.resolve() == vec![1])
        );
    }
}
