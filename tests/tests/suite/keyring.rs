//! The OS keyring for real: the Secret Service (GNOME Keyring on the session
//! bus), as `switchboard serve` and `switchboard secret` use it.
//!
//! These tests need a session bus with an unlocked Secret Service, so they are
//! `#[ignore]`d in the plain `cargo test` run; `scripts/test.sh` runs them
//! with `--ignored` under
//! `dbus-run-session -- bash -c 'echo -n ci | gnome-keyring-daemon --unlock --components=secrets; …'`
//! with a temporary `XDG_DATA_HOME`. Without a Secret Service they skip with
//! the reason, or fail when `SWITCHBOARD_REQUIRE_EXTERNAL` is set. The kernel
//! keyring (keyutils, the headless fallback) needs no bus but a session keyring
//! of its own: the one a login or a container hands down may belong to another
//! user and refuse access, so that test is `#[ignore]`d too and `scripts/test.sh`
//! runs the whole file inside `keyctl session -` (a fresh anonymous session keyring).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use switchboard_e2e::api::KeyringKind;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{AuthFixture, HttpFixture, assert_no_secrets, bin, browse};

const SECRET_SERVICE: [(&str, &str); 1] = [("SWITCHBOARD_TOKEN_STORE", "secret-service")];
const NEEDS: &str = "needs the Secret Service: run with --ignored under dbus-run-session + \
                     gnome-keyring-daemon (scripts/test.sh does)";

/// Whether a Secret Service answers (probed with libsecret's `secret-tool`).
/// Skips (false) or panics under `SWITCHBOARD_REQUIRE_EXTERNAL` when not.
fn secret_service_or_skip(test: &str) -> bool {
    let why = if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        Some("DBUS_SESSION_BUS_ADDRESS is not set (no session bus)".to_string())
    } else {
        let probe = secret_tool(
            &[
                "store",
                "--label=switchboard probe",
                "service",
                "switchboard-probe",
                "username",
                "probe",
            ],
            Some("x"),
        );
        match probe {
            Ok(out) if out.status.success() => {
                let _ = secret_tool(
                    &["clear", "service", "switchboard-probe", "username", "probe"],
                    None,
                );
                None
            }
            Ok(out) => Some(format!(
                "secret-tool store failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(err) => Some(format!("secret-tool (libsecret-tools) cannot run: {err}")),
        }
    };
    match why {
        None => true,
        Some(why) if std::env::var_os("SWITCHBOARD_REQUIRE_EXTERNAL").is_some() => {
            panic!("{test}: the Secret Service is not available: {why}. {NEEDS}")
        }
        Some(why) => {
            // Straight to stderr: the harness's capture would hide an `eprintln!`.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "skipping {test}: the Secret Service is not available: {why}. {NEEDS}"
            );
            false
        }
    }
}

fn secret_tool(args: &[&str], stdin: Option<&str>) -> std::io::Result<std::process::Output> {
    use std::io::Write;
    let mut child = Command::new("secret-tool")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes())?;
    }
    drop(child.stdin.take());
    child.wait_with_output()
}

/// `secret-tool lookup service switchboard username <account>`, if present.
fn lookup(account: &str) -> Option<String> {
    let out = secret_tool(
        &["lookup", "service", "switchboard", "username", account],
        None,
    )
    .unwrap();
    (out.status.success() && !out.stdout.is_empty()).then(|| String::from_utf8(out.stdout).unwrap())
}

