//! `switchboard connect`: pointing a client at Switchboard with one entry
//! named `switchboard`, and optionally switching off the client's own copies
//! of servers Switchboard already serves.
//!
//! HTTP-capable clients get Switchboard's URL in their own dialect; Claude
//! Desktop, which starts stdio servers only, gets the `switchboard stdio`
//! bridge. Everything else in the file is kept byte for byte (see the module
//! root for the write rules). How `--disable-imported` switches a server off
//! depends on what the client's file supports:
//! - Codex: `enabled = false` on the server's table;
//! - Gemini CLI: the name is added to the top-level `mcp.excluded` list;
//! - Claude Desktop, Claude Code, Cursor, VS Code, Windsurf: their files have
//!   no reliable off switch, so the entries are removed and saved, in the
//!   file's own shape, to `<file>.switchboard-removed-<unix-seconds>` so they
//!   can be pasted back. Claude Code's project `.mcp.json` files are shared
//!   with a team and are never touched.
//!
//! With a profile (`--profile <name>`, [`ProfileEntry`]) the entry is
//! `switchboard-<name>`, pointing at `/profiles/<name>/mcp`, and a profile's
//! token goes in as an `Authorization: Bearer` header (`headers`, or Codex's
//! `http_headers`); the file is then written owner-only (0600), and the
//! report's snippet shows the token masked. Claude Desktop reaches the hub
//! through the stdio bridge, which sends no headers: a profile with a token
//! cannot be connected there ([`ClientError::NoHeaders`]).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};
use switchboard_core::files::FileMode;
use toml_edit::{DocumentMut, Item, Table};

use super::convert::{TransportKey, convert};
use super::import::{existing_servers, points_at_switchboard};
use super::jsonc::{Doc, render};
use super::profile::{EntrySpec, ProfileEntry, codex_headers, entry_name};
use super::read::{container_key, entries};
use super::{Bases, Client, ClientError, FileFormat, fsio};

/// The name of the entry `connect` writes into a client's config.
pub const SWITCHBOARD_ENTRY: &str = "switchboard";

/// The inputs of [`connect`].
#[derive(Debug, Clone)]
pub struct ConnectRequest {
    pub client: Client,
    pub bases: Bases,
    /// Switchboard's MCP endpoint, e.g. `http://127.0.0.1:8420/mcp`.
    pub endpoint: String,
    /// The `switchboard` executable, for clients that need the stdio bridge.
    pub exe: PathBuf,
    /// Compute and report the changes without writing anything.
    pub dry_run: bool,
    /// Switch off the client's entries for servers Switchboard already has.
    pub disable_imported: bool,
    /// Switchboard's config file, read for `disable_imported`.
    pub config_path: PathBuf,
    /// Connect this profile (its endpoint is `endpoint`) instead of the hub.
    pub profile: Option<ProfileEntry>,
}

/// What happened to the `switchboard` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryChange {
    Added,
    /// It existed with another URL or command (e.g. a new port); fixed.
    Updated,
    Unchanged,
}

/// How servers were switched off in the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DisableMethod {
    /// Codex: `enabled = false`; Zed, opencode, Goose: `"enabled": false`.
    EnabledFalse,
    /// Cline, Roo Code, Kilo Code, Kiro, Crush: `"disabled": true`.
    DisabledTrue,
    /// Jan: `"active": false`.
    ActiveFalse,
    /// Gemini CLI: listed in `mcp.excluded`.
    ExcludedList,
    /// No off switch: removed, and saved in [`ConnectReport::moved_to`].
    MovedOut,
}

/// A client entry switched off because Switchboard serves the same server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisabledServer {
    pub name: String,
    pub scope: Option<String>,
    /// The Switchboard server with the same transport fields.
    pub same_as: String,
}

/// What [`connect`] did (or, with `dry_run`, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectReport {
    pub client: Client,
    pub file: PathBuf,
    pub dry_run: bool,
    pub entry: EntryChange,
    /// The client's `switchboard` entry, as a paste-able snippet.
    pub snippet: String,
    pub disabled: Vec<DisabledServer>,
    pub disable_method: Option<DisableMethod>,
    /// Where removed entries were saved (not set for a dry run).
    pub moved_to: Option<PathBuf>,
    /// The copy of the previous file (not set for a dry run or a new file).
    pub backup: Option<PathBuf>,
    /// Whether the file changes (or would change, for a dry run).
    pub changed: bool,
    pub notes: Vec<String>,
}

