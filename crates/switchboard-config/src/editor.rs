//! Edits of the config file that the person did not type themselves: turning
//! one server on or off (`switchboard enable|disable`, the dashboard's
//! switch), and adding, replacing or removing one server (the dashboard's
//! server form, `PUT`/`DELETE /api/v1/servers/{id}`).
//!
//! An edit is refused on a file that does not parse (the person is probably
//! mid-edit), and it changes only the member it is about: the text is
//! spliced ([`super::splice`]), so every other byte of the file stays as it
//! was — indentation (spaces or tabs, any width, or none), line endings
//! (`\n` or `\r\n`), key order, the final newline. A new member is written
//! like its siblings. The result is parsed by the loader before it is
//! returned, so an edit never produces a file the hub would refuse. Writing
//! it is the caller's ([`switchboard_util::files::write_atomic`], which keeps the
//! file's mode, owner and symlink).

use std::path::Path;

use serde_json::Value;

use super::splice::{self, Layout};
use super::{ConfigError, ServerId, Source, load};

/// Why an edit was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file does not parse as a config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No server with this id in `mcpServers`.
    #[error("no server with id '{0}'")]
    UnknownServer(String),
    /// The id is not a valid server id.
    #[error("invalid server id '{id}': {message}")]
    InvalidId { id: String, message: String },
    /// The definition given for a server is refused by the loader.
    #[error("{message}")]
    Definition { id: String, message: String },
    /// The file's text could not be scanned where the edit goes (it changed
    /// shape in a way the loader accepts but the editor does not follow).
    #[error("{path}: cannot edit `mcpServers` in this file: {message}")]
    Shape {
        path: std::path::PathBuf,
        message: String,
    },
}

/// The text of the config file `bytes` (read from `path`, which only labels
/// errors) with server `id` turned on or off: on removes its `enabled` key
/// (on is the default), off sets `"enabled": false`.
pub fn set_server_enabled(
    bytes: &[u8],
    path: &Path,
    id: &str,
    enabled: bool,
) -> Result<String, EditError> {
    let text = parsed_text(bytes, path)?;
    let layout = Layout::of(text);
    let server = server_object(text, path, id)?;
    let edit = match (server.member("enabled"), enabled) {
        (Some((index, _)), true) => splice::remove_member(&server, index),
        (None, true) => None,
        (Some((_, member)), false) => Some(splice::replace_value(
            text,
            &server,
            member,
            &Value::Bool(false),
            &layout,
        )),
        (None, false) => Some(splice::insert_member(
            text,
            &server,
            "enabled",
            &Value::Bool(false),
            &layout,
        )),
    };
    match edit {
        Some(edit) => checked(text, &edit, path),
        None => Ok(text.to_string()),
    }
}

/// The text of the config file `bytes` with tool `tool` (its own name at
/// server `id`, as in `disabledTools`) hidden or shown again: hiding appends
/// it to the server's `disabledTools` (created when missing), showing removes
/// it (and the key, when it was the last one). Already so → the text as it was.
pub fn set_tool_disabled(
    bytes: &[u8],
    path: &Path,
    id: &str,
    tool: &str,
    disabled: bool,
) -> Result<String, EditError> {
    set_listed(bytes, path, id, "disabledTools", tool, disabled)
}

/// The text of the config file `bytes` with `tool` added to server `id`'s
/// `allowTools` (created when missing): its calls no longer ask for
/// approval (an `always` answer, see the engine's `approval` module). Already there → the
/// text as it was.
pub fn add_allowed_tool(
    bytes: &[u8],
    path: &Path,
    id: &str,
    tool: &str,
) -> Result<String, EditError> {
    set_listed(bytes, path, id, "allowTools", tool, true)
}