#[tokio::test]
#[ignore = "needs the Secret Service (see the module docs)"]
async fn secret_service_keeps_tokens_across_hub_restarts() {
    if !secret_service_or_skip("secret_service_keeps_tokens_across_hub_restarts") {
        return;
    }
    let id = format!("kr{}", std::process::id());
    let account = format!("oauth:{id}");
    let fixture = AuthFixture::start(&[]).await.unwrap();
    let config = json!({"mcpServers": {id.clone(): {"url": fixture.url}}});

    let mut first = Hub::start_with_env(config.clone(), &SECRET_SERVICE)
        .await
        .unwrap();
    let s = first.server_snapshot(&id).await;
    assert_eq!(auth(&s).keyring, KeyringKind::SecretService, "{s:?}");
    let client = first.client().await;
    assert!(client.tool_names().await.is_empty());
    first
        .wait_for(&id, "authRequired", is::auth_required())
        .await;
    let (code, body) = first.start_login(&id).await;
    assert_eq!(code, 200, "{body}");
    browse(body["authorizationUrl"].as_str().unwrap()).await;
    first
        .wait_for(
            &id,
            "ready",
            is::all(vec![is::ready(), is::logged_in(true)]),
        )
        .await;

    // The entry is in the keyring, where libsecret's own tool finds it.
    let search = secret_tool(&["search", "--all", "service", "switchboard"], None).unwrap();
    let listing = String::from_utf8_lossy(&search.stdout).to_string()
        + &String::from_utf8_lossy(&search.stderr);
    assert!(
        listing.contains(&format!("attribute.username = {account}")),
        "{listing}"
    );
    let stored: Value = serde_json::from_str(&lookup(&account).expect("entry")).unwrap();
    assert!(
        stored["client_id"].as_str().unwrap().starts_with("client-"),
        "registration kept"
    );
    assert!(stored["token_response"].is_object());
    assert_eq!(first.terminate().await, Some(0));

    // A new hub comes up ready with the stored token: no new login.
    let mut second = Hub::start_with_env(config, &SECRET_SERVICE).await.unwrap();
    second
        .wait_for(&id, "logged in from the keyring", is::logged_in(true))
        .await;
    let client = second.client().await;
    assert_eq!(client.tool_names().await, vec![format!("{id}__echo")]);
    assert_eq!(second.server_snapshot(&id).await.state, ServerState::Ready);
    let stats = fixture.stats().await;
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["codeGrants"], 1, "{stats}");

    // Logout deletes the entry (tokens and registration).
    let (code, body) = second.post(&format!("/api/v1/servers/{id}/logout")).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(lookup(&account), None);
    second
        .wait_for(&id, "authRequired", is::auth_required())
        .await;
    assert_eq!(second.terminate().await, Some(0));
    assert_no_secrets("the first hub's log", &first.log());
    assert_no_secrets("the second hub's log", &second.log());
}

