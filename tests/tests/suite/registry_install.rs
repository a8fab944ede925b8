//! The MCP Registry installs, end to end (helpers and the registry-only
//! cases in `registry.rs`): `add` of a real npm package at its exact version
//! with a secret in the keyring, its vetting start (no secret, its own
//! network namespace, tools held with change `new server`), approval
//! (restart with the secret), the lockfile written and enforced (another
//! version, a changed tarball), a real PyPI package through uvx (`update`
//! is in `registry_update.rs`), and a remote entry through the control API.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use switchboard_e2e::{HttpFixture, Hub, RegistryFixture, TestHub, eventually};

use super::registry::{MEMORY, MEMORY_OLD, MEMORY_PKG, docs, fixture_docs, hub_cli, path_with_uv};

/// The network namespace of process `pid`.
fn net_ns(pid: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/ns/net")).unwrap()
}

/// Whether process `pid` (or a descendant: npx starts node) has `NAME=value`.
pub(super) fn env_of_tree(pid: u32) -> String {
    let mut out = String::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        if let Ok(bytes) = std::fs::read(format!("/proc/{p}/environ")) {
            out.push_str(&String::from_utf8_lossy(&bytes).replace('\0', "\n"));
        }
        for child in switchboard_e2e::process_ids() {
            if let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat"))
                && let Some((_, rest)) = stat.rsplit_once(')')
                && rest.split_whitespace().nth(1) == Some(&p.to_string())
            {
                todo.push(child);
            }
        }
    }
    out
}

