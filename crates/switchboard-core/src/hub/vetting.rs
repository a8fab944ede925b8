//! Vetting servers added from the MCP Registry before they get anything, and
//! enforcing `servers.lock.json` (see `crate::mcp_registry::lock`).
//!
//! Every config the hub applies (at start and at each reload) first passes
//! through [`HubHandle::vet`], which reads the lockfile beside the config:
//! - a server whose config entry runs another package or version than its
//!   lock entry, or whose package fetched at install is gone or no longer
//!   has the locked digest, is not started (kept disabled) and the reload
//!   reports why and how to update;
//! - every locked npm or PyPI server runs offline from the package checked
//!   at install (its own folder's npm or uv cache), never re-resolved;
//! - a server whose lock entry has no approved catalog yet is being vetted:
//!   its stdio start gets none of its secrets (the env values the lock names
//!   and every keyring value are replaced by [`VETTING_PLACEHOLDER`], so a
//!   server that only checks that its key is set still starts), runs offline from its own folder
//!   (the npm or uv cache the install filled) under a strict sandbox (no
//!   network; its own folder only, plus what the runtime needs; refused if
//!   the sandbox cannot be enforced), and the pins hold each of its tools
//!   with change `new server` until a person approves them.
//!
//! When the last held tool of a vetted server is approved
//! ([`HubHandle::finish_vetting`]), the catalog's hash goes into the lock and
//! the config is applied again: the server's fingerprint changed, so it
//! restarts with its env and headers. Remote servers run no local code: they
//! are held the same way but connect with their headers (documented in
//! docs/registry.md).

use std::collections::BTreeSet;

use super::HubHandle;
use crate::config::{
    Config, ConfigValue, FilesystemPolicy, NetworkPolicy, SandboxPolicy, ServerSandbox,
    TransportConfig,
};
use crate::mcp_registry::fetch;
use crate::mcp_registry::lock::{LockEntry, Lockfile, catalog_hash};

/// The value each secret env variable of a stdio server has during its
/// vetting start, instead of the secret: many servers only check that
/// their key is set before they start, and one that exits without it could
/// not be listed. It is not the secret, so nothing of it leaves.
pub const VETTING_PLACEHOLDER: &str = "switchboard-vetting-placeholder";

/// Takes the secrets out of a vetting start's `transport`: each env
/// variable the lock names as a secret, and each `{"keyring"}` value, gets
/// [`VETTING_PLACEHOLDER`] instead of its value.
fn withhold_secrets(entry: &LockEntry, transport: &mut TransportConfig) {
    if let TransportConfig::Stdio { env, .. } = transport {
        for (name, value) in env.iter_mut() {
            if entry.secrets.contains(name) || matches!(value, ConfigValue::Keyring(_)) {
                *value = ConfigValue::Literal(VETTING_PLACEHOLDER.to_string());
            }
        }
    }
}

impl HubHandle {
    /// Applies the lockfile to `config` (see the module docs); returns the
    /// refusals to report.
    pub(super) fn vet(&self, config: &mut Config) -> Vec<String> {
        let Some(path) = self.config_path() else {
            return Vec::new();
        };
        let lock = match Lockfile::read(&path) {
            Ok(lock) => lock,
            Err(err) => {
                tracing::warn!(error = %err, "the lockfile cannot be read; servers added from the registry are not started");
                let message = err.to_string();
                let mut refused = Vec::new();
                for server in &mut config.servers {
                    server.enabled = false;
                    refused.push(format!("server '{}': {message}", server.id));
                }
                return refused;
            }
        };
        let mut refused = Vec::new();
        let mut vetting = BTreeSet::new();
        for server in &mut config.servers {
            let Some(entry) = lock.servers.get(server.id.as_str()) else {
                continue;
            };
            if let Some(why) = entry.mismatch(&server.transport) {
                tracing::warn!(server = %server.id, "{why}");
                refused.push(format!("server '{}': {why}", server.id));
                server.enabled = false;
                continue;
            }
            let dir = fetch::server_dir(server.id.as_str());
            if let Some(why) = fetch::verify_fetched(&entry.kind, &dir, entry.integrity.as_deref())
            {
                let why = format!(
                    "{why}; run `switchboard update {}` or add it again",
                    server.id
                );
                tracing::warn!(server = %server.id, "{why}");
                refused.push(format!("server '{}': {why}", server.id));
                server.enabled = false;
                continue;
            }
            if let TransportConfig::Stdio { env, .. } = &mut server.transport {
                // Always from the package checked at install, never re-resolved.
                for (name, value) in fetch::offline_env(&entry.kind, &dir) {
                    env.entry(name).or_insert(ConfigValue::Literal(value));
                }
            }
            if !entry.vetting() {
                continue;
            }
            vetting.insert(server.id.to_string());
            withhold_secrets(entry, &mut server.transport);
            if let TransportConfig::Stdio { .. } = &server.transport {
                let own = dir.to_string_lossy().into_owned();
                let mut read = vec![own.clone()];
                read.extend(fetch::interpreters(&entry.kind, &dir));
                server.sandbox = ServerSandbox::On(SandboxPolicy {
                    expose: Vec::new(),
                    filesystem: Some(FilesystemPolicy {
                        read,
                        write: vec![own],
                    }),
                    network: NetworkPolicy::None,
                    required: true,
                });
            }
        }
        self.inner.pins.set_vetting(vetting);
        refused
    }

