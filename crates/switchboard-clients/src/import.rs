//! `switchboard import`: reading servers out of clients' config files and
//! merging them into Switchboard's config.
//!
//! [`import`] only reads and returns an [`ImportPlan`]; [`apply_import`] writes
//! it. Rules of a plan:
//! - every entry found ends up in exactly one list: added, skipped (already in
//!   Switchboard or earlier in the plan, or Switchboard's own entry) or invalid
//!   (with the reason);
//! - ids match `[A-Za-z0-9_-]{1,40}`: other names are sanitized, and a name
//!   taken by a different server becomes `name-2`, `name-3`, ...; both are
//!   reported as renames;
//! - "the same server" means the same transport fields (command, args, env and
//!   cwd, or url and headers), whatever the name: importing twice adds nothing.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use switchboard_core::files::FileMode;

use super::convert::{TransportKey, convert, switchboard_key};
use super::jsonc::Doc;
use super::read::{entries, parse, parse_json};
use super::{Bases, Client, ClientError, FileFormat, catalog, detect_format, fsio};

const MAX_ID_LEN: usize = switchboard_core::config::MAX_SERVER_ID_LEN;

/// What to import from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportSource {
    /// Every known client's user config (and Claude Code's project `.mcp.json`).
    AllClients,
    /// One client's files.
    Client(Client),
    /// One file, in the given client's format or a detected one.
    File {
        path: PathBuf,
        client: Option<Client>,
    },
}

/// The inputs of [`import`].
#[derive(Debug, Clone)]
pub struct ImportRequest {
    pub source: ImportSource,
    pub bases: Bases,
    /// Switchboard's config file (a missing file is an empty config).
    pub config_path: PathBuf,
    /// Switchboard's endpoint URL; client entries pointing at it (or at the
    /// `switchboard stdio` bridge) are Switchboard itself and are skipped.
    pub endpoint: Option<String>,
}

/// Where an entry came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// The client, when known (`None` for `--path` with a detected format).
    pub client: Option<Client>,
    pub file: PathBuf,
    /// The part of the file, e.g. `user` or `local: /path/to/project`.
    pub scope: Option<String>,
    /// The name the client gave the server.
    pub name: String,
}

/// A file the import looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceFile {
    pub client: Option<Client>,
    pub path: PathBuf,
    pub format: FileFormat,
    #[serde(flatten)]
    pub status: FileStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum FileStatus {
    Read { servers: usize },
    Missing,
    Unreadable { reason: String },
}

/// A server the plan adds to Switchboard's config.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedServer {
    /// The id it gets in Switchboard's `mcpServers`.
    pub id: String,
    pub from: Origin,
    /// The entry in Switchboard's format.
    pub entry: Value,
    /// Why `id` differs from the client's name, when it does.
    pub renamed: Option<String>,
    /// Fields that were not carried over, placeholders, and the like.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedServer {
    pub from: Origin,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SkipReason {
    /// The same server (same transport fields) is already in Switchboard's
    /// config (`in_config`) or earlier in this plan, under id `of`.
    #[serde(rename_all = "camelCase")]
    Duplicate { of: String, in_config: bool },
    /// The entry is the one `connect` writes: it points at Switchboard.
    Switchboard,
    /// The entry's URL leads to a running Switchboard (at `origin`), on
    /// whatever port: serving it would make a hub serve itself.
    RunningSwitchboard { origin: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InvalidServer {
    pub from: Origin,
    pub reason: String,
}

/// What an import would do; apply it with [`apply_import`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    pub config_path: PathBuf,
    pub files: Vec<SourceFile>,
    pub added: Vec<AddedServer>,
    pub skipped: Vec<SkippedServer>,
    pub invalid: Vec<InvalidServer>,
}

impl ImportPlan {
    /// The added servers whose id differs from their name.
    pub fn renamed(&self) -> impl Iterator<Item = &AddedServer> {
        self.added.iter().filter(|a| a.renamed.is_some())
    }

    /// True when applying the plan would change nothing.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
    }

    /// Files that exist but could not be read, and entries that were refused.
    pub fn has_problems(&self) -> bool {
        !self.invalid.is_empty()
            || self
                .files
                .iter()
                .any(|f| matches!(f.status, FileStatus::Unreadable { .. }))
    }
}

/// What [`apply_import`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyOutcome {
    pub config_path: PathBuf,
    /// The copy of the previous file; `None` when there was none or nothing changed.
    pub backup: Option<PathBuf>,
    /// Ids written (empty: nothing to do, the file was left alone).
    pub added: Vec<String>,
}