/// The hub's `/mcp` URL with the default `settings.listen`.
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:8420/mcp";

/// Gemini CLI's own Streamable HTTP form, `{"url": <endpoint>, "type": "http"}`,
/// pointing at `endpoint`: kept as it is rather than rewritten to `httpUrl`.
fn is_gemini_http_entry(entry: &Map<String, Value>, endpoint: &str) -> bool {
    entry.get("url").and_then(Value::as_str) == Some(endpoint)
        && entry.get("type").and_then(Value::as_str) == Some("http")
        && !entry.contains_key("httpUrl")
}

/// The `switchboard` entry named `name` in `client`'s dialect (as JSON;
/// Codex's is the TOML table in [`snippet`], Continue's and Goose's are
/// rendered as YAML).
pub(super) fn json_entry(
    client: Client,
    endpoint: &str,
    exe: &Path,
    name: &str,
    token: Option<&str>,
) -> Value {
    let mut entry = plain_json_entry(client, endpoint, exe);
    let format = client.format();
    if let Value::Object(map) = &mut entry {
        if format == FileFormat::Goose {
            map.insert("name".into(), json!(name));
        }
        if let Some(token) = token {
            let headers = json!({"Authorization": format!("Bearer {token}")});
            if format == FileFormat::Continue {
                map.insert("requestOptions".into(), json!({ "headers": headers }));
            } else {
                map.insert("headers".into(), headers);
            }
        }
    }
    entry
}

fn plain_json_entry(client: Client, endpoint: &str, exe: &Path) -> Value {
    if let Some(entry) = client.http_entry(endpoint) {
        return Value::Object(entry);
    }
    // The bridge finds a hub at the default address by itself (as
    // docs/cli.md shows); any other endpoint is passed with `--url`.
    let args = if endpoint == DEFAULT_ENDPOINT {
        json!(["stdio"])
    } else {
        json!(["stdio", "--url", endpoint])
    };
    json!({"command": exe.to_string_lossy(), "args": args})
}

/// The ready-to-paste config that points `client` at Switchboard: a whole
/// JSON document (`mcpServers`, or `servers` for VS Code) or Codex's TOML
/// table. Used by `connect --print` and the UI's "Connect a client" panel.
pub fn snippet(client: Client, endpoint: &str, exe: &Path) -> String {
    spec_snippet(
        client,
        endpoint,
        exe,
        EntrySpec {
            name: SWITCHBOARD_ENTRY,
            token: None,
        },
    )
}

/// [`snippet`] for a profile's entry (its token included: for `--print`).
pub fn profile_snippet(
    client: Client,
    endpoint: &str,
    exe: &Path,
    profile: &ProfileEntry,
) -> String {
    let name = entry_name(Some(profile));
    spec_snippet(client, endpoint, exe, EntrySpec::of(Some(profile), &name))
}

fn spec_snippet(client: Client, endpoint: &str, exe: &Path, spec: EntrySpec<'_>) -> String {
    let format = client.format();
    if format.is_yaml() {
        let entry = json_entry(client, endpoint, exe, spec.name, spec.token);
        return super::connect_yaml::snippet(format, spec.name, entry);
    }
    if format == FileFormat::Codex {
        let mut doc = DocumentMut::new();
        let mut servers = Table::new();
        servers.set_implicit(true);
        let mut entry = Table::new();
        entry.insert("url", toml_edit::value(endpoint));
        if let Some(token) = spec.token {
            entry.insert("http_headers", codex_headers(token));
        }
        servers.insert(spec.name, Item::Table(entry));
        doc.insert("mcp_servers", Item::Table(servers));
        return doc.to_string();
    }
    let mut servers = Map::new();
    servers.insert(
        spec.name.into(),
        json_entry(client, endpoint, exe, spec.name, spec.token),
    );
    let mut root = Map::new();
    root.insert(container_key(format).into(), Value::Object(servers));
    format!("{}\n", render(&Value::Object(root), "", "  "))
}