#[tokio::test]
#[ignore = "needs the Secret Service (see the module docs)"]
async fn keyring_secrets_reach_stdio_servers_and_stay_out_of_files() {
    if !secret_service_or_skip("keyring_secrets_reach_stdio_servers_and_stay_out_of_files") {
        return;
    }
    let pid = std::process::id();
    let name = format!("SB_TEST_KEY_{pid}");
    let value = format!("s3cr3t-value-{pid}");

    // `switchboard secret set` reads the value from stdin.
    let mut set = tokio::process::Command::new(bin("switchboard"))
        .args(["secret", "set", &name])
        .envs(SECRET_SERVICE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = set.stdin.take().unwrap();
        stdin
            .write_all(format!("{value}\n").as_bytes())
            .await
            .unwrap();
    }
    let out = set.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("secret-service"), "{said}");
    assert!(!said.contains(&value));
    assert_eq!(
        lookup(&format!("secret:{name}")).as_deref(),
        Some(value.as_str())
    );

    // A remote server that answers 401 unless the header carries the secret.
    let mut remote = HttpFixture::start(&[
        "--tools",
        "r",
        "--require-header",
        &format!("X-Api-Key: {value}"),
    ])
    .await
    .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let script = format!(
        "printf %s \"$API_KEY\" > '{}'; exec '{}' --tools x",
        seen.display(),
        bin("switchboard-fixture").display()
    );
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {
            "s": {"command": "sh", "args": ["-c", script], "env": {"API_KEY": {"keyring": name}}},
            "missing": {"command": "sh", "args": ["-c", "exit 0"],
                        "env": {"K": {"keyring": format!("SB_MISSING_{pid}")}}},
            "remote": {"url": remote.url, "headers": {"X-Api-Key": {"keyring": name}}},
            "remote-missing": {"url": remote.url,
                               "headers": {"X-Api-Key": {"keyring": format!("SB_MISSING_{pid}")}}},
        }}),
        &SECRET_SERVICE,
    )
    .await
    .unwrap();
    let client = hub.client().await;
    let mut names = client.tool_names().await;
    names.sort();
    assert_eq!(names, vec!["remote__r", "s__x"]);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), value);
    let remote_missing = hub
        .wait_for(
            "remote-missing",
            "missing header secret reported",
            is::state(ServerState::Failed),
        )
        .await;
    let error = last_error(&remote_missing);
    assert!(
        error.contains(&format!(
            "header X-Api-Key: secret 'SB_MISSING_{pid}' is not in the keyring"
        )),
        "{error}"
    );
    let missing = hub
        .wait_for(
            "missing",
            "missing secret reported",
            is::state(ServerState::Failed),
        )
        .await;
    let error = last_error(&missing);
    assert!(
        error.contains(&format!(
            "secret 'SB_MISSING_{pid}' is not in the keyring; store it with `switchboard secret set SB_MISSING_{pid}`"
        )),
        "{error}"
    );
    let status = hub.status().await.to_string();
    let config = std::fs::read_to_string(&hub.config_path).unwrap();
    assert_eq!(hub.terminate().await, Some(0));
    for (what, text) in [("snapshot", status), ("config", config), ("log", hub.log())] {
        assert!(!text.contains(&value), "the {what} contains the secret");
    }
    remote.stop().await;

    let out = Command::new(bin("switchboard"))
        .args(["secret", "delete", &name])
        .envs(SECRET_SERVICE)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(lookup(&format!("secret:{name}")), None);
}

/// The kernel keyring (the headless fallback): `secret set` stores, a hub
/// started by the same user session reads it, `secret delete` removes it.
#[tokio::test]
#[ignore = "needs a session keyring of its own: run with --ignored under `keyctl session -`"]
async fn keyutils_keeps_secrets_for_the_session() {
    const KEYUTILS: [(&str, &str); 1] = [("SWITCHBOARD_TOKEN_STORE", "keyutils")];
    let pid = std::process::id();
    let name = format!("SB_KEYUTILS_{pid}");
    let value = format!("ku-value-{pid}");
    let mut set = tokio::process::Command::new(bin("switchboard"))
        .args(["secret", "set", &name])
        .envs(KEYUTILS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = set.stdin.take().unwrap();
        stdin.write_all(value.as_bytes()).await.unwrap();
    }
    let out = set.wait_with_output().await.unwrap();
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if std::env::var_os("SWITCHBOARD_REQUIRE_EXTERNAL").is_some() {
            panic!("the kernel keyring (keyutils) is not usable here: {why}");
        }
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipping keyutils_keeps_secrets_for_the_session: keyutils is not usable: {why}"
        );
        return;
    }
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("keyutils"),
        "{out:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let script = format!(
        "printf %s \"$TOKEN\" > '{}'; exec '{}' --tools x",
        seen.display(),
        bin("switchboard-fixture").display()
    );
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {
            "s": {"command": "sh", "args": ["-c", script], "env": {"TOKEN": {"keyring": name}}},
        }}),
        &KEYUTILS,
    )
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["s__x"]);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), value);
    assert_eq!(hub.terminate().await, Some(0));
    assert!(!hub.log().contains(&value), "the log contains the secret");

    let out = Command::new(bin("switchboard"))
        .args(["secret", "delete", &name])
        .envs(KEYUTILS)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}
