//! `switchboard clients`, `import --from` and `connect` through the real
//! binary, in a temporary HOME holding client files in their documented
//! formats: what is found is listed, an imported server really runs behind
//! the hub, and a connected client's file points at the running hub.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, bin, stdio_fixture};

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The CLI with HOME (and the XDG config dir) in `home`, run from `home`.
async fn cli(home: &Path, args: &[&str]) -> Output {
    let output = tokio::process::Command::new(bin("switchboard"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("SWITCHBOARD_CONFIG")
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .args(args)
        .output()
        .await
        .unwrap();
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn clients_lists_every_client_and_what_is_on_this_machine() {
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".config/zed/settings.json"),
        "// mine\n{\"context_servers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"url\": \"https://h/mcp\"}}}\n",
    );
    write(
        &home.path().join(".config/goose/config.yaml"),
        "extensions:\n  g:\n    type: stdio\n    cmd: y\n    enabled: true\n",
    );
    let out = cli(home.path(), &["clients", "--json"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let list: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    let ids: Vec<&str> = list.iter().map(|c| c["client"].as_str().unwrap()).collect();
    for id in [
        "zed",
        "cline",
        "roo-code",
        "kilo-code",
        "continue",
        "goose",
        "opencode",
        "lm-studio",
        "copilot-cli",
        "qwen-code",
        "crush",
        "kiro",
        "amp",
        "junie",
        "augment",
        "trae",
        "jan",
        "cherry-studio",
        "warp",
        "vscode-insiders",
        "cursor",
        "claude-code",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let found: Vec<&str> = list
        .iter()
        .filter(|c| c["found"] == true)
        .map(|c| c["client"].as_str().unwrap())
        .collect();
    assert_eq!(found, vec!["zed", "goose"]);
    let zed = list.iter().find(|c| c["client"] == "zed").unwrap();
    assert_eq!(zed["files"][0]["servers"], 2);
    let warp = list.iter().find(|c| c["client"] == "warp").unwrap();
    assert_eq!(warp["hasFile"], false);

    // The table for people names the found files.
    let out = cli(home.path(), &["clients"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let zed_line = out.stdout.lines().find(|l| l.starts_with("zed ")).unwrap();
    assert!(zed_line.contains("found"), "{}", out.stdout);
    assert!(
        out.stdout.contains("settings.json: 2 servers"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn an_opencode_server_imported_by_the_cli_runs_behind_the_hub() {
    let home = tempfile::tempdir().unwrap();
    let fixture = stdio_fixture(&["--tools", "one,two"]);
    let mut command = vec![fixture["command"].clone()];
    command.extend(fixture["args"].as_array().unwrap().iter().cloned());
    write(
        &home.path().join(".config/opencode/opencode.json"),
        &serde_json::to_string_pretty(&json!({
            "$schema": "https://opencode.ai/config.json",
            "mcp": {"tools": {"type": "local", "command": command, "enabled": true}}
        }))
        .unwrap(),
    );
    let config = home.path().join("sb/config.json");
    let out = cli(
        home.path(),
        &[
            "import",
            "--from",
            "opencode",
            "--config",
            config.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(
        written["mcpServers"]["tools"],
        json!({"command": fixture["command"], "args": fixture["args"]})
    );

    let mut hub = Hub::start(written).await.unwrap();
    let client = Client::connect(&hub.url).await;
    assert_eq!(client.tool_names().await, vec!["tools__one", "tools__two"]);
    drop(client);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn connect_writes_goose_and_cline_files_and_prints_warps_snippet() {
    let home = tempfile::tempdir().unwrap();
    let hub = Hub::start(json!({"mcpServers": {}})).await.unwrap();
    let goose = home.path().join(".config/goose/config.yaml");
    write(
        &goose,
        "# my goose\nGOOSE_PROVIDER: anthropic\nextensions:\n  developer:\n    enabled: true\n    name: developer\n    type: builtin\nGOOSE_MODE: auto\n",
    );
    let out = cli(home.path(), &["connect", "goose", "--url", &hub.base]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&goose).unwrap();
    assert!(
        text.starts_with("# my goose\nGOOSE_PROVIDER: anthropic\nextensions:\n"),
        "{text}"
    );
    assert!(text.ends_with("GOOSE_MODE: auto\n"), "{text}");
    assert!(
        text.contains(&format!("    uri: {}\n", hub.url)),
        "{text}\n(hub at {})",
        hub.url
    );
    assert!(text.contains("    type: streamable_http\n"), "{text}");

    let out = cli(home.path(), &["connect", "cline", "--url", &hub.base]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cline = home.path().join(
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(cline).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"mcpServers": {"switchboard": {"type": "streamableHttp", "url": hub.url}}})
    );

    let out = cli(home.path(), &["connect", "warp", "--url", &hub.base]).await;
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--print"), "{}", out.stderr);
    let out = cli(
        home.path(),
        &["connect", "warp", "--print", "--url", &hub.base],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let printed: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        printed,
        json!({"mcpServers": {"switchboard": {"url": hub.url}}})
    );
}
