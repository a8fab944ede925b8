//! The terminal commands against a running hub, as a person would type them.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use switchboard_e2e::{Hub, HubSnapshot, RefreshTrigger, ServerState, TestHub, bin, stdio_fixture};

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn cli(args: &[&str]) -> Output {
    run(tokio::process::Command::new(bin("switchboard")), args).await
}

/// The CLI with the hub's state directory, as the person's shell has it.
async fn hub_cli(hub: &Hub, args: &[&str]) -> Output {
    run(hub.cli(), args).await
}

async fn run(mut command: tokio::process::Command, args: &[&str]) -> Output {
    let output = command.args(args).output().await.unwrap();
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[tokio::test]
async fn status_refresh_toggle_logs_and_reload() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "alpha": stdio_fixture(&["--tools", "x,y"]),
        "beta": stdio_fixture(&["--tools", "z"]),
    }}))
    .await
    .unwrap();
    let url = hub.base.clone();

    let out = hub_cli(&hub, &["status", "--url", &url]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], format!("Switchboard 0.1.0 at {}", hub.url));
    assert!(lines[1].starts_with("SERVER"), "{}", out.stdout);
    assert!(
        lines[2].starts_with("alpha") && lines[2].contains("idle"),
        "{}",
        out.stdout
    );
    assert!(
        lines[3].starts_with("beta") && lines[3].contains("never"),
        "{}",
        out.stdout
    );

    let out = hub_cli(&hub, &["refresh", "alpha", "--url", &url]).await;
    assert_eq!(
        (out.code, out.stdout.trim()),
        (0, "alpha: refreshed"),
        "{}",
        out.stderr
    );
    let out = hub_cli(&hub, &["status", "--json", "--url", &url]).await;
    let status: HubSnapshot = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(status.servers[0].tool_count, 2);
    assert_eq!(
        status.servers[0].refresh_trigger,
        Some(RefreshTrigger::Manual)
    );

    let out = hub_cli(&hub, &["disable", "beta", "--url", &url]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "beta: disabled\nchanged: beta\n");
    let file: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["beta"]["enabled"], false);
    assert_eq!(
        hub.server_snapshot("beta").await.state,
        ServerState::Disabled
    );
    let out = hub_cli(&hub, &["enable", "beta", "--url", &url]).await;
    assert_eq!(out.stdout, "beta: enabled\nchanged: beta\n");

    let out = hub_cli(&hub, &["logs", "alpha", "--url", &url]).await;
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("info] started (pid "), "{}", out.stdout);
    // A server that has not run since it was switched back on has no lines yet.
    let out = hub_cli(&hub, &["logs", "beta", "--url", &url]).await;
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "switchboard: no log lines yet for server 'beta'\n")
    );

    let out = hub_cli(&hub, &["reload", "--url", &url]).await;
    assert_eq!((out.code, out.stdout.as_str()), (0, "nothing changed\n"));

    let out = hub_cli(&hub, &["refresh", "nope", "--url", &url]).await;
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr.trim(),
        "switchboard: no server with id 'nope' (HTTP 404)"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn commands_say_clearly_when_no_hub_runs() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    for args in [vec!["status"], vec!["refresh"], vec!["stdio"]] {
        let mut full = args.clone();
        full.extend(["--url", &url]);
        let out = cli(&full).await;
        assert_eq!(out.code, 1, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} printed {}", out.stdout);
        assert!(
            out.stderr
                .contains(&format!("Switchboard is not running at {url}")),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[tokio::test]
async fn builtin_tools_show_servers_and_refresh_them() {
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {"alpha": stdio_fixture(&["--tools", "x"])}}),
        &[("SWITCHBOARD_BUILTIN_TOOLS", "1")],
    )
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(
        client.tool_names().await,
        vec![
            "alpha__x",
            "switchboard__list_servers",
            "switchboard__refresh",
            "switchboard__server_status"
        ]
    );
    let listed: Value = serde_json::from_str(
        &client
            .call_text("switchboard__list_servers", json!({}))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(listed["servers"][0]["id"], "alpha");
    assert_eq!(listed["servers"][0]["state"], "ready");
    assert_eq!(listed["servers"][0]["tools"], 1);
    let refreshed: Value = serde_json::from_str(
        &client
            .call_text("switchboard__refresh", json!({"id": "alpha"}))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(refreshed, json!({"servers": [{"id": "alpha", "ok": true}]}));
    assert_eq!(
        hub.server_snapshot("alpha").await.refresh_trigger,
        Some(RefreshTrigger::Manual)
    );
    let status: Value = serde_json::from_str(
        &client
            .call_text("switchboard__server_status", json!({"id": "alpha"}))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(status["health"], "healthy");
    assert_eq!(hub.terminate().await, Some(0));
}

/// `connect` in a temp HOME against `url`.
async fn connect_cursor(home: &std::path::Path, url: &str) -> Output {
    let mut command = tokio::process::Command::new(bin("switchboard"));
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("SWITCHBOARD_CONFIG");
    run(command, &["connect", "cursor", "--url", url]).await
}

#[tokio::test]
async fn connect_warns_when_no_hub_runs_at_the_url_and_writes_anyway() {
    let home = tempfile::tempdir().unwrap();
    let free = format!("http://127.0.0.1:{}", switchboard_e2e::free_port());
    let out = connect_cursor(home.path(), &free).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "switchboard: warning: no Switchboard is running at {free} yet"
        )),
        "{}",
        out.stderr
    );
    let written = std::fs::read_to_string(home.path().join(".cursor/mcp.json")).unwrap();
    assert!(written.contains(&format!("{free}/mcp")), "{written}");

    // With a hub there: no warning.
    let hub = Hub::start(json!({"mcpServers": {}})).await.unwrap();
    let out = connect_cursor(home.path(), &hub.base).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}
