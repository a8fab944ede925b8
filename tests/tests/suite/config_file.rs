//! The config file is the user's data: a file saved badly (truncated by an
//! editor that writes in place, deleted, empty, half written, a FIFO) never
//! removes a running server; the hub keeps the last good config (same PIDs)
//! and says what is wrong in `configError` until a valid file is back.
//! Durations beyond the documented maximum are refused with a clear error,
//! at start-up (exit code 1, not a panic) and on reload.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use switchboard_e2e::api::{ConfigError, ReloadResult};
use switchboard_e2e::bin;
use switchboard_e2e::prelude::*;

/// The largest duration in seconds the config accepts (30 days).
const MAX_SECS: u64 = 30 * 24 * 60 * 60;

fn config_ab() -> Value {
    json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "x"]),
        "b": stdio_fixture(&["--tools", "y"]),
    }})
}

fn pretty(config: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(config).unwrap()
}

/// Saves the config the way most editors do: a temp file renamed over it.
fn save_bytes(hub: &Hub, bytes: &[u8]) {
    let tmp = hub.dir.path().join(".config.json.swp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, &hub.config_path).unwrap();
}

/// Starts both servers (by calling a tool of each) and returns their PIDs.
async fn running_pids(hub: &Hub, client: &switchboard_e2e::Client) -> (u64, u64) {
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "1"}))
            .await
            .unwrap(),
        "1"
    );
    assert_eq!(
        client
            .call_text("b__y", json!({"text": "2"}))
            .await
            .unwrap(),
        "2"
    );
    (pid(hub, "a").await, pid(hub, "b").await)
}

async fn pid(hub: &Hub, id: &str) -> u64 {
    hub.server_snapshot(id)
        .await
        .pid
        .map(u64::from)
        .unwrap_or_else(|| panic!("server {id} has no pid"))
}

/// The wire spelling of an error's kind (`notAFile`).
fn kind(error: &ConfigError) -> &'static str {
    match error {
        ConfigError::Read { .. } => "read",
        ConfigError::Missing { .. } => "missing",
        ConfigError::Empty { .. } => "empty",
        ConfigError::NotAFile { .. } => "notAFile",
        ConfigError::Unsafe { .. } => "unsafe",
        ConfigError::Invalid { .. } => "invalid",
        ConfigError::Env { .. } => "env",
    }
}

/// The line and column of an `invalid` error.
fn position(error: &ConfigError) -> (usize, usize) {
    match error {
        ConfigError::Invalid { line, column, .. } => (*line, *column),
        other => panic!("not a parse error: {other:?}"),
    }
}

/// Waits until `configError` is set and has `kind`, returning it.
async fn config_error(hub: &Hub, want: &str) -> ConfigError {
    hub.wait_snapshot(&format!("configError of kind {want}"), |s| {
        s.config_error.as_ref().is_some_and(|e| kind(e) == want)
    })
    .await
    .config_error
    .unwrap()
}

async fn config_error_cleared(hub: &Hub) {
    hub.wait_snapshot("configError cleared", |s| s.config_error.is_none())
        .await;
}

/// Waits until the last reload satisfies `done`, returning it.
async fn reloaded(hub: &Hub, what: &str, done: impl Fn(&ReloadResult) -> bool) -> ReloadResult {
    hub.wait_snapshot(what, |s| s.last_reload.as_ref().is_some_and(&done))
        .await
        .last_reload
        .unwrap()
}

/// Both servers still run with the same processes and still answer.
async fn still_serving(hub: &Hub, client: &switchboard_e2e::Client, pids: (u64, u64)) {
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "on"}))
            .await
            .unwrap(),
        "on"
    );
    assert_eq!(
        client
            .call_text("b__y", json!({"text": "on"}))
            .await
            .unwrap(),
        "on"
    );
    assert_eq!((pid(hub, "a").await, pid(hub, "b").await), pids);
    assert_eq!(client.tool_names().await, vec!["a__x", "b__y"]);
}

