//! `servers.lock.json`, beside the config file: per server installed from
//! the registry, what was resolved at install (registry name and version,
//! package identifier and exact version, the package's integrity digest)
//! and the hash of the tool catalog a person approved (`None` while the
//! server is being vetted).
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
}

impl LockEntry {
    /// Whether the server is still being vetted (its tools not approved).
    pub fn vetting(&self) -> bool {
        self.approved_catalog.is_none()
    }

    /// The package spec its config entry must run (`@x/y@1.2.3`,
    /// `name==1.2.3`), or the URL of a remote.
    pub fn spec(&self) -> String {
        match (&self.kind, &self.package_version) {
            (PackageKind::Npm, Some(v)) => format!("{}@{v}", self.identifier),
            (PackageKind::Pypi, Some(v)) => format!("{}=={v}", self.identifier),
            _ => self.identifier.clone(),
        }
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
}
