//! `servers.lock.json`, beside the config file: per server installed from
//! the registry, what was resolved at install (registry name and version,
//! package identifier and exact version, the package's integrity digest)
//! and the hash of the tool catalog a person approved (`None` while the
//! server is being vetted), with each approved tool's definition hash.
//!
//! An update (`switchboard update <id>`) is staged in the entry
//! ([`LockEntry::update`], a [`StagedUpdate`]) and leaves the rest of it,
//! and the config entry, as they are: the approved version keeps running
//! while the candidate is fetched, vetted and its tool diff shown. Approving
//! it ([`LockEntry::apply_update`]) moves the candidate's fields into the
//! entry, its listed catalog as the approved one.
//!
//! Written by the install and update flow and by the hub when a vetted
//! server's tools are approved; read by the hub at every config apply
//! ([`Lockfile::check`]: a config entry whose package differs from its lock
//! is refused). Written atomically; a missing file is an empty lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::document::PackageKind;

/// The lockfile's name, beside the config file.
pub const LOCK_FILE: &str = "servers.lock.json";

/// Why the lockfile could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read {}: {message}", .path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot write {}: {message}", .path.display())]
    Write { path: PathBuf, message: String },
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lockfile {
    #[serde(default)]
    pub servers: BTreeMap<String, LockEntry>,
}

/// One installed server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockEntry {
    /// The registry name (`io.github.owner/server`).
    pub registry_name: String,
    /// The registry's version of the document installed.
    pub version: String,
    pub kind: PackageKind,
    /// The npm/PyPI package, or the remote URL.
    pub identifier: String,
    /// The exact package version (none for a remote).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_version: Option<String>,
    /// npm's `dist.integrity` or PyPI's `sha256:<hex>` of the fetched file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    /// The env variables / headers held as secrets (names only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// The SHA-256 of the approved tool catalog; `None` until approved.
    #[serde(default)]
    pub approved_catalog: Option<String>,
    /// The approved tools' names (for the diff an update shows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approved_tools: Vec<String>,
    /// A person allowed the vetting connection of this remote to carry its
    /// secret headers (`switchboard approve <id>` when it could not be
    /// listed without them); until then it connects without them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub credentials_approved: bool,
    /// The approved tools' definition hashes by name (`crate::pins`'s
    /// hash): what an update's diff compares with. Empty in a lock written
    /// before they were recorded (the diff then compares names only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub approved_tool_hashes: BTreeMap<String, String>,
    /// A newer version fetched and vetted beside this one, waiting for a
    /// person's approval (`switchboard update <id>`); `None` when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<StagedUpdate>,
}

/// An update waiting for approval: what it resolved and fetched, and what
/// its vetting start listed. The config entry still runs the locked
/// version; [`LockEntry::apply_update`] makes this the locked one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StagedUpdate {
    /// The registry's version of the document.
    pub version: String,
    pub kind: PackageKind,
    pub identifier: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    /// The env variables held as secrets by the new version and the old.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// What the config entry's `command`, `args` and `url` become (the
    /// person's env and headers are kept as they are).
    pub launch: serde_json::Map<String, serde_json::Value>,
    /// The tools its vetting start listed: name → definition hash.
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    /// The hash of that catalog ([`catalog_hash`]); `None` until listed.
    #[serde(default)]
    pub catalog: Option<String>,
    /// The listed definitions, pinned when the update is approved (so the
    /// tools a person saw are not held again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<serde_json::Value>,
}

impl StagedUpdate {
    /// Records what the candidate's vetting start listed.
    pub fn listed(&mut self, tools: &[rmcp::model::Tool]) {
        self.tools = tool_hashes(tools);
        self.catalog = Some(catalog_hash(tools));
        self.definitions = tools
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect();
    }

    /// The listed definitions (those that still parse).
    pub fn tool_definitions(&self) -> Vec<rmcp::model::Tool> {
        self.definitions
            .iter()
            .filter_map(|d| serde_json::from_value(d.clone()).ok())
            .collect()
    }

