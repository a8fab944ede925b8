//! `switchboard update <id>`: moving a server added from the registry to
//! the registry's latest version without taking the running version away.
//!
//! A package server's update is *staged* ([`stage`]): the new version is
//! fetched and digest-checked into its own folder (`fetch::version_dir`)
//! like an install, and recorded in the lock entry's `update`; the config
//! entry and the rest of the lock entry are left as they are, so the
//! approved version keeps serving with its env and headers. The caller then
//! lists the candidate once in its vetting sandbox (`hub/staged.rs`) and
//! [`record_listing`] stores what it listed and gives the tool diff against
//! what was approved. [`apply`] (on `switchboard approve <id>`) rewrites
//! the config entry to the new exact version through the config editor
//! (keeping the person's formatting) and makes the candidate the locked,
//! approved version; [`cancel`] drops it. Staging again replaces an earlier
//! candidate.
//!
//! A remote has no package to vet beside the running one: its update
//! rewrites its URL in the config entry and locks it not yet approved, so
//! the hub vets it again (its secret headers withheld) as before.

use std::collections::BTreeMap;
use std::path::Path;

use super::RegistryClient;
use super::document::{self, PackageKind};
use super::fetch;
use super::install::{InstallError, Installed, resolve, write_config};
use super::lock::{LockEntry, Lockfile, StagedUpdate, ToolDiff};

/// Stages server `id`'s update to the registry's latest version (see the
/// module docs); a remote is updated in place instead. Returns what was
/// fetched, with the version it replaces.
pub async fn stage(
    client: &RegistryClient,
    http: &reqwest::Client,
    config_path: &Path,
    id: &str,
) -> Result<Installed, InstallError> {
    let lock = Lockfile::read(config_path)?;
    let locked = lock
        .servers
        .get(id)
        .cloned()
        .ok_or_else(|| InstallError::NotInstalled(id.to_string()))?;
    let latest = client.server(&locked.registry_name, None).await?.value;
    if latest.server.version == locked.version {
        return Err(InstallError::UpToDate {
            id: id.to_string(),
            version: locked.version,
        });
    }
    let bytes = crate::config::read_config_file(config_path)?.unwrap_or_default();
    let mut definition = crate::config::server_definition(&bytes, config_path, id)?;
    let plan = document::plan_install(&latest.server, id, &BTreeMap::new(), &BTreeMap::new())
        .or_else(|_| {
            // Required values are in the entry already: plan with placeholders.
            let (env, headers) = document::inputs(&latest.server);
            let fill = |inputs: Vec<document::Input>| {
                inputs
                    .into_iter()
                    .map(|i| (i.name, String::from("x")))
                    .collect::<BTreeMap<_, _>>()
            };
            document::plan_install(&latest.server, id, &fill(env), &fill(headers))
        })?;
    // The new command line, the person's env and headers as they were.
    let mut launch = serde_json::Map::new();
    for key in ["command", "args", "url"] {
        match plan.entry.get(key) {
            Some(value) => {
                definition[key] = value.clone();
                launch.insert(key.to_string(), value.clone());
            }
            None => {
                if let Some(object) = definition.as_object_mut() {
                    object.remove(key);
                }
            }
        }
    }
    crate::config::check_definition(id, &definition)?;
    let same_version = locked.package_version == plan.package_version;
    let remote = plan.kind == PackageKind::Remote || locked.kind == PackageKind::Remote;
    // The running version's folder is never emptied under it.
    let fresh = !same_version || remote;
    let mut installed = resolve(
        http,
        &latest,
        id,
        &plan,
        same_version.then_some(locked.integrity.clone()).flatten(),
        fresh,
    )
    .await?;
    installed.previous_tools = locked.approved_tools.clone();
    installed.previous_version = Some(locked.version.clone());
    let mut secrets = plan.secret_names.clone();
    secrets.extend(locked.secrets.iter().cloned());
    secrets.sort();
    secrets.dedup();
    if remote {
        Lockfile::update(config_path, |lock| {
            lock.servers.insert(
                id.to_string(),
                LockEntry {
                    registry_name: latest.server.name.clone(),
                    version: latest.server.version.clone(),
                    kind: plan.kind.clone(),
                    identifier: plan.identifier.clone(),
                    package_version: plan.package_version.clone(),
                    integrity: installed.integrity.clone(),
                    secrets,
                    approved_catalog: None,
                    approved_tools: locked.approved_tools.clone(),
                    // The new version is vetted afresh, its headers asked for again.
                    credentials_approved: false,
                    approved_tool_hashes: locked.approved_tool_hashes.clone(),
                    update: None,
                },
            );
        })?;
        let text = crate::config::put_server(Some(&bytes), config_path, id, &definition)?;
        write_config(config_path, &text)?;
        tracing::info!(server = %id, url = %installed.spec, "remote updated from the registry; vetting before use");
        return Ok(installed);
    }
    let staged = StagedUpdate {
        version: latest.server.version.clone(),
        kind: plan.kind.clone(),
        identifier: plan.identifier.clone(),
        package_version: plan.package_version.clone(),
        integrity: installed.integrity.clone(),
        secrets,
        launch,
        tools: BTreeMap::new(),
        catalog: None,
        definitions: Vec::new(),
    };
    let replaced = locked.update.clone();
    Lockfile::update(config_path, |lock| {
        if let Some(entry) = lock.servers.get_mut(id) {
            entry.update = Some(staged);
        }
    })?;
    if let Some(earlier) = replaced {
        drop_folder(id, &locked, &earlier, plan.package_version.as_deref());
    }
    tracing::info!(server = %id, package = %installed.spec, "update staged; the approved version keeps serving until it is approved");
    Ok(installed)
}

