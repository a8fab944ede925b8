//! A server that floods the hub with notifications costs it bounded memory and
//! log, the other servers keep answering meanwhile, and the flooding server's
//! tools still list correctly afterwards. Also: a normal run's log, with the
//! default filter, holds no colour codes and no rmcp INFO lines.
//!
//! Memory is read from `/proc/<hub pid>/status` (`VmHWM`: the peak resident
//! set over the hub's whole life). The hubs here run with the default log
//! filter (`RUST_LOG` empty), as a user's hub does.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Logging and resources/subscribe are deprecated only for protocol 2026-07-28.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
    LoggingMessageNotificationParam, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject, ResourceUpdatedNotificationParam, SubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use tokio::time::{Instant, timeout};

/// Notifications in the big flood.
const FLOOD: u64 = 500_000;
/// The most a flood may take to go through the hub (a debug build on a
/// shared machine): proves "no hang", not speed.
const FLOOD_DEADLINE: Duration = Duration::from_secs(300);
/// The most one call of the healthy server may take during a flood.
const CALL_DEADLINE: Duration = Duration::from_secs(20);
const PEAK_RSS_LIMIT_KB: u64 = 200 * 1024;
const LOG_LIMIT_BYTES: u64 = 5 * 1024 * 1024;

/// A hub with the default log filter, as a user runs it.
async fn hub(servers: Value) -> Hub {
    Hub::start_with_env(json!({ "mcpServers": servers }), &[("RUST_LOG", "")])
        .await
        .unwrap()
}

/// A field of `/proc/<pid>/status`, in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Whether the fixture `id` has written `flood sent <n> ...` to stderr.
async fn flood_sent(hub: &Hub, id: &str) -> Option<String> {
    let logs = hub.get(&format!("/api/v1/servers/{id}/logs")).await;
    logs["stderr"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|line| line.contains("flood sent"))
        .map(str::to_string)
}

fn assert_bounded(hub: &Hub, pid: u32) {
    let peak = status_kb(pid, "VmHWM");
    assert!(
        peak < PEAK_RSS_LIMIT_KB,
        "hub peak RSS {peak} kB, limit {PEAK_RSS_LIMIT_KB} kB"
    );
    let log = std::fs::metadata(&hub.log_path).unwrap().len();
    assert!(
        log < LOG_LIMIT_BYTES,
        "hub log {log} bytes, limit {LOG_LIMIT_BYTES}"
    );
    eprintln!("hub peak RSS {peak} kB, log {log} bytes");
}