#[tokio::test]
async fn truncate_then_write_in_place_keeps_servers_running() {
    let config = config_ab();
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    let pids = running_pids(&hub, &client).await;
    let text = pretty(&config);

    // An editor saving in place: open with truncation, pause, write, close.
    let mut file = std::fs::File::create(&hub.config_path).unwrap();
    let error = config_error(&hub, "empty").await;
    assert_eq!(error.path(), hub.config_path.to_str());
    assert_eq!(error.message(), "the config file is empty");
    still_serving(&hub, &client, pids).await;

    // The first half arrives, then another pause: the file does not parse.
    let half = text.len() / 2;
    file.write_all(&text[..half]).unwrap();
    file.flush().unwrap();
    let error = config_error(&hub, "invalid").await;
    let lines = text[..half].iter().filter(|b| **b == b'\n').count() as u64;
    let (line, column) = position(&error);
    assert_eq!(line as u64, lines + 1, "{error:?}");
    assert!(column >= 1, "{error:?}");
    assert!(!error.message().is_empty(), "{error:?}");
    still_serving(&hub, &client, pids).await;

    file.write_all(&text[half..]).unwrap();
    drop(file);
    config_error_cleared(&hub).await;
    still_serving(&hub, &client, pids).await;
    let reload = hub.snapshot().await.last_reload.unwrap();
    assert_eq!(reload.unchanged, vec!["a", "b"], "{reload:?}");
    assert_eq!(reload.removed, Vec::<String>::new(), "{reload:?}");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn deleted_file_keeps_servers_until_it_comes_back() {
    let mut config = config_ab();
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    let pids = running_pids(&hub, &client).await;

    std::fs::remove_file(&hub.config_path).unwrap();
    let error = config_error(&hub, "missing").await;
    assert_eq!(error.path(), hub.config_path.to_str());
    still_serving(&hub, &client, pids).await;

    // It comes back changed: b removed, c added. Now, and only now, b goes.
    config["mcpServers"].as_object_mut().unwrap().remove("b");
    config["mcpServers"]["c"] = stdio_fixture(&["--tools", "z"]);
    std::fs::write(&hub.config_path, pretty(&config)).unwrap();
    config_error_cleared(&hub).await;
    let reload = reloaded(&hub, "the recreated file applied", |r| r.removed == ["b"]).await;
    assert_eq!(reload.added, vec!["c"]);
    assert_eq!(reload.unchanged, vec!["a"]);
    assert_eq!(pid(&hub, "a").await, pids.0);
    eventually("b's process ends", || async {
        (!switchboard_e2e::pid_alive(pids.1 as u32)).then_some(())
    })
    .await;
    assert_eq!(client.tool_names().await, vec!["a__x", "c__z"]);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn empty_file_is_refused_and_a_valid_empty_config_applies() {
    let mut hub = Hub::start(config_ab()).await.unwrap();
    let client = hub.client().await;
    let pids = running_pids(&hub, &client).await;

    save_bytes(&hub, b"  \n\t\n");
    config_error(&hub, "empty").await;
    still_serving(&hub, &client, pids).await;

    // Invalid JSON reports where: line 2, the column of the stray comma.
    save_bytes(&hub, b"{\n  \"mcpServers\": {,}\n}\n");
    let error = config_error(&hub, "invalid").await;
    assert_eq!(position(&error), (2, 18));
    still_serving(&hub, &client, pids).await;

    // A valid file without servers is what the person wants: it applies.
    save_bytes(&hub, b"{\"mcpServers\": {}}\n");
    config_error_cleared(&hub).await;
    reloaded(&hub, "both servers removed", |r| r.removed == ["a", "b"]).await;
    assert_eq!(client.tool_names().await, Vec::<String>::new());
    assert_eq!(hub.terminate().await, Some(0));
}

/// Creates a FIFO at `path` (mkfifo(1), part of coreutils).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

pub(super) struct Exit {
    pub(super) code: Option<i32>,
    pub(super) stderr: String,
}

/// Runs `switchboard serve` on `config` and waits (bounded) for it to exit.
pub(super) async fn serve_expecting_exit(config: &Path, env: &[(&str, &str)]) -> Exit {
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(bin("switchboard"));
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(config)
        .env("SWITCHBOARD_CACHE_DIR", cache.path())
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(DEADLINE, cmd.output())
        .await
        .expect("switchboard serve hung instead of exiting")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains("listening"),
        "the hub started anyway: {stdout}"
    );
    Exit {
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[tokio::test]
async fn fifo_as_config_is_refused_at_start_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.json");
    mkfifo(&fifo);
    let exit = serve_expecting_exit(&fifo, &[]).await;
    assert_eq!(exit.code, Some(1), "{}", exit.stderr);
    assert!(
        exit.stderr.contains(&format!(
            "{}: the config file is a FIFO (named pipe), not a regular file",
            fifo.display()
        )),
        "{}",
        exit.stderr
    );
    // A directory is refused the same way.
    let exit = serve_expecting_exit(dir.path(), &[]).await;
    assert_eq!(exit.code, Some(1), "{}", exit.stderr);
    assert!(exit.stderr.contains("is a directory"), "{}", exit.stderr);
}

#[tokio::test]
async fn fifo_replacing_the_config_is_refused_on_reload() {
    let config = config_ab();
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    let pids = running_pids(&hub, &client).await;

    std::fs::remove_file(&hub.config_path).unwrap();
    mkfifo(&hub.config_path);
    let error = config_error(&hub, "notAFile").await;
    assert!(error.message().contains("FIFO"), "{error:?}");
    // The watcher is not stuck on the FIFO: an explicit reload answers at once too.
    let (code, body) = hub.post("/api/v1/reload").await;
    assert_eq!(code, 422, "{body}");
    still_serving(&hub, &client, pids).await;

    std::fs::remove_file(&hub.config_path).unwrap();
    std::fs::write(&hub.config_path, pretty(&config)).unwrap();
    config_error_cleared(&hub).await;
    still_serving(&hub, &client, pids).await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn huge_durations_in_the_file_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let u64_max = u64::MAX.to_string();
    for (text, key, value) in [
        (
            "{\"settings\": {\n  \"cacheTtlSecs\": 99999999999\n}}".to_string(),
            "settings.cacheTtlSecs",
            "99999999999",
        ),
        (
            format!("{{\"settings\": {{\"pollIntervalSecs\": {u64_max}}}}}"),
            "settings.pollIntervalSecs",
            u64_max.as_str(),
        ),
        (
            format!(
                "{{\"settings\": {{\"idleShutdownSecs\": {}}}}}",
                u64::MAX - 1
            ),
            "settings.idleShutdownSecs",
            "18446744073709551614",
        ),
        (
            "{\"settings\": {\"coldListTimeoutMs\": 2592000001}}".to_string(),
            "settings.coldListTimeoutMs",
            "2592000001",
        ),
        (
            format!(
                "{{\"mcpServers\": {{\"a\": {{\"command\": \"x\", \"timeouts\": {{\"callSecs\": {}}}}}}}}}",
                MAX_SECS + 1
            ),
            "timeouts.callSecs",
            "2592001",
        ),
    ] {
        std::fs::write(&path, &text).unwrap();
        let exit = serve_expecting_exit(&path, &[]).await;
        assert_eq!(exit.code, Some(1), "{text}: {}", exit.stderr);
        assert!(!exit.stderr.contains("panicked"), "{}", exit.stderr);
        let expected = format!("`{key}`: {value} is more than the maximum");
        assert!(exit.stderr.contains(&expected), "{text}: {}", exit.stderr);
        // path:line:column first, then what is wrong.
        let prefix = format!("{}:", path.display());
        let at = exit.stderr.find(&prefix).expect("the path in the error");
        let position: Vec<&str> = exit.stderr[at + prefix.len()..].splitn(3, ':').collect();
        assert!(
            position[0].parse::<u32>().is_ok() && position[1].parse::<u32>().is_ok(),
            "no line:column in {}",
            exit.stderr
        );
    }
    // The first case puts the value on line 2.
    std::fs::write(
        &path,
        "{\"settings\": {\n  \"cacheTtlSecs\": 99999999999\n}}",
    )
    .unwrap();
    let exit = serve_expecting_exit(&path, &[]).await;
    assert!(
        exit.stderr.contains(&format!("{}:2:", path.display())),
        "{}",
        exit.stderr
    );
}

#[tokio::test]
async fn huge_durations_by_environment_variable_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, "{}").unwrap();
    for name in [
        "SWITCHBOARD_CACHE_TTL_SECS",
        "SWITCHBOARD_POLL_INTERVAL_SECS",
        "SWITCHBOARD_IDLE_SHUTDOWN_SECS",
        "SWITCHBOARD_STARTUP_TIMEOUT_SECS",
        "SWITCHBOARD_CALL_TIMEOUT_SECS",
        "SWITCHBOARD_COLD_LIST_TIMEOUT_MS",
    ] {
        let value = "18446744073709551615";
        let exit = serve_expecting_exit(&path, &[(name, value)]).await;
        assert_eq!(exit.code, Some(1), "{name}: {}", exit.stderr);
        assert!(!exit.stderr.contains("panicked"), "{}", exit.stderr);
        assert!(
            exit.stderr
                .contains(&format!("environment variable {name}=\"{value}\"")),
            "{}",
            exit.stderr
        );
        assert!(
            exit.stderr.contains("is more than the maximum"),
            "{}",
            exit.stderr
        );
    }
}