    /// The package spec it runs (`@x/y@1.2.3`, `name==1.2.3`).
    pub fn spec(&self) -> String {
        spec(
            &self.kind,
            &self.identifier,
            self.package_version.as_deref(),
        )
    }
}

/// What an update changes in the approved tool catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolDiff {
    /// Listed by the candidate, not approved before.
    pub added: Vec<String>,
    /// Approved before, not listed by the candidate.
    pub removed: Vec<String>,
    /// In both, with another definition.
    pub changed: Vec<String>,
    /// The lock has the approved tools' names only (written before their
    /// hashes were recorded): a changed definition cannot be told.
    pub names_only: bool,
}

fn spec(kind: &PackageKind, identifier: &str, version: Option<&str>) -> String {
    match (kind, version) {
        (PackageKind::Npm, Some(v)) => format!("{identifier}@{v}"),
        (PackageKind::Pypi, Some(v)) => format!("{identifier}=={v}"),
        _ => identifier.to_string(),
    }
}

impl LockEntry {
    /// Whether the server is still being vetted (its tools not approved).
    pub fn vetting(&self) -> bool {
        self.approved_catalog.is_none()
    }

    /// The package spec its config entry must run (`@x/y@1.2.3`,
    /// `name==1.2.3`), or the URL of a remote.
    pub fn spec(&self) -> String {
        spec(
            &self.kind,
            &self.identifier,
            self.package_version.as_deref(),
        )
    }

    /// The staged update as an entry of its own, being vetted: what its
    /// vetting start is built from (its package, its secrets withheld).
    pub fn staged_entry(&self) -> Option<LockEntry> {
        let staged = self.update.as_ref()?;
        Some(LockEntry {
            registry_name: self.registry_name.clone(),
            version: staged.version.clone(),
            kind: staged.kind.clone(),
            identifier: staged.identifier.clone(),
            package_version: staged.package_version.clone(),
            integrity: staged.integrity.clone(),
            secrets: staged.secrets.clone(),
            approved_catalog: None,
            approved_tools: Vec::new(),
            credentials_approved: false,
            approved_tool_hashes: BTreeMap::new(),
            update: None,
        })
    }

    /// Makes the staged update, once listed, the locked and approved
    /// version (its listed catalog the approved one); returns it. `None`
    /// (and nothing changed) without a listed staged update.
    pub fn apply_update(&mut self) -> Option<StagedUpdate> {
        let catalog = self.update.as_ref()?.catalog.clone()?;
        let staged = self.update.take()?;
        self.version = staged.version.clone();
        self.kind = staged.kind.clone();
        self.identifier = staged.identifier.clone();
        self.package_version = staged.package_version.clone();
        self.integrity = staged.integrity.clone();
        self.secrets = staged.secrets.clone();
        self.approved_catalog = Some(catalog);
        self.approved_tools = staged.tools.keys().cloned().collect();
        self.approved_tool_hashes = staged.tools.clone();
        Some(staged)
    }

    /// The staged update's tools against the approved ones.
    pub fn tool_diff(&self, staged: &StagedUpdate) -> ToolDiff {
        let names_only = self.approved_tool_hashes.is_empty() && !self.approved_tools.is_empty();
        let approved: BTreeMap<&str, Option<&str>> = if names_only {
            self.approved_tools
                .iter()
                .map(|n| (n.as_str(), None))
                .collect()
        } else {
            self.approved_tool_hashes
                .iter()
                .map(|(n, h)| (n.as_str(), Some(h.as_str())))
                .collect()
        };
        let mut diff = ToolDiff {
            names_only,
            ..ToolDiff::default()
        };
        for (name, hash) in &staged.tools {
            match approved.get(name.as_str()) {
                None => diff.added.push(name.clone()),
                Some(Some(old)) if old != hash => diff.changed.push(name.clone()),
                Some(_) => {}
            }
        }
        diff.removed = approved
            .keys()
            .filter(|n| !staged.tools.contains_key(**n))
            .map(|n| n.to_string())
            .collect();
        diff
    }

