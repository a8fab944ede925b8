//! The hub's side of the MCP Registry (`settings.registryUrl`): searching it
//! for the dashboard and installing from it (`POST /api/v1/registry/install`).
//! The install itself is `crate::mcp_registry::install` (the CLI runs the
//! same flow without a hub); the hub then applies the config, and
//! `vetting.rs` takes it from there. And applying an update staged by
//! `switchboard update` once a person approved it (`staged.rs`).

use super::HubHandle;
use crate::mcp_registry::install::{self, InstallError, InstallRequest};
use crate::mcp_registry::lock::Lockfile;
use crate::mcp_registry::{RegistryClient, RegistryError, document};
use switchboard_api as api;

/// How many servers a dashboard search shows.
const SEARCH_LIMIT: u32 = 30;

impl HubHandle {
    fn registry_client(&self) -> RegistryClient {
        RegistryClient::new(
            &self.inner.settings.registry_url,
            self.inner.http.get(),
            Some(crate::persist::state_dir().join("registry")),
        )
    }

    /// The registry's servers matching `query`, marked when installed.
    pub async fn registry_search(
        &self,
        query: &str,
    ) -> Result<api::RegistrySearchResponse, RegistryError> {
        let client = self.registry_client();
        let answer = client.search(query, SEARCH_LIMIT).await?;
        let lock = self
            .config_path()
            .and_then(|p| Lockfile::read(&p).ok())
            .unwrap_or_default();
        let configured: Vec<String> = self
            .inner
            .registry
            .all()
            .iter()
            .map(|u| u.id.to_string())
            .collect();
        Ok(api::RegistrySearchResponse {
            registry: client.base().to_string(),
            servers: answer
                .value
                .servers
                .iter()
                .map(|entry| wire_server(&entry.server, &lock, &configured))
                .collect(),
            stale_since: answer.stale_since.map(crate::snapshot::timestamp),
        })
    }

    /// Installs a server from the registry into the config file (see
    /// `crate::mcp_registry::install`) and applies the file; returns its id.
    pub async fn registry_install(
        &self,
        request: api::RegistryInstallRequest,
    ) -> Result<String, RegistryInstallError> {
        let path = self
            .config_path()
            .ok_or(RegistryInstallError::NoConfigFile)?;
        let request = InstallRequest {
            name: request.name,
            version: request.version,
            id: request.id,
            env: request.env.unwrap_or_default(),
            headers: request.headers.unwrap_or_default(),
        };
        let installed = install::install(
            &self.registry_client(),
            &self.inner.http.get(),
            &self.inner.auth.secret_store(),
            &path,
            &request,
        )
        .await?;
        if let Err(err) = self.reload_from_file().await {
            tracing::warn!(server = %installed.id, error = %err, "applying the config after an install failed");
        }
        Ok(installed.id)
    }
}

impl HubHandle {
    /// Applies the update staged for server `id`, if any (see the module
    /// docs); returns the tools approved with it.
    pub(super) async fn apply_staged_update(
        &self,
        id: &str,
    ) -> Result<Option<Vec<String>>, InstallError> {
        let Some(path) = self.config_path() else {
            return Ok(None);
        };
        let Some(staged) = crate::mcp_registry::update::apply(&path, id)? else {
            return Ok(None);
        };
        let tools = staged.tool_definitions();
        super::staged::pin_approved(&self.inner.pins, id, &tools);
        tracing::info!(server = %id, package = %staged.spec(), "staged update approved; restarting with it");
        if let Err(err) = self.reload_from_file().await {
            tracing::warn!(server = %id, error = %err, "applying the config after an approved update failed");
        }
        // The old version runs no more: its folder goes.
        crate::mcp_registry::fetch::remove_other_versions(id, staged.package_version.as_deref());
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        Ok(Some(names))
    }
}

/// Why an install through the hub failed.
#[derive(Debug, thiserror::Error)]
pub enum RegistryInstallError {
    #[error("this hub has no config file to add servers to")]
    NoConfigFile,
    #[error(transparent)]
    Install(#[from] InstallError),
}

/// One document as the dashboard and `registry search --json` show it;
/// `configured` are the ids in the config.
pub fn wire_server(
    doc: &document::ServerDocument,
    lock: &Lockfile,
    configured: &[String],
) -> api::RegistryServer {
    let installed_as = lock
        .servers
        .iter()
        .find(|(id, e)| e.registry_name == doc.name && configured.contains(id))
        .map(|(id, _)| id.clone());
    let (env, headers) = document::inputs(doc);
    let wire = |inputs: Vec<document::Input>| {
        inputs
            .into_iter()
            .filter(|i| !i.name.is_empty() && i.value.is_none())
            .map(|i| api::RegistryInput {
                name: i.name,
                description: i.description,
                required: i.is_required,
                secret: i.is_secret,
                default: i.default,
            })
            .collect()
    };
    api::RegistryServer {
        name: doc.name.clone(),
        version: doc.version.clone(),
        title: doc.title.clone(),
        description: doc.description.clone(),
        transports: document::transports(doc),
        installed: installed_as.is_some(),
        installed_as,
        env: wire(env),
        headers: wire(headers),
    }
}