/// Writes the `switchboard` entry into `req.client`'s user config (creating
/// the file if needed) and, with `disable_imported`, switches off the
/// client's entries for servers Switchboard's config already has.
///
/// Idempotent: when the file already says all that, nothing is written and no
/// backup is made. With `dry_run` nothing is written either way.
pub fn connect(req: &ConnectRequest) -> Result<ConnectReport, ClientError> {
    let client = req.client;
    let name = entry_name(req.profile.as_ref());
    let spec = EntrySpec::of(req.profile.as_ref(), &name);
    if spec.token.is_some() && !client.speaks_http() {
        return Err(ClientError::NoHeaders {
            client,
            profile: req
                .profile
                .as_ref()
                .map(|p| p.name.clone())
                .unwrap_or_default(),
        });
    }
    let Some(path) = client.user_path(&req.bases) else {
        return Err(ClientError::NoFile {
            client,
            reason: client.no_file_reason().unwrap_or_default(),
        });
    };
    let original = fsio::read_optional(&path)?;
    let known: Vec<(TransportKey, String)> = if req.disable_imported {
        existing_servers(&req.config_path)?
            .into_iter()
            .filter_map(|(id, key)| key.map(|k| (k, id)))
            .collect()
    } else {
        Vec::new()
    };
    let text = original.clone().unwrap_or_default();
    let format = client.format();
    let edit = if format.is_yaml() {
        super::connect_yaml::edit_yaml(
            format,
            &path,
            &text,
            json_entry(client, &req.endpoint, &req.exe, spec.name, spec.token),
            spec.name,
            req.disable_imported.then_some(&known[..]),
        )?
    } else if format == FileFormat::Codex {
        super::connect_toml::edit_toml(
            &path,
            &text,
            &req.endpoint,
            spec,
            req.disable_imported.then_some(&known[..]),
        )?
    } else {
        edit_json(
            client,
            &path,
            &text,
            json_entry(client, &req.endpoint, &req.exe, spec.name, spec.token),
            spec.name,
            req.disable_imported.then_some(&known[..]),
            req.dry_run,
        )?
    };
    let changed = original.as_deref() != Some(edit.text.as_str());
    let mut notes = edit.notes;
    if original.is_none() {
        notes.insert(
            0,
            format!("{} did not exist and is created", path.display()),
        );
    }
    let disable_method = (!edit.disabled.is_empty()).then(|| disable_method(format));
    let mut report = ConnectReport {
        client,
        file: path.clone(),
        dry_run: req.dry_run,
        entry: edit.entry,
        // A token shows masked: the report is printed and may be logged.
        snippet: spec_snippet(
            client,
            &req.endpoint,
            &req.exe,
            EntrySpec {
                name: spec.name,
                token: spec.token.map(|_| "***"),
            },
        ),
        disabled: edit.disabled,
        disable_method,
        moved_to: None,
        backup: None,
        changed,
        notes,
    };
    if req.dry_run || !changed {
        return Ok(report);
    }
    let now = fsio::unix_now();
    if original.is_some() {
        report.backup = Some(fsio::backup(&path, now)?);
    }
    if let Some(moved) = edit.moved_out {
        let target = fsio::free_sibling(&path, &format!(".switchboard-removed-{now}"));
        fsio::write_atomic(
            &target,
            &format!("{}\n", render(&moved, "", "  ")),
            FileMode::Private,
        )?;
        report.moved_to = Some(target);
    }
    // A file that now holds a token is the owner's only.
    let mode = if spec.token.is_some() {
        FileMode::Private
    } else {
        FileMode::Keep
    };
    fsio::write_atomic(&path, &edit.text, mode)?;
    Ok(report)
}

/// How `--disable-imported` switches a server off in files of `format`.
fn disable_method(format: FileFormat) -> DisableMethod {
    match (format, format.off_switch()) {
        (FileFormat::Codex, _) => DisableMethod::EnabledFalse,
        (FileFormat::Gemini, _) => DisableMethod::ExcludedList,
        (_, Some(off)) if off.key == "disabled" => DisableMethod::DisabledTrue,
        (_, Some(off)) if off.key == "active" => DisableMethod::ActiveFalse,
        (_, Some(_)) => DisableMethod::EnabledFalse,
        (_, None) => DisableMethod::MovedOut,
    }
}

/// The outcome of editing a client file in memory.
pub(super) struct Edited {
    pub text: String,
    pub entry: EntryChange,
    pub disabled: Vec<DisabledServer>,
    /// Removed entries in the file's own shape, to save beside it.
    pub moved_out: Option<Value>,
    pub notes: Vec<String>,
}

