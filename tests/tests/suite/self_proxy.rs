//! The hub calling itself (issue 14): `switchboard import` skips every URL
//! of a running Switchboard, and a hub refuses servers that lead back to its
//! own listener, however they get there, while its other servers serve.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::{bin, free_port};

/// The listener port of a hub from its base URL.
fn port_of(hub: &Hub) -> u16 {
    hub.base.rsplit(':').next().unwrap().parse().unwrap()
}

/// A plain TCP relay from a new loopback port to `to` (a port forward).
async fn relay(to: SocketAddr) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (port, task)
}

#[tokio::test]
async fn import_skips_every_url_of_a_running_hub_on_any_port() {
    let mut hub = Hub::start(json!({"mcpServers": {"ok": stdio_fixture(&["--tools", "x"])}}))
        .await
        .unwrap();
    let port = port_of(&hub);
    let dir = tempfile::tempdir().unwrap();
    let other = format!("http://127.0.0.1:{}/mcp", free_port());
    let client_file = dir.path().join("mcp.json");
    std::fs::write(
        &client_file,
        serde_json::to_vec_pretty(&json!({"mcpServers": {
            "hub": {"url": hub.url},
            "hub-route": {"url": format!("http://localhost:{port}/servers/ok/mcp")},
            "elsewhere": {"url": other},
            "tool": {"command": "echo", "args": ["hi"]},
        }}))
        .unwrap(),
    )
    .unwrap();
    // Switchboard's own config says nothing of this port (default 8420).
    let config = dir.path().join("switchboard.json");
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(bin("switchboard"));
        cmd.args(["import", "--from", "cursor", "--dry-run", "--path"])
            .arg(&client_file)
            .arg("--config")
            .arg(&config)
            .env("HOME", dir.path())
            .env_remove("SWITCHBOARD_LISTEN")
            .env_remove("SWITCHBOARD_URL");
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let output = run(true);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut added: Vec<&str> = plan["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    added.sort();
    assert_eq!(added, vec!["elsewhere", "tool"]);
    let skipped: Vec<(&str, &Value)> = plan["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["from"]["name"].as_str().unwrap(), &s["reason"]))
        .collect();
    assert_eq!(
        skipped,
        vec![
            (
                "hub",
                &json!({"kind": "runningSwitchboard", "origin": format!("http://127.0.0.1:{port}")})
            ),
            (
                "hub-route",
                // The same origin as above (`localhost` is 127.0.0.1): asked once.
                &json!({"kind": "runningSwitchboard", "origin": format!("http://127.0.0.1:{port}")})
            ),
        ]
    );
    let text = String::from_utf8_lossy(&run(false).stdout).into_owned();
    let note = text
        .lines()
        .find(|l| l.trim_start().starts_with("= hub "))
        .unwrap_or_else(|| panic!("no skip note for hub in:\n{text}"));
    assert!(
        note.ends_with(&format!(
            ": points at the Switchboard running at http://127.0.0.1:{port}"
        )),
        "{text}"
    );
    assert!(!config.exists(), "a dry run wrote the config");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_hub_refuses_servers_that_lead_back_to_itself_and_keeps_serving() {
    let ok = stdio_fixture(&["--tools", "x,y"]);
    let mut hub = Hub::start(json!({"mcpServers": {"ok": ok}})).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["ok__x", "ok__y"]);
    let port = port_of(&hub);
    // The same listener by a forwarded port: only the hub itself can tell.
    let (relayed, relay_task) = relay(SocketAddr::from(([127, 0, 0, 1], port))).await;

    write_control(
        &hub.config_path,
        json!({"mcpServers": {
            "ok": ok,
            "me": {"url": hub.url},
            "me-route": {"url": format!("http://localhost:{port}/servers/ok/mcp")},
            "relayed": {"url": format!("http://127.0.0.1:{relayed}/mcp")},
            "bridge": {
                "command": bin("switchboard").to_string_lossy(),
                "args": ["stdio", "--url", hub.base],
            },
        }}),
    );
    hub.wait_snapshot("the reload", |s| s.servers.len() == 5)
        .await;

    // Lists and calls keep working with the other servers' tools only.
    for _ in 0..3 {
        assert_eq!(client.tool_names().await, vec!["ok__x", "ok__y"]);
    }
    assert_eq!(
        client
            .call_text("ok__x", json!({"text": "fine"}))
            .await
            .unwrap(),
        "fine"
    );
    for id in ["me", "me-route", "relayed"] {
        let err = client
            .call_text(&format!("{id}__x"), json!({}))
            .await
            .unwrap_err();
        let err = switchboard_e2e::rpc_error(&err);
        assert!(
            err.message
                .starts_with(&format!("server '{id}' points back at this hub ("))
                && err
                    .message
                    .ends_with("a hub cannot serve itself, so it is not started"),
            "{}",
            err.message
        );
        assert_eq!(
            err.data,
            Some(json!({"server": id, "kind": "selfReference"}))
        );
        let server = hub
            .wait_for(id, "the refusal on record", is::state(ServerState::Failed))
            .await;
        assert!(
            last_error(&server).contains("points back at this hub"),
            "{server:?}"
        );
    }
    let bridge = hub
        .wait_for(
            "bridge",
            "the bridge refused",
            is::state(ServerState::Failed),
        )
        .await;
    assert!(
        last_error(&bridge).contains("is the Switchboard that started this bridge"),
        "{bridge:?}"
    );

    // A manual refresh of everything changes nothing either: the count is stable.
    let (code, _) = hub.post("/api/v1/refresh").await;
    assert_eq!(code, 200);
    let totals = hub.snapshot().await.totals;
    assert_eq!(totals.tools, 2, "{totals:?}");
    assert_eq!(client.tool_names().await, vec!["ok__x", "ok__y"]);
    assert_eq!(hub.server_snapshot("ok").await.state, ServerState::Ready);
    // No runaway log (the self-proxying hub wrote gigabytes).
    let log = hub.log();
    assert!(log.len() < 1_000_000, "log grew to {} bytes", log.len());
    relay_task.abort();
    assert_eq!(hub.terminate().await, Some(0));
}
