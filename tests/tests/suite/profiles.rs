//! Profiles (`/profiles/<name>/mcp`) with a 2026-07-28 client: a real rmcp
//! client that starts with `server/discover` and sends every request
//! stateless, with the profile's token as `Authorization: Bearer`. It lists
//! only the profile's servers' tools, calls one, is refused another server's
//! tool (naming the tool only), and is refused without the token. Its
//! `subscriptions/listen` stream hears `list_changed` when a reload changes
//! the profile's servers, and ends when a reload removes the profile. (The
//! 2025 session clients are covered by `tests/python/test_profiles.py`.)

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use switchboard_e2e::{Hub, Recorder, stdio_fixture};

const TOKEN: &str = "e2e-profile-token-73a1c9";

async fn modern_client(
    url: &str,
    token: Option<&str>,
) -> Result<RunningService<RoleClient, Recorder>, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token.to_string());
    }
    Recorder::default()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .map_err(|err| err.to_string())
}

#[tokio::test]
async fn a_2026_07_28_client_uses_a_profile_with_its_token() {
    let servers = json!({
        "a": stdio_fixture(&["--tools", "x,y"]),
        "b": stdio_fixture(&["--tools", "z"]),
    });
    let mut hub = Hub::start(json!({
        "mcpServers": servers,
        "profiles": {"p": {"servers": ["a"], "token": TOKEN}},
    }))
    .await
    .unwrap();
    let url = format!("{}/profiles/p/mcp", hub.base);

    assert!(
        modern_client(&url, None).await.is_err(),
        "no token, no discovery"
    );
    assert!(modern_client(&url, Some("wrong-token")).await.is_err());

    let client = modern_client(&url, Some(TOKEN)).await.unwrap();
    let info = client.peer().peer_info().expect("discovered");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    let tools = client.peer().list_tools(None).await.expect("tools/list");
    let mut servers_tools: Vec<String> = tools
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .filter(|n| !n.starts_with("switchboard__"))
        .collect();
    servers_tools.sort();
    assert_eq!(servers_tools, vec!["a__x", "a__y"]);
    assert!(
        tools.ttl_ms.is_some(),
        "a 2026-07-28 list has caching hints"
    );

    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("a__x"))
        .await
        .expect("a__x");
    assert_ne!(result.is_error, Some(true));
    let refused = client
        .peer()
        .call_tool(CallToolRequestParams::new("b__z"))
        .await
        .expect_err("b__z is not the profile's");
    let refused = refused.to_string();
    assert!(refused.contains("unknown tool 'b__z'"), "{refused}");
    assert!(!refused.contains("server 'b'"), "{refused}");

    // A reload that changes the profile's servers is heard on its stream;
    // one that removes the profile ends the stream.
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut sub = client.peer().listen(filter).await.expect("listen");
    let write = |profiles: serde_json::Value| {
        let config = json!({"mcpServers": servers, "profiles": profiles});
        std::fs::write(&hub.config_path, config.to_string()).unwrap();
    };
    write(json!({"p": {"servers": ["a", "b"], "token": TOKEN}}));
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
    write(json!({}));
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(_)) = sub.next().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream of a removed profile ends");

    let _ = client.cancel().await;
    assert!(!hub.log().contains(TOKEN), "the token is never logged");
    assert_eq!(hub.terminate().await, Some(0));
}
