//! `toolOverrides`: a server's tool renamed, described and given argument
//! defaults in the user's words on the merged endpoint, with hidden
//! arguments refused; the pass-through endpoint keeps the server's own
//! definition. A real fixture server behind the real binary, an rmcp client.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, rpc_error, stdio_fixture};

fn spec(dir: &std::path::Path) -> String {
    let path = dir.join("spec.json");
    std::fs::write(
        &path,
        serde_json::to_vec(&json!({"tools": [
            {"name": "search", "description": "Search issues", "behavior": "echo",
             "inputSchema": {"type": "object", "properties": {
                 "q": {"type": "string"}, "limit": {"type": "integer"},
                 "project": {"type": "string"}},
                 "required": ["q", "project"]}},
            {"name": "other", "behavior": "echo"},
        ]}))
        .unwrap(),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn an_overridden_tool_is_listed_called_with_defaults_and_refuses_hidden_arguments() {
    let scratch = tempfile::tempdir().unwrap();
    let mut server = stdio_fixture(&["--spec", &spec(scratch.path())]);
    server["toolOverrides"] = json!({"search": {
        "name": "find_issues",
        "description": "Find ACME issues",
        "arguments": {"limit": 5, "project": "ACME"},
        "hideArguments": ["project"],
    }});
    let mut hub = Hub::start(json!({"mcpServers": {"jira": server}}))
        .await
        .unwrap();
    let client = Client::connect(&hub.url).await;
    assert_eq!(
        client.tool_names().await,
        vec!["jira__find_issues", "jira__other"]
    );
    let tools = client.service.peer().list_all_tools().await.unwrap();
    let found = tools
        .iter()
        .find(|t| t.name == "jira__find_issues")
        .unwrap();
    assert_eq!(found.description.as_deref(), Some("Find ACME issues"));
    assert_eq!(
        Value::Object((*found.input_schema).clone()),
        json!({"type": "object", "properties": {
            "q": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
            "required": ["q"]})
    );

    // Defaults fill what the call leaves out; the hidden one is always sent.
    let echoed = |text: String| serde_json::from_str::<Value>(&text).unwrap();
    let out = client
        .call_text("jira__find_issues", json!({"q": "bug"}))
        .await
        .unwrap();
    assert_eq!(
        echoed(out),
        json!({"q": "bug", "limit": 5, "project": "ACME"})
    );
    let out = client
        .call_text("jira__find_issues", json!({"q": "bug", "limit": 9}))
        .await
        .unwrap();
    assert_eq!(
        echoed(out),
        json!({"q": "bug", "limit": 9, "project": "ACME"})
    );

    // A hidden argument is refused, naming it; the server's name is not listed.
    let err = client
        .call_text("jira__find_issues", json!({"q": "bug", "project": "OTHER"}))
        .await
        .unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(err.code.0, -32602, "{err:?}");
    assert!(err.message.contains("\"project\""), "{}", err.message);
    assert!(
        client
            .call_text("jira__search", json!({"q": "bug"}))
            .await
            .is_err()
    );

    // The pass-through endpoint is the server as it is.
    let single = Client::connect(&format!("{}/servers/jira/mcp", hub.base)).await;
    assert_eq!(single.tool_names().await, vec!["other", "search"]);
    let out = single
        .call_text("search", json!({"q": "bug", "project": "OTHER"}))
        .await
        .unwrap();
    assert_eq!(echoed(out), json!({"q": "bug", "project": "OTHER"}));

    drop((client, single));
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_hidden_argument_without_a_value_is_refused_with_where() {
    let err = Hub::start(json!({"mcpServers": {"jira": {
        "command": "x",
        "toolOverrides": {"search": {"hideArguments": ["project"]}},
    }}}))
    .await
    .err()
    .expect("the config should be refused");
    let text = format!("{err:#}");
    assert!(
        text.contains("toolOverrides.search") && text.contains("\"project\""),
        "{text}"
    );
}