/// The text of the config file `bytes` with server `id`'s override of
/// `tool` (its own name at the server) set to `value` (an object as
/// `toolOverrides.<tool>` takes, checked alone first: a refusal is
/// [`EditError::Definition`] naming the key) or, with `None`, removed (and
/// `toolOverrides` with it when it was the last one). The dashboard's
/// override editor, `PUT`/`DELETE /api/v1/servers/{id}/tools/{tool}/override`.
pub fn set_tool_override(
    bytes: &[u8],
    path: &Path,
    id: &str,
    tool: &str,
    value: Option<&Value>,
) -> Result<String, EditError> {
    if let Some(value) = value {
        super::overrides::check_one(tool, value).map_err(|message| EditError::Definition {
            id: id.to_string(),
            message,
        })?;
    }
    let text = parsed_text(bytes, path)?;
    let layout = Layout::of(text);
    let shape = |message: &str| shape_error(path, message);
    let server = server_object(text, path, id)?;
    let edit = match (server.member("toolOverrides"), value) {
        (None, None) => return Ok(text.to_string()),
        (None, Some(value)) => {
            let mut overrides = serde_json::Map::new();
            overrides.insert(tool.to_string(), value.clone());
            let overrides = Value::Object(overrides);
            splice::insert_member(text, &server, "toolOverrides", &overrides, &layout)
        }
        (Some((index, member)), value) => {
            let overrides = splice::object_value(text, member)
                .ok_or_else(|| shape("`toolOverrides` is not an object"))?;
            match (overrides.member(tool), value) {
                (None, None) => return Ok(text.to_string()),
                (None, Some(value)) => {
                    splice::insert_member(text, &overrides, tool, value, &layout)
                }
                (Some((_, entry)), Some(value)) => {
                    splice::replace_value(text, &overrides, entry, value, &layout)
                }
                (Some((at, _)), None) if overrides.members.len() > 1 => {
                    splice::remove_member(&overrides, at).ok_or_else(|| shape("no member"))?
                }
                (Some(_), None) => {
                    splice::remove_member(&server, index).ok_or_else(|| shape("no member"))?
                }
            }
        }
    };
    checked(text, &edit, path)
}

/// `name` added to (`listed`) or removed from the list of strings `key` of
/// server `id`, as [`set_tool_disabled`] describes for `disabledTools`.
fn set_listed(
    bytes: &[u8],
    path: &Path,
    id: &str,
    key: &str,
    tool: &str,
    disabled: bool,
) -> Result<String, EditError> {
    let text = parsed_text(bytes, path)?;
    let layout = Layout::of(text);
    let shape = |message: &str| shape_error(path, message);
    let server = server_object(text, path, id)?;
    let Some((index, member)) = server.member(key) else {
        if !disabled {
            return Ok(text.to_string());
        }
        let list = Value::Array(vec![Value::String(tool.to_string())]);
        let edit = splice::insert_member(text, &server, key, &list, &layout);
        return checked(text, &edit, path);
    };
    // The loader accepted the file, so this is an array of strings.
    let mut names: Vec<String> = text
        .get(member.value_start..member.value_end)
        .and_then(|v| serde_json::from_str(v).ok())
        .ok_or_else(|| shape(&format!("`{key}` does not read back")))?;
    let listed = names.iter().any(|n| n == tool);
    let edit = match (listed, disabled) {
        (true, true) | (false, false) => return Ok(text.to_string()),
        (false, true) => {
            names.push(tool.to_string());
            splice::replace_value(text, &server, member, &names.into(), &layout)
        }
        (true, false) => {
            names.retain(|n| n != tool);
            if names.is_empty() {
                splice::remove_member(&server, index).ok_or_else(|| shape("no member"))?
            } else {
                splice::replace_value(text, &server, member, &names.into(), &layout)
            }
        }
    };
    checked(text, &edit, path)
}