/// Stores what the staged update of server `id` listed in its vetting
/// start; returns its diff against the approved tools.
pub fn record_listing(
    config_path: &Path,
    id: &str,
    tools: &[rmcp::model::Tool],
) -> Result<ToolDiff, InstallError> {
    let mut diff = None;
    Lockfile::update(config_path, |lock| {
        if let Some(entry) = lock.servers.get_mut(id)
            && let Some(mut staged) = entry.update.take()
        {
            staged.listed(tools);
            diff = Some(entry.tool_diff(&staged));
            entry.update = Some(staged);
        }
    })?;
    diff.ok_or_else(|| InstallError::NotStaged(id.to_string()))
}

/// Applies the staged update of server `id` (see the module docs):
/// returns it, `None` when none is staged. Refused while it was not
/// listed (its vetting start failed): nothing is changed then.
pub fn apply(config_path: &Path, id: &str) -> Result<Option<StagedUpdate>, InstallError> {
    let lock = Lockfile::read(config_path)?;
    let Some(staged) = lock.servers.get(id).and_then(|e| e.update.clone()) else {
        return Ok(None);
    };
    if staged.catalog.is_none() {
        return Err(InstallError::NotListed(id.to_string()));
    }
    let bytes = crate::config::read_config_file(config_path)?.unwrap_or_default();
    let mut definition = crate::config::server_definition(&bytes, config_path, id)?;
    for key in ["command", "args", "url"] {
        match staged.launch.get(key) {
            Some(value) => definition[key] = value.clone(),
            None => {
                if let Some(object) = definition.as_object_mut() {
                    object.remove(key);
                }
            }
        }
    }
    crate::config::check_definition(id, &definition)?;
    let text = crate::config::put_server(Some(&bytes), config_path, id, &definition)?;
    // The lock first: a hub that sees the new entry finds it locked and approved.
    let mut applied = None;
    Lockfile::update(config_path, |lock| {
        if let Some(entry) = lock.servers.get_mut(id) {
            applied = entry.apply_update();
        }
    })?;
    write_config(config_path, &text)?;
    tracing::info!(server = %id, package = %staged.spec(), "staged update approved; the config runs it now");
    Ok(applied)
}

/// Drops the staged update of server `id` and its folder; returns it
/// (`None`: none was staged).
pub fn cancel(config_path: &Path, id: &str) -> Result<Option<StagedUpdate>, InstallError> {
    let lock = Lockfile::read(config_path)?;
    let locked = lock
        .servers
        .get(id)
        .cloned()
        .ok_or_else(|| InstallError::NotInstalled(id.to_string()))?;
    let Some(staged) = locked.update.clone() else {
        return Ok(None);
    };
    Lockfile::update(config_path, |lock| {
        if let Some(entry) = lock.servers.get_mut(id) {
            entry.update = None;
        }
    })?;
    drop_folder(id, &locked, &staged, None);
    Ok(Some(staged))
}

