//! MCP Apps through the hub: the two real ext-apps example servers from npm
//! (`@modelcontextprotocol/server-basic-vanillajs` and `server-basic-preact`,
//! 2.0.3, installed by `scripts/setup.sh` into `.tools/ext-apps`), which both
//! name their UI `ui://get-time/mcp-app.html`, behind one hub over stdio.
//!
//! On `/mcp` and a profile each tool's `_meta.ui.resourceUri` (and the older
//! `_meta["ui/resourceUri"]`) names its server, `resources/list` lists both
//! pages, and each page read through the hub is byte for byte what its own
//! server answers directly; the pass-through route keeps the servers' URIs.
//! Without the packages the tests skip with the reason, or fail when
//! `SWITCHBOARD_REQUIRE_EXTERNAL` is set (as `scripts/test.sh` does).
//!
//! In-process (`Engine`): the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use rmcp::ServiceExt as _;
use rmcp::model::ReadResourceRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::rpc_error;

/// The URI both example servers give their page.
const PAGE: &str = "ui://get-time/mcp-app.html";
const MIME: &str = "text/html;profile=mcp-app";
const PROFILE_TOKEN: &str = "apps-profile-token-0123456789";

/// The example server binary for `which` (`vanilla` or `preact`): the
/// `SWITCHBOARD_TEST_APP_<WHICH>` variable, else the setup script's install.
fn app_bin(which: &str) -> Option<PathBuf> {
    let var = format!("SWITCHBOARD_TEST_APP_{}", which.to_uppercase());
    let path = std::env::var_os(&var)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let name = match which {
                "vanilla" => "mcp-server-basic-vanillajs",
                _ => "mcp-server-basic-preact",
            };
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../.tools/ext-apps/node_modules/.bin")
                .join(name)
        });
    path.is_file().then_some(path)
}

/// Both servers, or `None` (skip) when they are not installed; panics under
/// `SWITCHBOARD_REQUIRE_EXTERNAL`.
fn apps_or_skip(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (app_bin("vanilla"), app_bin("preact")) {
        (Some(v), Some(p)) => Some((v, p)),
        _ => {
            let why = "the ext-apps example servers are not installed \
                       (scripts/setup.sh installs them into .tools/ext-apps)";
            if std::env::var("SWITCHBOARD_REQUIRE_EXTERNAL")
                .is_ok_and(|v| !v.is_empty() && v != "0")
            {
                panic!("{test}: {why}");
            }
            eprintln!("{test}: skipped: {why}");
            None
        }
    }
}

fn stdio(bin: &std::path::Path) -> Value {
    json!({"command": bin.to_string_lossy(), "args": ["--stdio"]})
}

/// What `bin` itself answers to `resources/read` of its page (a direct stdio
/// session, no hub), as JSON.
async fn direct_read(bin: &std::path::Path) -> Value {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("--stdio");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let result = client
        .peer()
        .read_resource(ReadResourceRequestParams::new(PAGE))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    serde_json::to_value(result.contents).unwrap()
}

async fn read(client: &Client, uri: &str) -> Result<Value, rmcp::ServiceError> {
    let result = client
        .service
        .peer()
        .read_resource(ReadResourceRequestParams::new(uri))
        .await?;
    Ok(serde_json::to_value(result.contents).unwrap())
}

/// `contents` with each `uri` replaced by `uri`.
fn with_uri(mut contents: Value, uri: &str) -> Value {
    for content in contents.as_array_mut().unwrap() {
        content["uri"] = json!(uri);
    }
    contents
}

/// The `_meta` of each listed tool, by name.
async fn tool_metas(client: &Client) -> Vec<(String, Value)> {
    let mut tools: Vec<(String, Value)> = client
        .service
        .peer()
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.name.to_string(), serde_json::to_value(&t.meta).unwrap()))
        .collect();
    tools.sort_by(|a, b| a.0.cmp(&b.0));
    tools
}

async fn resource_uris(client: &Client) -> Vec<(String, Option<String>)> {
    let mut uris: Vec<_> = client
        .service
        .peer()
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.uri.clone(), r.mime_type.clone()))
        .collect();
    uris.sort();
    uris
}

fn link(uri: &str) -> Value {
    json!({"ui": {"resourceUri": uri}, "ui/resourceUri": uri})
}

