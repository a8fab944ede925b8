//! `switchboard add`, the writing half: resolve the document, fetch and
//! check the package, put the secrets in the keyring, lock what was
//! resolved and only then write the config entry (`update.rs` stages an
//! update with the same fetch).
//!
//! The order matters: the lock entry (not yet approved) is written before
//! the config entry, so a hub that sees the new entry already knows to vet
//! it (`hub/vetting.rs`: no secrets, strict sandbox, tools held with change
//! `new server`). An unknown name, a refused document or a failed fetch
//! leaves the config file untouched. Used by the CLI directly (no hub
//! needed) and by the hub's `POST /api/v1/registry/install`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::document::{self, PackageKind, Plan, PlanError};
use super::fetch::{self, FetchError};
use super::lock::{LockEntry, LockError, Lockfile};
use super::{RegistryClient, RegistryError, ServerEntry};
use crate::auth::TokenStore;
use crate::config::{ConfigError, EditError};

/// What to install.
#[derive(Debug, Clone, Default)]
pub struct InstallRequest {
    /// The registry name.
    pub name: String,
    /// An exact version; `None`: the registry's latest.
    pub version: Option<String>,
    /// The server id; `None`: from the name.
    pub id: Option<String>,
    pub env: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
}

/// What was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub id: String,
    pub name: String,
    pub version: String,
    /// `@x/y@1.2.3`, `name==1.2.3` or the URL.
    pub spec: String,
    pub kind: PackageKind,
    pub integrity: Option<String>,
    /// The tools approved before (an update): for the diff.
    pub previous_tools: Vec<String>,
    pub previous_version: Option<String>,
}

/// Why nothing was installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("a server '{0}' is configured already; pick another id with --id")]
    Exists(String),
    #[error("'{0}' was not added from the registry (it has no entry in servers.lock.json)")]
    NotInstalled(String),
    #[error("server '{0}' has no update staged (`switchboard update {0}` stages one)")]
    NotStaged(String),
    #[error(
        "the update staged for server '{0}' could not be listed in its vetting start, so there is nothing to approve; \
         run `switchboard update {0}` again, or drop it with `switchboard update {0} --cancel`"
    )]
    NotListed(String),
    #[error("server '{id}' is at {version}, the registry's latest; nothing to update")]
    UpToDate { id: String, version: String },
    #[error("{0}")]
    InvalidId(String),
    #[error("cannot store secret '{name}' in the keyring: {message}")]
    Secret { name: String, message: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error("cannot write {}: {message}", .path.display())]
    Write {
        path: std::path::PathBuf,
        message: String,
    },
}

/// The id a registry name gets by default: its last part
/// (`io.github.x/server-memory` → `server-memory`), cut to the id rules.
pub fn default_id(name: &str) -> String {
    let last = name.rsplit('/').next().unwrap_or(name);
    let id: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(crate::config::MAX_SERVER_ID_LEN)
        .collect();
    if id.is_empty() { "server".into() } else { id }
}

/// Installs `request` into the config at `config_path` (see the module docs).
pub async fn install(
    client: &RegistryClient,
    http: &reqwest::Client,
    store: &Arc<dyn TokenStore>,
    config_path: &Path,
    request: &InstallRequest,
) -> Result<Installed, InstallError> {
    if let Some(version) = &request.version
        && !document::is_exact(version)
    {
        return Err(PlanError::NoVersion {
            name: request.name.clone(),
            registry: "registry".into(),
            identifier: format!(
                "{} (asked for {version:?}, not an exact version)",
                request.name
            ),
        }
        .into());
    }
    let entry = client
        .server(&request.name, request.version.as_deref())
        .await?
        .value;
    let id = request
        .id
        .clone()
        .unwrap_or_else(|| default_id(&entry.server.name));
    crate::config::ServerId::new(&id).map_err(InstallError::InvalidId)?;
    let bytes = crate::config::read_config_file(config_path)?;
    if let Some(bytes) = &bytes
        && crate::config::server_definition(bytes, config_path, &id).is_ok()
    {
        return Err(InstallError::Exists(id));
    }
    let plan = document::plan_install(&entry.server, &id, &request.env, &request.headers)?;
    // Checked by the loader before anything is fetched or stored.
    crate::config::check_definition(&id, &plan.entry)?;
    // Nothing of this id runs (it is not configured): older folders of it go.
    fetch::remove_other_versions(&id, None);
    let installed = resolve(http, &entry, &id, &plan, None, true).await?;
    store_secrets(store, &plan).await?;
    lock(config_path, &id, &entry, &plan, &installed)?;
    let text = crate::config::put_server(bytes.as_deref(), config_path, &id, &plan.entry)?;
    write_config(config_path, &text)?;
    tracing::info!(server = %id, package = %installed.spec, "added from the registry; vetting before first use");
    Ok(installed)
}

