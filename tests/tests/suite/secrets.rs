//! Secrets in server configs never come out: a unique secret is put into a
//! URL's userinfo, URL query values, header values, an env value and a stdio
//! server's arguments; the servers are made to fail in every way that quotes
//! what they were given (a closed port, an error page echoing the request, a
//! 500, a command that cannot start, a process that prints its arguments and
//! exits), and then every output is searched for the secret: the status API,
//! the SSE stream, the CLI's `status`, `logs` and `refresh`, the refresh API,
//! the built-in tools AI clients call, the pass-through endpoint, a refused
//! config's error, the hub's log, and every file in the state directory.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{HttpFixture, first_snapshot_event, free_port};

/// A secret no output could contain by chance.
fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{tag}Zq{:x}x{nanos:x}", std::process::id())
}

async fn cli(hub: &Hub, args: &[&str]) -> String {
    let output = hub.cli().args(args).output().await.unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Fails naming where and which secret showed up.
fn assert_clean(secrets: &[String], what: &str, text: &str) {
    for secret in secrets {
        assert!(
            !text.contains(secret.as_str()),
            "{what} contains secret {secret}:\n{text}"
        );
    }
}

/// Every regular file under `dir`, with its text.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap_or_default();
            found.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    found
}

#[tokio::test]
async fn secrets_of_failing_servers_never_come_out() {
    let userinfo = unique("userpass");
    let query = unique("querytoken");
    let header = unique("headerkey");
    let bearer = unique("bearer");
    let env = unique("envvalue");
    let arg_user = unique("arguser");
    let arg_query = unique("argquery");
    let echo_user = unique("echouser");
    let echo_query = unique("echoquery");
    let echo_header = unique("echoheader");
    let secrets = [
        userinfo.clone(),
        query.clone(),
        header.clone(),
        bearer.clone(),
        env.clone(),
        arg_user.clone(),
        arg_query.clone(),
        echo_user.clone(),
        echo_query.clone(),
        echo_header.clone(),
    ];

    let echo401 = HttpFixture::start(&["--fail-status", "401"]).await.unwrap();
    let echo500 = HttpFixture::start(&["--fail-status", "500"]).await.unwrap();
    let with_secrets = |url: &str| {
        url.replacen("http://", &format!("http://bob:{echo_user}@"), 1)
            + &format!("?api_key={echo_query}&page=1")
    };
    let closed = free_port();
    let config = json!({"mcpServers": {
        "good": stdio_fixture(&["--tools", "ok"]),
        "closed": {
            "url": format!("http://alice:{userinfo}@127.0.0.1:{closed}/mcp?token={query}&page=2"),
            "headers": {"X-Api-Key": header, "Authorization": format!("Bearer {bearer}")},
        },
        "echo401": {"url": with_secrets(&echo401.url), "headers": {"X-Api-Key": echo_header}},
        "echo500": {"url": with_secrets(&echo500.url), "headers": {"X-Api-Key": echo_header}},
        "nostart": {
            "command": "/nonexistent/switchboard-secrets-test",
            "env": {"API_TOKEN": env},
        },
        // The fixture refuses the argument and prints it in its usage error.
        "badargs": stdio_fixture(&[
            &format!("https://carol:{arg_user}@example.invalid/mcp?access_token={arg_query}"),
        ]),
    }});
    let mut hub = Hub::start_with_env(config, &[("SWITCHBOARD_BUILTIN_TOOLS", "1")])
        .await
        .unwrap();
    let base = hub.base.clone();
    let failing = ["closed", "echo401", "echo500", "nostart", "badargs"];

    // Make every server fail: the refresh API answers with each error.
    let (_, refreshed) = hub.post("/api/v1/refresh").await;
    assert_clean(&secrets, "the refresh API", &refreshed.to_string());
    for id in failing {
        let server = hub
            .wait_for(id, "a recorded failure", is::failed_once())
            .await;
        let server = serde_json::to_string(&server).unwrap();
        assert_clean(&secrets, &format!("{id}'s status"), &server);
    }

    // The errors really quote what the servers were given (so the
    // redaction is what keeps the secrets out), with the secrets masked.
    // As JSON, the way the status API sends it: what is searched for them.
    let status = hub.status().await;
    let typed: HubSnapshot = serde_json::from_value(status.clone()).unwrap();
    let error = |id: &str| last_error(server(&typed, id)).to_string();
    let closed_error = error("closed");
    assert!(
        closed_error.contains(&format!(
            "http://***@127.0.0.1:{closed}/mcp?token=***&page=2"
        )),
        "{closed_error}"
    );
    let echoed = error("echo401");
    assert!(
        echoed.contains("HTTP 401") && echoed.contains("refused POST /mcp?api_key=***&page=1"),
        "{echoed}"
    );
    let badargs = hub.server_snapshot("badargs").await;
    let stderr = badargs.stderr_tail.unwrap_or_default().join("\n");
    assert!(
        stderr.contains("https://***@example.invalid/mcp?access_token=***"),
        "{stderr}"
    );
    assert_clean(&secrets, "the status API", &status.to_string());

    // The SSE stream's snapshot.
    assert_clean(
        &secrets,
        "the event stream",
        &first_snapshot_event(&base, None).await,
    );

    // The CLI.
    assert_clean(
        &secrets,
        "switchboard status",
        &cli(&hub, &["status", "--url", &base]).await,
    );
    assert_clean(
        &secrets,
        "switchboard status --json",
        &cli(&hub, &["status", "--json", "--url", &base]).await,
    );
    assert_clean(
        &secrets,
        "switchboard refresh",
        &cli(&hub, &["refresh", "--url", &base]).await,
    );
    for id in failing {
        let refresh = cli(&hub, &["refresh", id, "--url", &base]).await;
        assert_clean(&secrets, &format!("switchboard refresh {id}"), &refresh);
        let logs = cli(&hub, &["logs", id, "--url", &base]).await;
        assert!(logs.contains("failed"), "logs of {id}: {logs}");
        assert_clean(&secrets, &format!("switchboard logs {id}"), &logs);
        let api_logs = hub.get(&format!("/api/v1/servers/{id}/logs")).await;
        assert_clean(
            &secrets,
            &format!("the logs API of {id}"),
            &api_logs.to_string(),
        );
    }

    // The built-in tools an AI client reads.
    let client = hub.client().await;
    let listed = client
        .call_text("switchboard__list_servers", json!({}))
        .await
        .unwrap();
    assert!(listed.contains("echo401"), "{listed}");
    assert_clean(&secrets, "switchboard__list_servers", &listed);
    for id in failing {
        let status = client
            .call_text("switchboard__server_status", json!({"id": id}))
            .await
            .unwrap();
        assert!(status.contains("lastError"), "{status}");
        assert_clean(&secrets, "switchboard__server_status", &status);
    }
    let refresh = client
        .call_text("switchboard__refresh", json!({}))
        .await
        .map(|text| text.to_string())
        .unwrap_or_else(|err| format!("{err:?}"));
    assert_clean(&secrets, "switchboard__refresh", &refresh);
    // A client's call through the pass-through endpoint of a failing server.
    let pass_through = reqwest::Client::new()
        .post(format!("{base}/servers/echo401/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_clean(&secrets, "the pass-through endpoint", &pass_through);
    drop(client);

    // A config refused for a bad URL quotes the URL redacted (reload answer,
    // `configError` in the status).
    let bad_user = unique("baduser");
    let bad_query = unique("badquery");
    let secrets: Vec<String> = secrets
        .iter()
        .cloned()
        .chain([bad_user.clone(), bad_query.clone()])
        .collect();
    std::fs::write(
        &hub.config_path,
        json!({"mcpServers": {"bad": {"url": format!("ftp://u:{bad_user}@h/?key={bad_query}")}}})
            .to_string(),
    )
    .unwrap();
    let (code, reload) = hub.post("/api/v1/reload").await;
    assert_eq!(code, 422, "{reload}");
    assert!(
        reload.to_string().contains("ftp://***@h/?key=***"),
        "{reload}"
    );
    assert_clean(&secrets, "the reload answer", &reload.to_string());
    let status = hub.status().await;
    let typed: HubSnapshot = serde_json::from_value(status.clone()).unwrap();
    assert!(typed.config_error.is_some(), "{status}");
    assert_clean(
        &secrets,
        "the status with a config error",
        &status.to_string(),
    );

    // After shutdown (the warm catalog is written once more): the log and
    // every file the hub keeps.
    assert_eq!(hub.terminate().await, Some(0));
    let log = hub.log();
    assert!(log.contains("echo401"), "{log}");
    assert_clean(&secrets, "the hub's log", &log);
    let state = hub.dir.path().join("cache");
    let files = files_under(&state);
    assert!(
        files.iter().any(|(name, _)| name.ends_with("catalog.json")),
        "{files:?}"
    );
    for (name, text) in files {
        assert_clean(&secrets, &name, &text);
    }
}