/// Reads the requested client files and plans the merge into Switchboard's config.
///
/// Files that do not exist are listed as missing; a client file that cannot be
/// parsed is listed as unreadable (for [`ImportSource::File`] it is an error).
/// An entry whose URL leads to a running Switchboard (any port; it is asked,
/// see `hub_probe`) is skipped.
pub fn import(req: &ImportRequest) -> Result<ImportPlan, ClientError> {
    import_with(req, &super::hub_probe::running_switchboard)
}

/// [`import`] with the way of recognising a running Switchboard given:
/// `running_hub(url)` is the hub's origin when `url` leads to one.
pub fn import_with(
    req: &ImportRequest,
    running_hub: &dyn Fn(&str) -> Option<String>,
) -> Result<ImportPlan, ClientError> {
    // One question per origin, however many entries point there.
    let mut asked: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    let mut hub_behind = |entry: &Value| -> Option<String> {
        entry_urls(entry).find_map(|url| {
            asked
                .entry(origin_of(url))
                .or_insert_with(|| running_hub(url))
                .clone()
        })
    };
    let existing = existing_servers(&req.config_path)?;
    let mut plan = ImportPlan {
        config_path: req.config_path.clone(),
        files: Vec::new(),
        added: Vec::new(),
        skipped: Vec::new(),
        invalid: Vec::new(),
    };
    let mut taken: BTreeSet<String> = existing.iter().map(|(id, _)| id.clone()).collect();
    let mut known: Vec<(TransportKey, String, bool)> = existing
        .into_iter()
        .filter_map(|(id, key)| key.map(|k| (k, id, true)))
        .collect();

    // Each file with its parsed content, or why there is none, in reading order.
    type Loaded = Result<Option<Value>, ClientError>;
    let files: Vec<(Option<Client>, PathBuf, FileFormat, Loaded)> = match &req.source {
        ImportSource::File { path, client } => {
            let text = fsio::read_optional(path)?
                .ok_or_else(|| ClientError::NotFound { path: path.clone() })?;
            let format = match client {
                Some(c) => c.format(),
                None => {
                    let ext = path
                        .extension()
                        .map(|e| e.to_string_lossy().to_ascii_lowercase());
                    let json = match ext.as_deref() {
                        Some("toml") => None,
                        Some("yaml" | "yml") => Some(super::yaml::parse(path, &text)?),
                        _ => Some(parse_json(path, &text)?),
                    };
                    detect_format(path, json.as_ref()).ok_or_else(|| {
                        ClientError::UnknownFormat {
                            path: path.clone(),
                            known: catalog::known_clients(),
                        }
                    })?
                }
            };
            let root = parse(path, &text, format)?;
            // Checked here so that a malformed explicit file is an error, not a note.
            entries(path, format, &root)?;
            vec![(*client, path.clone(), format, Ok(Some(root)))]
        }
        ImportSource::AllClients | ImportSource::Client(_) => {
            let clients: Vec<Client> = match req.source {
                ImportSource::Client(c) => vec![c],
                _ => Client::ALL.to_vec(),
            };
            let mut found = Vec::new();
            for client in clients {
                for (path, format) in client.import_files(&req.bases) {
                    let loaded = fsio::read_optional(&path)
                        .and_then(|t| t.map(|t| parse(&path, &t, format)).transpose());
                    found.push((Some(client), path, format, loaded));
                }
            }
            found
        }
    };

    for (client, path, format, loaded) in files {
        let parsed = loaded.and_then(|root| match root {
            Some(root) => entries(&path, format, &root).map(Some),
            None => Ok(None),
        });
        let raw = match parsed {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                plan.files.push(SourceFile {
                    client,
                    path,
                    format,
                    status: FileStatus::Missing,
                });
                continue;
            }
            Err(err) => {
                plan.files.push(SourceFile {
                    client,
                    path,
                    format,
                    status: FileStatus::Unreadable {
                        reason: err.to_string(),
                    },
                });
                continue;
            }
        };
        plan.files.push(SourceFile {
            client,
            path: path.clone(),
            format,
            status: FileStatus::Read { servers: raw.len() },
        });
        for entry in raw {
            let from = Origin {
                client,
                file: path.clone(),
                scope: entry.scope.clone(),
                name: entry.name.clone(),
            };
            if points_at_switchboard(&entry.value, req.endpoint.as_deref()) {
                plan.skipped.push(SkippedServer {
                    from,
                    reason: SkipReason::Switchboard,
                });
                continue;
            }
            if let Some(origin) = hub_behind(&entry.value) {
                plan.skipped.push(SkippedServer {
                    from,
                    reason: SkipReason::RunningSwitchboard { origin },
                });
                continue;
            }
            let converted = match convert(format, &entry.value, entry.disabled) {
                Ok(c) => c,
                Err(reason) => {
                    plan.invalid.push(InvalidServer { from, reason });
                    continue;
                }
            };
            if let Some((_, of, in_config)) = known.iter().find(|(k, _, _)| *k == converted.key) {
                plan.skipped.push(SkippedServer {
                    from,
                    reason: SkipReason::Duplicate {
                        of: of.clone(),
                        in_config: *in_config,
                    },
                });
                continue;
            }
            let (id, renamed) = choose_id(&entry.name, &taken);
            taken.insert(id.clone());
            known.push((converted.key, id.clone(), false));
            plan.added.push(AddedServer {
                id,
                from,
                entry: converted.entry,
                renamed,
                warnings: converted.warnings,
            });
        }
    }
    Ok(plan)
}

