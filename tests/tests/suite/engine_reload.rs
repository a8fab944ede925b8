//! The engine in-process (`switchboard_core::Hub` inside the test, real
//! fixture servers): a reload touches only what changed, a toggle stops and
//! starts one server, a bad file is refused whole and the last good config
//! keeps serving.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_core::ReloadError;
use switchboard_e2e::prelude::*;

#[tokio::test]
async fn a_reload_that_changes_one_server_leaves_the_others_processes_alone() {
    let mut config = json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
        "b": stdio_fixture(&["--tools", "y"]),
        "c": stdio_fixture(&["--tools", "z"]),
    }});
    let engine = Engine::start(config.clone()).await.unwrap();
    let client = engine.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y", "c__z"]);
    let (a, b, c) = (
        engine.pid("a").await,
        engine.pid("b").await,
        engine.pid("c").await,
    );

    config["mcpServers"]["b"] = stdio_fixture(&["--tools", "y", "--name", "b2"]);
    config["mcpServers"].as_object_mut().unwrap().remove("c");
    config["mcpServers"]["d"] = stdio_fixture(&["--tools", "w"]);
    engine.save_config(&config);
    let result = engine.handle.reload_from_file().await.unwrap();
    assert_eq!(result.added, vec!["d"]);
    assert_eq!(result.changed, vec!["b"]);
    assert_eq!(result.removed, vec!["c"]);
    assert_eq!(result.unchanged, vec!["a"]);
    assert_eq!(result.errors, Vec::<String>::new());
    assert_eq!(engine.handle.snapshot().last_reload, Some(result));

    eventually("the old b and c exit", || async {
        (!pid_alive(b) && !pid_alive(c)).then_some(())
    })
    .await;
    assert_eq!(engine.server("d").state, ServerState::Idle);
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y", "d__w"]);
    let new_b = engine.pid("b").await;
    assert_ne!(new_b, b);
    assert_eq!(engine.server("b").server_name.as_deref(), Some("b2"));
    assert_eq!(
        engine.server("a").pid,
        Some(a),
        "an unchanged server restarted"
    );
    assert!(pid_alive(a));

    // Stopping the hub stops every server it started.
    engine.stop().await.unwrap();
    eventually("the servers exit with the hub", || async {
        (!pid_alive(a) && !pid_alive(new_b)).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_toggle_stops_and_starts_one_server() {
    let engine = Engine::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
        "b": stdio_fixture(&["--tools", "y"]),
    }}))
    .await
    .unwrap();
    let client = engine.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
    let (a, b) = (engine.pid("a").await, engine.pid("b").await);

    let off = engine.handle.set_enabled("b", false).await.unwrap();
    assert_eq!(off.changed, vec!["b"]);
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&engine.config_path).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["b"]["enabled"], false);
    let server = engine.server("b");
    assert_eq!(
        (server.enabled, server.state),
        (false, ServerState::Disabled)
    );
    eventually("the disabled server exits", || async {
        (!pid_alive(b)).then_some(())
    })
    .await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let err = client.call_text("b__y", json!({"text": "hi"})).await;
    assert!(err.is_err(), "a disabled server answered: {err:?}");

    let on = engine.handle.set_enabled("b", true).await.unwrap();
    assert_eq!(on.changed, vec!["b"]);
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
    assert_eq!(
        client
            .call_text("b__y", json!({"text": "back"}))
            .await
            .unwrap(),
        "back"
    );
    assert_ne!(engine.pid("b").await, b);
    assert_eq!(engine.server("a").pid, Some(a));

    let unknown = engine.handle.set_enabled("nope", false).await.unwrap_err();
    assert!(matches!(unknown, ReloadError::UnknownServer(ref id) if id == "nope"));
    assert_eq!(unknown.to_string(), "no server with id 'nope'");
    engine.stop().await.unwrap();
}

#[tokio::test]
async fn a_bad_file_is_refused_and_the_last_good_config_keeps_serving() {
    let config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}});
    let engine = Engine::start(config.clone()).await.unwrap();
    let client = engine.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let a = engine.pid("a").await;

    std::fs::write(
        &engine.config_path,
        "{\n  \"mcpServers\": {\n    \"a\": {,\n",
    )
    .unwrap();
    let err = engine.handle.reload_from_file().await.unwrap_err();
    assert!(matches!(err, ReloadError::Config(_)), "{err:?}");
    let shown = engine.handle.snapshot().config_error.clone();
    assert!(shown.is_some(), "the snapshot shows no config error");
    assert!(err.to_string().contains("config.json"), "{err}");
    // Editing through the hub is refused while the file does not parse.
    assert!(engine.handle.set_enabled("a", false).await.is_err());
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "on"}))
            .await
            .unwrap(),
        "on"
    );
    assert_eq!(engine.server("a").pid, Some(a));

    engine.save_config(&config);
    let fixed = engine.handle.reload_from_file().await.unwrap();
    assert_eq!(fixed.unchanged, vec!["a"]);
    assert!(engine.handle.snapshot().config_error.is_none());
    assert_eq!(engine.server("a").pid, Some(a));
    engine.stop().await.unwrap();
}
