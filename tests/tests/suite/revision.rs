//! Protocol 2026-07-28 on the downstream side: a real rmcp client that starts
//! with `server/discover` (no `initialize`, every request stateless with its
//! own `_meta`) on both MCP routes, caching hints on lists, a
//! `subscriptions/listen` stream that hears a tagged `list_changed` when a
//! fixture's tools change, a removed method's error, the `Mcp-Method` check, an `initialize` offering
//! 2026-07-28 answered with 2025-11-25, and an old client on the same hub.
//!
//! In-process (`Engine`): the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rmcp::model::{CacheScope, GetMeta, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use switchboard_e2e::Recorder;
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::RawMcp;

/// A client that speaks only 2026-07-28 (discover, then stateless requests).
async fn modern_client(url: &str) -> RunningService<RoleClient, Recorder> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    Recorder::default()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client connects")
}

#[tokio::test]
async fn a_2026_07_28_client_is_served_on_both_routes_beside_an_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.json");
    let control_arg = control.to_string_lossy().to_string();
    let mut hub = Engine::serve(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x", "--control", &control_arg]),
    }}))
    .await
    .unwrap();
    let pass_url = format!("{}/servers/a/mcp", hub.base);

    // The merged route: the hub's own server info; the pass-through route:
    // the server's.
    let merged = modern_client(&hub.url).await;
    let info = merged.peer().peer_info().expect("discovered");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(info.server_info.as_ref().unwrap().name, "switchboard");
    let pass = modern_client(&pass_url).await;
    let pass_info = pass.peer().peer_info().expect("discovered");
    assert_eq!(pass_info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_ne!(pass_info.server_info.as_ref().unwrap().name, "switchboard");

    // Lists carry caching hints: private, fresh until the next poll (the
    // default poll interval is 300 s).
    for (peer, name) in [(merged.peer(), "a__x"), (pass.peer(), "x")] {
        let tools = peer.list_tools(None).await.expect("tools/list");
        assert!(tools.tools.iter().any(|t| t.name == name), "{name} listed");
        assert_eq!(tools.cache_scope, Some(CacheScope::Private));
        let ttl = tools.ttl_ms.expect("ttlMs on a 2026-07-28 list");
        assert!(ttl > 0 && ttl <= 300_000, "ttlMs {ttl}");
    }
    // Calls work statelessly on both routes.
    for (peer, name) in [(merged.peer(), "a__x"), (pass.peer(), "x")] {
        let result = peer
            .call_tool(rmcp::model::CallToolRequestParams::new(name.to_string()))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true));
    }

    // The activity log names the client from the requests' own `_meta`.
    switchboard_e2e::eventually("both calls in the activity log", || async {
        let value = hub.get("/api/v1/activity?limit=100").await;
        let calls = value["calls"].as_array().cloned().unwrap_or_default();
        (calls
            .iter()
            .filter(|c| c["client"] == "switchboard-e2e")
            .count()
            == 2)
            .then_some(())
    })
    .await;

    // An old client on the same hub still initializes and lists.
    let old = Client::connect(&hub.url).await;
    assert_eq!(old.tool_names().await, vec!["a__x"]);

    // subscriptions/listen on both routes: acknowledged, then a
    // tools/list_changed tagged with the subscription's id.
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut merged_sub = merged.peer().listen(filter.clone()).await.expect("listen");
    let mut pass_sub = pass.peer().listen(filter).await.expect("listen");
    assert_eq!(merged_sub.acknowledged().tools_list_changed, Some(true));
    write_control(
        &control,
        json!({"tools": [{"name": "x"}, {"name": "y"}], "notify": true}),
    );
    for sub in [&mut merged_sub, &mut pass_sub] {
        let id = sub.id().clone();
        let notification = tokio::time::timeout(Duration::from_secs(30), sub.next())
            .await
            .expect("a list_changed within 30 s")
            .expect("the stream is open")
            .expect("a notification");
        assert!(
            matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
            ),
            "{notification:?}"
        );
        assert_eq!(notification.get_meta().subscription_id(), Some(id));
    }
    let mut names: Vec<String> = merged
        .peer()
        .list_tools(None)
        .await
        .unwrap()
        .tools
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    assert_eq!(names, vec!["a__x", "a__y"]);
    // The old client heard it on its session as before.
    old.received.wait_tools_changed(1).await;

    drop((merged_sub, pass_sub));
    merged.cancel().await.unwrap();
    pass.cancel().await.unwrap();
    old.service.cancel().await.unwrap();
    hub.shutdown().await;
}