    /// Why a server configured with `transport` does not run what was
    /// locked; `None` when it does.
    pub fn mismatch(&self, transport: &crate::config::TransportConfig) -> Option<String> {
        use crate::config::TransportConfig;
        let spec = self.spec();
        let found = match (transport, &self.kind) {
            (TransportConfig::Http { url, .. }, PackageKind::Remote) => url.clone(),
            (TransportConfig::Stdio { args, .. }, PackageKind::Npm | PackageKind::Pypi) => args
                .iter()
                .find(|a| **a == spec)
                .or_else(|| args.iter().find(|a| a.starts_with(&self.identifier)))
                .cloned()
                .unwrap_or_else(|| "another package".into()),
            _ => "another transport".into(),
        };
        (found != spec).then(|| {
            format!(
                "{LOCK_FILE} locks {spec} ({} {}) but the config runs {found}; \
                 run `switchboard update <id>` to vet and lock another version, \
                 or remove the server's lock entry",
                self.registry_name, self.version
            )
        })
    }
}

/// The lockfile beside `config`.
pub fn lock_path(config: &Path) -> PathBuf {
    config.with_file_name(LOCK_FILE)
}

impl Lockfile {
    /// Reads the lockfile beside `config`; missing is empty.
    pub fn read(config: &Path) -> Result<Self, LockError> {
        let path = lock_path(config);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| LockError::Read {
                path,
                message: err.to_string(),
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(err) => Err(LockError::Read {
                path,
                message: err.to_string(),
            }),
        }
    }

    /// Writes the lockfile beside `config` (atomically).
    pub fn write(&self, config: &Path) -> Result<(), LockError> {
        let path = lock_path(config);
        let mut text = serde_json::to_string_pretty(self).map_err(|err| LockError::Write {
            path: path.clone(),
            message: err.to_string(),
        })?;
        text.push('\n');
        crate::util::files::write_atomic(&path, text.as_bytes(), crate::util::files::FileMode::Keep)
            .map(|_| ())
            .map_err(|err| LockError::Write {
                path,
                message: err.to_string(),
            })
    }

    /// Reads, changes with `edit` and writes the lockfile beside `config`.
    pub fn update(config: &Path, edit: impl FnOnce(&mut Self)) -> Result<Self, LockError> {
        let mut lock = Self::read(config)?;
        edit(&mut lock);
        lock.write(config)?;
        Ok(lock)
    }
}

/// Each tool's definition hash (`crate::pins`'s), by name.
pub fn tool_hashes(tools: &[rmcp::model::Tool]) -> BTreeMap<String, String> {
    tools
        .iter()
        .map(|t| (t.name.to_string(), crate::pins::tool_hash(t)))
        .collect()
}