/// Ids and transport keys of the servers in Switchboard's config file.
pub(crate) fn existing_servers(
    path: &Path,
) -> Result<Vec<(String, Option<TransportKey>)>, ClientError> {
    let Some(text) = fsio::read_optional(path)? else {
        return Ok(Vec::new());
    };
    let root = parse_json(path, &text)?;
    let servers = match root.get("mcpServers") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(ClientError::Shape {
                path: path.to_path_buf(),
                message: "`mcpServers` is not an object".into(),
            });
        }
    };
    Ok(servers
        .iter()
        .map(|(id, v)| (id.clone(), switchboard_key(v)))
        .collect())
}

/// The URLs of an entry, under the keys clients use for them.
fn entry_urls(entry: &Value) -> impl Iterator<Item = &str> {
    ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .filter_map(|k| entry.get(k).and_then(Value::as_str))
}

/// `scheme://host:port` of a URL, lowercased, `localhost` as `127.0.0.1`.
fn origin_of(url: &str) -> String {
    let url = url.trim().to_ascii_lowercase();
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url.as_str()));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = match authority.strip_prefix("localhost") {
        Some(port) => format!("127.0.0.1{port}"),
        None => authority.to_string(),
    };
    format!("{scheme}://{authority}")
}

/// True for Switchboard's own entries: any URL at the origin of its endpoint
/// (`/mcp` or a `/servers/<id>/mcp` route), or the stdio bridge.
pub(crate) fn points_at_switchboard(entry: &Value, endpoint: Option<&str>) -> bool {
    let Some(obj) = entry.as_object() else {
        return false;
    };
    if let Some(endpoint) = endpoint {
        let target = origin_of(endpoint);
        if entry_urls(entry).any(|u| origin_of(u) == target) {
            return true;
        }
    }
    let bridge = obj
        .get("command")
        .and_then(Value::as_str)
        .and_then(|c| {
            Path::new(c)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .is_some_and(|stem| stem.eq_ignore_ascii_case("switchboard"));
    let first_arg = obj
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    bridge && first_arg == Some("stdio")
}

/// The id for a server named `name`, and why it differs from `name` if it does.
pub(crate) fn choose_id(name: &str, taken: &BTreeSet<String>) -> (String, Option<String>) {
    let valid = switchboard_core::ServerId::new(name).is_ok();
    let base = if valid {
        name.to_string()
    } else {
        sanitize(name)
    };
    let invalid_note = (!valid).then(|| {
        format!("{name:?} is not a valid id (letters, digits, '_' and '-', at most {MAX_ID_LEN})")
    });
    if !taken.contains(&base) {
        return (base, invalid_note);
    }
    let taken_note = format!("id {base:?} is taken by a different server");
    let note = match invalid_note {
        Some(first) => format!("{first}; {taken_note}"),
        None => taken_note,
    };
    for n in 2.. {
        let suffix = format!("-{n}");
        let keep = MAX_ID_LEN.saturating_sub(suffix.len()).min(base.len());
        let candidate = format!("{}{suffix}", &base[..keep]);
        if !taken.contains(&candidate) {
            return (candidate, Some(note));
        }
    }
    (base, Some(note))
}

/// `name` reduced to `[A-Za-z0-9_-]{1,40}`: other characters become `-`
/// (runs collapsed, none at the ends), `server` when nothing is left.
fn sanitize(name: &str) -> String {
    let mut out = String::new();
    let mut replaced_last = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
            replaced_last = false;
        } else if !replaced_last {
            out.push('-');
            replaced_last = true;
        }
    }
    let trimmed = out.trim_matches('-');
    let mut id: String = trimmed.chars().take(MAX_ID_LEN).collect();
    while id.ends_with('-') {
        id.pop();
    }
    if id.is_empty() { "server".into() } else { id }
}