/// Keys that describe how a JSON entry reaches its server.
pub(super) const URL_KEYS: [&str; 5] = ["url", "serverUrl", "httpUrl", "uri", "type"];
pub(super) const STDIO_KEYS: [&str; 9] = [
    "command",
    "args",
    "env",
    "cwd",
    "envFile",
    "environment",
    "cmd",
    "envs",
    "env_keys",
];

fn edit_json(
    client: Client,
    path: &Path,
    text: &str,
    desired: Value,
    entry_name: &str,
    known: Option<&[(TransportKey, String)]>,
    dry_run: bool,
) -> Result<Edited, ClientError> {
    let format = client.format();
    let syntax = |err: super::jsonc::SyntaxError| ClientError::Syntax {
        path: path.to_path_buf(),
        line: err.line,
        column: err.column,
        message: err.message,
    };
    let shape = |message: String| ClientError::Shape {
        path: path.to_path_buf(),
        message,
    };
    let mut doc = Doc::parse(text).map_err(syntax)?;
    let container = container_key(format);
    let entry_path = [container, entry_name];
    let mut notes = Vec::new();

    // 1. The `switchboard` entry: add it, or fix its transport keys and keep the rest.
    let current = doc.get(&entry_path).map(|n| doc.node_value(n));
    let (entry, value) = match current {
        None => (EntryChange::Added, Some(desired)),
        Some(Value::Object(existing)) => {
            let mut desired = desired;
            if format == FileFormat::Gemini
                && let Some(endpoint) = desired.get("httpUrl").and_then(Value::as_str)
                && is_gemini_http_entry(&existing, endpoint)
            {
                desired = json!({"url": endpoint, "type": "http"});
            }
            let mut merged = existing.clone();
            let stale: &[&str] = if client.speaks_http() {
                &STDIO_KEYS
            } else {
                &["url", "serverUrl", "httpUrl", "type", "headers"]
            };
            for key in stale.iter().chain(URL_KEYS.iter()) {
                merged.remove(*key);
            }
            if let Value::Object(want) = desired {
                merged.extend(want);
            }
            switch_on(&mut merged, &mut notes);
            if merged == existing {
                (EntryChange::Unchanged, None)
            } else {
                (EntryChange::Updated, Some(Value::Object(merged)))
            }
        }
        Some(_) => {
            notes.push("replaced a `switchboard` entry that was not an object".into());
            (EntryChange::Updated, Some(desired))
        }
    };
    if let Some(value) = value {
        let next = doc.with_set(&entry_path, &value).map_err(shape)?;
        doc = Doc::parse(next).map_err(syntax)?;
    }

    // 2. Gemini's allow-list, when there is one, must let Switchboard in.
    if format == FileFormat::Gemini
        && let Some(allowed) = doc.get(&["mcp", "allowed"]).map(|n| doc.node_value(n))
        && let Some(list) = allowed.as_array()
        && !list.iter().any(|v| v.as_str() == Some(entry_name))
    {
        let mut list = list.clone();
        list.push(json!(entry_name));
        let next = doc
            .with_set(&["mcp", "allowed"], &Value::Array(list))
            .map_err(shape)?;
        doc = Doc::parse(next).map_err(syntax)?;
        notes.push(format!(
            "added `{entry_name}` to `mcp.allowed`, which lists the only servers Gemini CLI starts"
        ));
    }

    // 3. Switch off what Switchboard already serves.
    let mut disabled = Vec::new();
    let mut moved_out = None;
    if let Some(known) = known {
        let root = doc.value().unwrap_or_else(|| json!({}));
        let mut excluded: Vec<Value> = Vec::new();
        let mut moved = Value::Object(Map::new());
        for raw in entries(path, format, &root)? {
            if raw.name == SWITCHBOARD_ENTRY
                || raw.name == entry_name
                || points_at_switchboard(&raw.value, None)
            {
                continue;
            }
            let Ok(converted) = convert(format, &raw.value, false) else {
                continue;
            };
            let Some((_, id)) = known.iter().find(|(k, _)| *k == converted.key) else {
                continue;
            };
            if format == FileFormat::Gemini {
                if raw.disabled {
                    continue;
                }
                excluded.push(json!(raw.name));
            } else if let Some(off) = format.off_switch() {
                if raw.disabled || raw.value.get(off.key) == Some(&json!(off.off)) {
                    continue;
                }
                let mut at: Vec<&str> = raw.container.iter().map(String::as_str).collect();
                at.push(&raw.name);
                at.push(off.key);
                let next = doc.with_set(&at, &json!(off.off)).map_err(shape)?;
                doc = Doc::parse(next).map_err(syntax)?;
            } else {
                let mut at: Vec<&str> = raw.container.iter().map(String::as_str).collect();
                insert_at(&mut moved, &at, &raw.name, raw.value.clone());
                at.push(&raw.name);
                let next = doc.with_removed(&at);
                doc = Doc::parse(next).map_err(syntax)?;
            }
            disabled.push(DisabledServer {
                name: raw.name,
                scope: raw.scope,
                same_as: id.clone(),
            });
        }
        if !excluded.is_empty() {
            let mut list = doc
                .get(&["mcp", "excluded"])
                .map(|n| doc.node_value(n))
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default();
            list.extend(excluded);
            let next = doc
                .with_set(&["mcp", "excluded"], &Value::Array(list))
                .map_err(shape)?;
            doc = Doc::parse(next).map_err(syntax)?;
        }
        if !disabled.is_empty() && format != FileFormat::Gemini && format.off_switch().is_none() {
            let were = if dry_run { "would be" } else { "were" };
            notes.push(format!(
                "{client}'s config has no off switch for a server, so these {were} removed \
                 from it and saved beside it to paste back if needed"
            ));
            moved_out = Some(moved);
        }
        if format == FileFormat::ClaudeCode {
            notes.push(
                "project `.mcp.json` files are shared with a team and were not changed".into(),
            );
        }
    }
    Ok(Edited {
        text: doc.text().to_string(),
        entry,
        disabled,
        moved_out,
        notes,
    })
}