#[tokio::test]
async fn the_maximum_durations_are_accepted_and_the_hub_works() {
    let max = MAX_SECS;
    let mut config = config_ab();
    config["settings"] = json!({
        "cacheTtlSecs": max,
        "pollIntervalSecs": max,
        "idleShutdownSecs": max,
        "startupTimeoutSecs": max,
        "callTimeoutSecs": max,
        "coldListTimeoutMs": max * 1000,
    });
    config["mcpServers"]["a"]["timeouts"] = json!({"startupSecs": max, "callSecs": max});
    let mut hub = Hub::start(config.clone()).await.unwrap();
    let client = hub.client().await;
    let pids = running_pids(&hub, &client).await;
    let a = hub.server_snapshot("a").await;
    assert!(a.ttl_expires_at.is_some(), "{a:?}");
    assert!(a.next_poll_at.is_some(), "{a:?}");

    // A huge value on reload is refused with its position; nothing stops.
    config["settings"]["cacheTtlSecs"] = json!(max + 1);
    save_bytes(&hub, &pretty(&config));
    let error = config_error(&hub, "invalid").await;
    assert!(
        error
            .message()
            .contains("`settings.cacheTtlSecs`: 2592001 is more than the maximum 2592000"),
        "{error:?}"
    );
    assert!(position(&error).0 > 1, "{error:?}");
    still_serving(&hub, &client, pids).await;
    assert!(!hub.log().contains("panicked"), "{}", hub.log());
    assert_eq!(hub.terminate().await, Some(0));
}