#[tokio::test]
async fn a_list_changed_flood_costs_bounded_memory_and_log() {
    let count = FLOOD.to_string();
    let mut hub = hub(json!({
        "flooder": stdio_fixture(&["--tools", "a,b", "--flood", &count]),
        "healthy": stdio_fixture(&["--tools", "echo"]),
    }))
    .await;
    let pid = hub.child.id().unwrap();
    let client = hub.client().await;
    // The first list starts both servers; the flood starts once the flooder
    // is initialized.
    let expected = ["flooder__a", "flooder__b", "healthy__echo"];
    assert_eq!(client.tool_names().await, expected);

    // The healthy server answers all along; count the calls answered before
    // the flooder has finished writing.
    let started = Instant::now();
    let (mut calls, mut during) = (0u64, 0u64);
    let sent = loop {
        let text = format!("ping {calls}");
        let answer = timeout(
            CALL_DEADLINE,
            client.call_text("healthy__echo", json!({ "text": text })),
        )
        .await
        .expect("a call of the healthy server hung during the flood")
        .unwrap();
        assert_eq!(answer, text);
        calls += 1;
        match flood_sent(&hub, "flooder").await {
            Some(line) => break line,
            None => during += 1,
        }
        assert!(
            started.elapsed() < FLOOD_DEADLINE,
            "the flood did not go through in {FLOOD_DEADLINE:?} ({calls} calls answered)"
        );
    };
    assert_eq!(sent, format!("flood sent {FLOOD} tools"));
    assert!(
        during > 0,
        "no call was made while the flood ran ({calls} calls)"
    );
    eprintln!(
        "flood of {FLOOD} went through in {:?}; {during} healthy calls answered during it",
        started.elapsed()
    );

    // Afterwards the flooding server still lists and answers correctly.
    assert_eq!(client.tool_names().await, expected);
    assert_eq!(
        client
            .call_text("flooder__a", json!({"text": "after"}))
            .await
            .unwrap(),
        "after"
    );
    assert_eq!(
        hub.server_snapshot("flooder").await.state,
        ServerState::Ready
    );
    assert_bounded(&hub, pid);
    // The flood left no trace of its own in the log: its warnings (if any)
    // are limited, and rmcp's per-message INFO lines are off by default.
    let log = hub.log();
    assert!(
        !log.contains("received notification"),
        "rmcp INFO lines in the log"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

/// Counts what the flood tests' client receives.
#[derive(Clone, Default)]
struct Counter {
    logs: Arc<AtomicUsize>,
    dropped_notes: Arc<std::sync::Mutex<Vec<String>>>,
    progress: Arc<AtomicUsize>,
    updates: Arc<AtomicUsize>,
}

impl ClientHandler for Counter {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("faults-flood", "0"),
        )
    }

    #[allow(deprecated)] // logging is deprecated only for protocol 2026-07-28
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        match params.data.as_str() {
            Some(text) if text.starts_with("Switchboard dropped") => {
                self.dropped_notes.lock().unwrap().push(text.to_string());
            }
            _ => {
                self.logs.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    async fn on_progress(&self, _: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        self.progress.fetch_add(1, Ordering::SeqCst);
    }

    async fn on_resource_updated(
        &self,
        _: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.updates.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn log_progress_and_update_floods_are_bounded_where_they_are_forwarded() {
    const COUNT: u64 = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.json");
    std::fs::write(
        &spec,
        serde_json::to_vec(&json!({
            "tools": [{"name": "flood", "behavior": "flood"}],
            "resources": [{"uri": "fixture://flood", "name": "flood", "text": "x"}],
        }))
        .unwrap(),
    )
    .unwrap();
    let spec = spec.to_string_lossy().to_string();
    let mut hub = hub(json!({
        "f": stdio_fixture(&["--spec", &spec]),
        "healthy": stdio_fixture(&["--tools", "echo"]),
    }))
    .await;
    let pid = hub.child.id().unwrap();
    let counter = Counter::default();
    let client = counter
        .clone()
        .serve(StreamableHttpClientTransport::from_uri(hub.url.clone()))
        .await
        .unwrap();
    client
        .subscribe(SubscribeRequestParams::new("fixture://flood"))
        .await
        .unwrap();

    let mut log_flood = Duration::ZERO;
    for kind in ["log", "progress", "updated"] {
        let started = Instant::now();
        let mut params = CallToolRequestParams::new("f__flood");
        params.arguments = json!({"count": COUNT, "kind": kind}).as_object().cloned();
        // Asking for progress makes the hub forward the progress flood.
        params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
            NumberOrString::String(kind.into()),
        )));
        let call = client.call_tool(params);
        let healthy = async {
            // The healthy server answers while the flood runs.
            let mut params = CallToolRequestParams::new("healthy__echo");
            params.arguments = json!({"text": "pong"}).as_object().cloned();
            timeout(CALL_DEADLINE, client.call_tool(params))
                .await
                .expect("a call of the healthy server hung during the flood")
                .unwrap()
        };
        let (result, pong) = tokio::join!(timeout(FLOOD_DEADLINE, call), healthy);
        let result = result.expect("the flood call did not finish").unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        assert_eq!(text, format!("flooded {COUNT}"));
        assert_eq!(pong.content[0].as_text().unwrap().text, "pong");
        eprintln!("{kind} flood of {COUNT} took {:?}", started.elapsed());
        if kind == "log" {
            log_flood = started.elapsed();
        }
    }

    // Log messages: at most 100 a second reach the client, and it is told
    // how many were dropped (the last report comes a second after the flood).
    let log_flood_secs = log_flood.as_secs() + 2;
    let dropped = switchboard_e2e::eventually("a dropped-log report", || async {
        let notes = counter.dropped_notes.lock().unwrap().clone();
        let total: u64 = notes
            .iter()
            .filter_map(|n| n.split_whitespace().nth(2)?.parse::<u64>().ok())
            .sum();
        (total > 0).then_some(total)
    })
    .await;
    let logs = counter.logs.load(Ordering::SeqCst) as u64;
    assert!(
        logs <= 100 * log_flood_secs && logs + dropped <= COUNT,
        "{logs} log messages forwarded, {dropped} reported dropped, in about {log_flood_secs} s"
    );
    let notes = counter.dropped_notes.lock().unwrap().clone();
    assert!(notes[0].contains("log messages of server 'f'"), "{notes:?}");
    // Resource updates are coalesced per URI.
    let updates = counter.updates.load(Ordering::SeqCst);
    assert!(
        (1..(COUNT as usize) / 10).contains(&updates),
        "{updates} resources/updated forwarded for {COUNT}"
    );
    eprintln!(
        "forwarded: {logs} log messages ({dropped} dropped), {} progress, {updates} updates",
        counter.progress.load(Ordering::SeqCst)
    );
    assert_bounded(&hub, pid);
    drop(client);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_normal_run_logs_no_colour_and_no_rmcp_info() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.json");
    let control_arg = control.to_string_lossy().to_string();
    let mut hub = hub(json!({
        "a": stdio_fixture(&["--tools", "x", "--control", &control_arg]),
        "b": stdio_fixture(&["--tools", "y"]),
    }))
    .await;
    // A normal run: two clients list, call, and hear a list change.
    let first = hub.client().await;
    let second = hub.client().await;
    assert_eq!(first.tool_names().await, ["a__x", "b__y"]);
    assert_eq!(second.tool_names().await, ["a__x", "b__y"]);
    assert_eq!(
        first
            .call_text("b__y", json!({"text": "hi"}))
            .await
            .unwrap(),
        "hi"
    );
    switchboard_e2e::write_control(
        &control,
        json!({"tools": [{"name": "x"}, {"name": "z"}], "notify": true}),
    );
    first.received.wait_tools_changed(1).await;
    assert_eq!(first.tool_names().await, ["a__x", "a__z", "b__y"]);
    drop((first, second));
    assert_eq!(hub.terminate().await, Some(0));

    let log = hub.log();
    assert!(!log.contains('\u{1b}'), "ANSI escape in the log:\n{log}");
    let rmcp_info: Vec<_> = log
        .lines()
        .filter(|line| line.contains(" INFO ") && line.contains("rmcp"))
        .collect();
    assert!(rmcp_info.is_empty(), "rmcp INFO lines: {rmcp_info:#?}");
    // The hub's own INFO lines are still there.
    assert!(
        log.lines()
            .any(|line| line.contains(" INFO switchboard_core::")
                && line.contains(": catalog changed")),
        "no hub INFO line:\n{log}"
    );
}
