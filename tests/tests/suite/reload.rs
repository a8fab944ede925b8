//! Config hot reload with real file edits: unchanged servers keep running,
//! changed ones are rebuilt, removed ones shut down, bad files are refused.
//! In-process (`Engine::serve` watches its file as `switchboard serve` does):
//! the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::spec_file;

fn pid(server: &ServerSnapshot) -> u32 {
    server.pid.expect("a running pid")
}

/// Waits for the first reload's result.
async fn wait_reload(hub: &Engine) -> api::ReloadResult {
    hub.wait_snapshot("a reload", |s| s.last_reload.is_some())
        .await
        .last_reload
        .unwrap()
}

#[tokio::test]
async fn edits_touch_only_what_changed() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([{"name": "slow", "behavior": "sleep"}]),
    );
    let mut config = json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
        "b": stdio_fixture(&["--tools", "y"]),
        "c": stdio_fixture(&["--tools", "z"]),
    }});
    let mut hub = Engine::serve(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__slow", "b__y", "c__z"]);
    let a_pid = pid(&hub.server_snapshot("a").await);
    let b_pid = pid(&hub.server_snapshot("b").await);
    let c_pid = pid(&hub.server_snapshot("c").await);

    // A slow call to `a` is in flight while the file changes b, removes c, adds d.
    let slow = client.call_text("a__slow", json!({"ms": 1500}));
    config["mcpServers"]["b"] = stdio_fixture(&["--tools", "y", "--name", "b2"]);
    config["mcpServers"].as_object_mut().unwrap().remove("c");
    config["mcpServers"]["d"] = stdio_fixture(&["--tools", "w"]);
    let edit = async {
        // The call is running upstream once its first progress notification
        // has come back through the hub.
        client
            .received
            .wait_until("the slow call in flight", |r| {
                !r.progress.lock().unwrap().is_empty()
            })
            .await;
        hub.save_config(&config);
        wait_reload(&hub).await
    };
    let (slow, reload) = tokio::join!(slow, edit);
    assert_eq!(slow.unwrap(), "slept 1500 ms");
    assert_eq!(reload.added, ["d"]);
    assert_eq!(reload.changed, ["b"]);
    assert_eq!(reload.removed, ["c"]);
    assert_eq!(reload.unchanged, ["a"]);

    assert_eq!(
        pid(&hub.server_snapshot("a").await),
        a_pid,
        "unchanged server was restarted"
    );
    eventually("old b and c exit", || async {
        (!pid_alive(b_pid) && !pid_alive(c_pid)).then_some(())
    })
    .await;
    assert_eq!(hub.server_snapshot("d").await.state, ServerState::Idle);
    client.received.wait_tools_changed(1).await;
    assert_eq!(client.tool_names().await, vec!["a__slow", "b__y", "d__w"]);
    let b = hub.server_snapshot("b").await;
    assert_ne!(pid(&b), b_pid);
    assert_eq!(b.server_name.as_deref(), Some("b2"));
    hub.shutdown().await;
}

#[tokio::test]
async fn catalog_only_changes_restart_nothing() {
    let mut config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x,hidden"])}});
    let mut hub = Engine::serve(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__hidden", "a__x"]);
    let before = pid(&hub.server_snapshot("a").await);
    config["mcpServers"]["a"]["disabledTools"] = json!(["hidden"]);
    hub.save_config(&config);
    let reload = wait_reload(&hub).await;
    assert_eq!(reload.updated, ["a"]);
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert_eq!(pid(&hub.server_snapshot("a").await), before);
    assert_eq!(hub.server_snapshot("a").await.tool_count, 1);
    hub.shutdown().await;
}

#[tokio::test]
async fn invalid_file_keeps_the_last_good_config_until_fixed() {
    let config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}});
    let mut hub = Engine::serve(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);

    std::fs::write(&hub.config_path, "{\n  \"mcpServers\": {\n    \"a\": {,\n").unwrap();
    let error = hub
        .wait_snapshot("config error in status", |s| s.config_error.is_some())
        .await
        .config_error
        .unwrap();
    let api::ConfigError::Invalid { line, path, .. } = error else {
        panic!("not an invalid-file error: {error:?}")
    };
    assert_eq!(line, 3);
    assert_eq!(path, hub.config_path.to_string_lossy());
    // Everything keeps serving.
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "on"}))
            .await
            .unwrap(),
        "on"
    );

    hub.save_config(&config);
    hub.wait_snapshot("config error cleared", |s| s.config_error.is_none())
        .await;
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
async fn disable_and_enable_through_the_api_edit_the_file() {
    let config = json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
        "b": stdio_fixture(&["--tools", "y"]),
    }});
    let mut hub = Engine::serve(config).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
    let b_pid = pid(&hub.server_snapshot("b").await);

    let (code, body) = hub.post("/api/v1/servers/b/disable").await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["reload"]["changed"], json!(["b"]));
    let file: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["b"]["enabled"], false);
    assert_eq!(hub.server_snapshot("b").await.state, ServerState::Disabled);
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    eventually("disabled server exits", || async {
        (!pid_alive(b_pid)).then_some(())
    })
    .await;

    let (code, _) = hub.post("/api/v1/servers/b/enable").await;
    assert_eq!(code, 200);
    let file: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert!(file["mcpServers"]["b"].get("enabled").is_none());
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);

    let (code, body) = hub.post("/api/v1/servers/nope/disable").await;
    assert_eq!(code, 404, "{body}");
    hub.shutdown().await;
}
