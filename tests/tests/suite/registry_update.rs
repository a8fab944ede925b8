//! `switchboard registry outdated` and `switchboard update`, end to end,
//! with the real npm package at two versions: the update is fetched and
//! vetted beside the approved version, which keeps serving with its secret
//! while the tool diff is shown and the config file is left alone; the
//! approval moves the config to the new exact version, locks its digest and
//! catalog, holds nothing and removes the old version's folder.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::{Value, json};
use switchboard_e2e::{TestHub, eventually};

use super::registry::{
    MEMORY, MEMORY_NEW, MEMORY_OLD, MEMORY_PKG, cli, docs, fixture_docs, hub_cli,
};
use super::registry_install::{Installing, env_of_tree, lock, npm_integrity};

/// The memory server's document at `version`, with a secret it does not
/// need (so its vetting start can list it), written into `docs`.
fn memory_doc_with_secret(docs: &Path, version: &str) {
    let mut doc: Value = serde_json::from_slice(
        &std::fs::read(fixture_docs().join(format!("memory-{version}.json"))).unwrap(),
    )
    .unwrap();
    doc["packages"][0]["environmentVariables"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "MEMORY_TOKEN", "isRequired": true, "isSecret": true}));
    std::fs::write(docs.join(format!("memory-{version}.json")), doc.to_string()).unwrap();
}

#[tokio::test]
async fn outdated_and_update_vet_the_new_version_beside_the_old_one_and_show_the_tool_diff() {
    let docs = docs(&[]);
    memory_doc_with_secret(docs.path(), MEMORY_OLD);
    let set = Installing::start(docs, &[]).await;
    let (hub, packages) = (&set.hub, &set.packages);
    let (ok, _, err) = hub_cli(
        hub,
        packages.path(),
        &[
            "add",
            MEMORY,
            "--id",
            "memory",
            "--env",
            "MEMORY_TOKEN=tok-2718",
        ],
    )
    .await;
    assert!(ok, "{err}");
    hub.post("/api/v1/servers/memory/refresh").await;
    hub.wait_for("memory", "held", |s| !s.held_tools.is_empty())
        .await;
    let (ok, _, err) = hub_cli(hub, packages.path(), &["approve", "memory"]).await;
    assert!(ok, "{err}");
    let approved = eventually("approved", || async {
        let l = lock(hub)["servers"]["memory"].clone();
        l["approvedCatalog"].is_string().then_some(l)
    })
    .await;
    assert!(
        approved["approvedToolHashes"]["read_graph"].is_string(),
        "{approved}"
    );
    let (ok, out, _) = cli(
        &hub.config_path,
        &hub.state_dir,
        packages.path(),
        &["registry", "outdated"],
    )
    .await;
    assert!(ok && out.contains("up to date"), "{out}");

    // The approved version serves, with its secret.
    let client = hub.client().await;
    eventually("the old version served", || async {
        client
            .tool_names()
            .await
            .contains(&"memory__read_graph".to_string())
            .then_some(())
    })
    .await;
    client
        .call_text("memory__read_graph", json!({}))
        .await
        .unwrap();
    let old = hub
        .wait_for("memory", "running with its secret", |s| {
            s.pid.is_some() && s.sandbox.profile == "standard"
        })
        .await;
    let old_pid = old.pid.unwrap();
    assert!(env_of_tree(old_pid).contains("MEMORY_TOKEN=tok-2718"));

    // A new version is published.
    memory_doc_with_secret(set.docs.path(), MEMORY_NEW);
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
                "outdated": true, "vetting": false, "staged": null}])
    );
    let config_before = std::fs::read_to_string(&hub.config_path).unwrap();
    let (ok, text, err) = hub_cli(hub, packages.path(), &["update", "memory"]).await;
    assert!(ok, "{text}{err}");
    assert!(
        text.contains(&format!("'memory': {MEMORY_OLD} → {MEMORY_NEW}"))
            && text.contains("tools:")
            && text.contains(&format!(
                "{MEMORY_PKG}@{MEMORY_OLD} keeps running until you approve {MEMORY_PKG}@{MEMORY_NEW}"
            )),
        "{text}"
    );

    // Staged: fetched and vetted beside the old version, which still serves
    // with its env; the config file is untouched.
    assert_eq!(
        std::fs::read_to_string(&hub.config_path).unwrap(),
        config_before
    );
    let locked = lock(hub)["servers"]["memory"].clone();
    assert_eq!(locked["packageVersion"], MEMORY_OLD);
    assert_eq!(locked["approvedCatalog"], approved["approvedCatalog"]);
    let staged = locked["update"].clone();
    assert_eq!(staged["packageVersion"], MEMORY_NEW, "{locked}");
    assert_eq!(
        staged["integrity"],
        npm_integrity(&format!("{MEMORY_PKG}@{MEMORY_NEW}")).await
    );
    assert!(staged["catalog"].is_string(), "listed: {staged}");
    assert!(staged["tools"]["read_graph"].is_string(), "{staged}");
    let old_dir = packages.path().join("memory").join(MEMORY_OLD);
    let new_dir = packages.path().join("memory").join(MEMORY_NEW);
    assert!(old_dir.is_dir() && new_dir.is_dir());
    let serving = hub.server_snapshot("memory").await;
    assert_eq!(serving.sandbox.profile, "standard", "not vetted again");
    assert!(serving.held_tools.is_empty(), "{:?}", serving.held_tools);
    client
        .call_text("memory__read_graph", json!({}))
        .await
        .unwrap();
    let pid = hub.server_snapshot("memory").await.pid.unwrap();
    assert!(env_of_tree(pid).contains("MEMORY_TOKEN=tok-2718"));
    let (ok, out, err) = cli(
        &hub.config_path,
        &hub.state_dir,
        packages.path(),
        &["registry", "outdated", "--json"],
    )
    .await;
    assert!(ok, "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["staged"], MEMORY_NEW);

    // Approved: the config runs the new exact version, the lock has its
    // digest and catalog, nothing is held, the old folder is gone.
    let (ok, out, err) = hub_cli(hub, packages.path(), &["approve", "memory"]).await;
    assert!(
        ok && out.contains(&format!("memory: now runs {MEMORY_PKG}@{MEMORY_NEW}")),
        "{out}{err}"
    );
    let config: Value = serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["memory"],
        json!({"command": "npx", "args": ["-y", format!("{MEMORY_PKG}@{MEMORY_NEW}")],
               "env": {"MEMORY_TOKEN": {"keyring": "memory-MEMORY_TOKEN"}}})
    );
    let locked = lock(hub)["servers"]["memory"].clone();
    assert_eq!(locked["packageVersion"], MEMORY_NEW);
    assert_eq!(locked["integrity"], staged["integrity"]);
    assert_eq!(locked["approvedCatalog"], staged["catalog"]);
    assert_eq!(locked["approvedToolHashes"], staged["tools"]);
    assert_eq!(locked["update"], Value::Null);
    assert!(!old_dir.exists() && new_dir.is_dir());
    hub.post("/api/v1/servers/memory/refresh").await;
    let running = hub
        .wait_for("memory", "the new version running with its secret", |s| {
            s.pid.is_some_and(|p| p != pid) && s.sandbox.profile == "standard"
        })
        .await;
    assert!(running.held_tools.is_empty(), "{:?}", running.held_tools);
    assert!(env_of_tree(running.pid.unwrap()).contains("MEMORY_TOKEN=tok-2718"));
    client
        .call_text("memory__read_graph", json!({}))
        .await
        .unwrap();
}