/// Merges the plan's additions into Switchboard's config at `config_path`.
///
/// Creates the file when missing; otherwise writes a backup
/// (`config.json.bak-<unix-seconds>`) first and keeps every other byte of the
/// file. Ids already present with the same entry are left alone (applying a
/// plan twice is harmless); an id present with a different entry means the
/// file changed since planning and nothing is written. The result must still
/// load in Switchboard (unless the file was already refused before).
pub fn apply_import(config_path: &Path, plan: &ImportPlan) -> Result<ApplyOutcome, ClientError> {
    let original = fsio::read_optional(config_path)?;
    let syntax = |err: super::jsonc::SyntaxError| ClientError::Syntax {
        path: config_path.to_path_buf(),
        line: err.line,
        column: err.column,
        message: err.message,
    };
    let mut doc = Doc::parse(original.clone().unwrap_or_default()).map_err(syntax)?;
    let mut added = Vec::new();
    for server in &plan.added {
        if let Some(node) = doc.get(&["mcpServers", &server.id]) {
            if doc.node_value(node) == server.entry {
                continue;
            }
            return Err(ClientError::Conflict {
                id: server.id.clone(),
                path: config_path.to_path_buf(),
            });
        }
        let text = doc
            .with_set(&["mcpServers", &server.id], &server.entry)
            .map_err(|message| ClientError::Shape {
                path: config_path.to_path_buf(),
                message,
            })?;
        doc = Doc::parse(text).map_err(syntax)?;
        added.push(server.id.clone());
    }
    if added.is_empty() {
        return Ok(ApplyOutcome {
            config_path: config_path.to_path_buf(),
            backup: None,
            added,
        });
    }
    let was_valid = original.as_deref().is_none_or(|t| {
        switchboard_core::config::load(
            switchboard_core::config::Source::text(t, config_path).shape_only(),
        )
        .is_ok()
    });
    // The shape only: a `${VAR}` unset here may be set where the hub runs.
    if was_valid
        && let Err(err) = switchboard_core::config::load(
            switchboard_core::config::Source::text(doc.text(), config_path).shape_only(),
        )
    {
        return Err(ClientError::Refused {
            path: config_path.to_path_buf(),
            message: err.to_string(),
        });
    }
    let backup = match original {
        Some(_) => Some(fsio::backup(config_path, fsio::unix_now())?),
        None => None,
    };
    // Owner-only: the entries carry tokens copied from the clients' files.
    fsio::write_atomic(config_path, doc.text(), FileMode::Private)?;
    Ok(ApplyOutcome {
        config_path: config_path.to_path_buf(),
        backup,
        added,
    })
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(client) = self.client {
            write!(f, "{client} ")?;
        }
        write!(f, "{}", self.file.display())?;
        if let Some(scope) = &self.scope {
            write!(f, " ({scope})")?;
        }
        Ok(())
    }
}