/// The `_meta` a 2026-07-28 request carries.
fn meta() -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn removed_methods_missing_meta_and_legacy_initialize() {
    let mut hub = Engine::serve(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();
    for url in [hub.url.clone(), format!("{}/servers/a/mcp", hub.base)] {
        let mut raw = RawMcp::new(&url);
        let version = ("mcp-protocol-version", "2026-07-28");
        // The Mcp-Method header is checked: missing, the request is refused.
        let answer = raw
            .request_with("tools/list", json!({"_meta": meta()}), &[version])
            .await;
        assert_eq!(
            answer.message["error"]["code"], -32020,
            "{}",
            answer.message
        );
        // Removed in 2026-07-28: resources/subscribe and ping.
        for (method, name) in [("resources/subscribe", "test://r"), ("ping", "")] {
            let answer = raw
                .request_with(
                    method,
                    json!({"uri": "test://r", "_meta": meta()}),
                    &[version, ("mcp-method", method), ("mcp-name", name)],
                )
                .await;
            assert_eq!(
                answer.message["error"]["code"], -32601,
                "{method} on {url}: {}",
                answer.message
            );
        }
        // A stateless request without its required _meta is invalid params.
        let answer = raw
            .request_with(
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
                &[version, ("mcp-method", "tools/list")],
            )
            .await;
        assert_eq!(
            answer.message["error"]["code"], -32602,
            "{}",
            answer.message
        );
        // A well-formed one is answered, with resultType and caching hints.
        let answer = raw
            .request_with(
                "tools/list",
                json!({"_meta": meta()}),
                &[version, ("mcp-method", "tools/list")],
            )
            .await;
        let result = &answer.message["result"];
        assert_eq!(result["resultType"], "complete", "{}", answer.message);
        assert_eq!(result["cacheScope"], "private");
        assert!(result["ttlMs"].is_u64());
        // server/discover names 2026-07-28 and the older versions.
        let answer = raw
            .request_with(
                "server/discover",
                json!({"_meta": meta()}),
                &[version, ("mcp-method", "server/discover")],
            )
            .await;
        let versions = answer.message["result"]["supportedVersions"].to_string();
        assert!(
            versions.contains("2026-07-28") && versions.contains("2025-11-25"),
            "{versions}"
        );

        // `initialize` offering 2026-07-28 gets 2025-11-25, the newest
        // version with the handshake.
        let answer = raw
            .post(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2026-07-28", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}}),
                &[],
            )
            .await;
        assert_eq!(
            answer.message["result"]["protocolVersion"], "2025-11-25",
            "{}",
            answer.message
        );
    }
    // An old session's request that names 2026-07-28 in its `_meta` is not
    // answered as a session request (the fast path leaves it to rmcp, which
    // refuses the mismatch with the session's header).
    let mut old = RawMcp::new(&hub.url);
    assert_eq!(old.initialize().await.status, 200);
    let answer = old
        .request("tools/call", json!({"name": "a__x", "_meta": meta()}))
        .await;
    assert!(answer.message["error"].is_object(), "{}", answer.message);
    let answer = old.request("tools/call", json!({"name": "a__x"})).await;
    assert!(answer.message["result"].is_object(), "{}", answer.message);
    hub.shutdown().await;
}
