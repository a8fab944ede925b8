//! Where the dashboard's import offer comes from: the servers the AI clients
//! on this machine (Claude Desktop, Cursor, ...) already have, which
//! `switchboard import` reads. Reading those files is the AI-client crate's
//! business (`crates/switchboard-clients`), which the core cannot depend
//! on; so the core names what it needs here, [`ImportSource`], and the
//! binaries (`switchboard serve`, the desktop app) give the hub one
//! ([`crate::HubHandle::set_import_source`]). A hub without one answers the
//! import routes `501` with a sentence saying so.
//!
//! Layer 1: wire types only, no engine state. Both methods do blocking file
//! I/O (and may ask a URL whether it is a Switchboard): callers run them off
//! the async runtime.

use std::path::Path;

pub use switchboard_api::{ImportOffer, ImportSelection};

/// Why an import offer could not be made or applied, for people.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ImportError(pub String);

/// What an import wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportApplied {
    /// The ids written to the config file (empty: nothing was written).
    pub added: Vec<String>,
    /// The copy of the previous file, when there was one.
    pub backup: Option<std::path::PathBuf>,
}

/// The AI clients' servers, as `switchboard import` sees them.
pub trait ImportSource: Send + Sync + 'static {
    /// What an import into the config at `config_path` would add now. The
    /// definitions may hold secrets: the hub redacts them before showing them.
    fn find(&self, config_path: &Path) -> Result<ImportOffer, ImportError>;

    /// Imports the candidates `selection` names (all when it names none)
    /// into the config at `config_path`, keeping the rest of that file.
    fn apply(
        &self,
        config_path: &Path,
        selection: &ImportSelection,
    ) -> Result<ImportApplied, ImportError>;
}
