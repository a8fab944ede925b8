//! The MCP Registry, end to end: a fake registry (`switchboard-registry-fixture`)
//! serving real `server.json` documents written from the official schema, the
//! real `switchboard` CLI and hub, and real installs from npm and PyPI.
//!
//! Covers: search and show (and the `/v0` fallback), a registry that is
//! down, answers garbage, hangs or is not there (a clear error in bounded
//! time, the config untouched), cached answers, an unknown name and an OCI
//! entry (refused, config untouched), `add` of an npm package at its exact
//! version with a secret in the keyring, its vetting start (no secret, its
//! own network namespace, tools held with change `new server`), approval
//! (restart with the secret), the lockfile written and enforced, `update`
//! vetted with its tool diff, a PyPI package through uvx, and a remote entry
//! through the control API.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_e2e::{HttpFixture, Hub, RegistryFixture, eventually};

const MEMORY: &str = "io.github.modelcontextprotocol/server-memory";
const MEMORY_OLD: &str = "2026.7.4";
const MEMORY_NEW: &str = "2026.8.31";
const MEMORY_PKG: &str = "@modelcontextprotocol/server-memory";

/// The fixture's documents (`crates/switchboard-fixtures/registry`).
fn fixture_docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/switchboard-fixtures/registry")
}

/// A folder of documents: the fixture's, with only the `keep` files.
fn docs(keep: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in keep {
        std::fs::copy(fixture_docs().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// `.tools/uv/bin` (scripts/setup.sh) ahead of PATH, for `uv` and `uvx`.
fn path_with_uv() -> String {
    let uv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/uv/bin");
    assert!(
        uv.join("uvx").exists(),
        "{} has no uvx: run scripts/setup.sh",
        uv.display()
    );
    format!(
        "{}:{}",
        uv.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs the CLI with `args` against `config` (no hub), packages in `packages`.
async fn cli(
    config: &Path,
    state: &Path,
    packages: &Path,
    args: &[&str],
) -> (bool, String, String) {
    let mut cmd = tokio::process::Command::new(switchboard_e2e::bin("switchboard"));
    cmd.args(args)
        .env("SWITCHBOARD_CONFIG", config)
        .env("SWITCHBOARD_CACHE_DIR", state)
        .env("SWITCHBOARD_PACKAGES_DIR", packages)
        .env("SWITCHBOARD_TOKEN_STORE", "memory")
        .env("PATH", path_with_uv())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(240), cmd.output())
        .await
        .expect("the CLI finished")
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The hub's CLI with its config, packages and URL.
async fn hub_cli(hub: &Hub, packages: &Path, args: &[&str]) -> (bool, String, String) {
    let mut cmd = hub.cli();
    cmd.args(args)
        .arg("--url")
        .arg(&hub.base)
        .env("SWITCHBOARD_CONFIG", &hub.config_path)
        .env("SWITCHBOARD_PACKAGES_DIR", packages)
        .env("PATH", path_with_uv());
    let out = tokio::time::timeout(Duration::from_secs(240), cmd.output())
        .await
        .expect("the CLI finished")
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(registry: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.json"),
            json!({"mcpServers": {}, "settings": {"registryUrl": registry}}).to_string(),
        )
        .unwrap();
        Self { dir }
    }
    fn config(&self) -> PathBuf {
        self.dir.path().join("config.json")
    }
    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }
    fn packages(&self) -> PathBuf {
        self.dir.path().join("packages")
    }
    async fn run(&self, args: &[&str]) -> (bool, String, String) {
        cli(&self.config(), &self.state(), &self.packages(), args).await
    }
}

#[tokio::test]
async fn search_and_show_read_the_registry_and_fall_back_to_v0() {
    for mode in ["ok", "v0-only"] {
        let registry = RegistryFixture::start(&["--mode", mode]).await.unwrap();
        let setup = Setup::new(&registry.url);
        let (ok, out, err) = setup.run(&["registry", "search", "memory"]).await;
        assert!(ok, "{mode}: {err}");
        assert_eq!(
            out.lines().next().unwrap(),
            format!("{MEMORY}  {MEMORY_NEW}  stdio (npm)"),
            "{mode}: the latest version only: {out}"
        );
        let (ok, out, err) = setup.run(&["registry", "search", "", "--json"]).await;
        assert!(ok, "{err}");
        let answer: switchboard_api::RegistrySearchResponse = serde_json::from_str(&out).unwrap();
        let names: Vec<&str> = answer.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "com.example.notes/notes",
                "io.github.example/everything-container",
                "io.github.modelcontextprotocol/server-brave-search",
                MEMORY,
                "io.github.modelcontextprotocol/server-time",
            ]
        );
        let brave = &answer.servers[2];
        assert!(!brave.installed);
        assert_eq!(brave.installed_as, None);
        assert_eq!(
            (
                brave.env[0].name.as_str(),
                brave.env[0].required,
                brave.env[0].secret
            ),
            ("BRAVE_API_KEY", true, true)
        );
        let (ok, out, err) = setup
            .run(&["registry", "show", &format!("{MEMORY}@{MEMORY_OLD}")])
            .await;
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("package: npm {MEMORY_PKG} {MEMORY_OLD} (stdio)"))
                && out.contains("env MEMORY_FILE_PATH"),
            "{out}"
        );
    }
}

