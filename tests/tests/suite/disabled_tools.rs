//! Per-tool switches (`disabledTools`): a disabled tool is hidden from the
//! merged and the pass-through lists, a call to it is refused naming server
//! and tool, and toggling one through the control API or the CLI edits the
//! config file and reaches connected clients as `tools/list_changed`
//! without restarting the server.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, eventually, rpc_error, stdio_fixture};

fn file(hub: &Hub) -> Value {
    serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap()
}

#[tokio::test]
async fn disabled_tools_are_hidden_refused_and_toggled_without_a_restart() {
    let mut config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "keep,secret,other"])}});
    config["mcpServers"]["a"]["disabledTools"] = json!(["secret"]);
    let mut hub = Hub::start(config).await.unwrap();
    let merged = hub.client().await;
    let single = Client::connect(&format!("{}/servers/a/mcp", hub.base)).await;
    assert_eq!(merged.tool_names().await, vec!["a__keep", "a__other"]);
    assert_eq!(single.tool_names().await, vec!["keep", "other"]);

    // Calls are refused with a message naming server and tool, on both routes.
    let said = "tool 'secret' of server 'a' is disabled in the config (`disabledTools`)";
    let err = merged.call_text("a__secret", json!({})).await.unwrap_err();
    assert_eq!(rpc_error(&err).message, said);
    let err = single.call_text("secret", json!({})).await.unwrap_err();
    assert_eq!(rpc_error(&err).message, said);
    assert_eq!(
        merged
            .call_text("a__keep", json!({"text": "hi"}))
            .await
            .unwrap(),
        "hi"
    );
    let pid = hub.server_snapshot("a").await.pid.expect("a running pid");

    // Disable one more through the control API: the file is edited in place.
    let before = merged.received.tools_changed();
    let (code, answer) = hub.post("/api/v1/servers/a/tools/other/disable").await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["reload"]["updated"], json!(["a"]), "{answer}");
    assert_eq!(
        file(&hub)["mcpServers"]["a"]["disabledTools"],
        json!(["secret", "other"])
    );
    eventually("the merged client told the tools changed", || async {
        (merged.received.tools_changed() > before).then_some(())
    })
    .await;
    assert_eq!(merged.tool_names().await, vec!["a__keep"]);
    assert_eq!(single.tool_names().await, vec!["keep"]);

    // Enable the first one again with the CLI.
    let before = merged.received.tools_changed();
    let out = hub
        .cli()
        .args(["tool", "enable", "a", "secret", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a: tool 'secret' enabled\nupdated: a\n"
    );
    assert_eq!(
        file(&hub)["mcpServers"]["a"]["disabledTools"],
        json!(["other"])
    );
    eventually("the merged client told the tools changed again", || async {
        (merged.received.tools_changed() > before).then_some(())
    })
    .await;
    assert_eq!(merged.tool_names().await, vec!["a__keep", "a__secret"]);
    assert_eq!(
        merged
            .call_text("a__secret", json!({"text": "back"}))
            .await
            .unwrap(),
        "back"
    );
    // The same process all along.
    assert_eq!(hub.server_snapshot("a").await.pid, Some(pid));

    // An unknown server is a 404 and writes nothing.
    let before = std::fs::read(&hub.config_path).unwrap();
    let (code, _) = hub.post("/api/v1/servers/nope/tools/x/disable").await;
    assert_eq!(code, 404);
    assert_eq!(std::fs::read(&hub.config_path).unwrap(), before);
    assert_eq!(hub.terminate().await, Some(0));
}
