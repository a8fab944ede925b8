//! `switchboard clients`: every client in the table, whether its config was
//! found on this machine, and how many servers each of its files holds.
//! Only reads files.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::read::{entries, parse};
use super::{Bases, Client, ClientError, FileFormat, fsio};

/// One client on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientInfo {
    pub client: Client,
    pub name: &'static str,
    /// Any of its files exists.
    pub found: bool,
    /// Whether `connect` can edit a file (otherwise `connect --print` only).
    pub has_file: bool,
    /// Whether it reaches the hub by URL (otherwise through `switchboard stdio`).
    pub speaks_http: bool,
    pub files: Vec<FileInfo>,
}

/// One of a client's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    pub path: PathBuf,
    pub format: FileFormat,
    pub exists: bool,
    /// How many servers it holds (when it exists and could be read).
    pub servers: Option<usize>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// The servers of a client file as the client wrote them, in file order
/// (Claude Code's project scopes included); an empty list for a missing file.
pub fn servers_in(path: &Path, format: FileFormat) -> Result<Vec<(String, Value)>, ClientError> {
    let Some(text) = fsio::read_optional(path)? else {
        return Ok(Vec::new());
    };
    let root = parse(path, &text, format)?;
    Ok(entries(path, format, &root)?
        .into_iter()
        .map(|e| (e.name, e.value))
        .collect())
}

/// Every client of the table, with what was found of it under `bases`.
pub fn list(bases: &Bases) -> Vec<ClientInfo> {
    Client::ALL
        .into_iter()
        .map(|client| {
            let files: Vec<FileInfo> = client
                .import_files(bases)
                .into_iter()
                .map(|(path, format)| {
                    let exists = path.is_file();
                    let (servers, error) = if exists {
                        match servers_in(&path, format) {
                            Ok(found) => (Some(found.len()), None),
                            Err(err) => (None, Some(err.to_string())),
                        }
                    } else {
                        (None, None)
                    };
                    FileInfo {
                        path,
                        format,
                        exists,
                        servers,
                        error,
                    }
                })
                .collect();
            ClientInfo {
                client,
                name: client.display_name(),
                found: files.iter().any(|f| f.exists),
                has_file: client.has_file(),
                speaks_http: client.speaks_http(),
                files,
            }
        })
        .collect()
}

/// The list as a table for people: one line per client, then its files.
pub struct Listing<'a>(pub &'a [ClientInfo]);

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .0
            .iter()
            .map(|c| c.client.id().len())
            .max()
            .unwrap_or(0);
        for info in self.0 {
            let state = if info.found { "found" } else { "-" };
            let how = match (info.has_file, info.speaks_http) {
                (false, _) => "no file: use `connect --print`",
                (true, true) => "http",
                (true, false) => "stdio bridge",
            };
            writeln!(
                f,
                "{:width$}  {:5}  {} ({how})",
                info.client.id(),
                state,
                info.name
            )?;
            for file in info.files.iter().filter(|file| file.exists) {
                let what = match (&file.servers, &file.error) {
                    (Some(n), _) => format!("{n} server{}", if *n == 1 { "" } else { "s" }),
                    (None, Some(err)) => format!("unreadable: {err}"),
                    (None, None) => String::new(),
                };
                writeln!(f, "{:width$}         {}: {what}", "", file.path.display())?;
            }
        }
        Ok(())
    }
}
