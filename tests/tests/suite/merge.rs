//! Two upstreams, one stdio and one HTTP, merged behind `/mcp`; a clean
//! SIGTERM leaves no process behind.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use serde_json::json;
use switchboard_e2e::HttpFixture;
use switchboard_e2e::prelude::*;

#[tokio::test]
async fn stdio_and_http_servers_are_merged_and_shutdown_leaves_nothing() {
    let http = HttpFixture::start(&["--tools", "y", "--name", "remote"])
        .await
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let grandchild_file = scratch.path().join("grandchild.pid");
    let grandchild_arg = grandchild_file.to_string_lossy().to_string();
    let mut hub = Hub::start(json!({
        "mcpServers": {
            "a": stdio_fixture(&["--tools", "x", "--spawn-grandchild", &grandchild_arg]),
            "b": {"url": http.url},
        }
    }))
    .await
    .unwrap();

    // Nothing runs before it is needed.
    let before = hub.server_snapshot("a").await;
    assert_eq!((before.state, before.pid), (ServerState::Idle, None));

    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "hello"}))
            .await
            .unwrap(),
        "hello"
    );
    assert_eq!(
        client
            .call_text("b__y", json!({"text": "world"}))
            .await
            .unwrap(),
        "world"
    );

    let a = hub.server_snapshot("a").await;
    let b = hub.server_snapshot("b").await;
    assert_eq!((a.state, a.tool_count), (ServerState::Ready, 1));
    assert_eq!((b.state, b.tool_count), (ServerState::Ready, 1));
    assert_eq!(a.transport, "stdio");
    assert_eq!(b.transport, "http");
    assert_eq!(b.pid, None);
    assert!(a.listed_at.is_some());
    let pid = a.pid.expect("stdio child pid");
    assert!(pid_alive(pid));
    let grandchild: u32 = std::fs::read_to_string(&grandchild_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(pid_alive(grandchild));

    client.service.cancel().await.unwrap();
    assert_eq!(hub.terminate().await, Some(0), "log:\n{}", hub.log());
    assert!(!pid_alive(pid), "stdio server {pid} survived the hub");
    assert!(
        !pid_alive(grandchild),
        "grandchild {grandchild} survived the hub"
    );
}