/// The text of the config file with server `id` set to `definition` (added
/// as the last server, or replaced in place). `bytes` is `None` (or blank)
/// when there is no file yet: the result is then a new file. The definition
/// is checked by the loader first; a refused one is [`EditError::Definition`]
/// with the loader's words.
pub fn put_server(
    bytes: Option<&[u8]>,
    path: &Path,
    id: &str,
    definition: &Value,
) -> Result<String, EditError> {
    check_definition(id, definition)?;
    let blank = bytes.is_none_or(|b| b.iter().all(u8::is_ascii_whitespace));
    if blank {
        let mut servers = serde_json::Map::new();
        servers.insert(id.to_string(), definition.clone());
        let mut file = serde_json::Map::new();
        file.insert("mcpServers".into(), Value::Object(servers));
        let layout = Layout::of("");
        let style = splice::Style::Lines {
            layout: &layout,
            indent: String::new(),
            colon: ": ",
        };
        let mut text = splice::render(&Value::Object(file), &style);
        text.push('\n');
        load(Source::text(&text, path))?;
        return Ok(text);
    }
    let text = parsed_text(bytes.unwrap_or_default(), path)?;
    let layout = Layout::of(text);
    let shape = |message: &str| shape_error(path, message);
    let root = splice::root(text).ok_or_else(|| shape("the file is not an object"))?;
    let edit = match root.member("mcpServers") {
        Some((_, member)) => {
            let servers = splice::object_value(text, member)
                .ok_or_else(|| shape("`mcpServers` is not an object"))?;
            match servers.member(id) {
                Some((_, entry)) => {
                    splice::replace_value(text, &servers, entry, definition, &layout)
                }
                None => splice::insert_member(text, &servers, id, definition, &layout),
            }
        }
        None => {
            let mut servers = serde_json::Map::new();
            servers.insert(id.to_string(), definition.clone());
            splice::insert_member(text, &root, "mcpServers", &Value::Object(servers), &layout)
        }
    };
    checked(text, &edit, path)
}

/// The text of the config file without server `id` (its comma goes with it).
pub fn remove_server(bytes: &[u8], path: &Path, id: &str) -> Result<String, EditError> {
    let text = parsed_text(bytes, path)?;
    let servers = servers_object(text).ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    let (index, _) = servers
        .member(id)
        .ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    let edit =
        splice::remove_member(&servers, index).ok_or_else(|| shape_error(path, "no member"))?;
    checked(text, &edit, path)
}

/// Server `id`'s definition as written in the file (unredacted: for the
/// caller to redact before showing it).
pub fn server_definition(bytes: &[u8], path: &Path, id: &str) -> Result<Value, EditError> {
    let text = parsed_text(bytes, path)?;
    let servers = servers_object(text).ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    let (_, entry) = servers
        .member(id)
        .ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    text.get(entry.value_start..entry.value_end)
        .and_then(|v| serde_json::from_str(v).ok())
        .ok_or_else(|| shape_error(path, "a server definition does not read back"))
}

/// Checks that `id` is a valid server id and `definition` a server the loader
/// accepts, alone (so the message is about the definition, not a file).
pub fn check_definition(id: &str, definition: &Value) -> Result<(), EditError> {
    ServerId::new(id).map_err(|message| EditError::InvalidId {
        id: id.to_string(),
        message,
    })?;
    let mut servers = serde_json::Map::new();
    servers.insert(id.to_string(), definition.clone());
    let mut file = serde_json::Map::new();
    file.insert("mcpServers".into(), Value::Object(servers));
    match load(Source::text(
        &Value::Object(file).to_string(),
        Path::new(""),
    )) {
        Ok(_) => Ok(()),
        Err(ConfigError::Invalid { message, .. }) => Err(EditError::Definition {
            id: id.to_string(),
            message,
        }),
        Err(err) => Err(EditError::Definition {
            id: id.to_string(),
            message: err.to_string(),
        }),
    }
}

/// The file's text, after checking that the loader accepts it.
fn parsed_text<'b>(bytes: &'b [u8], path: &Path) -> Result<&'b str, EditError> {
    load(Source::bytes(bytes, path))?;
    std::str::from_utf8(bytes).map_err(|_| shape_error(path, "the file is not UTF-8 text"))
}

/// The `mcpServers` object of `text`, when there is one.
/// Server `id`'s object in the file's `mcpServers`.
fn server_object(text: &str, path: &Path, id: &str) -> Result<splice::Object, EditError> {
    let servers = servers_object(text).ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    let (_, entry) = servers
        .member(id)
        .ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    splice::object_value(text, entry).ok_or_else(|| shape_error(path, "a server is not an object"))
}

fn servers_object(text: &str) -> Option<splice::Object> {
    let root = splice::root(text)?;
    let (_, member) = root.member("mcpServers")?;
    splice::object_value(text, member)
}

/// `edit` applied to `text`, refused unless the loader accepts the result.
fn checked(text: &str, edit: &splice::Splice, path: &Path) -> Result<String, EditError> {
    let out = edit
        .apply(text)
        .ok_or_else(|| shape_error(path, "an edit fell outside the text"))?;
    load(Source::text(&out, path))?;
    Ok(out)
}

