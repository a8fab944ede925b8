//! `${VAR}` references in a server definition, with the real hub: the
//! values from the hub's environment reach the server's `args` and `env`,
//! never the status, the definition shown by the control API or the log;
//! an unset variable is a config error naming the server, the field and
//! the variable while the last good config keeps serving.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Hub, TestHub, api, bin};

const SECRET: &str = "sb-env-secret-7f3a91";

/// A stdio server that writes the `$1` arg and `$API_TOKEN` it was given to
/// `seen`, then runs the fixture with the tool named by `$2`.
fn server(seen: &std::path::Path) -> Value {
    let script = format!(
        "printf '%s|%s' \"$1\" \"$API_TOKEN\" > '{}'; exec '{}' --tools \"$2\"",
        seen.display(),
        bin("switchboard-fixture").display()
    );
    json!({"command": "sh",
           "args": ["-c", script, "sh", "arg=${SB_E2E_ARG}", "${SB_E2E_TOOL:-x}"],
           "env": {"API_TOKEN": "${SB_E2E_TOKEN}"}})
}

#[tokio::test]
async fn references_are_expanded_from_the_hubs_environment_and_stay_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let mut config = json!({"mcpServers": {"s": server(&seen)}});
    let mut hub = Hub::start_with_env(
        config.clone(),
        &[("SB_E2E_TOKEN", SECRET), ("SB_E2E_ARG", "hello wörld")],
    )
    .await
    .unwrap();
    let client = hub.client().await;
    // The default applied (SB_E2E_TOOL is unset): the tool is `x`.
    assert_eq!(client.tool_names().await, vec!["s__x"]);
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        format!("arg=hello wörld|{SECRET}")
    );

    // The definition shows the references, not the values.
    let shown = hub.get("/api/v1/servers/s/config").await;
    assert_eq!(
        shown["definition"]["env"]["API_TOKEN"], "${SB_E2E_TOKEN}",
        "{shown}"
    );
    assert_eq!(shown["definition"]["args"][3], "arg=${SB_E2E_ARG}");

    // An unset variable: the reload is refused with the server, the field
    // and the variable named, and the running server keeps serving.
    config["mcpServers"]["s"]["env"]["OTHER"] = json!("${SB_E2E_UNSET_VAR}");
    std::fs::write(
        &hub.config_path,
        serde_json::to_vec_pretty(&config).unwrap(),
    )
    .unwrap();
    let error = hub
        .wait_snapshot("config error in status", |s| s.config_error.is_some())
        .await
        .config_error
        .unwrap();
    let api::ConfigError::Invalid { message, .. } = &error else {
        panic!("not an invalid-file error: {error:?}")
    };
    assert!(
        message.contains("server \"s\": env.OTHER uses ${SB_E2E_UNSET_VAR}, which is not set"),
        "{message}"
    );
    let out = hub
        .cli()
        .args(["status", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("${SB_E2E_UNSET_VAR}"), "{said}");
    assert_eq!(
        client
            .call_text("s__x", json!({"text": "still"}))
            .await
            .unwrap(),
        "still"
    );

    let status = hub.status().await.to_string();
    let shown = hub.get("/api/v1/servers/s/config").await.to_string();
    assert_eq!(hub.terminate().await, Some(0));
    for (what, text) in [
        ("status", status),
        ("definition", shown),
        ("log", hub.log()),
    ] {
        assert!(!text.contains(SECRET), "the {what} contains the value");
    }
}
