//! The MCP Registry, end to end: a fake registry (`switchboard-registry-fixture`)
//! serving real `server.json` documents written from the official schema, the
//! real `switchboard` CLI and hub, and real installs from npm and PyPI.
//!
//! This file: search and show (and the `/v0` fallback), a registry that is
//! down, answers garbage, hangs or is not there (a clear error in bounded
//! time, the config untouched), cached answers, an unknown name and an OCI
//! entry (refused, config untouched), `add` of an npm package at its exact
//! version with a secret in the keyring, its vetting start (no secret, its
//! own network namespace, tools held with change `new server`), approval
//! (restart with the secret), the lockfile written and enforced, `update`
//! vetted with its tool diff, a PyPI package through uvx, and a remote entry
//! through the control API are in `registry_install.rs`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use switchboard_e2e::{Hub, RegistryFixture};

pub(super) const MEMORY: &str = "io.github.modelcontextprotocol/server-memory";
pub(super) const MEMORY_OLD: &str = "2026.7.4";
pub(super) const MEMORY_NEW: &str = "2026.8.31";
pub(super) const MEMORY_PKG: &str = "@modelcontextprotocol/server-memory";

/// The fixture's documents (`crates/switchboard-fixtures/registry`).
pub(super) fn fixture_docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/switchboard-fixtures/registry")
}

/// A folder of documents: the fixture's, with only the `keep` files.
pub(super) fn docs(keep: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in keep {
        std::fs::copy(fixture_docs().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// `.tools/uv/bin` (scripts/setup.sh) ahead of PATH, for `uv` and `uvx`.
pub(super) fn path_with_uv() -> String {
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
pub(super) async fn cli(
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
pub(super) async fn hub_cli(hub: &Hub, packages: &Path, args: &[&str]) -> (bool, String, String) {
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
