//! The hub's log under floods that come from its own work, read from the real
//! binary's stderr: sessions closed for `maxSessions` in bulk are summarised
//! (crates/switchboard-core/src/sessions/evictions.rs), and many upstreams
//! whose connects fail leave no rmcp ERROR line and no Rust type in the log
//! (the subscriber set-up in crates/switchboard/src/main.rs).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Map, Value, json};
use switchboard_e2e::raw::RawMcp as Raw;
use switchboard_e2e::{Hub, TestHub, eventually, free_port};

/// The counts of the session summary lines in `log`, one per line.
fn eviction_counts(log: &str) -> Vec<u64> {
    log.lines()
        .filter_map(|line| {
            line.split_once("session limit reached: closed ")?
                .1
                .split_once(' ')
        })
        .map(|(n, _)| n.parse().unwrap())
        .collect()
}

#[tokio::test]
async fn sessions_evicted_in_bulk_log_a_bounded_number_of_lines() {
    let hub = Hub::start(json!({"mcpServers": {}, "settings": {"maxSessions": 5}}))
        .await
        .unwrap();
    // 300 clients that initialize and never come back: 295 are closed.
    for _ in 0..300 {
        let mut raw = Raw::new(&hub.url);
        assert_eq!(raw.initialize().await.status, 200);
    }
    // Every eviction is counted in some summary line, the last one at the
    // end of its interval.
    let lines = eventually("the summary of all 295 evictions", || async {
        let counts = eviction_counts(&hub.log());
        (counts.iter().sum::<u64>() == 295).then_some(counts)
    })
    .await;
    // One line per 10 s, plus one at the end of each interval: 295 before.
    assert!(lines.len() < 30, "{} summary lines: {lines:?}", lines.len());
    assert!(
        !hub.log()
            .contains("closing the least recently used idle session"),
        "a line per eviction is still written"
    );
}

#[tokio::test]
async fn failed_connects_log_no_rmcp_errors_and_no_rust_types() {
    // 200 HTTP servers where nothing listens.
    let port = free_port();
    let servers: Map<String, Value> = (0..200)
        .map(|i| {
            (
                format!("down{i}"),
                json!({"url": format!("http://127.0.0.1:{port}/mcp")}),
            )
        })
        .collect();
    // The default log filter, as a user runs it.
    let hub = Hub::start_with_env(json!({"mcpServers": servers}), &[("RUST_LOG", "")])
        .await
        .unwrap();
    let (code, answer) = hub.post("/api/v1/refresh").await;
    assert_eq!(code, 200, "{answer}");
    let failed = answer["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ok"] == false)
        .count();
    assert_eq!(failed, 200, "{answer}");

    let log = hub.log();
    // The hub's own words: each try of a start is a line, up to a burst.
    assert!(
        log.contains("upstream failed to start") && log.contains("connection refused"),
        "{log}"
    );
    let rmcp_errors = log
        .lines()
        .filter(|l| l.contains("ERROR") && l.contains("rmcp"))
        .count();
    assert_eq!(rmcp_errors, 0, "rmcp ERROR lines in the log");
    for rust in [
        "ServiceError",
        "Transport channel",
        "reqwest::Error",
        "Some(",
        "{ kind",
        "Os {",
    ] {
        let line = log.lines().find(|l| l.contains(rust));
        assert!(line.is_none(), "a Rust type ({rust}) in the log: {line:?}");
    }
    let start_lines = log.matches("upstream failed to start").count();
    assert!(
        start_lines < 200,
        "{start_lines} lines for 600 failed tries (a burst of 20 per 10 s)"
    );
}
