//! A legacy HTTP+SSE upstream (`"transport": "sse"` / `"type": "sse"`, MCP
//! 2024-11-05), served by the fixture's `--sse` mode: tools listed and called
//! through `/mcp` and `/servers/<id>/mcp`, progress and `tools/list_changed`
//! passed on, its headers sent (the fixture refuses without its bearer
//! token), a server dying mid-call or ending the stream mid-call fails the
//! call with an error naming the server, and the server is reached again
//! afterwards; an OAuth login reaches a legacy SSE server as it does a
//! Streamable HTTP one, and its refreshed token goes with the next messages.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{AuthFixture, HttpFixture, assert_no_secrets, browse, rpc_error, spec_file};

const TOKEN: &str = "sse-fixture-token-93d1";

#[tokio::test]
async fn sse_upstream_is_listed_called_and_passes_notifications_on() {
    let dir = tempfile::tempdir().unwrap();
    let tools = json!([
        {"name": "echo"},
        {"name": "slow", "behavior": "sleep"},
        {"name": "boom", "behavior": "crash"},
    ]);
    let spec = spec_file(dir.path(), tools);
    let control = dir.path().join("control.json");
    let control_arg = control.to_string_lossy().to_string();
    let args = [
        "--sse",
        "--sse-bearer",
        TOKEN,
        "--spec",
        &spec,
        "--control",
        &control_arg,
    ];
    let mut fixture = HttpFixture::start(&args).await.unwrap();
    assert!(fixture.url.ends_with("/sse"), "{}", fixture.url);
    let addr = fixture
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/sse")
        .to_string();
    // The header's value comes from a `${VAR}` reference, as it would for
    // Streamable HTTP.
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {
            "leg": {"url": fixture.url, "transport": "sse",
                    "headers": {"Authorization": "Bearer ${SSE_FIXTURE_TOKEN}"}},
            "bare": {"url": fixture.url, "type": "sse"},
        }}),
        &[("SSE_FIXTURE_TOKEN", TOKEN)],
    )
    .await
    .unwrap();

    // Merged endpoint and pass-through endpoint.
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec!["leg__boom", "leg__echo", "leg__slow"]
    );
    assert_eq!(
        client
            .call_text("leg__echo", json!({"text": "over sse"}))
            .await
            .unwrap(),
        "over sse"
    );
    let direct = Client::connect(&format!("{}/servers/leg/mcp", hub.base)).await;
    assert_eq!(direct.tool_names().await, vec!["boom", "echo", "slow"]);
    assert_eq!(
        direct
            .call_text("echo", json!({"text": "direct"}))
            .await
            .unwrap(),
        "direct"
    );
    let snapshot = hub.server_snapshot("leg").await;
    assert_eq!(snapshot.transport, "sse");
    assert_eq!(snapshot.tool_count, 3);

    // Without the header the fixture refuses the stream: the hub says so.
    let bare = hub
        .wait_for("bare", "the refused server's state", |s| {
            matches!(s.state, ServerState::AuthRequired | ServerState::Failed)
        })
        .await;
    assert_eq!(bare.state, ServerState::AuthRequired, "{bare:?}");
    assert_eq!(bare.transport, "sse");

    // Progress from the upstream reaches the client.
    assert_eq!(
        client
            .call_text("leg__slow", json!({"ms": 450}))
            .await
            .unwrap(),
        "slept 450 ms"
    );
    assert!(
        !client.received.progress.lock().unwrap().is_empty(),
        "no progress arrived"
    );

    // The upstream's tools/list_changed reaches the client and the new list.
    write_control(
        &control,
        json!({"tools": [{"name": "echo"}, {"name": "slow", "behavior": "sleep"},
                         {"name": "boom", "behavior": "crash"}, {"name": "fresh"}],
               "notify": true}),
    );
    client.received.wait_tools_changed(1).await;
    assert_eq!(
        client.tool_names().await,
        vec!["leg__boom", "leg__echo", "leg__fresh", "leg__slow"]
    );

    // The server dies mid-call: a JSON-RPC error naming it, no hang.
    let err = client.call_text("leg__boom", json!({})).await.unwrap_err();
    let message = &rpc_error(&err).message;
    assert!(message.starts_with("server 'leg'"), "{message}");
    let _ = fixture.child.wait().await;

    // Restarted on the same port, it is reached again.
    let _back = HttpFixture::start_on(&addr, &args).await.unwrap();
    eventually("the restarted SSE server answers", || async {
        client
            .call_text("leg__echo", json!({"text": "again"}))
            .await
            .ok()
            .filter(|text| text == "again")
    })
    .await;

    let log = hub.log();
    assert!(
        !log.contains(TOKEN),
        "the token leaked into the log:\n{log}"
    );
    let status = hub.status().await.to_string();
    assert!(!status.contains(TOKEN), "the token leaked into the status");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_stream_the_server_ends_fails_the_pending_call_and_is_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        json!([{"name": "echo"}, {"name": "slow", "behavior": "sleep"}]),
    );
    // Each stream ends after 40 messages: the slow call's progress
    // notifications (one per 100 ms) use them up while it runs.
    let fixture = HttpFixture::start(&["--sse", "--sse-close-after", "40", "--spec", &spec])
        .await
        .unwrap();
    let mut hub = Hub::start(json!({"mcpServers": {
        "leg": {"url": fixture.url, "transport": "sse"},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["leg__echo", "leg__slow"]);

    let err = tokio::time::timeout(
        switchboard_e2e::DEADLINE,
        client.call_text("leg__slow", json!({"ms": 60000})),
    )
    .await
    .expect("the call ends when the stream does")
    .unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(err.message, "server 'leg' closed the SSE stream");
    assert_eq!(err.data, Some(json!({"server": "leg", "kind": "closed"})));
    let leg = hub
        .wait_for("leg", "the loss recorded", |s| {
            s.last_error.as_deref() == Some("server 'leg' closed the SSE stream")
        })
        .await;
    assert_eq!(leg.transport, "sse");

    // The next call opens a new stream.
    eventually("a new SSE session", || async {
        client
            .call_text("leg__echo", json!({"text": "reopened"}))
            .await
            .ok()
            .filter(|text| text == "reopened")
    })
    .await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn an_oauth_login_reaches_a_legacy_sse_server() {
    let fixture = AuthFixture::start(&["--sse", "--token-lifetime-secs", "2", "--tools", "echo"])
        .await
        .unwrap();
    assert!(fixture.url.ends_with("/sse"), "{}", fixture.url);
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {"remote": {"url": fixture.url, "transport": "sse"}}}),
        &[("SWITCHBOARD_TOKEN_STORE", "memory")],
    )
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, Vec::<String>::new());
    hub.wait_for(
        "remote",
        "remote needs a login",
        is::all(vec![is::auth_required(), is::needs_login()]),
    )
    .await;

    let (code, body) = hub.start_login("remote").await;
    assert_eq!(code, 200, "{body}");
    let page = browse(body["authorizationUrl"].as_str().unwrap()).await;
    assert!(page.contains("You are logged in"), "{page}");
    hub.wait_for(
        "remote",
        "remote ready after login",
        is::all(vec![is::ready(), is::logged_in(true), is::tools(1)]),
    )
    .await;
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "with a token"}))
            .await
            .unwrap(),
        "with a token"
    );

    // The 2 s token is refreshed; the next message carries the new one
    // (the fixture refuses an expired token with 401).
    eventually("a refresh", || async {
        (fixture.stats().await["refreshGrants"].as_u64().unwrap() >= 2).then_some(())
    })
    .await;
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "refreshed"}))
            .await
            .unwrap(),
        "refreshed"
    );
    assert_no_secrets("the hub's log", &hub.log());
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn an_event_over_the_size_bound_ends_the_stream_and_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        json!([{"name": "echo"}, {"name": "big", "behavior": "large"}]),
    );
    let fixture = HttpFixture::start(&["--sse", "--spec", &spec])
        .await
        .unwrap();
    let mut hub = Hub::start(json!({"mcpServers": {
        "leg": {"url": fixture.url, "transport": "sse"},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["leg__big", "leg__echo"]);

    // An answer of 17 MB is one event over the 16 MiB bound: the hub stops
    // reading (it does not buffer it whole) and the call fails, naming the server.
    let err = client
        .call_text("leg__big", json!({"bytes": 17_000_000}))
        .await
        .unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(err.message, "server 'leg' closed the SSE stream");
    assert!(
        hub.log().contains("larger than 16777216 bytes"),
        "{}",
        hub.log()
    );

    eventually("a new SSE session", || async {
        client
            .call_text("leg__echo", json!({"text": "small"}))
            .await
            .ok()
            .filter(|text| text == "small")
    })
    .await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn misbehaving_sse_servers_get_errors_naming_them() {
    // Every POST refused; an endpoint on another origin; a Streamable HTTP
    // server configured as SSE; nothing listening.
    let refusing = HttpFixture::start(&["--sse", "--sse-post-status", "503", "--tools", "x"])
        .await
        .unwrap();
    let elsewhere = HttpFixture::start(&[
        "--sse",
        "--sse-endpoint",
        "http://127.0.0.2:9/messages?sessionId=1",
        "--tools",
        "x",
    ])
    .await
    .unwrap();
    let streamable = HttpFixture::start(&["--tools", "x"]).await.unwrap();
    let nothing = format!("http://127.0.0.1:{}/sse", switchboard_e2e::free_port());
    let mut hub = Hub::start(json!({"mcpServers": {
        "refusing": {"url": refusing.url, "transport": "sse"},
        "elsewhere": {"url": elsewhere.url, "transport": "sse"},
        "modern": {"url": streamable.url, "transport": "sse"},
        "gone": {"url": nothing, "transport": "sse"},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, Vec::<String>::new());

    let failed = |id: &'static str| {
        let hub = &hub;
        async move {
            let server = hub
                .wait_for(id, "the failure recorded", is::state(ServerState::Failed))
                .await;
            let error = last_error(&server).to_string();
            assert!(error.starts_with(&format!("server '{id}'")), "{error}");
            error
        }
    };
    let refused = failed("refusing").await;
    assert!(
        refused.ends_with("posting a message: the server answered HTTP 503 Service Unavailable"),
        "{refused}"
    );
    let redirected = failed("elsewhere").await;
    assert!(
        redirected.contains("the `endpoint` event names another origin (http://127.0.0.2:9)"),
        "{redirected}"
    );
    let modern = failed("modern").await;
    assert!(
        modern.ends_with(
            "opening the event stream: the server answered HTTP 400 Bad Request \
             (a Streamable HTTP server needs no `\"transport\": \"sse\"`)"
        ),
        "{modern}"
    );
    let gone = failed("gone").await;
    assert!(gone.contains("connection refused"), "{gone}");
    assert_eq!(hub.terminate().await, Some(0));
}