impl fmt::Display for ImportPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Switchboard config: {}", self.config_path.display())?;
        if !self.files.is_empty() {
            writeln!(f, "Looked at:")?;
            for file in &self.files {
                let who = file.client.map_or("(file)", Client::display_name);
                let status = match &file.status {
                    FileStatus::Read { servers: 1 } => "1 server".to_string(),
                    FileStatus::Read { servers } => format!("{servers} servers"),
                    FileStatus::Missing => "not found".to_string(),
                    FileStatus::Unreadable { reason } => format!("unreadable: {reason}"),
                };
                writeln!(f, "  {who:<15} {}: {status}", file.path.display())?;
            }
        }
        if self.added.is_empty() {
            writeln!(f, "Nothing new to import.")?;
        } else {
            writeln!(f, "Add {}:", count(self.added.len()))?;
            for a in &self.added {
                writeln!(f, "  + {:<20} from {}", a.id, a.from)?;
                if let Some(why) = &a.renamed {
                    writeln!(f, "      renamed from {:?}: {why}", a.from.name)?;
                }
                for w in &a.warnings {
                    writeln!(f, "      note: {w}")?;
                }
            }
        }
        if !self.skipped.is_empty() {
            writeln!(f, "Skip {}:", count(self.skipped.len()))?;
            for s in &self.skipped {
                let why = match &s.reason {
                    SkipReason::Duplicate {
                        of,
                        in_config: true,
                    } => {
                        format!("already in Switchboard as {of:?}")
                    }
                    SkipReason::Duplicate { of, .. } => format!("same server as {of:?} above"),
                    SkipReason::Switchboard => "this is Switchboard itself".to_string(),
                    SkipReason::RunningSwitchboard { origin } => {
                        format!("points at the Switchboard running at {origin}")
                    }
                };
                writeln!(f, "  = {:<20} from {}: {why}", s.from.name, s.from)?;
            }
        }
        if !self.invalid.is_empty() {
            writeln!(f, "Cannot import {}:", count(self.invalid.len()))?;
            for i in &self.invalid {
                writeln!(f, "  ! {:<20} from {}: {}", i.from.name, i.from, i.reason)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ApplyOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.added.is_empty() {
            return writeln!(f, "{} is up to date.", self.config_path.display());
        }
        writeln!(
            f,
            "Added {} to {}: {}",
            count(self.added.len()),
            self.config_path.display(),
            self.added.join(", ")
        )?;
        if let Some(backup) = &self.backup {
            writeln!(f, "Previous version saved as {}", backup.display())?;
        }
        Ok(())
    }
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 server".into()
    } else {
        format!("{n} servers")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn ids_are_sanitized_and_deduplicated() {
        let taken: BTreeSet<String> = ["fs".to_string(), "fs-2".to_string()].into();
        assert_eq!(choose_id("github", &taken), ("github".into(), None));
        assert_eq!(choose_id("fs", &taken).0, "fs-3");
        assert_eq!(choose_id("my server!", &taken).0, "my-server");
        assert_eq!(choose_id("@scope/pkg", &taken).0, "scope-pkg");
        assert_eq!(choose_id("ü", &taken).0, "server");
        let long = "x".repeat(45);
        let (id, why) = choose_id(&long, &BTreeSet::from(["x".repeat(40)]));
        assert_eq!(id, format!("{}-2", "x".repeat(38)));
        assert!(why.unwrap().contains("not a valid id"));
    }

    #[test]
    fn recognises_switchboard_entries() {
        let e = Some("http://127.0.0.1:8420/mcp");
        assert!(points_at_switchboard(
            &json!({"url": "http://localhost:8420/mcp/"}),
            e
        ));
        assert!(points_at_switchboard(
            &json!({"serverUrl": "http://127.0.0.1:8420/mcp"}),
            e
        ));
        assert!(points_at_switchboard(
            &json!({"command": "/opt/bin/switchboard.exe", "args": ["stdio"]}),
            None
        ));
        assert!(!points_at_switchboard(
            &json!({"url": "http://127.0.0.1:9999/mcp"}),
            e
        ));
        // Its pass-through routes are Switchboard too.
        assert!(points_at_switchboard(
            &json!({"url": "http://localhost:8420/servers/github/mcp"}),
            e
        ));
        assert!(!points_at_switchboard(
            &json!({"url": "http://127.0.0.1:84200/mcp"}),
            e
        ));
    }

    #[test]
    fn entries_at_a_running_hub_are_skipped_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcp.json");
        std::fs::write(
            &file,
            r#"{"mcpServers": {
                "hub": {"url": "http://127.0.0.1:5555/mcp"},
                "hub-one": {"url": "http://localhost:5555/servers/x/mcp"},
                "other": {"url": "http://127.0.0.1:6666/mcp"},
                "local": {"command": "echo"}
            }}"#,
        )
        .unwrap();
        let req = ImportRequest {
            source: ImportSource::File {
                path: file,
                client: Some(Client::Cursor),
            },
            bases: Bases::new(dir.path(), dir.path()),
            config_path: dir.path().join("config.json"),
            endpoint: Some("http://127.0.0.1:8420/mcp".into()),
        };
        let asked = std::cell::RefCell::new(Vec::new());
        let probe = |url: &str| {
            asked.borrow_mut().push(url.to_string());
            url.contains(":5555")
                .then(|| "http://127.0.0.1:5555".to_string())
        };
        let plan = import_with(&req, &probe).unwrap();
        let added: Vec<&str> = plan.added.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(added, vec!["other", "local"]);
        let skipped: Vec<(&str, &SkipReason)> = plan
            .skipped
            .iter()
            .map(|s| (s.from.name.as_str(), &s.reason))
            .collect();
        let hub = SkipReason::RunningSwitchboard {
            origin: "http://127.0.0.1:5555".into(),
        };
        assert_eq!(skipped, vec![("hub", &hub), ("hub-one", &hub)]);
        // One question per origin.
        assert_eq!(asked.borrow().len(), 2, "{:?}", asked.borrow());
        assert!(
            plan.to_string()
                .contains("points at the Switchboard running at http://127.0.0.1:5555"),
            "{plan}"
        );
    }
}
