//! `toolOverrides`: a server's tool renamed, described and given argument
//! defaults in the user's words on the merged endpoint, with hidden
//! arguments refused; the pass-through endpoint keeps the server's own
//! definition. A real fixture server behind the engine in-process (the hub's
//! process is not what is tested), an rmcp client.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::rpc_error;

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
    let mut hub = Engine::serve(json!({"mcpServers": {"jira": server}}))
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
    hub.shutdown().await;
}

#[tokio::test]
async fn a_hidden_argument_without_a_value_is_refused_with_where() {
    let err = Engine::serve(json!({"mcpServers": {"jira": {
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

/// A request to the override route with the control token (or without).
async fn override_request(
    hub: &Engine,
    method: reqwest::Method,
    tool: &str,
    body: Option<Value>,
    token: bool,
) -> (u16, Value) {
    let url = format!("{}/api/v1/servers/jira/tools/{tool}/override", hub.base);
    let mut request = reqwest::Client::new().request(method, url);
    if token {
        request = request.bearer_auth(hub.token());
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let code = response.status().as_u16();
    (code, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_control_api_sets_and_removes_an_override_in_the_file_keeping_the_rest() {
    let scratch = tempfile::tempdir().unwrap();
    let server = stdio_fixture(&["--spec", &spec(scratch.path())]);
    let mut hub = Engine::serve(json!({"mcpServers": {"jira": server}}))
        .await
        .unwrap();
    // The file as a person wrote it: tabs, an unrelated key, its own order.
    let original = format!(
        "{{\n\t\"mcpServers\": {{\n\t\t\"jira\": {}\n\t}},\n\t\"globalShortcut\": \"kept\"\n}}\n",
        serde_json::to_string(&server).unwrap()
    );
    std::fs::write(&hub.config_path, &original).unwrap();
    let (code, _) = hub.post("/api/v1/reload").await;
    assert_eq!(code, 200);
    let client = Client::connect(&hub.url).await;
    assert_eq!(
        client.tool_names().await,
        vec!["jira__other", "jira__search"]
    );

    let put = reqwest::Method::PUT;
    let body = json!({"name": "find", "description": "Find ACME issues",
                      "arguments": {"project": "ACME"}, "hideArguments": ["project"]});
    // Without the control token: refused, nothing written.
    let (code, _) = override_request(&hub, put.clone(), "search", Some(body.clone()), false).await;
    assert_eq!(code, 401);
    assert_eq!(std::fs::read_to_string(&hub.config_path).unwrap(), original);

    let (code, answer) =
        override_request(&hub, put.clone(), "search", Some(body.clone()), true).await;
    assert_eq!(code, 200, "{answer}");
    let written = std::fs::read_to_string(&hub.config_path).unwrap();
    assert!(
        written.starts_with("{\n\t\"mcpServers\": {\n\t\t\"jira\": {"),
        "{written}"
    );
    assert!(
        written.ends_with("\n\t},\n\t\"globalShortcut\": \"kept\"\n}\n"),
        "{written}"
    );
    let file: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        file["mcpServers"]["jira"]["toolOverrides"],
        json!({"search": body})
    );
    assert_eq!(client.tool_names().await, vec!["jira__find", "jira__other"]);
    let tools = hub.get("/api/v1/servers/jira/tools").await;
    let search = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search")
        .unwrap()
        .clone();
    assert_eq!(search["toolOverride"], body);
    assert_eq!(search["arguments"], json!(["q", "limit", "project"]));

    // Refused with a clear error, the file untouched.
    for (bad, says) in [
        (
            json!({"hideArguments": ["limit"]}),
            "has no value in `arguments`",
        ),
        (
            json!({"arguments": {"nope": 1}}),
            "\"nope\", which is no argument of search",
        ),
        (json!({"name": "has space"}), "toolOverrides.search`.name"),
        (json!({"rename": "x"}), "rename"),
    ] {
        let (code, answer) =
            override_request(&hub, put.clone(), "search", Some(bad.clone()), true).await;
        assert_eq!(code, 400, "{bad}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{bad}: {answer}");
        assert_eq!(std::fs::read_to_string(&hub.config_path).unwrap(), written);
    }
    let (code, answer) = override_request(
        &hub,
        put.clone(),
        "nosuch",
        Some(json!({"name": "x"})),
        true,
    )
    .await;
    assert_eq!(code, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("lists no tool 'nosuch'"),
        "{answer}"
    );

    // Removed: the file is as it was, and so is the tool.
    let (code, answer) =
        override_request(&hub, reqwest::Method::DELETE, "search", None, true).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(std::fs::read_to_string(&hub.config_path).unwrap(), original);
    assert_eq!(
        client.tool_names().await,
        vec!["jira__other", "jira__search"]
    );

    drop(client);
    hub.shutdown().await;
}