/// Removes the folder of the `earlier` staged update of `id`, unless the
/// locked version or the version `keep` runs from it.
fn drop_folder(id: &str, locked: &LockEntry, earlier: &StagedUpdate, keep: Option<&str>) {
    if let Some(version) = earlier.package_version.as_deref()
        && locked.package_version.as_deref() != Some(version)
        && keep != Some(version)
    {
        fetch::remove_version(id, version);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> rmcp::model::Tool {
        serde_json::from_value(serde_json::json!({
            "name": name, "description": description,
            "inputSchema": {"type": "object"}
        }))
        .unwrap()
    }

    /// A config with one locked, approved server and an update staged for it.
    fn staged_config(dir: &Path) -> std::path::PathBuf {
        let config = dir.join("config.json");
        std::fs::write(
            &config,
            "{\n  \"mcpServers\": {\n    \"other\":   { \"command\" : \"x\" },\n    \"mem\": {\"command\": \"npx\", \"args\": [\"-y\", \"@x/mem@1.0.0\"],\n             \"env\": {\"MEM_TOKEN\": {\"keyring\": \"mem-MEM_TOKEN\"}}}\n  }\n}\n",
        )
        .unwrap();
        let old = [tool("read", "Reads.")];
        let entry = LockEntry {
            registry_name: "io.github.x/mem".into(),
            version: "1.0.0".into(),
            kind: PackageKind::Npm,
            identifier: "@x/mem".into(),
            package_version: Some("1.0.0".into()),
            integrity: Some("sha512-old".into()),
            secrets: vec!["MEM_TOKEN".into()],
            approved_catalog: Some(super::super::lock::catalog_hash(&old)),
            approved_tools: vec!["read".into()],
            credentials_approved: false,
            approved_tool_hashes: super::super::lock::tool_hashes(&old),
            update: Some(StagedUpdate {
                version: "2.0.0".into(),
                kind: PackageKind::Npm,
                identifier: "@x/mem".into(),
                package_version: Some("2.0.0".into()),
                integrity: Some("sha512-new".into()),
                secrets: vec!["MEM_TOKEN".into()],
                launch: serde_json::json!({"command": "npx", "args": ["-y", "@x/mem@2.0.0"]})
                    .as_object()
                    .cloned()
                    .unwrap(),
                tools: BTreeMap::new(),
                catalog: None,
                definitions: Vec::new(),
            }),
        };
        Lockfile::update(&config, |lock| {
            lock.servers.insert("mem".into(), entry);
        })
        .unwrap();
        config
    }

    #[test]
    fn a_staged_update_is_applied_only_once_listed_keeping_the_persons_entry() {
        let dir = tempfile::tempdir().unwrap();
        let config = staged_config(dir.path());
        let before = std::fs::read_to_string(&config).unwrap();
        assert!(matches!(
            apply(&config, "mem"),
            Err(InstallError::NotListed(_))
        ));
        assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

        let diff = record_listing(
            &config,
            "mem",
            &[tool("read", "Reads."), tool("write", "Writes.")],
        )
        .unwrap();
        assert_eq!(diff.added, vec!["write".to_string()]);
        assert!(diff.changed.is_empty());
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            before,
            "listing changes no config"
        );

        let applied = apply(&config, "mem").unwrap().unwrap();
        assert_eq!(applied.tool_definitions().len(), 2);
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(
            text.contains("\"other\":   { \"command\" : \"x\" },") && text.contains("@x/mem@2.0.0"),
            "{text}"
        );
        assert!(text.contains("mem-MEM_TOKEN"), "{text}");
        let entry = Lockfile::read(&config).unwrap().servers["mem"].clone();
        assert_eq!(entry.spec(), "@x/mem@2.0.0");
        assert_eq!(entry.update, None);
        assert_eq!(entry.approved_tools, vec!["read", "write"]);
        assert_eq!(
            apply(&config, "mem").unwrap(),
            None,
            "nothing staged any more"
        );
    }

    #[test]
    fn a_cancelled_update_leaves_the_locked_version_alone() {
        let dir = tempfile::tempdir().unwrap();
        let config = staged_config(dir.path());
        let before = std::fs::read_to_string(&config).unwrap();
        let locked = Lockfile::read(&config).unwrap().servers["mem"].clone();
        let dropped = cancel(&config, "mem").unwrap().unwrap();
        assert_eq!(dropped.version, "2.0.0");
        let after = Lockfile::read(&config).unwrap().servers["mem"].clone();
        assert_eq!(
            after,
            LockEntry {
                update: None,
                ..locked
            }
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
        assert_eq!(cancel(&config, "mem").unwrap(), None);
        assert!(matches!(
            record_listing(&config, "mem", &[]),
            Err(InstallError::NotStaged(_))
        ));
    }
}
