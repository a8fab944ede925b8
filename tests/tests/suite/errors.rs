//! Bad input and bad upstreams give clear JSON-RPC errors naming the server
//! and the cause; the hub and the healthy servers keep working. The engine
//! runs in-process (no signal, process group or CLI output is at stake); the
//! refused config file is the binary's own start-up, so that test runs it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{bin, rpc_error, spec_file};

#[tokio::test]
async fn unknown_tool_is_an_invalid_params_error() {
    let mut hub = Engine::serve(json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}}))
        .await
        .unwrap();
    let client = hub.client().await;
    let err = client.call_text("nope__x", json!({})).await.unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(err.code.0, -32602);
    assert_eq!(
        err.message,
        "unknown tool 'nope__x': no server 'nope' is configured"
    );
    // The hub keeps serving.
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "still"}))
            .await
            .unwrap(),
        "still"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn crashed_upstream_is_reported_and_restarted_on_next_need() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        json!([{"name": "boom", "behavior": "crash"}, {"name": "ok"}]),
    );
    let mut hub = Engine::serve(json!({"mcpServers": {
        "c": stdio_fixture(&["--spec", &spec]),
        "healthy": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec!["c__boom", "c__ok", "healthy__x"]
    );
    let first_pid = hub.pid("c").await;

    let err = client.call_text("c__boom", json!({})).await.unwrap_err();
    let err = rpc_error(&err);
    assert!(
        err.message.starts_with("server 'c' exited"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("fixture crashing on purpose"),
        "{}",
        err.message
    );
    assert_eq!(
        err.data,
        Some(json!({"server": "c", "kind": "processExited"}))
    );

    let c = hub
        .wait_for("c", "c failed", |s| s.state == ServerState::Failed)
        .await;
    assert!(
        c.last_error
            .as_deref()
            .unwrap()
            .starts_with("server 'c' exited"),
        "{c:?}"
    );
    assert_eq!(c.pid, None);
    assert!(!pid_alive(first_pid));
    // Other servers are untouched, and the crashed one comes back on next use.
    assert_eq!(
        client
            .call_text("healthy__x", json!({"text": "fine"}))
            .await
            .unwrap(),
        "fine"
    );
    assert_eq!(
        client
            .call_text("c__ok", json!({"text": "back"}))
            .await
            .unwrap(),
        "back"
    );
    let c = hub.server_snapshot("c").await;
    assert_eq!(c.state, ServerState::Ready);
    assert_ne!(c.pid.unwrap(), first_pid);
    hub.shutdown().await;
}

#[tokio::test]
async fn hung_call_times_out_without_blocking_others() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path(), json!([{"name": "stuck", "behavior": "hang"}]));
    let mut hub = Engine::serve(json!({
        "mcpServers": {
            "slow": stdio_fixture(&["--spec", &spec]),
            "fast": stdio_fixture(&["--tools", "x"]),
        },
        "settings": {"callTimeoutSecs": 1}
    }))
    .await
    .unwrap();
    let client = hub.client().await;
    client.tool_names().await;
    let hung = client.call_text("slow__stuck", json!({}));
    let quick = client.call_text("fast__x", json!({"text": "quick"}));
    let (hung, quick) = tokio::join!(hung, quick);
    assert_eq!(quick.unwrap(), "quick");
    let err = hung.unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(
        err.message,
        "server 'slow' did not answer the request within 1 s"
    );
    assert_eq!(err.data, Some(json!({"server": "slow", "kind": "timeout"})));
    // A timed-out call does not kill the server.
    assert_eq!(hub.server_snapshot("slow").await.state, ServerState::Ready);
    hub.shutdown().await;
}

#[tokio::test]
async fn server_that_cannot_start_names_its_command() {
    let mut hub = Engine::serve(json!({"mcpServers": {
        "missing": {"command": "/nonexistent/switchboard-no-such-binary"},
        "exits": stdio_fixture(&["--exit-at-start", "7"]),
        "ok": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["ok__x"]);
    let missing = hub
        .wait_for("missing", "missing failed", |s| {
            s.state == ServerState::Failed
        })
        .await;
    let message = missing.last_error.as_deref().unwrap();
    assert!(
        message.starts_with(
            "server 'missing' could not be started (`/nonexistent/switchboard-no-such-binary`)"
        ),
        "{message}"
    );
    let exits = hub
        .wait_for("exits", "exits failed", |s| s.state == ServerState::Failed)
        .await;
    assert_eq!(
        exits.last_error.as_deref(),
        Some("server 'exits' exited; stderr: fixture exiting at start with code 7")
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn invalid_config_file_is_refused_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(
        &path,
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n",
    )
    .unwrap();
    let output = std::process::Command::new(bin("switchboard"))
        .args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:3:", path.display())),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("trailing comma"), "stderr: {stderr}");
}
