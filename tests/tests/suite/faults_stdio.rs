//! One misbehaving stdio server never takes the hub down (issue 14, the
//! stdio-process items): bad stderr, a stdin the server stopped reading, an
//! answer over the message cap, and the hub dying under its servers.
//!
//! Each test runs the real `switchboard` binary against `switchboard-fixture`
//! processes that misbehave on purpose, and checks outcomes: the server's
//! pid, the status API, JSON-RPC errors, and processes and RSS from /proc.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::{process_ids, processes_with, rpc_error, spec_file};

/// A field of /proc/<pid>/status in KiB (`VmRSS`, `VmHWM`).
fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// Live (not zombie) processes whose process group is `pgid`.
fn group_members(pgid: u32) -> Vec<u32> {
    process_ids()
        .into_iter()
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // After the parenthesized command: state, ppid, pgrp.
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest.split_whitespace().collect())
                .unwrap_or_default();
            fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) && fields[0] != "Z"
        })
        .collect()
}

/// The guard processes (`switchboard __guard <pgid>`) watching group `pgid`.
fn guards_of(pgid: u32) -> Vec<u32> {
    processes_with("__guard")
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    c.split(|&b| b == 0)
                        .any(|arg| arg == pgid.to_string().as_bytes())
                })
                .unwrap_or(false)
        })
        .collect()
}

/// Waits until server `id`'s stderr (the live log endpoint) has `line`; returns it.
async fn stderr_until(hub: &Hub, id: &str, line: &str) -> Vec<String> {
    eventually(&format!("{line:?} on the stderr of {id}"), || async {
        let logs = hub.get(&format!("/api/v1/servers/{id}/logs")).await;
        let lines: Vec<String> = logs["stderr"]
            .as_array()?
            .iter()
            .filter_map(|l| l.as_str().map(str::to_string))
            .collect();
        lines.iter().any(|l| l == line).then_some(lines)
    })
    .await
}

fn with_call_secs(mut server: Value, secs: u64) -> Value {
    server["timeouts"] = json!({"callSecs": secs});
    server
}

fn pid_of(server: &ServerSnapshot) -> u32 {
    server.pid.expect("a pid")
}