    /// After an approval: when server `id` is being vetted and none of its
    /// tools is held any more, locks its approved catalog and applies the
    /// config again so that it restarts with its secrets.
    pub(super) async fn finish_vetting(&self, id: &str) {
        let Some(path) = self.config_path() else {
            return;
        };
        let Ok(lock) = Lockfile::read(&path) else {
            return;
        };
        if !lock.servers.get(id).is_some_and(|e| e.vetting()) {
            return;
        }
        if !self.inner.pins.held_names(id).is_empty() {
            return;
        }
        let Some(caps) = self.upstream(id).and_then(|u| u.raw_capabilities()) else {
            return;
        };
        let hash = catalog_hash(&caps.tools);
        let mut tools: Vec<String> = caps.tools.iter().map(|t| t.name.to_string()).collect();
        tools.sort();
        let written = Lockfile::update(&path, |lock| {
            if let Some(entry) = lock.servers.get_mut(id) {
                entry.approved_catalog = Some(hash);
                entry.approved_tools = tools;
            }
        });
        match written {
            Ok(_) => {
                tracing::info!(server = %id, "vetted tools approved; restarting with its env and headers");
                if let Err(err) = self.reload_from_file().await {
                    tracing::warn!(server = %id, error = %err, "applying the config after vetting failed");
                }
            }
            Err(err) => {
                tracing::warn!(server = %id, error = %err, "cannot lock the approved tools")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp_registry::document::PackageKind;

    fn entry(secrets: &[&str]) -> LockEntry {
        LockEntry {
            registry_name: "io.github.x/mem".into(),
            version: "1.0.0".into(),
            kind: PackageKind::Npm,
            identifier: "@x/mem".into(),
            package_version: Some("1.0.0".into()),
            integrity: Some("sha512-abc".into()),
            secrets: secrets.iter().map(|s| s.to_string()).collect(),
            approved_catalog: None,
            approved_tools: vec![],
        }
    }

    #[test]
    fn a_vetting_start_gets_a_placeholder_for_each_secret_and_keeps_the_rest() {
        let mut transport = TransportConfig::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@x/mem@1.0.0".into()],
            env: [
                ("MEM_TOKEN", ConfigValue::Literal("tok-real".into())),
                ("MEM_KEY", ConfigValue::Keyring("mem-MEM_KEY".into())),
                ("MEM_REGION", ConfigValue::Literal("eu".into())),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            cwd: None,
        };
        withhold_secrets(&entry(&["MEM_TOKEN"]), &mut transport);
        let TransportConfig::Stdio { env, .. } = transport else {
            panic!("stdio");
        };
        let placeholder = ConfigValue::Literal(VETTING_PLACEHOLDER.into());
        assert_eq!(
            env.into_iter().collect::<Vec<_>>(),
            vec![
                ("MEM_KEY".to_string(), placeholder.clone()),
                ("MEM_REGION".to_string(), ConfigValue::Literal("eu".into())),
                ("MEM_TOKEN".to_string(), placeholder),
            ]
        );
    }
}
