//! Files that can hold secrets are private, and editing a config keeps what
//! the person chose: the state directory is `0700` and the warm catalog
//! `0600`; enable/disable through the control API keeps a config's mode,
//! owner and symlink; `import` writes its config and backups `0600`, and
//! `connect` keeps a client's file mode while its backup is `0600`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use serde_json::{Value, json};
use switchboard_api::ServerState;
use switchboard_e2e::{Hub, TestHub, bin, eventually, stdio_fixture};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether the test runs as root (then it can give files to another user).
fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// The uid the tests give files to when running as root (`nobody`).
const NOBODY: u32 = 65534;

#[tokio::test]
async fn state_dir_and_warm_catalog_are_private() {
    let mut hub = Hub::start(json!({"mcpServers": {"alpha": stdio_fixture(&["--tools", "x"])}}))
        .await
        .unwrap();
    let state = hub.dir.path().join("cache");
    let catalog = state.join("catalog.json");
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, ["alpha__x"]);
    eventually("the warm catalog written", || async {
        catalog.exists().then_some(())
    })
    .await;
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&catalog), 0o600);
    drop(client);
    assert_eq!(hub.terminate().await, Some(0));

    // A state directory and catalog left open by an older version are
    // narrowed at the next write; the directory above is not touched.
    set_mode(&state, 0o755);
    set_mode(&catalog, 0o644);
    set_mode(hub.dir.path(), 0o755);
    let config = fs::read(&hub.config_path).unwrap();
    let mut again = Hub::start_with_env(
        serde_json::from_slice(&config).unwrap(),
        &[("SWITCHBOARD_CACHE_DIR", state.to_str().unwrap())],
    )
    .await
    .unwrap();
    // The warm catalog is written once more at shutdown.
    assert_eq!(again.terminate().await, Some(0));
    assert_eq!(mode(&catalog), 0o600);
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(hub.dir.path()), 0o755);
    assert_eq!(mode(&state.join("control-token")), 0o600);
    assert_eq!(mode(&state.join("pins.json")), 0o600);
    let mut leftovers: Vec<_> = fs::read_dir(&state)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        ["catalog.json", "control-token", "pins.json"],
        "no temp files left"
    );
}

#[tokio::test]
async fn disable_keeps_the_configs_mode_owner_and_symlink() {
    let hub = Hub::start(json!({"mcpServers": {
        "alpha": stdio_fixture(&["--tools", "x"]),
        "beta": stdio_fixture(&["--tools", "y"]),
    }}))
    .await
    .unwrap();

    // A plain 0600 config stays 0600 (and keeps its owner and group). The
    // owner stays the hub's user: a config of another user is refused
    // (`config_owner.rs`); another group without write access is fine.
    set_mode(&hub.config_path, 0o600);
    let owner = fs::metadata(&hub.config_path).unwrap().uid();
    if is_root() {
        std::os::unix::fs::chown(&hub.config_path, None, Some(NOBODY)).unwrap();
    }
    let (code, body) = hub.post("/api/v1/servers/alpha/disable").await;
    assert_eq!(code, 200, "{body}");
    let file: Value = serde_json::from_slice(&fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["alpha"]["enabled"], false);
    assert_eq!(mode(&hub.config_path), 0o600);
    if is_root() {
        let meta = fs::metadata(&hub.config_path).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (owner, NOBODY));
    }

    // A symlinked config (dotfiles elsewhere) stays a symlink; its target is edited.
    let dotfiles = hub.dir.path().join("dotfiles");
    fs::create_dir(&dotfiles).unwrap();
    let target = dotfiles.join("switchboard.json");
    fs::copy(&hub.config_path, &target).unwrap();
    set_mode(&target, 0o640);
    let link_tmp = hub.dir.path().join("config.json.link");
    std::os::unix::fs::symlink("dotfiles/switchboard.json", &link_tmp).unwrap();
    fs::rename(&link_tmp, &hub.config_path).unwrap();
    let (code, body) = hub.post("/api/v1/servers/beta/disable").await;
    assert_eq!(code, 200, "{body}");
    let link = fs::symlink_metadata(&hub.config_path).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the config is no longer a link"
    );
    assert_eq!(
        fs::read_link(&hub.config_path).unwrap(),
        Path::new("dotfiles/switchboard.json")
    );
    let file: Value = serde_json::from_slice(&fs::read(&target).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["beta"]["enabled"], false);
    assert_eq!(mode(&target), 0o640);
    hub.wait_for("beta", "beta disabled", |s| {
        s.state == ServerState::Disabled
    })
    .await;
    let (code, _) = hub.post("/api/v1/servers/beta/enable").await;
    assert_eq!(code, 200);
    let file: Value = serde_json::from_slice(&fs::read(&target).unwrap()).unwrap();
    assert!(
        file["mcpServers"]["beta"].get("enabled").is_none(),
        "{file}"
    );
    assert!(
        fs::symlink_metadata(&hub.config_path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // No temp file is left beside the link or the target.
    for dir in [hub.dir.path(), dotfiles.as_path()] {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(!name.contains("tmp"), "left behind: {name}");
        }
    }
}