#[tokio::test]
async fn stderr_with_invalid_utf8_or_a_200_mb_line_is_read_to_the_end() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "garbled": stdio_fixture(&["--tools", "echo", "--stderr-invalid-utf8"]),
        "flood": stdio_fixture(&["--tools", "echo", "--stderr-flood-bytes", "200000000"]),
    }}))
    .await
    .unwrap();
    let hub_pid = hub.child.id().unwrap();
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec!["flood__echo", "garbled__echo"]
    );
    let garbled_pid = pid_of(&hub.server_snapshot("garbled").await);
    let flood_pid = pid_of(&hub.server_snapshot("flood").await);

    // Reading goes on past the invalid bytes: ticks written after them arrive.
    let stderr = stderr_until(&hub, "garbled", "stderr tick 10").await;
    assert!(
        stderr
            .iter()
            .any(|l| l == "invalid utf-8 here: \u{FFFD}\u{FFFD} end"),
        "{stderr:?}"
    );

    // 200 MB without a newline: read to the end in pieces of at most 8 KiB.
    let stderr = stderr_until(&hub, "flood", "flood done").await;
    for line in &stderr {
        assert!(line.len() <= 8 * 1024, "a stderr line over 8 KiB");
    }
    assert!(
        stderr.len() > 100,
        "the long line was split: {} pieces kept",
        stderr.len()
    );
    let peak_kib = proc_kib(hub_pid, "VmHWM");
    eprintln!(
        "hub after 200 MB of stderr: VmHWM {} MiB, VmRSS {} MiB",
        peak_kib / 1024,
        proc_kib(hub_pid, "VmRSS") / 1024
    );
    assert!(peak_kib < 150 * 1024, "hub peak RSS {peak_kib} KiB");

    // Both servers are the same processes, alive, and answer.
    for (id, pid) in [("garbled", garbled_pid), ("flood", flood_pid)] {
        let server = hub.server_snapshot(id).await;
        assert_eq!(server.state, ServerState::Ready, "{server:?}");
        assert_eq!(pid_of(&server), pid);
        assert!(pid_alive(pid));
        let text = client
            .call_text(&format!("{id}__echo"), json!({"text": "still here"}))
            .await
            .unwrap();
        assert_eq!(text, "still here");
    }
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_server_that_stops_reading_stdin_fails_the_call_within_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        json!([{"name": "deafen", "behavior": "deaf"}, {"name": "echo"}]),
    );
    let mut hub = Hub::start(json!({"mcpServers": {
        "deaf": with_call_secs(stdio_fixture(&["--spec", &spec]), 2),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(
        client
            .call_text("deaf__deafen", json!({"text": "ok"}))
            .await
            .unwrap(),
        "ok"
    );
    let first_pid = pid_of(&hub.server_snapshot("deaf").await);
    assert_eq!(guards_of(first_pid).len(), 1, "one guard per server");

    // 256 KiB fill the pipe (64 KiB) and the server's read buffer; a second,
    // small call queues behind the stuck write (`join!` polls the big call
    // first, so it is sent first; either way the deaf server reads neither).
    let big = "x".repeat(256 * 1024);
    let started = Instant::now();
    let (first, second) = tokio::join!(
        client.call_text("deaf__echo", json!({"text": big})),
        client.call_text("deaf__echo", json!({"text": "small"})),
    );
    let elapsed = started.elapsed();
    eprintln!("both calls failed after {elapsed:?} (callSecs 2)");
    assert!(
        elapsed < Duration::from_secs(10),
        "the calls hung for {elapsed:?}"
    );
    for result in [first, second] {
        let err = result.unwrap_err();
        let err = rpc_error(&err);
        assert!(
            err.message
                .starts_with("server 'deaf' stopped reading its stdin"),
            "{}",
            err.message
        );
        assert_eq!(err.data.as_ref().unwrap()["kind"], "stdinStuck");
    }

    // The status says so, naming the server, until a new process answers.
    let server = hub
        .wait_for(
            "deaf",
            "the stuck stdin in the status",
            is::error_containing("stopped reading its stdin"),
        )
        .await;
    assert_eq!(server.state, ServerState::Failed, "{server:?}");
    assert_eq!(server.health, Health::Degraded, "{server:?}");
    assert!(last_error(&server).starts_with("server 'deaf'"));

    // The stuck process and its guard are gone; the next call starts a new one.
    eventually("the stuck server to be killed", || async {
        (!pid_alive(first_pid) && guards_of(first_pid).is_empty()).then_some(())
    })
    .await;
    assert_eq!(
        client
            .call_text("deaf__echo", json!({"text": "again"}))
            .await
            .unwrap(),
        "again"
    );
    let server = hub.server_snapshot("deaf").await;
    assert_eq!(server.state, ServerState::Ready);
    assert_ne!(pid_of(&server), first_pid);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn an_answer_over_the_cap_is_an_error_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        json!([{"name": "large", "behavior": "large"}, {"name": "echo"}]),
    );
    // A call timeout far above the time the answer takes: a timeout would show.
    let mut hub = Hub::start(json!({"mcpServers": {
        "big": with_call_secs(stdio_fixture(&["--spec", &spec]), 120),
    }}))
    .await
    .unwrap();
    let hub_pid = hub.child.id().unwrap();
    let client = hub.client().await;
    assert_eq!(
        client
            .call_text("big__echo", json!({"text": "a"}))
            .await
            .unwrap(),
        "a"
    );
    let pid = pid_of(&hub.server_snapshot("big").await);

    let started = Instant::now();
    let err = client
        .call_text("big__large", json!({"bytes": 20_000_000}))
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    let err = rpc_error(&err);
    assert!(
        err.message
            .starts_with("server 'big' answered with a message of 2000"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("larger than the limit of 16777216 bytes"),
        "{}",
        err.message
    );
    assert_eq!(err.data.as_ref().unwrap()["kind"], "answerTooLarge");
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    let peak_kib = proc_kib(hub_pid, "VmHWM");
    eprintln!(
        "a 20 MB answer refused after {elapsed:?}; hub VmHWM {} MiB",
        peak_kib / 1024
    );
    assert!(peak_kib < 200 * 1024, "hub peak RSS {peak_kib} KiB");

    // Same process, still answering; an answer under the cap goes through.
    assert_eq!(
        client
            .call_text("big__echo", json!({"text": "b"}))
            .await
            .unwrap(),
        "b"
    );
    let text = client
        .call_text("big__large", json!({"bytes": 1_000_000}))
        .await
        .unwrap();
    assert_eq!(text.len(), 1_000_000);
    let server = hub.server_snapshot("big").await;
    assert_eq!(pid_of(&server), pid);
    assert_eq!(server.state, ServerState::Ready);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn no_process_of_a_server_group_survives_a_killed_hub() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let mut hub = Hub::start(json!({"mcpServers": {
        "stubborn": stdio_fixture(&[
            "--tools", "echo",
            "--ignore-stdin-eof",
            "--spawn-grandchild", pidfile.to_str().unwrap(),
        ]),
        "plain": stdio_fixture(&["--tools", "echo"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec!["plain__echo", "stubborn__echo"]
    );
    let stubborn = pid_of(&hub.server_snapshot("stubborn").await);
    let plain = pid_of(&hub.server_snapshot("plain").await);
    let grandchild: u32 = eventually("the grandchild pid file", || async {
        std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok()
    })
    .await;
    let mut members = group_members(stubborn);
    members.sort_unstable();
    let mut expected = vec![stubborn, grandchild];
    expected.sort_unstable();
    assert_eq!(members, expected);
    let guards: Vec<u32> = [stubborn, plain]
        .iter()
        .flat_map(|&p| guards_of(p))
        .collect();
    assert_eq!(guards.len(), 2, "one guard per server");

    drop(client);
    let pid = hub.child.id().unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = hub.child.wait().await;
    let killed = Instant::now();

    // Within 5 s nothing of either group is left, and the guards are gone too.
    eventually("every server process and guard to be gone", || async {
        let left: Vec<u32> = [stubborn, plain]
            .iter()
            .flat_map(|&g| group_members(g))
            .chain(guards.iter().copied().filter(|&g| pid_alive(g)))
            .collect();
        left.is_empty().then_some(())
    })
    .await;
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "server processes outlived the hub by {:?}",
        killed.elapsed()
    );
    eprintln!(
        "every server process gone {:?} after kill -9 of the hub",
        killed.elapsed()
    );
}