fn shape_error(path: &Path, message: &str) -> EditError {
    EditError::Shape {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    const FILE: &str = r#"{
  "settings": {"pollIntervalSecs": 0},
  "mcpServers": {
    "zeta": {"command": "z", "args": ["1"], "enabled": false},
    "alpha": {"url": "https://example.com/mcp", "disabledTools": ["b", "a"]}
  },
  "globalShortcut": "kept"
}
"#;

    fn path() -> &'static Path {
        Path::new("c.json")
    }

    #[test]
    fn a_tool_is_hidden_and_shown_again_keeping_the_rest() {
        let hide = |text: &str, id: &str, tool: &str, on: bool| {
            set_tool_disabled(text.as_bytes(), path(), id, tool, on).unwrap()
        };
        // Appended to an existing list, in place.
        let out = hide(FILE, "alpha", "c", true);
        assert_eq!(out, FILE.replace(r#"["b", "a"]"#, r#"["b", "a", "c"]"#));
        // Already hidden: nothing changes.
        assert_eq!(hide(&out, "alpha", "c", true), out);
        // Shown again: removed; the last one takes the key with it.
        assert_eq!(hide(&out, "alpha", "c", false), FILE);
        let one = hide(FILE, "zeta", "t", true);
        assert!(
            one.contains(r#""enabled": false, "disabledTools": ["t"]}"#),
            "{one}"
        );
        assert_eq!(hide(&one, "zeta", "t", false), FILE);
        assert_eq!(hide(FILE, "zeta", "t", false), FILE);
        let cfg = load(Source::text(&one, path())).unwrap();
        assert!(
            cfg.servers
                .iter()
                .any(|s| s.id.as_str() == "zeta" && s.disabled_tools.contains("t"))
        );
        assert_eq!(
            set_tool_disabled(FILE.as_bytes(), path(), "nope", "t", true).unwrap_err(),
            EditError::UnknownServer("nope".into())
        );
    }

    #[test]
    fn a_tool_override_is_set_replaced_and_removed_keeping_the_rest() {
        let set = |text: &str, tool: &str, value: Option<Value>| {
            set_tool_override(text.as_bytes(), path(), "zeta", tool, value.as_ref())
        };
        let first = json!({"name": "short", "arguments": {"n": 3}, "hideArguments": ["n"]});
        let one = set(FILE, "t", Some(first.clone())).unwrap();
        // Only the server's object grew: every byte before and after it stays.
        let (before, after) = changed_span(FILE, &one);
        assert_eq!(before, "", "nothing is taken out");
        assert!(after.contains(r#""toolOverrides": {"t": {"#), "{after}");
        let cfg = load(Source::text(&one, path())).unwrap();
        let zeta = cfg
            .servers
            .iter()
            .find(|s| s.id.as_str() == "zeta")
            .unwrap();
        assert_eq!(zeta.tool_overrides["t"].name.as_deref(), Some("short"));
        // A second tool beside it; then the first replaced in place.
        let two = set(&one, "u", Some(json!({"description": "Mine."}))).unwrap();
        let replaced = set(&two, "t", Some(json!({"name": "shorter"}))).unwrap();
        assert!(
            replaced.contains(r#""t": {"name": "shorter"}"#),
            "{replaced}"
        );
        assert!(
            replaced.contains(r#""u": {"description": "Mine."}"#),
            "{replaced}"
        );
        // Removed one by one: the last takes `toolOverrides` with it.
        let back = set(&replaced, "t", None).unwrap();
        assert_eq!(set(&back, "u", None).unwrap(), FILE);
        assert_eq!(set(FILE, "t", None).unwrap(), FILE);
        // Refused alone, naming the key; an unknown server is named too.
        for (bad, says) in [
            (
                json!({"hideArguments": ["n"]}),
                "has no value in `arguments`",
            ),
            (json!({"name": "a b"}), "toolOverrides.t`.name"),
            (json!({"rename": "x"}), "rename"),
            (json!("x"), "toolOverrides.t"),
        ] {
            match set(FILE, "t", Some(bad.clone())) {
                Err(EditError::Definition { message, .. }) => {
                    assert!(message.contains(says), "{bad}: {message}")
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert_eq!(
            set_tool_override(FILE.as_bytes(), path(), "nope", "t", Some(&first)).unwrap_err(),
            EditError::UnknownServer("nope".into())
        );
    }

    fn edit(text: &str, id: &str, enabled: bool) -> Result<String, EditError> {
        set_server_enabled(text.as_bytes(), path(), id, enabled)
    }

    fn put(text: &str, id: &str, def: &Value) -> String {
        put_server(Some(text.as_bytes()), path(), id, def).unwrap()
    }

    fn remove(text: &str, id: &str) -> String {
        remove_server(text.as_bytes(), path(), id).unwrap()
    }

    /// The ids and definitions of `text`'s servers, in file order.
    fn servers(text: &str) -> Vec<(String, Value)> {
        let doc: Value = serde_json::from_str(text).unwrap();
        doc["mcpServers"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    #[test]
    fn turning_a_server_off_and_on_changes_only_its_enabled_key() {
        let off = edit(FILE, "alpha", false).unwrap();
        assert_eq!(
            off,
            FILE.replace(r#"["b", "a"]}"#, r#"["b", "a"], "enabled": false}"#)
        );
        let config = load(Source::text(&off, path())).unwrap();
        assert!(!config.server("alpha").unwrap().enabled);

        let on = edit(&off, "zeta", true).unwrap();
        assert_eq!(on, off.replace(r#"["1"], "enabled": false}"#, r#"["1"]}"#));
        let config = load(Source::text(&on, path())).unwrap();
        assert!(config.server("zeta").unwrap().enabled);
        assert!(!config.server("alpha").unwrap().enabled);
        // Turning on a server that is on already leaves it as it was.
        assert_eq!(edit(&on, "zeta", true).unwrap(), on);
        // An explicit `"enabled": true` becomes false in place.
        let explicit = on.replace(r#""z","#, r#""z", "enabled": true,"#);
        assert_eq!(
            edit(&explicit, "zeta", false).unwrap(),
            on.replace(r#""z","#, r#""z", "enabled": false,"#)
        );
    }

    #[test]
    fn a_broken_file_or_an_unknown_server_is_not_edited() {
        assert_eq!(
            edit(FILE, "nope", false),
            Err(EditError::UnknownServer("nope".into()))
        );
        let broken = FILE.replace(r#""z","#, r#""z",,"#);
        assert!(matches!(
            edit(&broken, "alpha", false),
            Err(EditError::Config(ConfigError::Invalid { line: 4, .. }))
        ));
        assert!(matches!(
            put_server(
                Some(broken.as_bytes()),
                path(),
                "n",
                &json!({"command": "x"})
            ),
            Err(EditError::Config(ConfigError::Invalid { line: 4, .. }))
        ));
        assert!(matches!(
            remove_server(broken.as_bytes(), path(), "alpha"),
            Err(EditError::Config(_))
        ));
        assert_eq!(
            remove_server(FILE.as_bytes(), path(), "nope"),
            Err(EditError::UnknownServer("nope".into()))
        );
        assert_eq!(
            remove_server(b"{}", path(), "nope"),
            Err(EditError::UnknownServer("nope".into()))
        );
    }

    #[test]
    fn a_refused_definition_or_id_names_the_loaders_reason() {
        let err = put_server(Some(FILE.as_bytes()), path(), "n", &json!({"args": []})).unwrap_err();
        assert!(
            matches!(&err, EditError::Definition { id, .. } if id == "n"),
            "{err:?}"
        );
        assert!(err.to_string().contains("server \"n\""), "{err}");
        let err = put_server(
            Some(FILE.as_bytes()),
            path(),
            "n",
            &json!({"command": "x", "colour": 1}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
        let err = put_server(
            Some(FILE.as_bytes()),
            path(),
            "a.b",
            &json!({"command": "x"}),
        )
        .unwrap_err();
        assert!(matches!(err, EditError::InvalidId { .. }), "{err:?}");
    }

    /// The same config written four ways.
    fn layouts() -> Vec<(&'static str, String)> {
        let doc = json!({
            "settings": {"pollIntervalSecs": 0},
            "mcpServers": {
                "first": {"command": "a", "args": ["x", "y"]},
                "middle": {"url": "http://127.0.0.1:1/mcp", "headers": {"X-A": "b"}},
                "last": {"command": "c", "env": {"K": "v"}}
            },
            "after": [1, 2]
        });
        let pretty = |indent: &[u8]| {
            let mut out = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(indent);
            let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
            serde::Serialize::serialize(&doc, &mut ser).unwrap();
            String::from_utf8(out).unwrap() + "\n"
        };
        vec![
            ("compact", doc.to_string()),
            ("two spaces", pretty(b"  ")),
            ("four spaces", pretty(b"    ")),
            ("tabs", pretty(b"\t")),
            ("crlf", pretty(b"  ").replace('\n', "\r\n")),
        ]
    }

    /// `after` is `before` with one span replaced: the common prefix and
    /// suffix cover everything but that span.
    fn changed_span(before: &str, after: &str) -> (String, String) {
        let prefix = before
            .bytes()
            .zip(after.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let suffix = before[prefix..]
            .bytes()
            .rev()
            .zip(after[prefix..].bytes().rev())
            .take_while(|(a, b)| a == b)
            .count();
        (
            before[prefix..before.len() - suffix].to_string(),
            after[prefix..after.len() - suffix].to_string(),
        )
    }

    #[test]
    fn every_layout_keeps_every_byte_outside_the_edit() {
        let new = json!({"command": "n", "args": ["--flag"]});
        for (name, text) in layouts() {
            let nl = if name == "crlf" { "\r\n" } else { "\n" };
            // Add: the new member follows the last one, written like it.
            let added = put(&text, "new", &new);
            assert!(added.starts_with(&text[..text.find(r#""after""#).unwrap() - 20]));
            let (_, inserted) = changed_span(&text, &added);
            assert!(inserted.starts_with(','), "{name}: {inserted:?}");
            assert!(inserted.contains(r#""new""#), "{name}: {inserted:?}");
            if name == "compact" {
                assert_eq!(inserted, r#","new":{"command":"n","args":["--flag"]}"#);
            } else {
                assert!(!inserted.contains(if nl == "\n" { "\r" } else { "\n\n" }));
                let indent = match name {
                    "four spaces" => "        ",
                    "tabs" => "\t\t",
                    _ => "    ",
                };
                assert!(
                    inserted.starts_with(&format!(",{nl}{indent}\"new\": {{{nl}{indent}")),
                    "{name}: {inserted:?}"
                );
            }
            let ids: Vec<String> = servers(&added).into_iter().map(|(id, _)| id).collect();
            assert_eq!(ids, ["first", "middle", "last", "new"], "{name}");
            assert_eq!(servers(&added)[3].1, new, "{name}");
            // Removing what was added gives the file back, byte for byte.
            assert_eq!(remove(&added, "new"), text, "{name}");

            // Replace: only the value changes.
            let replaced = put(&text, "middle", &new);
            let (old, _) = changed_span(&text, &replaced);
            assert!(
                !old.contains("first") && !old.contains("last"),
                "{name}: {old:?}"
            );
            assert_eq!(servers(&replaced)[1], ("middle".to_string(), new.clone()));
            assert_eq!(servers(&replaced)[0], servers(&text)[0]);
            assert_eq!(servers(&replaced)[2], servers(&text)[2]);
            // Putting the same definition back restores the file (same layout).
            let back = put(&replaced, "middle", &servers(&text)[1].1);
            assert_eq!(back, text, "{name}");

            // Remove first, middle, last: the others are unchanged and in order.
            for (i, id) in ["first", "middle", "last"].iter().enumerate() {
                let removed = remove(&text, id);
                let mut expected = servers(&text);
                expected.remove(i);
                assert_eq!(servers(&removed), expected, "{name} {id}");
                let (gone, added) = changed_span(&text, &removed);
                assert!(added.is_empty(), "{name} {id}: {added:?}");
                assert!(gone.contains(id), "{name} {id}: {gone:?}");
                let others = ["first", "middle", "last"];
                for other in others.iter().filter(|o| *o != id) {
                    assert!(!gone.contains(other), "{name} {id}: {gone:?}");
                }
                load(Source::text(&removed, path())).unwrap();
            }
            // Enable/disable in every layout keeps the rest too.
            let off = edit(&text, "last", false).unwrap();
            let (gone, added) = changed_span(&text, &off);
            assert!(gone.is_empty() || gone == "}", "{name}: {gone:?}");
            assert!(added.contains(r#""enabled""#), "{name}: {added:?}");
            assert_eq!(edit(&off, "last", true).unwrap(), text, "{name}");
            if name == "crlf" {
                assert!(!added.replace("\r\n", "").contains('\n'), "{added:?}");
            }
        }
    }

    #[test]
    fn the_only_member_an_empty_object_and_no_mcp_servers() {
        let def = json!({"command": "x"});
        // Only member: removing it leaves `{}`.
        let only = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n";
        assert_eq!(remove(only, "a"), "{\n  \"mcpServers\": {}\n}\n");
        // Empty mcpServers, pretty and compact.
        assert_eq!(
            put("{\n  \"mcpServers\": {}\n}\n", "a", &def),
            "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"
        );
        assert_eq!(
            put(r#"{"mcpServers":{}}"#, "a", &def),
            r#"{"mcpServers":{"a":{"command":"x"}}}"#
        );
        // No mcpServers key: added after the last member.
        assert_eq!(
            put("{\n\t\"settings\": {}\n}", "a", &def),
            "{\n\t\"settings\": {},\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"command\": \"x\"\n\t\t}\n\t}\n}"
        );
        assert_eq!(
            put("{}", "a", &def),
            r#"{"mcpServers":{"a":{"command":"x"}}}"#
        );
        // No file, or a blank one: a new file.
        let new = "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n";
        assert_eq!(put_server(None, path(), "a", &def).unwrap(), new);
        assert_eq!(put_server(Some(b" \n"), path(), "a", &def).unwrap(), new);
        // Keys with escapes and strings holding braces do not confuse the scan.
        let tricky = r#"{"x": "}{\"", "mcpServers": {"a\u0062": {"command": "}\\"}}}"#;
        assert_eq!(
            put(tricky, "ab", &def),
            r#"{"x": "}{\"", "mcpServers": {"a\u0062": {"command": "x"}}}"#
        );
        assert_eq!(
            server_definition(tricky.as_bytes(), path(), "ab").unwrap(),
            json!({"command": "}\\"})
        );
    }

    /// A small deterministic generator (no extra dependency).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n
        }
    }

    #[test]
    fn random_edits_keep_the_file_loadable_and_the_other_servers_equal() {
        let defs = [
            json!({"command": "a"}),
            json!({"command": "b", "args": ["1", "}\"{"], "env": {"K": "v"}}),
            json!({"url": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}, "enabled": false}),
            json!({"command": "c", "disabledTools": []}),
        ];
        let mut rng = Lcg(7);
        for (name, start) in layouts() {
            let mut text = start.clone();
            let mut model = servers(&text);
            for _ in 0..60 {
                let id = format!("s{}", rng.next(6));
                match rng.next(4) {
                    0 | 1 => {
                        let def = defs[rng.next(defs.len())].clone();
                        text = put(&text, &id, &def);
                        match model.iter_mut().find(|(k, _)| *k == id) {
                            Some(entry) => entry.1 = def,
                            None => model.push((id, def)),
                        }
                    }
                    2 => match remove_server(text.as_bytes(), path(), &id) {
                        Ok(out) => {
                            text = out;
                            model.retain(|(k, _)| *k != id);
                        }
                        Err(EditError::UnknownServer(_)) => {
                            assert!(model.iter().all(|(k, _)| *k != id));
                        }
                        Err(err) => panic!("{name}: {err}"),
                    },
                    _ => {
                        let on = rng.next(2) == 0;
                        match edit(&text, &id, on) {
                            Ok(out) => {
                                text = out;
                                let entry = model.iter_mut().find(|(k, _)| *k == id).unwrap();
                                let obj = entry.1.as_object_mut().unwrap();
                                if on {
                                    obj.remove("enabled");
                                } else {
                                    obj.insert("enabled".into(), Value::Bool(false));
                                }
                            }
                            Err(EditError::UnknownServer(_)) => {}
                            Err(err) => panic!("{name}: {err}"),
                        }
                    }
                }
                load(Source::text(&text, path())).unwrap();
                assert_eq!(servers(&text), model, "{name}:\n{text}");
                if name == "crlf" {
                    assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
                }
                let doc: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(doc["after"], json!([1, 2]), "{name}");
            }
        }
    }
}
