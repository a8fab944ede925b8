//! Lazy, cache-first discovery and the upstream lifecycle: nothing starts
//! before it is needed, one probe per server, stale lists served while they
//! are refreshed, a warm catalog across restarts, idle servers put to sleep,
//! and a circuit breaker for servers that keep failing.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::{counts, processes_with};

#[tokio::test]
async fn fifty_lazy_servers_are_ready_before_any_process_runs() {
    let tag = format!("lazy-tag-{}", std::process::id());
    let servers: serde_json::Map<String, Value> = (0..50)
        .map(|i| {
            (
                format!("s{i:02}"),
                stdio_fixture(&["--tools", "x", "--name", &tag]),
            )
        })
        .collect();
    let mut hub = Hub::start(json!({ "mcpServers": servers })).await.unwrap();
    let status = hub.snapshot().await;
    let states: Vec<ServerState> = status.servers.iter().map(|s| s.state).collect();
    assert_eq!(states, vec![ServerState::Idle; 50]);
    assert!(
        processes_with(&tag).is_empty(),
        "a server was started eagerly"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_hundred_concurrent_lists_start_and_list_each_server_once() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let mut hub = Hub::start(json!({"mcpServers": {
        "slow": stdio_fixture(&[
            "--tools", "x", "--startup-delay-ms", "300",
            "--counter-file", &counter.to_string_lossy(),
        ]),
    }}))
    .await
    .unwrap();
    let mut clients = Vec::new();
    for _ in 0..10 {
        clients.push(hub.client().await);
    }
    let lists = clients
        .iter()
        .flat_map(|c| (0..10).map(move |_| c.tool_names()));
    let all = futures::future::join_all(lists).await;
    assert_eq!(all.len(), 100);
    assert!(
        all.iter()
            .all(|names| names == &vec!["slow__x".to_string()])
    );
    let counts = counts(&counter);
    assert_eq!(
        (counts["initialize"].as_u64(), counts["tools/list"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn expired_lists_are_served_while_they_are_refreshed() {
    let scratch = tempfile::tempdir().unwrap();
    let control = scratch.path().join("control.json");
    let mut hub = Hub::start(json!({
        "mcpServers": {"a": stdio_fixture(&["--tools", "x", "--control", &control.to_string_lossy()])},
        "settings": {"cacheTtlSecs": 1, "pollIntervalSecs": 0}
    }))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let first = hub.server_snapshot("a").await.listed_at;
    // The server changes without telling anyone.
    write_control(
        &control,
        json!({"tools": [{"name": "x"}, {"name": "y"}], "notify": false}),
    );
    // Once the TTL is over, a list still answers at once with what is known...
    eventually("the TTL to expire", || async {
        let expires = hub.server_snapshot("a").await.ttl_expires_at?;
        (humantime_now() > expires).then_some(())
    })
    .await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    // ...and the refresh it started brings the change, announced to the client.
    client.received.wait_tools_changed(1).await;
    assert_eq!(client.tool_names().await, vec!["a__x", "a__y"]);
    let a = hub.server_snapshot("a").await;
    assert_ne!(a.listed_at, first);
    assert_eq!(a.refresh_trigger, Some(RefreshTrigger::Ttl));
    assert_eq!(a.last_change.unwrap().added, vec!["y"]);
    assert_eq!(hub.terminate().await, Some(0));
}

fn humantime_now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

#[tokio::test]
async fn the_warm_catalog_serves_tools_before_the_server_runs() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_string_lossy().to_string();
    let tag = format!("warm-tag-{}", std::process::id());
    let config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x,y", "--name", &tag])}});
    let env = [("SWITCHBOARD_CACHE_DIR", cache_dir.as_str())];

    let mut first = Hub::start_with_env(config.clone(), &env).await.unwrap();
    assert_eq!(
        first.client().await.tool_names().await,
        vec!["a__x", "a__y"]
    );
    assert_eq!(first.terminate().await, Some(0));

    let mut hub = Hub::start_with_env(config, &env).await.unwrap();
    let a = hub.server_snapshot("a").await;
    assert_eq!((a.unverified, a.tool_count, a.pid), (true, 2, None));
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "a__y"]);
    assert!(
        processes_with(&tag).is_empty(),
        "listing started the server"
    );
    // A call starts it, and the listing is confirmed.
    assert_eq!(
        client
            .call_text("a__y", json!({"text": "warm"}))
            .await
            .unwrap(),
        "warm"
    );
    hub.wait_for("a", "verified", |s| {
        !s.unverified && s.state == ServerState::Ready
    })
    .await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn an_idle_stdio_server_sleeps_and_a_call_wakes_it() {
    let mut hub = Hub::start(json!({
        "mcpServers": {"a": stdio_fixture(&["--tools", "x"])},
        "settings": {"idleShutdownSecs": 1}
    }))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "1"}))
            .await
            .unwrap(),
        "1"
    );
    let pid = hub.server_snapshot("a").await.pid.unwrap();
    let asleep = hub
        .wait_for("a", "sleeping", |s| s.state == ServerState::Sleeping)
        .await;
    assert_eq!(asleep.pid, None);
    assert_eq!(asleep.tool_count, 1, "lists are kept while asleep");
    eventually("the idle process to exit", || async {
        (!pid_alive(pid)).then_some(())
    })
    .await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "2"}))
            .await
            .unwrap(),
        "2"
    );
    let awake = hub.server_snapshot("a").await;
    assert_eq!(awake.state, ServerState::Ready);
    assert_ne!(awake.pid.unwrap(), pid);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_crash_loop_opens_the_breaker_and_calls_fail_fast() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "bad": stdio_fixture(&["--exit-at-start", "9"]),
        "good": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    let client: Client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["good__x"]);
    let bad = hub
        .wait_for("bad", "breaker open", |s| {
            s.breaker.state == api::BreakerState::Open
        })
        .await;
    assert_eq!(bad.state, ServerState::Failed);
    assert_eq!(bad.health, Health::Down);
    assert_eq!(bad.consecutive_failures, 3);
    assert!(bad.breaker.retry_at.is_some());
    assert_eq!(
        bad.stderr_tail.as_deref().unwrap_or_default()[0],
        "fixture exiting at start with code 9"
    );
    // While open, attempts fail at once and say when the next one happens.
    let (code, body) = hub.post("/api/v1/servers/bad/refresh").await;
    assert_eq!(code, 502);
    assert_eq!(body["kind"], "circuitOpen");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.starts_with("server 'bad' is failing (exited; stderr: fixture exiting at start with code 9); calls are paused and it will be retried in "),
        "{error}"
    );
    // The healthy server is unaffected.
    assert_eq!(
        client
            .call_text("good__x", json!({"text": "ok"}))
            .await
            .unwrap(),
        "ok"
    );
    assert_eq!(hub.server_snapshot("good").await.health, Health::Healthy);
    assert_eq!(hub.terminate().await, Some(0));
}
