//! A secret given as a separate argument (`"args": ["--api-key", "SBX..."]`)
//! to a server that echoes its command line on stderr: the open status and
//! event stream (no credential) carry no `stderrTail` at all, the answers to
//! the control token carry it with the value masked, and the server's config
//! view masks the value. The CLI's `status` and `logs`, which read with the
//! token, still show the server's stderr, masked.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::first_snapshot_event;
use switchboard_e2e::prelude::*;

async fn cli(hub: &Hub, args: &[&str]) -> String {
    let output = hub.cli().args(args).output().await.unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test]
async fn a_secret_argument_stays_out_of_open_answers_and_is_masked_in_private_ones() {
    let secret = format!("SBXargsecret{}q7", std::process::id());
    let config = json!({"mcpServers": {
        "echoer": stdio_fixture(&["--tools", "ok", "--stderr-argv", "--api-key", &secret]),
    }});
    let hub = Hub::start(config).await.unwrap();
    let (code, refreshed) = hub.post("/api/v1/servers/echoer/refresh").await;
    assert_eq!(code, 200, "{refreshed}");
    let argv_line = "argv: --tools ok --stderr-argv --api-key ***";
    let private = hub
        .wait_for("echoer", "its echoed argv in stderrTail", |s| {
            s.stderr_tail
                .as_ref()
                .is_some_and(|lines| lines.iter().any(|l| l == argv_line))
        })
        .await;
    let private = serde_json::to_string(&private).unwrap();
    assert!(!private.contains(&secret), "{private}");

    // Without a credential: no stderr at all, and so no secret.
    let open = reqwest::get(format!("{}/api/v1/status", hub.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let parsed: HubSnapshot = serde_json::from_str(&open).unwrap();
    assert_eq!(parsed.servers[0].id, "echoer", "{open}");
    assert_eq!(parsed.servers[0].stderr_tail, None, "{open}");
    for (what, text) in [
        ("the open status", open),
        (
            "the open event stream",
            first_snapshot_event(&hub.base, None).await,
        ),
    ] {
        assert!(
            !text.contains(&secret),
            "{what} contains the secret:\n{text}"
        );
        assert!(
            !text.contains("stderrTail"),
            "{what} has stderrTail:\n{text}"
        );
    }

    // With the token: the stream has it too, masked.
    let event = first_snapshot_event(&hub.base, Some(&hub.token())).await;
    assert!(event.contains(argv_line), "{event}");
    assert!(!event.contains(&secret), "{event}");

    // The config view masks the value after the flag.
    let shown = hub.get("/api/v1/servers/echoer/config").await;
    assert_eq!(
        shown["definition"]["args"],
        json!(["--tools", "ok", "--stderr-argv", "--api-key", "***"]),
        "{shown}"
    );

    // The CLI reads with the token: its logs show the masked line.
    let logs = cli(&hub, &["logs", "echoer", "--url", &hub.base]).await;
    assert!(logs.contains(argv_line), "{logs}");
    let status = cli(&hub, &["status", "--json", "--url", &hub.base]).await;
    assert!(status.contains(argv_line), "{status}");
    for (what, text) in [("switchboard logs", logs), ("switchboard status", status)] {
        assert!(
            !text.contains(&secret),
            "{what} contains the secret:\n{text}"
        );
    }
    assert!(
        !hub.log().contains(&secret),
        "the hub's log:\n{}",
        hub.log()
    );
}
