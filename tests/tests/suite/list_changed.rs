//! An upstream's `tools/list_changed` reaches every connected client once,
//! and the merged list shows the new tools. In-process: the hub's process
//! is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::prelude::*;

#[tokio::test]
async fn upstream_list_changed_reaches_clients() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.json");
    let control_arg = control.to_string_lossy().to_string();
    let mut hub = Engine::serve(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x", "--control", &control_arg]),
        "b": stdio_fixture(&["--tools", "y"]),
    }}))
    .await
    .unwrap();
    let first = hub.client().await;
    let second = hub.client().await;
    assert_eq!(first.tool_names().await, vec!["a__x", "b__y"]);
    assert_eq!(second.tool_names().await, vec!["a__x", "b__y"]);

    write_control(
        &control,
        json!({"tools": [{"name": "x"}, {"name": "z"}], "notify": true}),
    );
    for client in [&first, &second] {
        client.received.wait_tools_changed(1).await;
    }
    assert_eq!(first.tool_names().await, vec!["a__x", "a__z", "b__y"]);
    let a = hub.server_snapshot("a").await;
    assert_eq!(a.tool_count, 2);
    assert_eq!(a.refresh_trigger, Some(RefreshTrigger::Notification));

    // A notification whose re-list finds nothing new (same tools, other order)
    // is not passed on; the next real change is, exactly once more.
    let listed_before = a.listed_at;
    write_control(
        &control,
        json!({"tools": [{"name": "z"}, {"name": "x"}], "notify": true}),
    );
    hub.wait_for("a", "the re-list", |s| s.listed_at != listed_before)
        .await;
    write_control(
        &control,
        json!({"tools": [{"name": "z"}, {"name": "x"}, {"name": "w"}], "notify": true}),
    );
    for client in [&first, &second] {
        client.received.wait_tools_changed(2).await;
    }
    assert_eq!(
        first.tool_names().await,
        vec!["a__w", "a__x", "a__z", "b__y"]
    );
    assert_eq!(first.received.tools_changed(), 2);
    assert_eq!(second.received.tools_changed(), 2);
    hub.shutdown().await;
}
