//! The engine in-process, upstream lifecycle: a dead upstream gives an error
//! naming the server while the others serve, concurrent refreshes of one
//! server share one listing, HTTP upstreams come and go, the session cap holds.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_core::ServerId;
use switchboard_core::Unrouted;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{HttpFixture, counts, rpc_error};

fn id(name: &str) -> ServerId {
    ServerId::new(name).unwrap()
}

#[tokio::test]
async fn a_dead_upstream_gives_an_error_naming_the_server() {
    let engine = Engine::start(json!({"mcpServers": {
        "gone": {"command": "/nonexistent/switchboard-test-server", "args": []},
        "quits": stdio_fixture(&["--exit-at-start", "3"]),
        "ok": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();

    let err = engine
        .handle
        .refresh(&id("gone"), RefreshTrigger::Manual)
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("server 'gone' could not be started"),
        "{message}"
    );
    let err = engine
        .handle
        .refresh(&id("quits"), RefreshTrigger::Manual)
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("server 'quits'"), "{err}");
    let failed = engine
        .wait_for("gone", "gone failed", |s| s.state == ServerState::Failed)
        .await;
    assert!(
        failed.last_error.as_deref().unwrap_or("").contains("gone"),
        "{:?}",
        failed.last_error
    );
    assert!(failed.consecutive_failures >= 1);

    // Routing a call there says why, naming the server; the healthy one serves.
    match engine.handle.route_tool("gone__anything").await {
        Err(Unrouted::Failed(err)) => assert!(err.to_string().contains("'gone'"), "{err}"),
        other => panic!("expected the server's failure, got {:?}", other.map(|_| ())),
    }
    let client = engine.client().await;
    assert_eq!(client.tool_names().await, vec!["ok__x"]);
    let err = client
        .call_text("gone__anything", json!({}))
        .await
        .unwrap_err();
    assert!(rpc_error(&err).message.contains("'gone'"), "{err:?}");
    assert_eq!(
        client
            .call_text("ok__x", json!({"text": "up"}))
            .await
            .unwrap(),
        "up"
    );
    engine.stop().await.unwrap();
}

#[tokio::test]
async fn concurrent_refreshes_of_one_server_share_one_listing() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let engine = Engine::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x", "--counter-file", counter.to_str().unwrap()]),
    }}))
    .await
    .unwrap();
    engine
        .handle
        .refresh(&id("a"), RefreshTrigger::Manual)
        .await
        .unwrap();
    let before = counts(&counter)["tools/list"].as_u64().unwrap();
    assert!(before >= 1);

    let a = id("a");
    let refreshes = (0..8).map(|_| engine.handle.refresh(&a, RefreshTrigger::Manual));
    let results = futures::future::join_all(refreshes).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(
        counts(&counter)["tools/list"].as_u64().unwrap(),
        before + 1,
        "eight concurrent refreshes listed the server more than once"
    );

    // A refresh asked after that one finished lists again.
    engine
        .handle
        .refresh(&id("a"), RefreshTrigger::Manual)
        .await
        .unwrap();
    assert_eq!(counts(&counter)["tools/list"].as_u64().unwrap(), before + 2);
    let results = engine.handle.refresh_all(RefreshTrigger::Manual).await;
    assert_eq!(results.len(), 1);
    assert!(results[0].1.is_ok());
    engine.stop().await.unwrap();
}

#[tokio::test]
async fn an_http_upstream_that_goes_away_fails_and_comes_back() {
    let mut fixture = HttpFixture::start(&["--tools", "h"]).await.unwrap();
    let addr = fixture
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let engine = Engine::start(json!({"mcpServers": {
        "web": {"url": fixture.url},
        "local": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    let client = engine.client().await;
    assert_eq!(client.tool_names().await, vec!["local__x", "web__h"]);
    assert_eq!(
        client
            .call_text("web__h", json!({"text": "1"}))
            .await
            .unwrap(),
        "1"
    );
    assert_eq!(engine.server("web").transport, "http");

    fixture.stop().await;
    let err = engine
        .handle
        .refresh(&id("web"), RefreshTrigger::Manual)
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("server 'web'"), "{err}");
    let err = client
        .call_text("web__h", json!({"text": "2"}))
        .await
        .unwrap_err();
    assert!(rpc_error(&err).message.contains("'web'"), "{err:?}");
    assert_eq!(
        client
            .call_text("local__x", json!({"text": "3"}))
            .await
            .unwrap(),
        "3"
    );

    let _again = HttpFixture::start_on(&addr, &["--tools", "h"])
        .await
        .unwrap();
    eventually("the HTTP server answers again", || async {
        client
            .call_text("web__h", json!({"text": "4"}))
            .await
            .ok()
            .filter(|text| text == "4")
    })
    .await;
    engine.stop().await.unwrap();
}

#[tokio::test]
async fn the_session_cap_holds_in_process() {
    let engine = Engine::start(json!({
        "mcpServers": {"a": stdio_fixture(&["--tools", "x"])},
        "settings": {"maxSessions": 2}
    }))
    .await
    .unwrap();
    let first = engine.client().await;
    let second = engine.client().await;
    assert_eq!(first.tool_names().await, vec!["a__x"]);
    assert_eq!(second.tool_names().await, vec!["a__x"]);
    assert_eq!(engine.handle.snapshot().sessions.len(), 2);
    // Both clients keep their event streams open: both sessions are in use,
    // so a third is refused rather than let past the cap.
    let refused = Client::try_connect(&engine.url)
        .await
        .err()
        .unwrap_or_default();
    assert!(refused.contains("maxSessions"), "{refused:?}");
    assert_eq!(engine.handle.snapshot().sessions.len(), 2);

    // A client that leaves makes room.
    first.service.cancel().await.unwrap();
    let third = eventually("room for a new session", || async {
        Client::try_connect(&engine.url).await.ok()
    })
    .await;
    assert_eq!(
        third
            .call_text("a__x", json!({"text": "in"}))
            .await
            .unwrap(),
        "in"
    );
    assert_eq!(second.tool_names().await, vec!["a__x"]);
    assert!(engine.handle.snapshot().sessions.len() <= 2);
    engine.stop().await.unwrap();
}
