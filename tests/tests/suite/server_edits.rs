//! Editing servers through the control API (the dashboard's server form and
//! first run), against the real `switchboard serve`: `PUT`/`DELETE
//! /api/v1/servers/<id>` splice the config file (every other byte kept),
//! refuse a definition the loader refuses with its words and write nothing,
//! hide secrets in `GET .../config` and keep them when `***` comes back; and
//! `GET`/`POST /api/v1/import` offer and import what the AI clients on the
//! machine (a fake HOME) have.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use serde_json::{Value, json};
use switchboard_e2e::{Hub, TestHub, bin, eventually, stdio_fixture};

/// `method` on the control API with a JSON body (or none), as the CLI sends it.
async fn send(hub: &Hub, method: reqwest::Method, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", hub.base))
        .bearer_auth(hub.token());
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("request");
    let code = response.status().as_u16();
    (code, response.json().await.unwrap_or(Value::Null))
}

async fn tools(hub: &Hub) -> Vec<String> {
    let client = hub.client().await;
    client.tool_names().await
}

#[tokio::test]
async fn servers_are_added_edited_and_removed_keeping_the_files_formatting() {
    let hub = Hub::start(json!({"mcpServers": {"alpha": stdio_fixture(&["--tools", "x"])}}))
        .await
        .unwrap();
    // A hand-written file: tabs, a key order, a trailing newline.
    let fixture = bin("switchboard-fixture").to_string_lossy().into_owned();
    let original = format!(
        "{{\n\t\"mcpServers\": {{\n\t\t\"alpha\": {{\n\t\t\t\"command\": {fixture:?},\n\t\t\t\"args\": [\"--tools\", \"x\"]\n\t\t}}\n\t}},\n\t\"settings\": {{}}\n}}\n"
    );
    fs::write(&hub.config_path, &original).unwrap();
    let (code, body) = send(&hub, reqwest::Method::POST, "/api/v1/reload", None).await;
    assert_eq!(code, 200, "{body}");

    // Add: only the new member is new text.
    let beta = json!({"command": fixture, "args": ["--tools", "y"],
                      "env": {"BETA_API_KEY": "sk-test-0123456789abcdef"}});
    let (code, body) = send(
        &hub,
        reqwest::Method::PUT,
        "/api/v1/servers/beta",
        Some(&beta.to_string()),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["reload"]["added"], json!(["beta"]), "{body}");
    let text = fs::read_to_string(&hub.config_path).unwrap();
    let split = original.find("\n\t},\n\t\"settings\"").unwrap();
    assert!(text.starts_with(&original[..split]), "{text}");
    assert!(text.ends_with(&original[split..]), "{text}");
    assert!(
        text.contains("\t\t\"beta\": {\n\t\t\t\"command\""),
        "{text}"
    );
    eventually("beta's tools listed", || async {
        let names = tools(&hub).await;
        (names == ["alpha__x", "beta__y"]).then_some(())
    })
    .await;

    // Its definition comes back with the secret hidden...
    let shown = hub.get("/api/v1/servers/beta/config").await;
    assert_eq!(shown["id"], "beta");
    assert_eq!(shown["definition"]["env"]["BETA_API_KEY"], "***", "{shown}");
    assert!(!shown.to_string().contains("sk-test"), "{shown}");
    // Definitions are not for any local process: they need a credential.
    for path in ["/api/v1/servers/beta/config", "/api/v1/import"] {
        let anonymous = reqwest::get(format!("{}{path}", hub.base)).await.unwrap();
        assert_eq!(anonymous.status().as_u16(), 401, "{path}");
    }
    // ...and sent back edited, the hidden value is kept.
    let mut edited = shown["definition"].clone();
    edited["args"] = json!(["--tools", "y,z"]);
    let (code, body) = send(
        &hub,
        reqwest::Method::PUT,
        "/api/v1/servers/beta",
        Some(&edited.to_string()),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["reload"]["changed"], json!(["beta"]), "{body}");
    assert!(!body.to_string().contains("sk-test"), "{body}");
    let file: Value = serde_json::from_str(&fs::read_to_string(&hub.config_path).unwrap()).unwrap();
    assert_eq!(
        file["mcpServers"]["beta"]["env"]["BETA_API_KEY"],
        "sk-test-0123456789abcdef"
    );
    eventually("beta's new tools listed", || async {
        let names = tools(&hub).await;
        (names == ["alpha__x", "beta__y", "beta__z"]).then_some(())
    })
    .await;

    // Refused: the loader's words, a 400, and the file untouched.
    let before = fs::read(&hub.config_path).unwrap();
    for (path, body, expect) in [
        (
            "/api/v1/servers/gamma",
            r#"{"args": ["x"], "env": {"GAMMA_TOKEN": "s3cr3t-gamma-value"}}"#,
            "server \"gamma\"",
        ),
        (
            "/api/v1/servers/gamma",
            r#"{"command": "x", "colour": 1}"#,
            "colour",
        ),
        (
            "/api/v1/servers/not.an.id",
            r#"{"command": "x"}"#,
            "invalid server id",
        ),
        ("/api/v1/servers/gamma", r#"{"command": "#, "not JSON"),
        ("/api/v1/servers/gamma", r#"["command"]"#, "JSON object"),
        (
            "/api/v1/servers/gamma",
            r#"{"command": "x", "env": {"NEW_KEY": "***"}}"#,
            "env.NEW_KEY",
        ),
    ] {
        let (code, answer) = send(&hub, reqwest::Method::PUT, path, Some(body)).await;
        assert_eq!(code, 400, "{body}: {answer}");
        assert_eq!(answer["ok"], false);
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(expect), "{body}: {error}");
        assert!(!error.contains("s3cr3t"), "{error}");
    }
    assert_eq!(fs::read(&hub.config_path).unwrap(), before);
    assert!(!hub.log().contains("s3cr3t"), "a secret reached the log");
    assert!(!hub.log().contains("sk-test"), "a secret reached the log");

    // Remove: the file is the original again, byte for byte.
    let (code, body) = send(&hub, reqwest::Method::DELETE, "/api/v1/servers/beta", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["reload"]["removed"], json!(["beta"]), "{body}");
    assert_eq!(fs::read_to_string(&hub.config_path).unwrap(), original);
    eventually("beta's tools gone", || async {
        (tools(&hub).await == ["alpha__x"]).then_some(())
    })
    .await;
    let (code, body) = send(&hub, reqwest::Method::DELETE, "/api/v1/servers/beta", None).await;
    assert_eq!(code, 404, "{body}");
    let (code, _) = send(
        &hub,
        reqwest::Method::GET,
        "/api/v1/servers/nope/config",
        None,
    )
    .await;
    assert_eq!(code, 404);
}

#[tokio::test]
async fn a_hub_without_a_config_file_gets_one_from_the_first_server() {
    let mut hub = Hub::start(json!({})).await.unwrap();
    fs::remove_file(&hub.config_path).unwrap();
    let (code, body) = send(
        &hub,
        reqwest::Method::PUT,
        "/api/v1/servers/first",
        Some(&stdio_fixture(&["--tools", "t"]).to_string()),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let text = fs::read_to_string(&hub.config_path).unwrap();
    assert!(
        text.starts_with("{\n  \"mcpServers\": {\n    \"first\": {"),
        "{text}"
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&hub.config_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a new config may hold secrets");
    }
    eventually("the first server's tools", || async {
        (tools(&hub).await == ["first__t"]).then_some(())
    })
    .await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn the_import_offer_lists_and_imports_the_clients_servers() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".config/Claude");
    fs::create_dir_all(&claude).unwrap();
    fs::write(
        claude.join("claude_desktop_config.json"),
        json!({"mcpServers": {
            "fixture": stdio_fixture(&["--tools", "hello"]),
            "remote": {"url": "http://127.0.0.1:9/mcp",
                       "headers": {"Authorization": "Bearer s3cr3t-import-token"}},
        }})
        .to_string(),
    )
    .unwrap();
    let home_str = home.path().to_str().unwrap();
    let config_home = home.path().join(".config");
    let hub = Hub::start_with_env(
        json!({}),
        &[
            ("HOME", home_str),
            ("XDG_CONFIG_HOME", config_home.to_str().unwrap()),
        ],
    )
    .await
    .unwrap();

    let offer = hub.get("/api/v1/import").await;
    let ids: Vec<&str> = offer["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("{offer}"))
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["fixture", "remote"], "{offer}");
    assert_eq!(
        offer["candidates"][0]["client"], "Claude Desktop",
        "{offer}"
    );
    assert!(!offer.to_string().contains("s3cr3t"), "{offer}");

    // Import one by id; unknown ids are refused and write nothing.
    let (code, body) = send(
        &hub,
        reqwest::Method::POST,
        "/api/v1/import",
        Some(r#"{"ids": ["nope"]}"#),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("nope"), "{body}");
    let (code, body) = send(
        &hub,
        reqwest::Method::POST,
        "/api/v1/import",
        Some(r#"{"ids": ["fixture"]}"#),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["added"], json!(["fixture"]), "{body}");
    assert_eq!(body["reload"]["added"], json!(["fixture"]), "{body}");
    eventually("the imported server's tools", || async {
        (tools(&hub).await == ["fixture__hello"]).then_some(())
    })
    .await;
    // The offer now holds only what is left.
    let offer = hub.get("/api/v1/import").await;
    assert_eq!(offer["candidates"].as_array().unwrap().len(), 1, "{offer}");
    assert_eq!(offer["candidates"][0]["id"], "remote", "{offer}");
}
