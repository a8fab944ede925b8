//! The hub's side of approving calls (`crate::approval`): the table of
//! waiting calls, and one way to decide one for every decider (the control
//! API, the CLI, the dashboard, elicitation, the app). An `always` answer
//! allows the call at once and then adds the tool to its server's
//! `allowTools` in the config file (spliced like every edit, under the
//! reload lock) and applies the file: a catalog-only change, the server
//! keeps running.

use std::sync::Arc;

use serde_json::Value;
use switchboard_api::PendingCall;

use super::HubHandle;
use super::apply::write_atomically;
use crate::approval::{Decision, NotPending, Pending};
use crate::config;
use crate::reload::ReloadError;

impl HubHandle {
    /// The calls waiting for approval.
    pub fn pending(&self) -> &Arc<Pending> {
        &self.inner.approvals
    }

    /// Decides waiting call `id`. With `always` (an allow), the answer's
    /// second part is the result of adding the tool to `allowTools`; the
    /// call was allowed either way.
    pub async fn decide_call(
        &self,
        id: &str,
        decision: Decision,
    ) -> Result<(PendingCall, Option<Result<(), ReloadError>>), NotPending> {
        let (call, server) = self.inner.approvals.decide(id, decision)?;
        tracing::info!(
            server = %server,
            tool = %call.tool,
            decision = if decision.allow { "allow" } else { "deny" },
            always = decision.always,
            by = decision.by.as_str(),
            "call approval decided"
        );
        if !(decision.allow && decision.always) {
            return Ok((call, None));
        }
        let added = self.allow_tool(server.as_str(), &call.tool).await;
        if let Err(err) = &added {
            tracing::warn!(server = %server, tool = %call.tool, error = %err, "could not add the tool to allowTools");
        }
        Ok((call, Some(added)))
    }

    /// Adds `tool` to server `id`'s `allowTools` in the config file and
    /// applies the file.
    pub async fn allow_tool(&self, id: &str, tool: &str) -> Result<(), ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes = config::read_config_file(&path)?
                .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
            let text = config::add_allowed_tool(&bytes, &path, id, tool)
                .map_err(|err| super::servers::edit_error(err, &Value::Null))?;
            if text.as_bytes() != bytes.as_slice() {
                write_atomically(&path, &text)?;
            }
        }
        self.reload_from_file().await.map(|_| ())
    }
}