/// The hash of a tool catalog: SHA-256 over the tools' names and
/// definition hashes, sorted by name.
pub fn catalog_hash(tools: &[rmcp::model::Tool]) -> String {
    use sha2::{Digest, Sha256};
    let mut parts: Vec<(String, String)> = tools
        .iter()
        .map(|t| (t.name.to_string(), crate::pins::tool_hash(t)))
        .collect();
    parts.sort();
    let mut hasher = Sha256::new();
    for (name, hash) in parts {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(hash.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_that_runs_another_version_is_refused_with_how_to_update() {
        let entry = LockEntry {
            registry_name: "io.github.x/mem".into(),
            version: "1.0.0".into(),
            kind: PackageKind::Npm,
            identifier: "@x/mem".into(),
            package_version: Some("1.0.0".into()),
            integrity: Some("sha512-abc".into()),
            secrets: vec![],
            approved_catalog: None,
            approved_tools: vec![],
            credentials_approved: false,
            approved_tool_hashes: BTreeMap::new(),
            update: None,
        };
        let stdio = |spec: &str| crate::config::TransportConfig::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), spec.into()],
            env: Default::default(),
            cwd: None,
        };
        assert_eq!(entry.mismatch(&stdio("@x/mem@1.0.0")), None);
        let why = entry.mismatch(&stdio("@x/mem@2.0.0")).unwrap();
        assert!(
            why.contains("locks @x/mem@1.0.0") && why.contains("runs @x/mem@2.0.0"),
            "{why}"
        );
        assert!(why.contains("switchboard update"), "{why}");
    }

    fn tool(name: &str, description: &str) -> rmcp::model::Tool {
        serde_json::from_value(serde_json::json!({
            "name": name, "description": description,
            "inputSchema": {"type": "object"}
        }))
        .unwrap()
    }

    fn approved(tools: &[rmcp::model::Tool]) -> LockEntry {
        LockEntry {
            registry_name: "io.github.x/mem".into(),
            version: "1.0.0".into(),
            kind: PackageKind::Npm,
            identifier: "@x/mem".into(),
            package_version: Some("1.0.0".into()),
            integrity: Some("sha512-old".into()),
            secrets: vec!["MEM_TOKEN".into()],
            approved_catalog: Some(catalog_hash(tools)),
            approved_tools: tools.iter().map(|t| t.name.to_string()).collect(),
            credentials_approved: false,
            approved_tool_hashes: tool_hashes(tools),
            update: None,
        }
    }

    fn staged() -> StagedUpdate {
        StagedUpdate {
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
        }
    }

    #[test]
    fn a_staged_update_is_vetted_as_an_entry_of_its_own_and_leaves_the_locked_one() {
        let mut entry = approved(&[tool("read", "Reads.")]);
        assert_eq!(entry.staged_entry(), None);
        entry.update = Some(staged());
        let candidate = entry.staged_entry().unwrap();
        assert!(candidate.vetting());
        assert_eq!(candidate.spec(), "@x/mem@2.0.0");
        assert_eq!(candidate.integrity.as_deref(), Some("sha512-new"));
        assert_eq!(candidate.update, None);
        // The locked version is what the config must still run.
        assert_eq!(entry.spec(), "@x/mem@1.0.0");
        assert!(!entry.vetting());
        // The lockfile keeps both, and reads back the same.
        let text = serde_json::to_string(&entry).unwrap();
        assert_eq!(serde_json::from_str::<LockEntry>(&text).unwrap(), entry);
    }

    #[test]
    fn applying_a_listed_update_locks_its_version_and_approves_its_catalog() {
        let mut entry = approved(&[tool("read", "Reads.")]);
        entry.update = Some(staged());
        let before = entry.clone();
        assert_eq!(entry.apply_update(), None, "not listed yet");
        assert_eq!(entry, before);

        let listed = [tool("read", "Reads."), tool("write", "Writes.")];
        entry.update.as_mut().unwrap().listed(&listed);
        let applied = entry.apply_update().unwrap();
        assert_eq!(applied.tool_definitions(), listed.to_vec());
        assert_eq!(entry.update, None);
        assert_eq!(entry.spec(), "@x/mem@2.0.0");
        assert_eq!(entry.integrity.as_deref(), Some("sha512-new"));
        assert_eq!(entry.approved_catalog, Some(catalog_hash(&listed)));
        assert_eq!(entry.approved_tools, vec!["read", "write"]);
        assert_eq!(entry.approved_tool_hashes, tool_hashes(&listed));
    }

    #[test]
    fn the_tool_diff_names_added_removed_and_changed_definitions() {
        let entry = approved(&[
            tool("read", "Reads."),
            tool("write", "Writes."),
            tool("gone", "Old."),
        ]);
        let mut candidate = staged();
        candidate.listed(&[
            tool("read", "Reads."),
            tool("write", "Writes, and mails the notes to someone."),
            tool("search", "Searches."),
        ]);
        assert_eq!(
            entry.tool_diff(&candidate),
            ToolDiff {
                added: vec!["search".into()],
                removed: vec!["gone".into()],
                changed: vec!["write".into()],
                names_only: false,
            }
        );
        // A lock with names only: no change can be told apart.
        let mut old = entry.clone();
        old.approved_tool_hashes.clear();
        let diff = old.tool_diff(&candidate);
        assert!(diff.names_only && diff.changed.is_empty());
        assert_eq!(diff.added, vec!["search".to_string()]);
        assert_eq!(diff.removed, vec!["gone".to_string()]);
    }
}
