//! The hub's import offer (the dashboard's first run): the core's
//! [`switchboard_core::ImportSource`], implemented with what `switchboard
//! import` does ([`crate::import`], [`crate::apply_import`])
//! so the dashboard offers exactly what `switchboard import --dry-run` lists.
//! `switchboard serve` and the desktop app give one to their hub.

use std::path::Path;

use switchboard_api::{ImportCandidate, ImportOffer, ImportSelection};
use switchboard_core::{ImportApplied, ImportError};

use crate::{self as clients, Bases, Client, FileStatus, ImportPlan, ImportRequest};

/// Every known AI client's user config on this machine.
#[derive(Debug, Clone, Default)]
pub struct ClientsImport {
    /// The hub's own MCP endpoint: client entries pointing at it are skipped.
    pub endpoint: Option<String>,
    /// Where the clients' files are; `None` reads the real machine's
    /// ([`Bases::from_env`]) at each call.
    pub bases: Option<Bases>,
}

impl ClientsImport {
    fn plan(&self, config_path: &Path) -> Result<ImportPlan, ImportError> {
        let bases = match &self.bases {
            Some(bases) => bases.clone(),
            None => Bases::from_env().map_err(|err| ImportError(err.to_string()))?,
        };
        clients::import(&ImportRequest {
            source: clients::ImportSource::AllClients,
            bases,
            config_path: config_path.to_path_buf(),
            endpoint: self.endpoint.clone(),
        })
        .map_err(|err| ImportError(err.to_string()))
    }
}

impl switchboard_core::ImportSource for ClientsImport {
    fn find(&self, config_path: &Path) -> Result<ImportOffer, ImportError> {
        let plan = self.plan(config_path)?;
        let candidates = plan
            .added
            .iter()
            .map(|added| ImportCandidate {
                id: added.id.clone(),
                client: added
                    .from
                    .client
                    .map(|c| Client::display_name(c).to_string()),
                file: added.from.file.display().to_string(),
                name: added.from.name.clone(),
                definition: added.entry.clone(),
                notes: added
                    .renamed
                    .iter()
                    .chain(&added.warnings)
                    .cloned()
                    .collect(),
            })
            .collect();
        let looked_at = plan
            .files
            .iter()
            .filter(|f| !matches!(f.status, FileStatus::Missing))
            .map(|f| {
                let who = f.client.map_or("(file)", Client::display_name);
                match &f.status {
                    FileStatus::Read { servers: 1 } => format!("{who}: 1 server"),
                    FileStatus::Read { servers } => format!("{who}: {servers} servers"),
                    FileStatus::Missing => format!("{who}: not found"),
                    FileStatus::Unreadable { .. } => format!("{who}: unreadable"),
                }
            })
            .collect();
        let problems = plan
            .files
            .iter()
            .filter_map(|f| match &f.status {
                FileStatus::Unreadable { reason } => {
                    Some(format!("{}: {reason}", f.path.display()))
                }
                _ => None,
            })
            .chain(
                plan.invalid
                    .iter()
                    .map(|i| format!("{} in {}: {}", i.from.name, i.from, i.reason)),
            )
            .collect();
        Ok(ImportOffer {
            candidates,
            looked_at,
            problems,
        })
    }

    fn apply(
        &self,
        config_path: &Path,
        selection: &ImportSelection,
    ) -> Result<ImportApplied, ImportError> {
        let mut plan = self.plan(config_path)?;
        if let (false, Some(ids)) = (selection.all, &selection.ids) {
            if let Some(unknown) = ids
                .iter()
                .find(|id| plan.added.iter().all(|a| a.id != **id))
            {
                return Err(ImportError(format!(
                    "no server '{unknown}' to import (the AI clients' configs may have \
                     changed, or it is already in Switchboard's config); look again"
                )));
            }
            plan.added.retain(|a| ids.contains(&a.id));
        }
        let outcome = clients::apply_import(config_path, &plan)
            .map_err(|err| ImportError(err.to_string()))?;
        Ok(ImportApplied {
            added: outcome.added,
            backup: outcome.backup,
        })
    }
}