#[tokio::test]
async fn a_registry_that_is_down_broken_hangs_or_is_gone_is_a_clear_error_and_changes_nothing() {
    let closed = format!("http://127.0.0.1:{}", switchboard_e2e::free_port());
    let mut cases = vec![(closed, "cannot be reached".to_string())];
    let mut fixtures = Vec::new();
    for (mode, says) in [
        ("down", "answered HTTP 503"),
        ("garbage", "not a registry answer"),
        ("hang", "did not answer within 8 s"),
    ] {
        let registry = RegistryFixture::start(&["--mode", mode]).await.unwrap();
        cases.push((registry.url.clone(), says.to_string()));
        fixtures.push(registry);
    }
    for (url, says) in cases {
        let setup = Setup::new(&url);
        let before = std::fs::read(setup.config()).unwrap();
        for args in [vec!["registry", "search", "memory"], vec!["add", MEMORY]] {
            let (ok, _, err) = setup.run(&args).await;
            assert!(!ok, "{url} {args:?}");
            assert!(
                err.contains(&format!("the MCP Registry at {url}")) && err.contains(&says),
                "{url} {args:?}: {err}"
            );
        }
        assert_eq!(
            std::fs::read(setup.config()).unwrap(),
            before,
            "config untouched"
        );
        assert!(!setup.dir.path().join("servers.lock.json").exists());
    }
}

#[tokio::test]
async fn answers_are_cached_and_served_when_the_registry_is_gone() {
    let mut registry = RegistryFixture::start(&[]).await.unwrap();
    let setup = Setup::new(&registry.url);
    let (ok, first, err) = setup.run(&["registry", "search", "time"]).await;
    assert!(ok, "{err}");
    let asked = registry.requests().await;
    let (ok, again, _) = setup.run(&["registry", "search", "time"]).await;
    assert!(ok);
    assert_eq!(again, first);
    assert_eq!(
        registry.requests().await,
        asked,
        "a fresh answer is not asked again"
    );
    registry.stop().await;
    let (ok, gone, _) = setup.run(&["registry", "search", "time"]).await;
    assert!(ok);
    assert_eq!(gone, first, "the cached answer when the registry is gone");
    let (ok, _, err) = setup.run(&["registry", "search", "brave"]).await;
    assert!(
        !ok && err.contains("cannot be reached"),
        "nothing cached: {err}"
    );
}

