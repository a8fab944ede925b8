//! How the hub talks to an HTTP upstream at the protocol level: the version
//! it negotiated is recorded per server (snapshot and `switchboard status
//! --json`), and a call whose SSE response stream the server closes midway
//! (`test_reconnection`, SEP-1699) is resumed with `Last-Event-ID` and
//! completes through the hub.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use switchboard_e2e::{Hub, HubSnapshot, TestHub, bin};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The conformance fixture serving Streamable HTTP on a free loopback port.
async fn conformance_over_http() -> (Child, String) {
    let mut child = Command::new(bin("switchboard-conformance-fixture"))
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the fixture said where it listens in time")
        .unwrap()
        .expect("the fixture exited before listening");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected line {line:?}"))
        .to_string();
    (child, url)
}

#[tokio::test]
async fn http_upstream_resumes_a_closed_stream_and_reports_its_version() {
    let (mut fixture, url) = conformance_over_http().await;
    let mut hub = Hub::start(json!({"mcpServers": {"conf": {"url": url}}}))
        .await
        .unwrap();
    let client = hub.client().await;

    // The server closes the call's SSE stream after a priming event; the
    // hub's client resumes it and the answer arrives on the resumed stream.
    let text = client
        .call_text("conf__test_reconnection", json!({}))
        .await
        .unwrap();
    assert_eq!(
        text,
        "Reconnection test completed: the stream was closed and the client resumed it",
        "{}",
        hub.log()
    );

    // The version the server answered with, as the snapshot and the CLI show it.
    let snapshot = hub.server_snapshot("conf").await;
    assert_eq!(snapshot.protocol_version.as_deref(), Some("2025-11-25"));
    let out = hub
        .cli()
        .args(["status", "--json", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status: HubSnapshot = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        status.servers[0].protocol_version.as_deref(),
        Some("2025-11-25")
    );

    client.service.cancel().await.unwrap();
    assert_eq!(hub.terminate().await, Some(0));
    let _ = fixture.kill().await;
}