pub(super) fn lock(hub: &Hub) -> Value {
    let path = hub.config_path.with_file_name("servers.lock.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `npm view <spec> dist.integrity`: what the registry vouches for.
pub(super) async fn npm_integrity(spec: &str) -> String {
    let out = tokio::process::Command::new("npm")
        .args(["view", spec, "dist.integrity"])
        .output()
        .await
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The set-up every case here shares: the fake registry serving `docs`
/// (with the fixture's extra `args`) and a hub on it with a memory keyring
/// and its own packages folder. Dropped together at the end of the case.
pub(super) struct Installing {
    pub(super) hub: Hub,
    pub(super) packages: tempfile::TempDir,
    pub(super) docs: tempfile::TempDir,
    _registry: RegistryFixture,
}

impl Installing {
    pub(super) async fn start(docs: tempfile::TempDir, args: &[&str]) -> Self {
        let mut full = vec!["--docs", docs.path().to_str().unwrap()];
        full.extend_from_slice(args);
        let registry = RegistryFixture::start(&full).await.unwrap();
        let packages = tempfile::tempdir().unwrap();
        let hub = Hub::start_with_env(
            json!({"mcpServers": {}, "settings": {"registryUrl": registry.url}}),
            &[
                ("SWITCHBOARD_TOKEN_STORE", "memory"),
                (
                    "SWITCHBOARD_PACKAGES_DIR",
                    packages.path().to_str().unwrap(),
                ),
                ("PATH", &path_with_uv()),
            ],
        )
        .await
        .unwrap();
        Self {
            hub,
            packages,
            docs,
            _registry: registry,
        }
    }
}

#[tokio::test]
async fn an_npm_server_is_vetted_without_its_secret_or_network_then_runs_with_it_once_approved() {
    // The memory server's document, with a secret it does not need (so the
    // vetting start can list it) to see where the secret goes.
    let docs = docs(&[]);
    let mut doc: Value = serde_json::from_slice(
        &std::fs::read(fixture_docs().join("memory-2026.7.4.json")).unwrap(),
    )
    .unwrap();
    doc["packages"][0]["environmentVariables"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "MEMORY_TOKEN", "isRequired": true, "isSecret": true}));
    std::fs::write(docs.path().join("memory.json"), doc.to_string()).unwrap();
    let set = Installing::start(docs, &[]).await;
    let (hub, packages) = (&set.hub, &set.packages);

    let (ok, out, err) = hub_cli(
        hub,
        packages.path(),
        &[
            "add",
            &format!("{MEMORY}@{MEMORY_OLD}"),
            "--id",
            "memory",
            "--env",
            "MEMORY_TOKEN=tok-3141",
        ],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!("added 'memory' ({MEMORY_PKG}@{MEMORY_OLD})")),
        "{out}"
    );
    let config: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["memory"],
        json!({"command": "npx", "args": ["-y", format!("{MEMORY_PKG}@{MEMORY_OLD}")],
               "env": {"MEMORY_TOKEN": {"keyring": "memory-MEMORY_TOKEN"}}})
    );
    assert!(
        !std::fs::read_to_string(&hub.config_path)
            .unwrap()
            .contains("tok-3141")
    );
    let locked = lock(hub)["servers"]["memory"].clone();
    assert_eq!(locked["registryName"], MEMORY);
    assert_eq!(locked["packageVersion"], MEMORY_OLD);
    assert_eq!(
        locked["integrity"],
        npm_integrity(&format!("{MEMORY_PKG}@{MEMORY_OLD}")).await
    );
    assert_eq!(locked["approvedCatalog"], Value::Null);

    // The vetting start: listed, every tool held, no secret, no network.
    let (code, _) = hub.post("/api/v1/servers/memory/refresh").await;
    assert_eq!(code, 200, "{}", hub.log());
    let vetting = hub
        .wait_for("memory", "its tools held", |s| !s.held_tools.is_empty())
        .await;
    assert!(
        vetting.held_tools.iter().all(|t| t.change == "new server"),
        "{:?}",
        vetting.held_tools
    );
    assert!(vetting.held_tools.iter().any(|t| t.name == "read_graph"));
    assert_eq!(vetting.sandbox.profile, "custom");
    let pid = vetting.pid.expect("running");
    assert_ne!(
        net_ns(pid),
        net_ns(std::process::id()),
        "its own network namespace"
    );
    assert!(
        !env_of_tree(pid).contains("tok-3141"),
        "no secret while vetted"
    );
    let client = hub.client().await;
    assert!(
        !client
            .tool_names()
            .await
            .iter()
            .any(|n| n.starts_with("memory__")),
        "held tools are not served"
    );

    // Approved: locked, restarted with its secret, served.
    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "memory"]).await;
    assert!(ok && out.contains("approved"), "{out}{err}");
    let approved = eventually("the approval locked", || async {
        let l = lock(hub)["servers"]["memory"].clone();
        l["approvedCatalog"].is_string().then_some(l)
    })
    .await;
    assert!(
        approved["approvedTools"]
            .as_array()
            .unwrap()
            .contains(&json!("read_graph"))
    );
    let running = hub
        .wait_for("memory", "restarted with its secret", |s| {
            s.pid.is_some_and(|p| p != pid) && s.sandbox.profile == "standard"
        })
        .await;
    assert!(env_of_tree(running.pid.unwrap()).contains("MEMORY_TOKEN=tok-3141"));
    let names = eventually("its tools served", || async {
        let names = client.tool_names().await;
        names
            .iter()
            .any(|n| n == "memory__read_graph")
            .then_some(names)
    })
    .await;
    assert!(names.contains(&"memory__create_entities".to_string()));

    // The lock is enforced: another version in the config is not started.
    let edited = std::fs::read_to_string(&hub.config_path)
        .unwrap()
        .replace(&format!("@{MEMORY_OLD}"), "@2026.1.26");
    std::fs::write(&hub.config_path, edited).unwrap();
    let (ok, out, err) = hub_cli(hub, packages.path(), &["reload"]).await;
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!(
            "servers.lock.json locks {MEMORY_PKG}@{MEMORY_OLD} ({MEMORY} {MEMORY_OLD}) but the config runs {MEMORY_PKG}@2026.1.26"
        )) && out.contains("switchboard update"),
        "{out}"
    );
    hub.wait_for("memory", "refused", |s| !s.enabled).await;

    // So is the package checked at install: a changed tarball is refused.
    let restored = std::fs::read_to_string(&hub.config_path)
        .unwrap()
        .replace("@2026.1.26", &format!("@{MEMORY_OLD}"));
    std::fs::write(&hub.config_path, restored).unwrap();
    let own = packages.path().join("memory").join(MEMORY_OLD);
    let tarball = std::fs::read_dir(&own)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .unwrap();
    std::fs::write(&tarball, b"not the package").unwrap();
    let (ok, out, err) = hub_cli(hub, packages.path(), &["reload"]).await;
    assert!(ok, "{err}");
    assert!(
        out.contains("is not the one servers.lock.json locks")
            && out.contains("switchboard update memory"),
        "{out}"
    );
}