#[tokio::test]
async fn an_unknown_name_or_a_container_image_is_refused_and_the_config_untouched() {
    let registry = RegistryFixture::start(&[]).await.unwrap();
    let setup = Setup::new(&registry.url);
    let before = std::fs::read(setup.config()).unwrap();
    let (ok, _, err) = setup.run(&["add", "io.github.nobody/nothing"]).await;
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "the MCP Registry at {} has no server named io.github.nobody/nothing",
            registry.url
        )),
        "{err}"
    );
    let (ok, _, err) = setup.run(&["add", &format!("{MEMORY}@1.0.0")]).await;
    assert!(!ok && err.contains("at version 1.0.0"), "{err}");
    let (ok, _, err) = setup.run(&["add", &format!("{MEMORY}@^2026.7.4")]).await;
    assert!(!ok && err.contains("not an exact version"), "{err}");
    let (ok, _, err) = setup
        .run(&["add", "io.github.example/everything-container"])
        .await;
    assert!(!ok);
    assert!(
        err.contains("published only as a container image (docker.io/mcp/everything:1.0.0)")
            && err.contains("container runtime"),
        "{err}"
    );
    let (ok, _, err) = setup
        .run(&["add", "io.github.modelcontextprotocol/server-brave-search"])
        .await;
    assert!(!ok && err.contains("--env BRAVE_API_KEY=VALUE"), "{err}");
    assert_eq!(std::fs::read(setup.config()).unwrap(), before);
    assert!(!setup.dir.path().join("servers.lock.json").exists());
}

/// The network namespace of process `pid`.
fn net_ns(pid: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/ns/net")).unwrap()
}