async fn run(args: &[&str], home: &Path) -> (i32, String) {
    let output = tokio::process::Command::new(bin("switchboard"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("SWITCHBOARD_CONFIG")
        .output()
        .await
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

#[tokio::test]
async fn import_writes_private_configs_and_backups() {
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    let home = dir.path().join("home");
    fs::create_dir(&home).unwrap();
    // A client file with a token, kept private by its owner.
    let client = home.join("client.json");
    fs::write(
        &client,
        serde_json::to_vec_pretty(&json!({"mcpServers": {
            "gh": {"url": "https://example.com/mcp",
                   "headers": {"Authorization": "Bearer ghp_secret_value_123"}},
        }}))
        .unwrap(),
    )
    .unwrap();
    set_mode(&client, 0o600);

    // Into a config that does not exist yet, in directories that do not either.
    let fresh = dir
        .path()
        .join("new")
        .join("switchboard")
        .join("config.json");
    let (code, out) = run(
        &[
            "import",
            "--path",
            client.to_str().unwrap(),
            "--config",
            fresh.to_str().unwrap(),
        ],
        &home,
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert!(
        fs::read_to_string(&fresh)
            .unwrap()
            .contains("ghp_secret_value_123")
    );
    assert_eq!(mode(&fresh), 0o600);
    assert_eq!(mode(fresh.parent().unwrap()), 0o700);
    assert_eq!(mode(&dir.path().join("new")), 0o700);
    assert_eq!(mode(dir.path()), 0o755);

    // Into an existing world-readable config: narrowed, and the backup is private too.
    let existing = dir.path().join("config.json");
    fs::write(&existing, "{\"mcpServers\": {}}\n").unwrap();
    set_mode(&existing, 0o644);
    let (code, out) = run(
        &[
            "import",
            "--path",
            client.to_str().unwrap(),
            "--config",
            existing.to_str().unwrap(),
        ],
        &home,
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert_eq!(mode(&existing), 0o600);
    let backups: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("config.json.bak-"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(mode(&backups[0]), 0o600);
    assert_eq!(
        fs::read_to_string(&backups[0]).unwrap(),
        "{\"mcpServers\": {}}\n"
    );
}

#[tokio::test]
async fn connect_keeps_the_clients_mode_and_backs_up_privately() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cursor = home.join(".cursor").join("mcp.json");
    fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    fs::write(
        &cursor,
        "{\"mcpServers\": {\"gh\": {\"url\": \"https://example.com/mcp\", \
         \"headers\": {\"Authorization\": \"Bearer ghp_secret_value_123\"}}}}\n",
    )
    .unwrap();
    set_mode(&cursor, 0o640);
    let (code, out) = run(
        &["connect", "cursor", "--url", "http://127.0.0.1:8420"],
        &home,
    )
    .await;
    assert_eq!(code, 0, "{out}");
    let text = fs::read_to_string(&cursor).unwrap();
    assert!(text.contains("switchboard"), "{text}");
    assert_eq!(mode(&cursor), 0o640);
    let backups: Vec<_> = fs::read_dir(cursor.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(".bak-"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(mode(&backups[0]), 0o600);
}
