//! Config hot reload with real file edits: unchanged servers keep running,
//! changed ones are rebuilt, removed ones shut down, bad files are refused.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Hub, eventually, pid_alive, spec_file, stdio_fixture};

/// Saves the config the way editors do: write a temp file, rename it over.
fn save(hub: &Hub, config: &Value) {
    let tmp = hub.dir.path().join(".config.json.swp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(config).unwrap()).unwrap();
    std::fs::rename(&tmp, &hub.config_path).unwrap();
}

fn pid(server: &Value) -> u32 {
    server["pid"].as_u64().expect("a running pid") as u32
}

async fn wait_reload(hub: &Hub, previous: &Value) -> Value {
    eventually("a reload", || async {
        let status = hub.status().await;
        (status["lastReload"] != *previous && !status["lastReload"].is_null())
            .then(|| status["lastReload"].clone())
    })
    .await
}

#[tokio::test]
async fn edits_touch_only_what_changed() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([{"name": "slow", "behavior": "sleep"}]),
    );
    let mut config = json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
        "b": stdio_fixture(&["--tools", "y"]),
        "c": stdio_fixture(&["--tools", "z"]),
    }});
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__slow", "b__y", "c__z"]);
    let a_pid = pid(&hub.server("a").await);
    let b_pid = pid(&hub.server("b").await);
    let c_pid = pid(&hub.server("c").await);

    // A slow call to `a` is in flight while the file changes b, removes c, adds d.
    let slow = client.call_text("a__slow", json!({"ms": 1500}));
    config["mcpServers"]["b"] = stdio_fixture(&["--tools", "y", "--name", "b2"]);
    config["mcpServers"].as_object_mut().unwrap().remove("c");
    config["mcpServers"]["d"] = stdio_fixture(&["--tools", "w"]);
    let edit = async {
        // The call is running upstream once its first progress notification
        // has come back through the hub.
        eventually("the slow call in flight", || async {
            (!client.received.progress.lock().unwrap().is_empty()).then_some(())
        })
        .await;
        save(&hub, &config);
        wait_reload(&hub, &Value::Null).await
    };
    let (slow, reload) = tokio::join!(slow, edit);
    assert_eq!(slow.unwrap(), "slept 1500 ms");
    assert_eq!(reload["added"], json!(["d"]));
    assert_eq!(reload["changed"], json!(["b"]));
    assert_eq!(reload["removed"], json!(["c"]));
    assert_eq!(reload["unchanged"], json!(["a"]));

    assert_eq!(
        pid(&hub.server("a").await),
        a_pid,
        "unchanged server was restarted"
    );
    eventually("old b and c exit", || async {
        (!pid_alive(b_pid) && !pid_alive(c_pid)).then_some(())
    })
    .await;
    assert_eq!(hub.server("d").await["state"], "idle");
    eventually("client told the tools changed", || async {
        (client.received.tools_changed() >= 1).then_some(())
    })
    .await;
    assert_eq!(client.tool_names().await, vec!["a__slow", "b__y", "d__w"]);
    let b = hub.server("b").await;
    assert_ne!(pid(&b), b_pid);
    assert_eq!(b["serverName"], "b2");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn catalog_only_changes_restart_nothing() {
    let mut config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x,hidden"])}});
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__hidden", "a__x"]);
    let before = pid(&hub.server("a").await);
    config["mcpServers"]["a"]["disabledTools"] = json!(["hidden"]);
    save(&hub, &config);
    let reload = wait_reload(&hub, &Value::Null).await;
    assert_eq!(reload["updated"], json!(["a"]));
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert_eq!(pid(&hub.server("a").await), before);
    assert_eq!(hub.server("a").await["toolCount"], 1);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn invalid_file_keeps_the_last_good_config_until_fixed() {
    let config = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}});
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);

    std::fs::write(&hub.config_path, "{\n  \"mcpServers\": {\n    \"a\": {,\n").unwrap();
    let error = eventually("config error in status", || async {
        let status = hub.status().await;
        (!status["configError"].is_null()).then(|| status["configError"].clone())
    })
    .await;
    assert_eq!(error["kind"], "invalid");
    assert_eq!(error["line"], 3);
    assert_eq!(error["path"], hub.config_path.to_string_lossy().as_ref());
    // Everything keeps serving.
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "on"}))
            .await
            .unwrap(),
        "on"
    );

    save(&hub, &config);
    eventually("config error cleared", || async {
        hub.status().await["configError"].is_null().then_some(())
    })
    .await;
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "still"}))
            .await
            .unwrap(),
        "still"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn disable_and_enable_through_the_api_edit_the_file() {
    let config = json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
        "b": stdio_fixture(&["--tools", "y"]),
    }});
    let mut hub = Hub::start(config).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
    let b_pid = pid(&hub.server("b").await);

    let (code, body) = hub.post("/api/v1/servers/b/disable").await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["reload"]["changed"], json!(["b"]));
    let file: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["b"]["enabled"], false);
    assert_eq!(hub.server("b").await["state"], "disabled");
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    eventually("disabled server exits", || async {
        (!pid_alive(b_pid)).then_some(())
    })
    .await;

    let (code, _) = hub.post("/api/v1/servers/b/enable").await;
    assert_eq!(code, 200);
    let file: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert!(file["mcpServers"]["b"].get("enabled").is_none());
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);

    let (code, body) = hub.post("/api/v1/servers/nope/disable").await;
    assert_eq!(code, 404, "{body}");
    assert_eq!(hub.terminate().await, Some(0));
}