/// Whether process `pid` (or a descendant: npx starts node) has `NAME=value`.
fn env_of_tree(pid: u32) -> String {
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

fn lock(hub: &Hub) -> Value {
    let path = hub.config_path.with_file_name("servers.lock.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `npm view <spec> dist.integrity`: what the registry vouches for.
async fn npm_integrity(spec: &str) -> String {
    let out = tokio::process::Command::new("npm")
        .args(["view", spec, "dist.integrity"])
        .output()
        .await
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A hub on `registry` with a memory keyring and its own packages folder.
async fn hub_on(registry: &str, packages: &Path) -> Hub {
    Hub::start_with_env(
        json!({"mcpServers": {}, "settings": {"registryUrl": registry}}),
        &[
            ("SWITCHBOARD_TOKEN_STORE", "memory"),
            ("SWITCHBOARD_PACKAGES_DIR", packages.to_str().unwrap()),
            ("PATH", &path_with_uv()),
        ],
    )
    .await
    .unwrap()
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
    let registry = RegistryFixture::start(&["--docs", docs.path().to_str().unwrap()])
        .await
        .unwrap();
    let packages = tempfile::tempdir().unwrap();
    let hub = hub_on(&registry.url, packages.path()).await;

    let (ok, out, err) = hub_cli(
        &hub,
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
    let locked = lock(&hub)["servers"]["memory"].clone();
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
    let (ok, out, err) = hub_cli(&hub, packages.path(), &["approve", "memory"]).await;
    assert!(ok && out.contains("approved"), "{out}{err}");
    let approved = eventually("the approval locked", || async {
        let l = lock(&hub)["servers"]["memory"].clone();
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
    let (ok, out, err) = hub_cli(&hub, packages.path(), &["reload"]).await;
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
    let own = packages.path().join("memory");
    let tarball = std::fs::read_dir(&own)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .unwrap();
    std::fs::write(&tarball, b"not the package").unwrap();
    let (ok, out, err) = hub_cli(&hub, packages.path(), &["reload"]).await;
    assert!(ok, "{err}");
    assert!(
        out.contains("is not the one servers.lock.json locks")
            && out.contains("switchboard update memory"),
        "{out}"
    );
}

#[tokio::test]
async fn outdated_and_update_vet_the_new_version_and_show_the_tool_diff() {
    let docs = docs(&["memory-2026.7.4.json"]);
    let registry = RegistryFixture::start(&["--docs", docs.path().to_str().unwrap()])
        .await
        .unwrap();
    let packages = tempfile::tempdir().unwrap();
    let hub = hub_on(&registry.url, packages.path()).await;
    let (ok, _, err) = hub_cli(&hub, packages.path(), &["add", MEMORY, "--id", "memory"]).await;
    assert!(ok, "{err}");
    hub.post("/api/v1/servers/memory/refresh").await;
    hub.wait_for("memory", "held", |s| !s.held_tools.is_empty())
        .await;
    let (ok, _, err) = hub_cli(&hub, packages.path(), &["approve", "memory"]).await;
    assert!(ok, "{err}");
    eventually("approved", || async {
        lock(&hub)["servers"]["memory"]["approvedCatalog"]
            .is_string()
            .then_some(())
    })
    .await;
    let (ok, out, _) = cli(
        &hub.config_path,
        &hub.state_dir,
        packages.path(),
        &["registry", "outdated"],
    )
    .await;
    assert!(ok && out.contains("up to date"), "{out}");

    // A new version is published.
    std::fs::copy(
        fixture_docs().join("memory-2026.8.31.json"),
        docs.path().join("memory-2026.8.31.json"),
    )
    .unwrap();
    // `outdated` asks the registry again (its answers are cached for minutes).
    let (ok, out, err) = cli(
        &hub.config_path,
        &hub.state_dir,
        packages.path(),
        &["registry", "outdated", "--json"],
    )
    .await;
    assert!(ok, "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        rows,
        json!([{"id": "memory", "name": MEMORY, "locked": MEMORY_OLD, "latest": MEMORY_NEW,
                "outdated": true, "vetting": false}])
    );
    let (ok, text, err) = hub_cli(&hub, packages.path(), &["update", "memory"]).await;
    assert!(ok, "{text}{err}");
    assert!(
        text.contains(&format!("'memory': {MEMORY_OLD} → {MEMORY_NEW}")) && text.contains("tools:"),
        "{text}"
    );
    let locked = lock(&hub)["servers"]["memory"].clone();
    assert_eq!(locked["packageVersion"], MEMORY_NEW);
    assert_eq!(locked["approvedCatalog"], Value::Null, "vetted again");
    assert_eq!(
        locked["integrity"],
        npm_integrity(&format!("{MEMORY_PKG}@{MEMORY_NEW}")).await
    );
    let vetting = hub.server_snapshot("memory").await;
    assert_eq!(
        vetting.sandbox.profile, "custom",
        "the new version runs vetted"
    );
    let (ok, _, err) = hub_cli(&hub, packages.path(), &["approve", "memory"]).await;
    assert!(ok, "{err}");
    eventually("the new version approved", || async {
        lock(&hub)["servers"]["memory"]["approvedCatalog"]
            .is_string()
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_pypi_server_is_fetched_with_uv_checked_against_pypi_and_vetted_offline() {
    let docs = docs(&["time-2026.10.19.json"]);
    let registry = RegistryFixture::start(&["--docs", docs.path().to_str().unwrap()])
        .await
        .unwrap();
    let packages = tempfile::tempdir().unwrap();
    let hub = hub_on(&registry.url, packages.path()).await;
    let (ok, out, err) = hub_cli(
        &hub,
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
        lock(&hub)["servers"]["server-time"]["integrity"],
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
    let registry = RegistryFixture::start(&[
        "--docs",
        docs.path().to_str().unwrap(),
        "--remote-base",
        &remote_base,
    ])
    .await
    .unwrap();
    let packages = tempfile::tempdir().unwrap();
    let hub = hub_on(&registry.url, packages.path()).await;
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
    assert_eq!(lock(&hub)["servers"]["notes"]["kind"], "remote");
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
