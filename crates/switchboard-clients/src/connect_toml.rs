//! `connect` for Codex's `config.toml`: the hub's `[mcp_servers.<name>]`
//! table added or fixed with `toml_edit` (comments and layout kept), and
//! `--disable-imported` as `enabled = false` on the servers Switchboard
//! already serves.

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table};

use super::connect::{DisabledServer, Edited, EntryChange, SWITCHBOARD_ENTRY};
use super::convert::{TransportKey, convert};
use super::import::points_at_switchboard;
use super::profile::{EntrySpec, codex_headers};
use super::read::item_to_json;
use super::{ClientError, FileFormat};

pub(super) fn edit_toml(
    path: &Path,
    text: &str,
    endpoint: &str,
    spec: EntrySpec<'_>,
    known: Option<&[(TransportKey, String)]>,
) -> Result<Edited, ClientError> {
    let shape = |message: &str| ClientError::Shape {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    // Parsing through `read::parse` first gives syntax errors a line and column.
    super::read::parse(path, text, FileFormat::Codex)?;
    let mut doc: DocumentMut = text.parse().map_err(|_| shape("not valid TOML"))?;
    if !doc.contains_key("mcp_servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert("mcp_servers", Item::Table(servers));
    }
    let servers = doc
        .get_mut("mcp_servers")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| shape("`mcp_servers` is not a table"))?;
    let mut notes = Vec::new();

    let entry = match servers.get_mut(spec.name) {
        None => {
            let mut table = Table::new();
            table.insert("url", toml_edit::value(endpoint));
            if let Some(token) = spec.token {
                table.insert("http_headers", codex_headers(token));
            }
            servers.insert(spec.name, Item::Table(table));
            EntryChange::Added
        }
        Some(item) => {
            let table = item
                .as_table_like_mut()
                .ok_or_else(|| shape(&format!("`mcp_servers.{}` is not a table", spec.name)))?;
            let mut change = EntryChange::Unchanged;
            if table.get("url").and_then(Item::as_str) != Some(endpoint) {
                table.insert("url", toml_edit::value(endpoint));
                change = EntryChange::Updated;
            }
            if let Some(token) = spec.token {
                let want = format!("Bearer {token}");
                let has = table
                    .get("http_headers")
                    .and_then(|h| h.get("Authorization"))
                    .and_then(Item::as_str);
                if has != Some(want.as_str()) {
                    table.insert("http_headers", codex_headers(token));
                    change = EntryChange::Updated;
                }
            }
            for key in ["command", "args", "env", "env_vars", "cwd"] {
                if table.remove(key).is_some() {
                    change = EntryChange::Updated;
                }
            }
            if table.get("enabled").and_then(Item::as_bool) == Some(false) {
                table.remove("enabled");
                notes.push("the `switchboard` entry was switched off; it is on now".into());
                change = EntryChange::Updated;
            }
            change
        }
    };

    let mut disabled = Vec::new();
    if let Some(known) = known {
        for (name, item) in servers.iter_mut() {
            if name.get() == SWITCHBOARD_ENTRY || name.get() == spec.name {
                continue;
            }
            let raw = item_to_json(item);
            if points_at_switchboard(&raw, None) {
                continue;
            }
            let Ok(converted) = convert(FileFormat::Codex, &raw, false) else {
                continue;
            };
            let Some((_, id)) = known.iter().find(|(k, _)| *k == converted.key) else {
                continue;
            };
            let Some(table) = item.as_table_like_mut() else {
                continue;
            };
            if table.get("enabled").and_then(Item::as_bool) == Some(false) {
                continue;
            }
            table.insert("enabled", toml_edit::value(false));
            disabled.push(DisabledServer {
                name: name.get().to_string(),
                scope: None,
                same_as: id.clone(),
            });
        }
    }
    Ok(Edited {
        text: doc.to_string(),
        entry,
        disabled,
        moved_out: None,
        notes,
    })
}