#[tokio::test]
async fn a_pypi_server_is_fetched_with_uv_checked_against_pypi_and_vetted_offline() {
    let docs = docs(&["time-2026.10.19.json"]);
    let set = Installing::start(docs, &[]).await;
    let (hub, packages) = (&set.hub, &set.packages);
    let (ok, out, err) = hub_cli(
        hub,
        packages.path(),
        &["add", "io.github.modelcontextprotocol/server-time"],
    )
    .await;
    assert!(ok, "{err}");
    assert!(
        out.contains("added 'server-time' (mcp-server-time==2026.10.19)"),
        "{out}"
    );
    let config: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["server-time"],
        json!({"command": "uvx", "args": ["mcp-server-time==2026.10.19", "--local-timezone", "UTC"]})
    );
    // The digest is PyPI's for the wheel.
    let pypi: Value = reqwest::get("https://pypi.org/pypi/mcp-server-time/json")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let wheel = pypi["releases"]["2026.10.19"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["filename"].as_str().unwrap().ends_with(".whl"))
        .unwrap()["digests"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        lock(hub)["servers"]["server-time"]["integrity"],
        format!("sha256:{wheel}")
    );
    let (code, body) = hub.post("/api/v1/servers/server-time/refresh").await;
    assert_eq!(code, 200, "{body} {}", hub.log());
    let vetting = hub
        .wait_for("server-time", "held", |s| !s.held_tools.is_empty())
        .await;
    assert_eq!(vetting.sandbox.profile, "custom");
    assert!(
        vetting
            .held_tools
            .iter()
            .any(|t| t.name == "get_current_time" && t.change == "new server"),
        "{:?}",
        vetting.held_tools
    );
}

#[tokio::test]
async fn a_remote_entry_is_added_through_the_control_api_with_its_header_in_the_keyring() {
    let upstream = HttpFixture::start(&["--tools", "echo"]).await.unwrap();
    let remote_base = upstream.url.trim_end_matches("/mcp").to_string();
    let docs = docs(&["notes-remote-1.2.0.json"]);
    let set = Installing::start(docs, &["--remote-base", &remote_base]).await;
    let hub = &set.hub;
    let http = reqwest::Client::new();
    let found: Value = http
        .get(format!("{}/api/v1/registry?search=notes", hub.base))
        .bearer_auth(hub.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(found["servers"][0]["name"], "com.example.notes/notes");
    assert_eq!(
        found["servers"][0]["transports"],
        json!(["streamable-http"])
    );
    let body = json!({"name": "com.example.notes/notes", "id": "notes",
                      "headers": {"X-Notes-Key": "key-2718"}});
    let refused = http
        .post(format!("{}/api/v1/registry/install", hub.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(
        matches!(refused.status().as_u16(), 401 | 403),
        "needs the control token"
    );
    let answer = http
        .post(format!("{}/api/v1/registry/install", hub.base))
        .bearer_auth(hub.token())
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"id": "notes"})
    );
    let config: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["notes"],
        json!({"url": upstream.url, "headers": {"X-Notes-Key": {"keyring": "notes-X-Notes-Key"}}})
    );
    assert!(
        !std::fs::read_to_string(&hub.config_path)
            .unwrap()
            .contains("key-2718")
    );
    assert_eq!(lock(hub)["servers"]["notes"]["kind"], "remote");
    hub.post("/api/v1/servers/notes/refresh").await;
    let held = hub
        .wait_for("notes", "held", |s| !s.held_tools.is_empty())
        .await;
    assert_eq!(held.held_tools[0].change, "new server");
    let installed: Value = http
        .get(format!("{}/api/v1/registry?search=notes", hub.base))
        .bearer_auth(hub.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(installed["servers"][0]["installed"], true);
    assert_eq!(installed["servers"][0]["installedAs"], "notes");
}

/// What the stand-in package's tarball holds, and npm's integrity of it.
const STAND_IN: &[u8] = b"not a real package: the fixture stands in for it\n";
const STAND_IN_INTEGRITY: &str = "sha512-tSQ+/6RP9ORNm1qCKRUrr/WUT+PEoIhgkeQ71QCc+OQ04dADODjTaHF+yscYUcz+KTFzF/mfAhQYLjFBTHu2bQ==";