/// Removes the off switches (`disabled: true`, `enabled: false`, Jan's
/// `active: false`) from the hub's own entry, with a note.
pub(super) fn switch_on(entry: &mut Map<String, Value>, notes: &mut Vec<String>) {
    for (key, off) in [("disabled", true), ("enabled", false), ("active", false)] {
        if entry.get(key).and_then(Value::as_bool) == Some(off) {
            entry.remove(key);
            notes.push("the `switchboard` entry was switched off; it is on now".into());
        }
    }
}

/// Stores `value` under `path` + `name` in `root`, creating objects on the way.
pub(super) fn insert_at(root: &mut Value, path: &[&str], name: &str, value: Value) {
    let mut node = root;
    for key in path {
        let Value::Object(map) = node else { return };
        node = map
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if let Value::Object(map) = node {
        map.insert(name.to_string(), value);
    }
}

impl fmt::Display for ConnectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let would = if self.dry_run { "would be " } else { "" };
        let what = match self.entry {
            EntryChange::Added => format!("the `switchboard` entry {would}added to"),
            EntryChange::Updated => format!("the `switchboard` entry {would}updated in"),
            EntryChange::Unchanged => "the `switchboard` entry is already in".to_string(),
        };
        writeln!(f, "{}: {what} {}", self.client, self.file.display())?;
        if !self.disabled.is_empty() {
            let how = match self.disable_method {
                Some(DisableMethod::EnabledFalse) => "set `enabled = false`",
                Some(DisableMethod::DisabledTrue) => "set `disabled: true`",
                Some(DisableMethod::ActiveFalse) => "set `active: false`",
                Some(DisableMethod::ExcludedList) => "listed in `mcp.excluded`",
                _ => "removed",
            };
            writeln!(
                f,
                "Servers Switchboard already serves, {would}switched off ({how}):"
            )?;
            for d in &self.disabled {
                let scope = d
                    .scope
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                writeln!(
                    f,
                    "  - {}{scope}: same as Switchboard's {:?}",
                    d.name, d.same_as
                )?;
            }
        }
        if let Some(moved) = &self.moved_to {
            writeln!(f, "Removed entries saved in {}", moved.display())?;
        }
        if let Some(backup) = &self.backup {
            writeln!(f, "Previous version saved as {}", backup.display())?;
        }
        for note in &self.notes {
            writeln!(f, "Note: {note}")?;
        }
        if !self.changed {
            writeln!(f, "Nothing to change.")?;
        } else if self.dry_run {
            writeln!(f, "Dry run: nothing was written.")?;
        } else {
            writeln!(f, "Restart {} to pick up the change.", self.client)?;
        }
        Ok(())
    }
}
