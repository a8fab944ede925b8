//! Freshness: the poller catches silent redeploys and changes nobody
//! announced, refresh triggers coalesce, and a failing poll degrades health
//! without losing the cached lists. In-process: the hub's process is not
//! what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{HttpFixture, counts, free_port};

/// An HTTP fixture with tool `x` on a fixed port (so it can come back on the
/// same address) and a hub that polls it every second.
async fn polled_remote() -> (String, HttpFixture, Engine) {
    let addr = format!("127.0.0.1:{}", free_port());
    let fixture = HttpFixture::start_on(&addr, &["--tools", "x"])
        .await
        .unwrap();
    let hub = Engine::serve(json!({
        "mcpServers": {"remote": {"url": fixture.url}},
        "settings": {"pollIntervalSecs": 1}
    }))
    .await
    .unwrap();
    (addr, fixture, hub)
}

#[tokio::test]
async fn a_silent_redeploy_is_found_by_the_poll_and_announced_once() {
    let (addr, mut fixture, mut hub) = polled_remote().await;
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["remote__x"]);

    // Redeployed on the same port with other tools, and no notification: the
    // old session is gone, so the hub must start a new one.
    fixture.stop().await;
    let _redeployed = HttpFixture::start_on(&addr, &["--tools", "x,y"])
        .await
        .unwrap();
    client.received.wait_tools_changed(1).await;
    assert_eq!(client.tool_names().await, vec!["remote__x", "remote__y"]);
    let remote = hub.server_snapshot("remote").await;
    assert_eq!(remote.refresh_trigger, Some(RefreshTrigger::Poll));
    assert_eq!(remote.last_change.unwrap().added, vec!["y"]);
    assert!(remote.next_poll_at.is_some());
    // Calls work on the new session too.
    assert_eq!(
        client
            .call_text("remote__y", json!({"text": "new"}))
            .await
            .unwrap(),
        "new"
    );
    assert_eq!(
        client.received.tools_changed(),
        1,
        "announced more than once"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_change_without_notification_is_found_by_the_poll() {
    let scratch = tempfile::tempdir().unwrap();
    let control = scratch.path().join("control.json");
    let mut hub = Engine::serve(json!({
        "mcpServers": {"a": stdio_fixture(&["--tools", "x", "--control", &control.to_string_lossy()])},
        "settings": {"pollIntervalSecs": 1}
    }))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    write_control(&control, json!({"tools": [{"name": "z"}], "notify": false}));
    client.received.wait_tools_changed(1).await;
    assert_eq!(client.received.tools_changed(), 1);
    assert_eq!(client.tool_names().await, vec!["a__z"]);
    let change = hub.server_snapshot("a").await.last_change.unwrap();
    assert_eq!(change.added, vec!["z"]);
    assert_eq!(change.removed, vec!["x"]);
    assert_eq!(change.trigger, RefreshTrigger::Poll);
    hub.shutdown().await;
}

#[tokio::test]
async fn simultaneous_refresh_triggers_share_one_listing() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let control = scratch.path().join("control.json");
    let mut hub = Engine::serve(json!({
        "mcpServers": {"a": stdio_fixture(&[
            "--tools", "x",
            "--counter-file", &counter.to_string_lossy(),
            "--control", &control.to_string_lossy(),
        ])},
        "settings": {"pollIntervalSecs": 0}
    }))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert_eq!(counts(&counter)["tools/list"], 1);

    // A change notification, and twenty manual refreshes at the same moment.
    write_control(
        &control,
        json!({"tools": [{"name": "x"}, {"name": "y"}], "notify": true}),
    );
    let refreshes = (0..20).map(|_| hub.post("/api/v1/servers/a/refresh"));
    let answers = futures::future::join_all(refreshes).await;
    assert!(answers.iter().all(|(code, _)| *code == 200));
    client.received.wait_tools_changed(1).await;
    assert_eq!(client.received.tools_changed(), 1);
    // Without coalescing that would be 21 listings; with it, a listing under
    // way answers every request made while it runs, and the notification gets
    // (at most) one listing that starts after it.
    let listings = counts(&counter)["tools/list"].as_u64().unwrap() - 1;
    assert!(
        (1..=3).contains(&listings),
        "{listings} listings for 21 triggers"
    );
    assert_eq!(client.tool_names().await, vec!["a__x", "a__y"]);
    hub.shutdown().await;
}

#[tokio::test]
async fn a_failing_poll_keeps_the_lists_and_health_recovers() {
    let (addr, mut fixture, mut hub) = polled_remote().await;
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["remote__x"]);
    hub.wait_for("remote", "healthy", |s| s.health == Health::Healthy)
        .await;

    fixture.stop().await;
    let down = hub.wait_for("remote", "a failed poll", |s| s.stale).await;
    assert!(
        matches!(down.health, Health::Degraded | Health::Down),
        "{down:?}"
    );
    assert_eq!(
        down.tool_count, 1,
        "a failed poll must keep the cached tools"
    );
    assert!(
        down.last_error
            .as_deref()
            .unwrap_or_default()
            .starts_with("server 'remote'"),
        "{down:?}"
    );
    assert_eq!(client.tool_names().await, vec!["remote__x"]);

    let _back = HttpFixture::start_on(&addr, &["--tools", "x"])
        .await
        .unwrap();
    let healthy = hub
        .wait_for("remote", "recovered", |s| s.health == Health::Healthy)
        .await;
    assert!(!healthy.stale);
    assert_eq!(healthy.last_error, None);
    assert_eq!(client.received.tools_changed(), 0);
    hub.shutdown().await;
}
