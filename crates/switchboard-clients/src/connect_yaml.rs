//! `connect` for the YAML clients: Continue (`mcpServers`, a list of
//! `{name, ...}` items) and Goose (`extensions`, a map). The hub's entry is
//! added or fixed inside that one top-level block, which is rewritten
//! ([`yaml::with_top_level`](super::yaml::with_top_level)); the rest of the
//! file keeps its bytes. `--disable-imported` sets Goose's `enabled: false`;
//! Continue has no off switch, so its entries are left alone (with a note).

use std::path::Path;

use serde_json::{Map, Value, json};

use super::connect::{
    DisabledServer, Edited, EntryChange, STDIO_KEYS, SWITCHBOARD_ENTRY, URL_KEYS, switch_on,
};
use super::convert::{TransportKey, convert};
use super::import::points_at_switchboard;
use super::read::entries;
use super::{ClientError, FileFormat, yaml};

/// The snippet `connect --print` shows: the block with only the hub's entry.
pub(super) fn snippet(format: FileFormat, name: &str, entry: Value) -> String {
    let block = match format {
        FileFormat::Continue => json!([with_name(name, entry)]),
        _ => json!({ name: entry }),
    };
    yaml::render(format.container(), &block).unwrap_or_default()
}

/// Continue's items carry their name first.
fn with_name(name: &str, entry: Value) -> Value {
    let mut item = Map::new();
    item.insert("name".into(), json!(name));
    if let Value::Object(rest) = entry {
        item.extend(rest.into_iter().filter(|(k, _)| k != "name"));
    }
    Value::Object(item)
}

pub(super) fn edit_yaml(
    format: FileFormat,
    path: &Path,
    text: &str,
    desired: Value,
    entry_name: &str,
    known: Option<&[(TransportKey, String)]>,
) -> Result<Edited, ClientError> {
    let shape = |message: String| ClientError::Shape {
        path: path.to_path_buf(),
        message,
    };
    let root = yaml::parse(path, text)?;
    let key = format.container();
    let mut block = root.get(key).cloned().unwrap_or(Value::Null);
    if block.is_null() {
        block = match format {
            FileFormat::Continue => json!([]),
            _ => json!({}),
        };
    }
    let mut notes = Vec::new();

    // 1. The hub's entry: add it, or fix its transport keys and keep the rest.
    let current: Option<&mut Value> = match (&mut block, format) {
        (Value::Array(items), FileFormat::Continue) => items
            .iter_mut()
            .find(|i| i.get("name").and_then(Value::as_str) == Some(entry_name)),
        (Value::Object(map), FileFormat::Goose) => map.get_mut(entry_name),
        _ => {
            return Err(shape(format!(
                "`{key}` is not a {}",
                if format == FileFormat::Continue {
                    "list"
                } else {
                    "mapping"
                }
            )));
        }
    };
    let entry = match current {
        Some(Value::Object(existing)) => {
            let mut merged = existing.clone();
            for k in STDIO_KEYS.iter().chain(URL_KEYS.iter()) {
                merged.remove(*k);
            }
            merged.remove("requestOptions");
            merged.remove("headers");
            if let Value::Object(want) = desired {
                merged.extend(want);
            }
            switch_on(&mut merged, &mut notes);
            if format == FileFormat::Continue {
                merged = match with_name(entry_name, Value::Object(merged)) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
            }
            if merged == *existing {
                EntryChange::Unchanged
            } else {
                *existing = merged;
                EntryChange::Updated
            }
        }
        Some(other) => {
            notes.push("replaced a `switchboard` entry that was not a mapping".into());
            *other = desired;
            EntryChange::Updated
        }
        None => {
            match &mut block {
                Value::Array(items) => items.push(with_name(entry_name, desired)),
                Value::Object(map) => {
                    map.insert(entry_name.into(), desired);
                }
                _ => {}
            }
            EntryChange::Added
        }
    };

    // 2. Switch off what Switchboard already serves (Goose only).
    let mut disabled = Vec::new();
    if let Some(known) = known {
        let mut doc = Map::new();
        doc.insert(key.into(), block.clone());
        for raw in entries(path, format, &Value::Object(doc))? {
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
            if format == FileFormat::Continue {
                notes.push(format!(
                    "Continue has no off switch for a server: remove `{}` from {} by hand",
                    raw.name,
                    path.display()
                ));
                continue;
            }
            let Some(Value::Object(ext)) = block.get_mut(&raw.name) else {
                continue;
            };
            if ext.get("enabled") == Some(&json!(false)) {
                continue;
            }
            ext.insert("enabled".into(), json!(false));
            disabled.push(DisabledServer {
                name: raw.name,
                scope: None,
                same_as: id.clone(),
            });
        }
    }

    let unchanged = root.get(key) == Some(&block);
    let text = if unchanged {
        text.to_string()
    } else {
        let replaced = yaml::with_top_level(path, text, key, &block)?;
        if replaced.lost_comments {
            notes.push(format!(
                "the `{key}` block was rewritten and the comments inside it are gone (the \
                 previous file is in the backup); the rest of the file is as it was"
            ));
        }
        replaced.text
    };
    Ok(Edited {
        text,
        entry,
        disabled,
        moved_out: None,
        notes,
    })
}