#[tokio::test]
async fn two_apps_with_one_ui_uri_each_get_their_own_page_through_the_hub() {
    let Some((vanilla, preact)) =
        apps_or_skip("two_apps_with_one_ui_uri_each_get_their_own_page_through_the_hub")
    else {
        return;
    };
    let direct_vanilla = direct_read(&vanilla).await;
    let direct_preact = direct_read(&preact).await;
    // The premise: one URI, two different pages.
    assert_eq!(direct_vanilla[0]["uri"], PAGE);
    assert_eq!(direct_preact[0]["uri"], PAGE);
    assert_ne!(direct_vanilla[0]["text"], direct_preact[0]["text"]);

    let hub = Engine::serve(json!({
        "mcpServers": {"vanilla": stdio(&vanilla), "preact": stdio(&preact)},
        "profiles": {"only-preact": {"servers": ["preact"], "token": PROFILE_TOKEN}},
    }))
    .await
    .unwrap();

    // The merged endpoint: each link names its server.
    let merged = hub.client().await;
    let info = merged.service.peer_info().unwrap();
    let capabilities = serde_json::to_value(&info.capabilities).unwrap();
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/ui"],
        json!({}),
        "the merged endpoint declares the MCP Apps extension: {capabilities}"
    );
    assert_eq!(
        tool_metas(&merged).await,
        vec![
            (
                "preact__get-time".to_string(),
                link("ui://preact/get-time/mcp-app.html")
            ),
            (
                "vanilla__get-time".to_string(),
                link("ui://vanilla/get-time/mcp-app.html")
            ),
        ]
    );
    assert_eq!(
        resource_uris(&merged).await,
        vec![
            (
                "ui://preact/get-time/mcp-app.html".to_string(),
                Some(MIME.to_string())
            ),
            (
                "ui://vanilla/get-time/mcp-app.html".to_string(),
                Some(MIME.to_string())
            ),
        ]
    );
    // Each page is its own server's, byte for byte (text, mime type, _meta),
    // under the URI the client asked for.
    for (server, direct) in [("vanilla", &direct_vanilla), ("preact", &direct_preact)] {
        let uri = format!("ui://{server}/get-time/mcp-app.html");
        let through = read(&merged, &uri).await.unwrap();
        assert_eq!(through, with_uri(direct.clone(), &uri), "{server}");
        assert_eq!(
            through[0]["text"].as_str().unwrap().as_bytes(),
            direct[0]["text"].as_str().unwrap().as_bytes()
        );
    }
    // The servers' own URI names no server on /mcp.
    let err = read(&merged, PAGE).await.unwrap_err();
    assert!(
        rpc_error(&err).message.contains(PAGE),
        "{:?}",
        rpc_error(&err)
    );
    // The tool still works: its text answer comes from its server.
    let time = merged
        .call_text("vanilla__get-time", json!({}))
        .await
        .unwrap();
    assert!(!time.is_empty());

    // A profile renames the same way and offers only its server's page.
    let profile = Client::connect_with_token(
        &format!("{}/profiles/only-preact/mcp", hub.base),
        PROFILE_TOKEN,
    )
    .await
    .unwrap();
    assert_eq!(
        tool_metas(&profile).await,
        vec![(
            "preact__get-time".to_string(),
            link("ui://preact/get-time/mcp-app.html")
        )]
    );
    let uri = "ui://preact/get-time/mcp-app.html";
    assert_eq!(
        read(&profile, uri).await.unwrap(),
        with_uri(direct_preact.clone(), uri)
    );
    let err = read(&profile, "ui://vanilla/get-time/mcp-app.html")
        .await
        .unwrap_err();
    assert!(
        rpc_error(&err).message.contains("only-preact"),
        "{:?}",
        rpc_error(&err)
    );

    // Pass-through: the server as it is.
    let single = Client::connect(&format!("{}/servers/vanilla/mcp", hub.base)).await;
    assert_eq!(
        tool_metas(&single).await,
        vec![("get-time".to_string(), link(PAGE))]
    );
    assert_eq!(
        resource_uris(&single).await,
        vec![(PAGE.to_string(), Some(MIME.to_string()))]
    );
    assert_eq!(read(&single, PAGE).await.unwrap(), direct_vanilla);
}