/// Server `id` as `add` leaves an npm package, run by the fixture: a lock
/// entry (not approved, `secrets` its secret env names), its own folder with
/// the checked tarball and a copy of the fixture (the vetting sandbox reads
/// only that folder), then the config entry, applied. The fixture's
/// arguments carry the locked spec `@x/<id>@1.0.0`, as npx's do.
pub(super) async fn stand_in_npm_server(
    hub: &Hub,
    packages: &Path,
    id: &str,
    secrets: &[&str],
    args: &[&str],
    env: Value,
) {
    let own = packages.join(id);
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("x-1.0.0.tgz"), STAND_IN).unwrap();
    let fixture = own.join("switchboard-fixture");
    std::fs::copy(switchboard_e2e::bin("switchboard-fixture"), &fixture).unwrap();
    let spec = format!("@x/{id}@1.0.0");
    std::fs::write(
        hub.config_path.with_file_name("servers.lock.json"),
        json!({"servers": {id: {
            "registryName": format!("io.github.x/{id}"), "version": "1.0.0", "kind": "npm",
            "identifier": format!("@x/{id}"), "packageVersion": "1.0.0",
            "integrity": STAND_IN_INTEGRITY, "secrets": secrets, "approvedCatalog": null}}})
        .to_string(),
    )
    .unwrap();
    let mut full = vec!["--name", spec.as_str()];
    full.extend_from_slice(args);
    let mut config: Value =
        serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    config["mcpServers"][id] = json!({"command": fixture, "args": full, "env": env});
    std::fs::write(&hub.config_path, config.to_string()).unwrap();
    let (code, body) = hub.post("/api/v1/reload").await;
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn a_server_that_exits_without_its_key_is_vetted_with_a_placeholder_never_the_key() {
    let set = Installing::start(docs(&[]), &[]).await;
    let (hub, packages) = (&set.hub, &set.packages);
    stand_in_npm_server(
        hub,
        packages.path(),
        "keyed",
        &["KEYED_TOKEN"],
        &["--require-env", "KEYED_TOKEN", "--tools", "echo"],
        json!({"KEYED_TOKEN": "tok-1618"}),
    )
    .await;
    let (code, _) = hub.post("/api/v1/servers/keyed/refresh").await;
    assert_eq!(code, 200, "{}", hub.log());
    let vetting = hub
        .wait_for("keyed", "listed and held", |s| !s.held_tools.is_empty())
        .await;
    assert_eq!(vetting.held_tools[0].name, "echo");
    assert_eq!(vetting.held_tools[0].change, "new server");
    assert_eq!(vetting.sandbox.profile, "custom");
    let env = env_of_tree(vetting.pid.expect("running"));
    assert!(
        env.contains("KEYED_TOKEN=switchboard-vetting-placeholder"),
        "{env}"
    );
    assert!(
        !env.contains("tok-1618"),
        "the key never reaches the vetting start"
    );

    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "keyed"]).await;
    assert!(ok && out.contains("approved echo"), "{out}{err}");
    let running = hub
        .wait_for("keyed", "restarted with its key", |s| {
            s.pid.is_some_and(|p| Some(p) != vetting.pid) && s.sandbox.profile == "standard"
        })
        .await;
    assert!(env_of_tree(running.pid.unwrap()).contains("KEYED_TOKEN=tok-1618"));
}

#[tokio::test]
async fn a_remote_being_vetted_connects_without_its_secret_header_until_a_person_allows_it() {
    // A remote that refuses every request without its key.
    let upstream = HttpFixture::start(&[
        "--tools",
        "echo",
        "--require-header",
        "X-Notes-Key: key-2718",
    ])
    .await
    .unwrap();
    let remote_base = upstream.url.trim_end_matches("/mcp").to_string();
    let docs = docs(&["notes-remote-1.2.0.json"]);
    let set = Installing::start(docs, &["--remote-base", &remote_base]).await;
    let (hub, packages) = (&set.hub, &set.packages);
    let (ok, _, err) = hub_cli(
        hub,
        packages.path(),
        &[
            "add",
            "com.example.notes/notes",
            "--id",
            "notes",
            "--header",
            "X-Notes-Key=key-2718",
        ],
    )
    .await;
    assert!(ok, "{err}");

    // Connected without the key: refused, and the status says what to do.
    hub.post("/api/v1/servers/notes/refresh").await;
    let refused = hub
        .wait_for("notes", "refused without its key", |s| {
            s.last_error.is_some()
        })
        .await;
    let error = refused.last_error.clone().unwrap();
    assert!(
        error.contains("needs its credentials to be listed")
            && error.contains("X-Notes-Key")
            && error.contains("switchboard approve notes"),
        "{error}"
    );
    assert!(!error.contains("key-2718"));
    assert!(refused.held_tools.is_empty());
    assert_eq!(
        lock(hub)["servers"]["notes"]["credentialsApproved"],
        Value::Null
    );

    // A person allows its headers: it connects with them, lists, and its
    // tools are held for review as usual.
    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "notes"]).await;
    assert!(
        ok && out.contains("allowed to connect with its headers (X-Notes-Key)"),
        "{out}{err}"
    );
    assert_eq!(lock(hub)["servers"]["notes"]["credentialsApproved"], true);
    hub.post("/api/v1/servers/notes/refresh").await;
    let held = hub
        .wait_for("notes", "listed with its key, tools held", |s| {
            !s.held_tools.is_empty()
        })
        .await;
    assert_eq!(held.held_tools[0].name, "echo");
    assert_eq!(held.held_tools[0].change, "new server");
    assert_eq!(held.last_error, None);
    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "notes"]).await;
    assert!(ok && out.contains("approved echo"), "{out}{err}");
    eventually("approved", || async {
        lock(hub)["servers"]["notes"]["approvedCatalog"]
            .is_string()
            .then_some(())
    })
    .await;
}
