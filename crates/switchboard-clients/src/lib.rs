//! What Switchboard knows about AI clients' MCP config files: where each client
//! keeps its servers, how to read them into Switchboard's config (`import`), and
//! how to point a client at Switchboard (`connect`); and the hub's import offer
//! built on it ([`import_offer`]). A crate of its own, used by the CLI and the
//! desktop app: it knows config files, not the running hub (no hub types).
//!
//! This module owns no state; every function reads the files it is given and
//! either returns a plan or writes a file. Invariants of every write:
//! - a timestamped backup of the previous file is written first
//!   (`<file>.bak-<unix-seconds>`), and nothing is written when nothing changes
//!   (running a command twice changes nothing the second time);
//! - the new file replaces the old one atomically (temp file + rename);
//! - nothing else in the file changes: JSON files are edited by splicing the
//!   bytes of one member (comments, key order and indentation stay), Codex's
//!   TOML is edited with `toml_edit`, which keeps comments and layout; YAML
//!   files (Continue, Goose) have their one servers block rewritten and every
//!   other line kept (comments inside that block are not: the report says so);
//! - an entry that cannot be imported is reported with a reason, never dropped.
//!
//! Paths are computed from [`Bases`] (home and config directories), which the
//! CLI takes from the environment and tests point at temporary directories.
//! The clients, their files per OS and where each format is documented are
//! the rows of the client table (`table.rs`); a client is one row.

mod catalog;
mod connect;
mod connect_toml;
mod connect_yaml;
mod convert;
mod dialect;
mod fsio;
mod hub_probe;
mod import;
pub mod import_offer;
mod jsonc;
mod listing;
mod profile;
mod read;
mod table;
mod ui_snippets;
mod yaml;

use std::path::PathBuf;

pub use catalog::{Bases, Client, FileFormat, Os, UnknownClient, detect_format};
pub use connect::{
    ConnectReport, ConnectRequest, DisableMethod, DisabledServer, EntryChange, SWITCHBOARD_ENTRY,
    connect, profile_snippet, snippet,
};
pub use import::{
    AddedServer, ApplyOutcome, FileStatus, ImportPlan, ImportRequest, ImportSource, InvalidServer,
    Origin, SkipReason, SkippedServer, SourceFile, apply_import, import, import_with,
};
pub use listing::{ClientInfo, FileInfo, Listing, list, servers_in};
pub use profile::{ProfileEntry, entry_name, profile_entry};
pub use ui_snippets::{ENDPOINT_PLACEHOLDER, UiSnippet, ui_snippets};

/// Why reading or writing a client's or Switchboard's config failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// The file parses but is not shaped as expected (e.g. `mcpServers` is a list).
    #[error("{path}: {message}")]
    Shape { path: PathBuf, message: String },
    #[error(
        "cannot tell which client's format {path} is in; pass the client \
         (one of: {known})"
    )]
    UnknownFormat { path: PathBuf, known: String },
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    /// Switchboard's config changed between planning and applying an import.
    #[error(
        "server id {id:?} was added to {path} since the import was planned; \
         run the import again"
    )]
    Conflict { id: String, path: PathBuf },
    /// The merged config would not load in Switchboard; nothing was written.
    #[error("the merged config {path} would be refused: {message}; nothing was written")]
    Refused { path: PathBuf, message: String },
    #[error("cannot find the home directory; set HOME")]
    NoHome,
    /// A profile with a token, for a client that cannot send its header.
    #[error(
        "{client} reaches Switchboard through the `switchboard stdio` bridge, which cannot send \
         profile '{profile}''s token; connect a client that speaks HTTP (see `switchboard \
         clients`), or use a profile without a token"
    )]
    NoHeaders { client: Client, profile: String },
    /// The client keeps its servers somewhere Switchboard cannot edit.
    /// A profile to connect that cannot be read (`connect --profile`).
    #[error("{0}")]
    Profile(String),
    #[error("{reason}")]
    NoFile {
        client: Client,
        reason: &'static str,
    },
}
