//! Per-tool switches (`disabledTools`): a disabled tool is hidden from the
//! merged and the pass-through lists, a call to it is refused naming server
//! and tool, and toggling one through the control API or the CLI edits the
//! config file and reaches connected clients as `tools/list_changed`
//! without restarting the server; the snapshot's token counts follow.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, TestHub, eventually, rpc_error, spec_file, stdio_fixture};

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
    // Token counts: per server, and in all (the hub runs without built-in tools).
    let tokens = hub
        .wait_for("a", "the tools counted", |s| s.tool_tokens > 0)
        .await
        .tool_tokens;
    assert_eq!(hub.snapshot().await.totals.tool_tokens, tokens);

    // Disable one more through the control API: the file is edited in place.
    let before = merged.received.tools_changed();
    let (code, answer) = hub.post("/api/v1/servers/a/tools/other/disable").await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["reload"]["updated"], json!(["a"]), "{answer}");
    assert_eq!(
        file(&hub)["mcpServers"]["a"]["disabledTools"],
        json!(["secret", "other"])
    );
    merged.received.wait_tools_changed(before + 1).await;
    assert_eq!(merged.tool_names().await, vec!["a__keep"]);
    assert_eq!(single.tool_names().await, vec!["keep"]);
    hub.wait_for("a", "fewer tokens for fewer tools", |s| {
        s.tool_tokens > 0 && s.tool_tokens < tokens
    })
    .await;

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
    merged.received.wait_tools_changed(before + 1).await;
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

#[tokio::test]
async fn the_dashboard_routes_list_a_servers_tools_and_search_the_catalog() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([
            {"name": "read_file", "description": "Read the contents of a file from disk.\nSecond line."},
            {"name": "send_email", "description": "Send an email message to a recipient."},
            {"name": "list_calendar", "description": "List the events in a calendar."}
        ]),
    );
    let mut config = json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
        "b": stdio_fixture(&["--tools", "x"]),
    }});
    config["mcpServers"]["a"]["disabledTools"] = json!(["send_email"]);
    let mut hub = Hub::start(config).await.unwrap();
    // Never listed: nothing is started to answer.
    let tools = hub.get("/api/v1/servers/a/tools").await;
    assert_eq!(tools, json!({"server": "a", "listed": false, "tools": []}));
    assert_eq!(hub.server_snapshot("a").await.pid, None);
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec!["a__list_calendar", "a__read_file", "b__x"]
    );

    // The counts are the hub's, made moments after the listing (`null` until then).
    let tools = eventually("the tools counted", || async {
        let tools = hub.get("/api/v1/servers/a/tools").await;
        let counted = tools["tools"]
            .as_array()
            .is_some_and(|t| t.iter().all(|t| !t["tokens"].is_null()));
        counted.then_some(tools)
    })
    .await;
    assert_eq!(tools["listed"], true);
    let rows: Vec<(String, String, bool)> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert!(t["tokens"].as_u64().unwrap() > 10, "{t}");
            (
                t["name"].as_str().unwrap().to_string(),
                t["description"].as_str().unwrap().to_string(),
                t["enabled"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "read_file".into(),
                "Read the contents of a file from disk.".into(),
                true
            ),
            (
                "send_email".into(),
                "Send an email message to a recipient.".into(),
                false
            ),
            (
                "list_calendar".into(),
                "List the events in a calendar.".into(),
                true
            ),
        ]
    );
    assert_eq!(
        hub.get("/api/v1/servers/nope/tools").await["error"],
        "no server with id 'nope'"
    );

    // The search answers like switchboard__search_tools, best first.
    let found = hub.get("/api/v1/search?q=read%20a%20file&limit=2").await;
    let first = &found["tools"][0];
    assert_eq!(first["name"], "a__read_file", "{found}");
    assert_eq!(first["server"], "a");
    assert_eq!(first["running"], true);
    assert_eq!(first["inputSchema"]["type"], "object");
    // Why it matched: its words and its meaning both.
    assert_eq!(first["matched"], "both", "{found}");
    assert!(found["tools"].as_array().unwrap().len() <= 2);
    // A disabled tool is never found.
    let found = hub.get("/api/v1/search?q=send%20email%20message").await;
    assert!(
        found["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "a__send_email"),
        "{found}"
    );
    assert_eq!(hub.terminate().await, Some(0));
}
