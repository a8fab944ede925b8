//! Approving tools held by their pins (see `crate::pins`): re-pin, serve the
//! server's listing again with the approved tools back, and tell every
//! affected session (merged and pass-through) with `list_changed`; and the
//! lookups the control API and the gateway need about held tools.

use super::HubHandle;
use crate::config::ServerId;
use crate::pins::{ApproveTool, HeldDefinition, PinsError};

/// Why an approval was refused.
#[derive(Debug, thiserror::Error)]
pub enum ApproveError {
    #[error("no server '{0}' is configured")]
    UnknownServer(String),
    /// Nothing to approve for a named tool, or its definition is not the
    /// one reviewed: nothing was approved.
    #[error("server '{server}': {source}")]
    NotPending { server: String, source: PinsError },
    /// A staged update could not be applied (not listed, or the config or
    /// lock could not be written): nothing of it was applied.
    #[error(transparent)]
    Update(#[from] crate::mcp_registry::install::InstallError),
}

/// What an approval approved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approved {
    /// The tools re-pinned to their current definitions.
    pub tools: Vec<String>,
    /// The secret headers a remote being vetted may now connect with (it
    /// could not be listed without them; see `hub/vetting.rs`).
    pub headers: Vec<String>,
}

impl HubHandle {
    /// Approves `tools` of server `id` (all its held, changed and new tools
    /// when `None`; a tool with a hash only if that is its current
    /// definition). With no tool named, an update staged for the server
    /// (`switchboard update <id>`) is applied instead (`staged.rs`); else a
    /// remote being vetted without its secret headers, with nothing held,
    /// gets its headers allowed.
    pub async fn approve(
        &self,
        id: &str,
        tools: Option<Vec<ApproveTool>>,
    ) -> Result<Approved, ApproveError> {
        let upstream = self
            .upstream(id)
            .ok_or_else(|| ApproveError::UnknownServer(id.to_string()))?;
        if tools.as_ref().is_none_or(Vec::is_empty) {
            if let Some(tools) = self.apply_staged_update(id).await? {
                self.publish_snapshot();
                return Ok(Approved {
                    tools,
                    headers: Vec::new(),
                });
            }
            let headers = self.approve_credentials(id).await;
            if !headers.is_empty() {
                self.publish_snapshot();
                return Ok(Approved {
                    tools: Vec::new(),
                    headers,
                });
            }
        }
        let approved = self
            .inner
            .pins
            .approve(id, tools.as_deref())
            .map_err(|source| ApproveError::NotPending {
                server: id.to_string(),
                source,
            })?;
        if let Some(caps) = upstream.reapply_pins() {
            let versions = caps.pass_through_versions(&upstream.config().disabled_tools);
            self.inner
                .sessions
                .announce_server(&upstream.id, versions, &self.inner.tasks);
            self.rebuild_catalog();
        } else if !approved.is_empty() && upstream.is_unverified() {
            // Only the warm catalog is known (held tools are not in it):
            // list the server so the approved tools come back now.
            let hub = self.clone();
            let id = upstream.id.clone();
            self.inner.tasks.spawn(async move {
                if let Err(err) = hub
                    .refresh(&id, crate::listing::RefreshTrigger::Manual)
                    .await
                {
                    tracing::warn!(server = %id, error = %err, "listing after an approval failed");
                }
            });
        }
        self.publish_snapshot();
        self.finish_vetting(id).await;
        Ok(Approved {
            tools: approved,
            headers: Vec::new(),
        })
    }

    /// Both definitions of each held or changed tool of server `id`;
    /// `None` for a server not configured.
    pub fn held_definitions(&self, id: &str) -> Option<Vec<HeldDefinition>> {
        self.upstream(id)?;
        Some(self.inner.pins.definitions(id))
    }

    /// The server and tool a merged tool name would lead to if its tool
    /// were not held (only asked after a name was not found).
    pub(crate) fn held_tool(&self, exposed: &str) -> Option<(ServerId, String)> {
        self.inner.registry.enabled().into_iter().find_map(|u| {
            let config = u.config();
            let prefix = config.prefix();
            self.inner
                .pins
                .held_names(u.id.as_str())
                .into_iter()
                .find(|name| {
                    // A held tool is not in the catalog: match the names it
                    // would be listed under (plain, or hashed when too long).
                    crate::catalog::names_alone(&u.id, prefix, name)
                        .iter()
                        .flatten()
                        .any(|candidate| candidate == exposed)
                })
                .map(|name| (u.id.clone(), name))
        })
    }
}
