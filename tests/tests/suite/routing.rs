//! Routing by a name's server part, one cold-start wait shared by every list,
//! and upstream failures told in plain words (issue 14: "Timeouts and errors
//! that say what happened").

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{HttpFixture, free_port, rpc_error};

/// What a person must never read in an error: Rust paths and generics.
fn assert_plain(what: &str, text: &str) {
    for bad in ["rmcp", "::", "WorkerTransport", "Transport [", "<", "Some("] {
        assert!(!text.contains(bad), "{what} names a Rust type: {text}");
    }
}

#[tokio::test]
async fn a_name_of_no_configured_server_fails_at_once_without_starting_anything() {
    let mut hub = Hub::start(json!({"mcpServers": {
        // Would take 20 s to start: routing must not wait for it.
        "slow": stdio_fixture(&["--tools", "x", "--startup-delay-ms", "20000"]),
        "a": stdio_fixture(&["--tools", "x"]),
        "a__b": stdio_fixture(&["--tools", "y"]),
        "gh": {"command": "/nonexistent/never-started", "namespace": "github"},
        "off": {"command": "/nonexistent/never-started", "enabled": false},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;

    let started = Instant::now();
    let err = client
        .call_text("nosuchserver__x", json!({}))
        .await
        .unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(err.code.0, -32602);
    assert_eq!(
        err.message,
        "unknown tool 'nosuchserver__x': no server 'nosuchserver' is configured"
    );
    assert_eq!(
        err.data,
        Some(json!({"tool": "nosuchserver__x", "kind": "noSuchServer"}))
    );
    // A bare name, a disabled server, and an id whose names carry a namespace.
    let err = client.call_text("x", json!({})).await.unwrap_err();
    assert_eq!(
        rpc_error(&err).message,
        "unknown tool 'x': tool names are '<server>__<tool>'"
    );
    let err = client.call_text("off__x", json!({})).await.unwrap_err();
    assert_eq!(
        rpc_error(&err).message,
        "unknown tool 'off__x': server 'off' is disabled"
    );
    let err = client.call_text("gh__x", json!({})).await.unwrap_err();
    assert_eq!(
        rpc_error(&err).message,
        "unknown tool 'gh__x': server 'gh' names its tools 'github__<name>'"
    );
    // Well below the 20 s the slow server would have cost (a generous bound).
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // Nothing was started for those names.
    for id in ["slow", "a", "a__b", "gh"] {
        let server = hub.server_snapshot(id).await;
        assert_eq!(
            (server.state, server.pid),
            (ServerState::Idle, None),
            "{server:?}"
        );
    }

    // Ids with `__`: "a__b__y" may be server "a" or "a__b"; both are listed
    // (never were), and the one that has it answers.
    assert_eq!(
        client
            .call_text("a__b__y", json!({"text": "via a__b"}))
            .await
            .unwrap(),
        "via a__b"
    );
    assert_eq!(hub.server_snapshot("slow").await.state, ServerState::Idle);
    // A server that is listed and has no such tool: plain "unknown tool".
    let err = client.call_text("a__zzz", json!({})).await.unwrap_err();
    assert_eq!(rpc_error(&err).message, "unknown tool 'a__zzz'");
    assert_eq!(hub.server_snapshot("slow").await.state, ServerState::Idle);
    // Prompts are routed the same way.
    let params = rmcp::model::GetPromptRequestParams::new("nosuchserver__p");
    let err = client.service.peer().get_prompt(params).await.unwrap_err();
    assert_eq!(
        rpc_error(&err).message,
        "unknown prompt 'nosuchserver__p': no server 'nosuchserver' is configured"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_server_that_cannot_start_answers_with_its_own_error_after_one_start() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "missing": {"command": "/nonexistent/switchboard-no-such-binary"},
        // Never finishes starting; its start-up limit is 2 s.
        "hangs": {
            "command": switchboard_e2e::bin("switchboard-fixture").to_string_lossy(),
            "args": ["--tools", "x", "--startup-delay-ms", "60000"],
            "timeouts": {"startupSecs": 2},
        },
        "ok": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;

    let err = client.call_text("missing__x", json!({})).await.unwrap_err();
    let err = rpc_error(&err);
    assert!(
        err.message.starts_with(
            "server 'missing' could not be started (`/nonexistent/switchboard-no-such-binary`)"
        ),
        "{}",
        err.message
    );
    assert_eq!(
        err.data,
        Some(json!({"server": "missing", "kind": "spawnFailed"}))
    );

    let started = Instant::now();
    let err = client.call_text("hangs__x", json!({})).await.unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(
        err.message,
        "server 'hangs' did not answer initialize within 2 s"
    );
    assert_eq!(
        err.data,
        Some(json!({"server": "hangs", "kind": "timeout"}))
    );
    // One start, not three: one failure on record, and no hang (3 starts
    // would take at least 6 s).
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    let hangs = hub.server_snapshot("hangs").await;
    assert_eq!(hangs.consecutive_failures, 1, "{hangs:?}");
    assert_eq!(hangs.state, ServerState::Failed, "{hangs:?}");
    // The healthy server was never involved.
    assert_eq!(hub.server_snapshot("ok").await.state, ServerState::Idle);
    assert_eq!(
        client
            .call_text("ok__x", json!({"text": "fine"}))
            .await
            .unwrap(),
        "fine"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn every_list_method_and_session_shares_one_cold_start_wait() {
    const COLD_MS: u64 = 4000;
    let mut hub = Hub::start(json!({
        "mcpServers": {
            // Still starting long after every list below.
            "slow": stdio_fixture(&["--tools", "late", "--startup-delay-ms", "30000"]),
            "fast": stdio_fixture(&["--tools", "x"]),
        },
        "settings": {"coldListTimeoutMs": COLD_MS},
    }))
    .await
    .unwrap();
    let first = hub.client().await;
    let second = hub.client().await;
    let cold = Duration::from_millis(COLD_MS);

    let started = Instant::now();
    // Two sessions list at once: both wait for the same deadline.
    let (tools, prompts) = tokio::join!(first.tool_names(), async {
        second
            .service
            .peer()
            .list_all_prompts()
            .await
            .expect("prompts/list")
    });
    assert_eq!(tools, vec!["fast__x"]);
    assert!(prompts.is_empty());
    // Then the other list methods: no second wait.
    first
        .service
        .peer()
        .list_all_prompts()
        .await
        .expect("prompts/list");
    first
        .service
        .peer()
        .list_all_resources()
        .await
        .expect("resources/list");
    second.tool_names().await;
    let elapsed = started.elapsed();
    // One wait (4 s) plus the lists; a second wait would make it 8 s.
    assert!(
        elapsed < cold.mul_f64(1.75),
        "five lists took {elapsed:?}, more than one cold-start wait"
    );
    assert_eq!(
        hub.server_snapshot("slow").await.state,
        ServerState::Starting
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn http_upstream_failures_read_in_plain_words() {
    let refused_url = format!("http://127.0.0.1:{}/mcp", free_port());
    let mut failing = HttpFixture::start(&["--fail-status", "500"]).await.unwrap();
    let mut going = HttpFixture::start(&["--tools", "x"]).await.unwrap();
    let mut hub = Hub::start(json!({"mcpServers": {
        "refused": {"url": refused_url},
        "failing": {"url": failing.url},
        "going": {"url": going.url},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;

    let err = client.call_text("refused__x", json!({})).await.unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(
        err.message,
        format!("server 'refused' ({refused_url}): connection refused (nothing listens there)")
    );
    assert_eq!(
        err.data,
        Some(json!({"server": "refused", "kind": "unreachable"}))
    );
    let err = client.call_text("failing__x", json!({})).await.unwrap_err();
    assert_eq!(
        rpc_error(&err).message,
        format!(
            "server 'failing' ({}): the server answered HTTP 500 Internal Server Error",
            failing.url
        )
    );

    // A server that goes away after it was listed: the call's error too.
    assert_eq!(
        client
            .call_text("going__x", json!({"text": "hi"}))
            .await
            .unwrap(),
        "hi"
    );
    going.stop().await;
    let err = client
        .call_text("going__x", json!({"text": "hi"}))
        .await
        .unwrap_err();
    let message = rpc_error(&err).message.to_string();
    assert!(message.starts_with("server 'going'"), "{message}");
    assert_plain("the call's error", &message);

    for id in ["refused", "failing", "going"] {
        let server = hub
            .wait_for(id, "the failure on record", is::failed_once())
            .await;
        assert_plain("lastError", last_error(&server));
        let logs = hub.get(&format!("/api/v1/servers/{id}/logs")).await;
        assert_plain("the server's log", &logs.to_string());
    }
    // The hub's own log lines (rmcp's are its business).
    for line in hub.log().lines().filter(|l| l.contains("switchboard_core")) {
        assert!(
            !line.contains("WorkerTransport") && !line.contains("Transport ["),
            "log line names a Rust type: {line}"
        );
    }
    failing.stop().await;
    assert_eq!(hub.terminate().await, Some(0));
}
