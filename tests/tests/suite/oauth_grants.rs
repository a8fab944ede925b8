//! OAuth beyond the common flow, end to end with `switchboard-auth-fixture`:
//! a 2025-03-26 server (no protected-resource metadata, an authorization
//! server whose `issuer` names a path on the server's origin) that the hub
//! logs in to through its own metadata fallback, and a machine client
//! (`oauth.grant: "clientCredentials"`) that proves itself with a JWT signed
//! by `oauth.signingKey` (`private_key_jwt`) — keys made by `openssl` per test.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::{AuthFixture, assert_no_secrets, browse};

const MEMORY: [(&str, &str); 1] = [("SWITCHBOARD_TOKEN_STORE", "memory")];

async fn hub_with(servers: Value) -> Hub {
    Hub::start_with_env(json!({ "mcpServers": servers }), &MEMORY)
        .await
        .unwrap()
}

/// A fresh P-256 key pair: (private key PEM, path of the public key PEM).
fn ec_key_pair(dir: &Path, name: &str) -> (String, String) {
    let private = dir.join(format!("{name}.pem"));
    let public = dir.join(format!("{name}.pub.pem"));
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    run(&[
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-out",
        private.to_str().unwrap(),
    ]);
    run(&[
        "pkey",
        "-in",
        private.to_str().unwrap(),
        "-pubout",
        "-out",
        public.to_str().unwrap(),
    ]);
    (
        std::fs::read_to_string(&private).unwrap(),
        public.to_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn a_2025_03_26_server_without_resource_metadata_logs_in() {
    let fixture = AuthFixture::start(&["--legacy-metadata", "--tools", "echo"])
        .await
        .unwrap();
    let mut hub = hub_with(json!({"old": {"url": fixture.url}})).await;
    let client = hub.client().await;
    // Servers connect on first use: listing the tools starts this one.
    client.tool_names().await;
    hub.wait_for("old", "needs a login", is::auth_required())
        .await;
    // rmcp alone refuses the root metadata (its issuer is `<origin>/oauth`);
    // the hub's 2025-03-26 fallback takes it, so the login reaches the URL.
    let (code, body) = hub.start_login("old").await;
    assert_eq!(code, 200, "{body}");
    let url = body["authorizationUrl"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/authorize?",
            fixture.url.trim_end_matches("/mcp")
        )),
        "{url}"
    );
    let page = browse(url).await;
    assert!(page.contains("You are logged in"), "{page}");
    hub.wait_for(
        "old",
        "ready after login",
        is::all(vec![is::ready(), is::tools(1)]),
    )
    .await;
    assert_eq!(
        client
            .call_text("old__echo", json!({"text": "from 2025-03-26"}))
            .await
            .unwrap(),
        "from 2025-03-26"
    );
    let stats = fixture.stats().await;
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["codeGrants"], 1, "{stats}");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_machine_client_signs_its_client_assertion_with_its_private_key() {
    let keys = tempfile::tempdir().unwrap();
    let (private, public) = ec_key_pair(keys.path(), "machine");
    let (other_private, _) = ec_key_pair(keys.path(), "other");
    let fixture = AuthFixture::start(&[
        "--jwt-client",
        &format!("sb-machine={public}"),
        "--tools",
        "echo",
    ])
    .await
    .unwrap();
    let machine = |key: &str| {
        json!({"url": fixture.url, "oauth": {
            "clientId": "sb-machine", "grant": "clientCredentials",
            "signingKey": key, "signingAlgorithm": "ES256"
        }})
    };
    let mut hub = hub_with(json!({
        "machine": machine(&private),
        // Same client id, a key the authorization server does not know.
        "impostor": machine(&other_private),
    }))
    .await;
    let client = hub.client().await;
    // Servers connect on first use: listing the tools starts this one.
    client.tool_names().await;
    hub.wait_for(
        "machine",
        "ready with its own token",
        is::all(vec![is::ready(), is::tools(1)]),
    )
    .await;
    assert_eq!(
        client
            .call_text("machine__echo", json!({"text": "signed"}))
            .await
            .unwrap(),
        "signed"
    );
    let impostor = hub
        .wait_for("impostor", "refused", |s| {
            !matches!(s.state, ServerState::Starting | ServerState::Ready) && s.last_error.is_some()
        })
        .await;
    let error = last_error(&impostor);
    assert!(error.contains("invalid_client"), "{impostor:?}");
    let stats = fixture.stats().await;
    assert_eq!(stats["clientCredentialsGrants"], 1, "{stats}");
    assert_eq!(stats["codeGrants"], 0, "{stats}");
    // The private key is a secret: not in the snapshot, the config API or the log.
    let status = hub.status().await.to_string();
    let logs = hub.get("/api/v1/servers/impostor/logs").await.to_string();
    assert_eq!(hub.terminate().await, Some(0));
    let log = hub.log();
    let key_body = private.lines().nth(1).unwrap();
    let other_body = other_private.lines().nth(1).unwrap();
    for (what, text) in [
        ("the snapshot", &status),
        ("the logs API", &logs),
        ("the hub's log", &log),
    ] {
        assert!(
            !text.contains(key_body) && !text.contains(other_body),
            "{what} shows a private key"
        );
        assert_no_secrets(what, text);
    }
}
