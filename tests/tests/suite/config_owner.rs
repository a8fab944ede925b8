//! A config file another user can change is refused (issue #27, item 1):
//! the hub runs what the file names as its own user, so a group- or
//! other-writable file or directory, or a file that belongs to someone else,
//! is refused at start-up (exit 1, naming the path and the mode) and on every
//! reload (the last good config keeps running, `configError` names the path
//! and the mode). The attacker is the real user `nobody` (through `setpriv`),
//! writing a server into the file; the test checks that server never runs.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use switchboard_e2e::{Hub, TestHub, api, bin, stdio_fixture};

use super::config_file::serve_expecting_exit;

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs `sh -c script` as user `nobody` (no groups), with `args` as `$1...`.
fn as_nobody(script: &str, args: &[&str]) {
    let status = std::process::Command::new("setpriv")
        .args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "as nobody: {script}");
}

/// The config the attacker wants: the good server plus one that leaves
/// `marker` behind when it runs.
fn with_intruder(good: &Value, marker: &Path) -> String {
    let mut config = good.clone();
    config["mcpServers"]["pwn"] = json!({
        "command": "/bin/sh",
        "args": ["-c", format!("id > '{}'; exec \"$0\" --tools pwned", marker.display()),
                 bin("switchboard-fixture").to_string_lossy()],
    });
    serde_json::to_string_pretty(&config).unwrap()
}

/// Waits for `configError` of kind `unsafe`; answers its message.
async fn unsafe_error(hub: &Hub) -> String {
    let error = hub
        .wait_snapshot("the config refused as unsafe", |s| {
            matches!(s.config_error, Some(api::ConfigError::Unsafe { .. }))
        })
        .await
        .config_error
        .unwrap();
    assert_eq!(
        error.path(),
        Some(hub.config_path.to_string_lossy().as_ref())
    );
    error.message().to_string()
}

/// The intruder was not taken: the good server still answers, the hub lists
/// no other server or tool, and nothing ran the intruder's command.
async fn intruder_never_ran(hub: &Hub, client: &switchboard_e2e::Client, marker: &Path) {
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "ok"}))
            .await
            .unwrap(),
        "ok"
    );
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let ids: Vec<String> = hub
        .snapshot()
        .await
        .servers
        .iter()
        .map(|s| s.id.clone())
        .collect();
    assert_eq!(ids, ["a"]);
    // An explicit reload is refused the same way (422) and starts nothing.
    let (code, body) = hub.post("/api/v1/reload").await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["configError"]["kind"], "unsafe", "{body}");
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert!(!marker.exists(), "the intruder's command ran");
}

#[tokio::test]
async fn a_world_writable_config_written_by_another_user_is_refused_on_reload() {
    let good = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}});
    let mut hub = Hub::start(good.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let marker = hub.dir.path().join("pwned.txt");

    // `nobody` may reach the file (the directory is 0755, not writable) and
    // write it (0666).
    set_mode(hub.dir.path(), 0o755);
    set_mode(&hub.config_path, 0o666);
    let path = hub.config_path.to_string_lossy().into_owned();
    as_nobody(
        "printf '%s' \"$1\" > \"$2\"",
        &[&with_intruder(&good, &marker), &path],
    );
    assert!(
        std::fs::read_to_string(&hub.config_path)
            .unwrap()
            .contains("pwn")
    );

    let message = unsafe_error(&hub).await;
    assert_eq!(
        message,
        format!(
            "the config file has mode 666, which lets other users change it; Switchboard runs \
             the commands a config names, so only you may be able to change it \
             (`chmod go-w {path}`)"
        )
    );
    intruder_never_ran(&hub, &client, &marker).await;

    // Made private again, the same file is read: the person's fix applies.
    as_nobody(
        "printf '%s' \"$1\" > \"$2\"",
        &[&serde_json::to_string(&good).unwrap(), &path],
    );
    set_mode(&hub.config_path, 0o644);
    hub.wait_snapshot("the config error cleared", |s| s.config_error.is_none())
        .await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_file_swapped_in_through_a_writable_directory_is_refused_on_reload() {
    let good = json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}});
    let mut hub = Hub::start(good.clone()).await.unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["a__x"]);
    let marker = hub.dir.path().join("pwned.txt");

    // The file stays 0644 and root's; the directory is 0777, so `nobody`
    // can put a file of theirs in its place.
    set_mode(hub.dir.path(), 0o777);
    let path = hub.config_path.to_string_lossy().into_owned();
    let tmp = hub
        .dir
        .path()
        .join("swap.json")
        .to_string_lossy()
        .into_owned();
    as_nobody(
        "printf '%s' \"$1\" > \"$2\" && mv -f \"$2\" \"$3\"",
        &[&with_intruder(&good, &marker), &tmp, &path],
    );
    let message = unsafe_error(&hub).await;
    assert!(
        message.starts_with("the config file belongs to another user (uid 65534);"),
        "{message}"
    );
    intruder_never_ran(&hub, &client, &marker).await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn a_start_with_a_writable_file_or_directory_fails_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    set_mode(&config, 0o666);
    let exit = serve_expecting_exit(&config, &[]).await;
    assert_eq!(exit.code, Some(1), "{}", exit.stderr);
    assert!(
        exit.stderr.contains(&format!(
            "the config file was refused: {}: the config file has mode 666, which lets other \
             users change it;",
            config.display()
        )),
        "{}",
        exit.stderr
    );

    set_mode(&config, 0o644);
    set_mode(dir.path(), 0o777);
    let exit = serve_expecting_exit(&config, &[]).await;
    assert_eq!(exit.code, Some(1), "{}", exit.stderr);
    assert!(
        exit.stderr.contains(&format!(
            "{}: the config file's directory {} has mode 777, which lets other users change it;",
            config.display(),
            dir.path().display()
        )),
        "{}",
        exit.stderr
    );
}