/// Fetches and checks `plan`'s package into its version's own folder
/// (emptied first when `fresh`: nothing of an earlier fetch is run
/// offline); `locked_digest` is the digest locked earlier for this version.
pub(super) async fn resolve(
    http: &reqwest::Client,
    entry: &ServerEntry,
    id: &str,
    plan: &Plan,
    locked_digest: Option<String>,
    fresh: bool,
) -> Result<Installed, InstallError> {
    let spec = match (&plan.kind, &plan.package_version) {
        (PackageKind::Npm, Some(v)) => format!("{}@{v}", plan.identifier),
        (PackageKind::Pypi, Some(v)) => format!("{}=={v}", plan.identifier),
        _ => plan.identifier.clone(),
    };
    let integrity = match (&plan.kind, &plan.package_version) {
        (PackageKind::Remote, _) | (_, None) => None,
        (kind, Some(version)) => {
            let dir = fetch::version_dir(id, version);
            if fresh {
                let _ = std::fs::remove_dir_all(&dir);
            }
            Some(
                fetch::fetch(
                    http,
                    kind,
                    &plan.identifier,
                    version,
                    &dir,
                    locked_digest.as_deref(),
                )
                .await?,
            )
        }
    };
    Ok(Installed {
        id: id.to_string(),
        name: entry.server.name.clone(),
        version: entry.server.version.clone(),
        spec,
        kind: plan.kind.clone(),
        integrity,
        previous_tools: Vec::new(),
        previous_version: None,
    })
}

pub(super) async fn store_secrets(
    store: &Arc<dyn TokenStore>,
    plan: &Plan,
) -> Result<(), InstallError> {
    for secret in &plan.secrets {
        let account = crate::auth::store::secret_account(&secret.keyring_name);
        let value = secret.value.clone();
        crate::auth::store::call(store, move |s| s.set(&account, &value))
            .await
            .map_err(|err| InstallError::Secret {
                name: secret.keyring_name.clone(),
                message: err.to_string(),
            })?;
    }
    Ok(())
}

fn lock(
    config_path: &Path,
    id: &str,
    entry: &ServerEntry,
    plan: &Plan,
    installed: &Installed,
) -> Result<(), InstallError> {
    Lockfile::update(config_path, |lock| {
        lock.servers.insert(
            id.to_string(),
            LockEntry {
                registry_name: entry.server.name.clone(),
                version: entry.server.version.clone(),
                kind: plan.kind.clone(),
                identifier: plan.identifier.clone(),
                package_version: plan.package_version.clone(),
                integrity: installed.integrity.clone(),
                secrets: plan.secret_names.clone(),
                approved_catalog: None,
                approved_tools: Vec::new(),
                credentials_approved: false,
                approved_tool_hashes: BTreeMap::new(),
                update: None,
            },
        );
    })?;
    Ok(())
}

pub(super) fn write_config(path: &Path, text: &str) -> Result<(), InstallError> {
    crate::util::files::write_atomic(path, text.as_bytes(), crate::util::files::FileMode::Keep)
        .map(|_| ())
        .map_err(|err| InstallError::Write {
            path: path.to_path_buf(),
            message: err.to_string(),
        })
}
