//! An upstream's `tools/list_changed` reaches every connected client once,
//! and the merged list shows the new tools.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::{Hub, eventually, stdio_fixture, write_control};

#[tokio::test]
async fn upstream_list_changed_reaches_clients() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.json");
    let control_arg = control.to_string_lossy().to_string();
    let mut hub = Hub::start(json!({"mcpServers": {
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
        eventually("tools/list_changed", || async {
            (client.received.tools_changed() == 1).then_some(())
        })
        .await;
    }
    assert_eq!(first.tool_names().await, vec!["a__x", "a__z", "b__y"]);
    assert_eq!(hub.server("a").await["toolCount"], 2);
    assert_eq!(hub.server("a").await["refreshTrigger"], "notification");

    // A notification whose re-list finds nothing new (same tools, other order)
    // is not passed on; the next real change is, exactly once more.
    let listed_before = hub.server("a").await["listedAt"].clone();
    write_control(
        &control,
        json!({"tools": [{"name": "z"}, {"name": "x"}], "notify": true}),
    );
    hub.wait_server("a", "the re-list", |s| s["listedAt"] != listed_before)
        .await;
    write_control(
        &control,
        json!({"tools": [{"name": "z"}, {"name": "x"}, {"name": "w"}], "notify": true}),
    );
    for client in [&first, &second] {
        eventually("second tools/list_changed", || async {
            (client.received.tools_changed() >= 2).then_some(())
        })
        .await;
    }
    assert_eq!(
        first.tool_names().await,
        vec!["a__w", "a__x", "a__z", "b__y"]
    );
    assert_eq!(first.received.tools_changed(), 2);
    assert_eq!(second.received.tools_changed(), 2);
    assert_eq!(hub.terminate().await, Some(0));
}
