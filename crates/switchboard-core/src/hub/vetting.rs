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
//! are held the same way, and connect without their secret headers (those
//! the lock names, every keyring value) until a person allows them
//! ([`HubHandle::approve_credentials`], when it could not be listed without
//! them): no credential goes out before a person said yes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

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
/// [`VETTING_PLACEHOLDER`] instead of its value; a remote's secret headers
/// (named in the lock, or kept in the keyring) are left out until a person
/// allowed them (`credentialsApproved`). Returns the headers left out.
fn withhold_secrets(entry: &LockEntry, transport: &mut TransportConfig) -> Vec<String> {
    let secret = |name: &str, value: &ConfigValue| {
        entry.secrets.iter().any(|s| s.eq_ignore_ascii_case(name))
            || matches!(value, ConfigValue::Keyring(_))
    };
    match transport {
        TransportConfig::Stdio { env, .. } => {
            for (name, value) in env.iter_mut() {
                if secret(name, value) {
                    *value = ConfigValue::Literal(VETTING_PLACEHOLDER.to_string());
                }
            }
            Vec::new()
        }
        TransportConfig::Http { headers, .. } if !entry.credentials_approved => {
            let withheld: Vec<String> = headers
                .iter()
                .filter(|(name, value)| secret(name, value))
                .map(|(name, _)| name.clone())
                .collect();
            headers.retain(|name, _| !withheld.contains(name));
            withheld
        }
        TransportConfig::Http { .. } => Vec::new(),
    }
}

/// Makes `server` a vetting start of the package locked by `entry`, fetched
/// into `dir`: its secrets withheld ([`withhold_secrets`]) and, for a stdio
/// server, the strict sandbox (no network, its own folder only, plus the
/// interpreters its environments link to; refused where it cannot be
/// enforced). Used by [`HubHandle::vet`] and for a staged update's
/// candidate (`staged.rs`). Returns the headers left out.
pub(super) fn vetting_start(
    entry: &LockEntry,
    dir: &std::path::Path,
    server: &mut crate::config::ServerConfig,
) -> Vec<String> {
    let headers = withhold_secrets(entry, &mut server.transport);
    if let TransportConfig::Stdio { .. } = &server.transport {
        let own = dir.to_string_lossy().into_owned();
        let mut read = vec![own.clone()];
        read.extend(fetch::interpreters(&entry.kind, dir));
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
    headers
}

/// The remotes being vetted without their secret headers (server id →
/// header names), as [`HubHandle::vet`] last left them: read by the status
/// and by an approval.
#[derive(Debug, Default)]
pub(super) struct WithheldHeaders(Mutex<BTreeMap<String, Vec<String>>>);

impl WithheldHeaders {
    fn set(&self, withheld: BTreeMap<String, Vec<String>>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = withheld;
    }

    /// The headers server `id` connects without (empty: none withheld).
    pub(super) fn of(&self, id: &str) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .unwrap_or_default()
    }
}

/// What the status of remote `id`, vetted without its secret `headers`,
/// says: appended to its error when it could not be listed, as a note
/// while it is being vetted.
pub(super) fn credentials_hint(id: &str, headers: &[String], failed: bool) -> String {
    let headers = headers.join(", ");
    if failed {
        format!(
            "server '{id}' needs its credentials to be listed: while it is vetted it connects \
             without its secret headers ({headers}), so none went out; `switchboard approve {id}` \
             lets it connect with them, then its tools are held for review"
        )
    } else {
        format!(
            "server '{id}' is being vetted without its secret headers ({headers}); if it cannot \
             be listed without them, `switchboard approve {id}` lets it connect with them"
        )
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
        let mut withheld = BTreeMap::new();
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
            let dir = fetch::package_dir(server.id.as_str(), entry.package_version.as_deref());
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
            let headers = vetting_start(entry, &dir, server);
            if !headers.is_empty() {
                withheld.insert(server.id.to_string(), headers);
            }
        }
        self.inner.pins.set_vetting(vetting);
        self.inner.withheld_headers.set(withheld);
        refused
    }

    /// For `switchboard approve <id>` of a remote vetted without its secret
    /// headers while none of its tools is held (it could not be listed
    /// without them): records in the lock that a person allowed them and
    /// applies the config, so it connects with them and its listed tools
    /// are held for review. Returns the headers allowed (empty: nothing
    /// of this applied).
    pub(super) async fn approve_credentials(&self, id: &str) -> Vec<String> {
        let headers = self.inner.withheld_headers.of(id);
        if headers.is_empty() || !self.inner.pins.held_names(id).is_empty() {
            return Vec::new();
        }
        let Some(path) = self.config_path() else {
            return Vec::new();
        };
        let written = Lockfile::update(&path, |lock| {
            if let Some(entry) = lock.servers.get_mut(id) {
                entry.credentials_approved = true;
            }
        });
        if let Err(err) = written {
            tracing::warn!(server = %id, error = %err, "cannot record that its headers are allowed");
            return Vec::new();
        }
        tracing::info!(server = %id, ?headers, "a person allowed the vetting connection its headers");
        if let Err(err) = self.reload_from_file().await {
            tracing::warn!(server = %id, error = %err, "applying the config after allowing its headers failed");
        }
        headers
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
        let hashes = crate::mcp_registry::lock::tool_hashes(&caps.tools);
        let written = Lockfile::update(&path, |lock| {
            if let Some(entry) = lock.servers.get_mut(id) {
                entry.approved_catalog = Some(hash);
                entry.approved_tools = tools;
                entry.approved_tool_hashes = hashes;
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
            credentials_approved: false,
            approved_tool_hashes: Default::default(),
            update: None,
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
        assert!(withhold_secrets(&entry(&["MEM_TOKEN"]), &mut transport).is_empty());
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

    #[test]
    fn a_vetting_remote_connects_without_its_secret_headers_until_they_are_allowed() {
        let remote = || TransportConfig::Http {
            url: "https://notes.example/mcp".into(),
            headers: [
                ("X-Notes-Key", ConfigValue::Literal("key-2718".into())),
                ("Authorization", ConfigValue::Keyring("notes-auth".into())),
                ("X-Region", ConfigValue::Literal("eu".into())),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            sse: false,
        };
        let mut entry = entry(&["x-notes-key"]);
        entry.kind = PackageKind::Remote;
        let mut vetted = remote();
        assert_eq!(
            withhold_secrets(&entry, &mut vetted),
            vec!["Authorization".to_string(), "X-Notes-Key".to_string()]
        );
        let TransportConfig::Http { headers, .. } = vetted else {
            panic!("http");
        };
        assert_eq!(headers.keys().collect::<Vec<_>>(), vec!["X-Region"]);

        entry.credentials_approved = true;
        let mut allowed = remote();
        assert!(withhold_secrets(&entry, &mut allowed).is_empty());
        assert_eq!(allowed, remote());
    }
}
