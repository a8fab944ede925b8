//! A staged update of a server added from the registry (see
//! `crate::mcp_registry::update`): its one vetting start, and applying it
//! once a person approved it.
//!
//! [`list_staged_update`] needs no hub (the CLI runs it in its own process
//! whether a hub runs or not): it builds the candidate's `ServerConfig` from
//! the person's config entry with the new command line, makes it a vetting
//! start exactly as the hub vets a new server ([`super::vetting::vetting_start`]:
//! placeholders for its secrets, the strict sandbox with no network and its
//! own folder only, `required`), adds the offline env of its own folder,
//! lists it once through a real [`Upstream`] with no pins, closes it and
//! records what it listed in the lock. The running version is not touched.
//!
//! Applying it (`HubHandle::apply_staged_update` in `mcp_registry.rs`, on
//! an approval of the server with no tool named) rewrites the config entry
//! and the lock, pins the listed definitions ([`pin_approved`]) so the
//! tools a person saw are not held again, applies the config (the new
//! version starts with its secrets) and removes the old version's folder.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::config::{ConfigValue, Source, TransportConfig};
use crate::mcp_registry::fetch;
use crate::mcp_registry::install::InstallError;
use crate::mcp_registry::lock::{Lockfile, ToolDiff};
use crate::upstream::Upstream;

/// What the staged update's vetting start listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedListing {
    /// The registry version staged.
    pub version: String,
    /// The package it runs (`@x/y@1.2.3`).
    pub spec: String,
    /// Its tools against the approved ones.
    pub diff: ToolDiff,
    /// The names of the tools it listed.
    pub tools: Vec<String>,
}

/// Why a staged update could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum StagedError {
    #[error(transparent)]
    Install(#[from] InstallError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Edit(#[from] crate::config::EditError),
    #[error("server '{id}': {why}; run `switchboard update {id}` again")]
    Package { id: String, why: String },
    #[error("listing the new version in its vetting sandbox failed: {0}")]
    Listing(#[from] crate::upstream::UpstreamError),
    #[error("cannot start the new version's vetting: {0}")]
    Start(String),
}

/// Lists the update staged for server `id` of the config at `config_path`
/// once, in its vetting sandbox (see the module docs), and records it.
pub async fn list_staged_update(
    config_path: &Path,
    id: &str,
) -> Result<StagedListing, StagedError> {
    let lock = Lockfile::read(config_path).map_err(InstallError::from)?;
    let locked = lock
        .servers
        .get(id)
        .ok_or_else(|| InstallError::NotInstalled(id.to_string()))?;
    let (Some(staged), Some(candidate)) = (locked.update.as_ref(), locked.staged_entry()) else {
        return Err(InstallError::NotStaged(id.to_string()).into());
    };
    let bytes = crate::config::read_config_file(config_path)?.unwrap_or_default();
    let mut definition = crate::config::server_definition(&bytes, config_path, id)?;
    for (key, value) in &staged.launch {
        definition[key.as_str()] = value.clone();
    }
    let text = crate::config::put_server(Some(&bytes), config_path, id, &definition)?;
    let config = crate::config::load(
        Source::text(&text, config_path).overrides(&crate::config::process_env),
    )?;
    let Some(mut server) = config.servers.iter().find(|s| s.id.as_str() == id).cloned() else {
        return Err(InstallError::NotInstalled(id.to_string()).into());
    };
    let dir = fetch::package_dir(id, candidate.package_version.as_deref());
    if let Some(why) = fetch::verify_fetched(&candidate.kind, &dir, candidate.integrity.as_deref())
    {
        return Err(StagedError::Package {
            id: id.to_string(),
            why,
        });
    }
    if let TransportConfig::Stdio { env, .. } = &mut server.transport {
        for (name, value) in fetch::offline_env(&candidate.kind, &dir) {
            env.entry(name).or_insert(ConfigValue::Literal(value));
        }
    }
    super::vetting::vetting_start(&candidate, &dir, &mut server);
    server.enabled = true;
    let tools = list_once(server, config.settings.clone(), config_path).await?;
    let diff = crate::mcp_registry::update::record_listing(config_path, id, &tools)?;
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    Ok(StagedListing {
        version: staged.version.clone(),
        spec: staged.spec(),
        diff,
        tools: names,
    })
}

/// Starts `server` on its own (no hub, no pins, secrets in memory only),
/// lists its tools and closes it.
async fn list_once(
    server: crate::config::ServerConfig,
    settings: crate::config::Settings,
    config_path: &Path,
) -> Result<Vec<rmcp::model::Tool>, StagedError> {
    let (events, _keep) = tokio::sync::mpsc::unbounded_channel();
    let auth = Arc::new(crate::auth::Auth::new(
        crate::auth::store::OpenedStore::memory(crate::auth::store::KeyringKind::Memory, None),
        events.clone(),
    ));
    let identity = crate::identity::HubIdentity::new(([127, 0, 0, 1], 0).into())
        .map_err(|err| StagedError::Start(err.to_string()))?;
    let host = Arc::new(crate::sandbox::Host {
        home: dirs::home_dir(),
        own: crate::sandbox::own_places(Some(config_path), &[]),
        os: None,
    });
    let cancel = CancellationToken::new();
    let upstream = Arc::new(
        Upstream::new(
            server,
            Arc::new(settings),
            cancel.clone(),
            Arc::new(reqwest::Client::new),
            Arc::new(identity),
            auth,
            events,
        )
        .with_sandbox(host),
    );
    let listed = upstream
        .refresh(crate::listing::RefreshTrigger::Manual)
        .await;
    upstream.close().await;
    cancel.cancel();
    Ok(listed?.tools.clone())
}

/// Pins `tools` of `server` as approved, as a person saw them in the staged
/// update's listing: compared with the pins as a listing would be, then
/// whatever that found changed or new approved. A later listing of the
/// same definitions is served; another one is held as changed.
pub(super) fn pin_approved(pins: &crate::pins::Pins, server: &str, tools: &[rmcp::model::Tool]) {
    let mut caps = crate::listing::Capabilities::empty(crate::listing::RefreshTrigger::Manual);
    caps.tools = tools.to_vec();
    pins.apply(server, Arc::new(caps), false);
    let (held, changed, new) = pins.status(server);
    let pending: Vec<crate::pins::ApproveTool> = held
        .into_iter()
        .chain(changed)
        .map(|t| t.name)
        .chain(new)
        .filter(|name| tools.iter().any(|t| t.name.as_ref() == name))
        .map(crate::pins::ApproveTool::Name)
        .collect();
    if let Err(err) = pins.approve(server, Some(&pending)) {
        tracing::warn!(%server, error = %err, "cannot pin the approved update's tools; they are held for review");
    }
}
