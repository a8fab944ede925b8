//! Edits of the config file that the person did not type themselves: today,
//! turning one server on or off (`switchboard enable|disable`, the
//! dashboard's switch).
//!
//! An edit is refused on a file that does not parse (the person is probably
//! mid-edit), and it changes only the key it is about: every other key keeps
//! its value and its place (serde_json keeps object keys in file order). The
//! text comes back pretty-printed with a final newline; writing it is the
//! caller's ([`crate::util::files::write_atomic`], which keeps the file's
//! mode, owner and symlink).

use std::path::Path;

use super::{Config, ConfigError};

/// Why an edit was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file does not parse as a config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No server with this id in `mcpServers`.
    #[error("no server with id '{0}'")]
    UnknownServer(String),
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
    Config::parse_bytes(bytes, path)?;
    let text = String::from_utf8_lossy(bytes);
    let mut doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|err| ConfigError::Invalid {
            path: path.to_path_buf(),
            line: err.line(),
            column: err.column(),
            message: err.to_string(),
        })?;
    let entry = doc
        .get_mut("mcpServers")
        .and_then(|servers| servers.get_mut(id))
        .and_then(|entry| entry.as_object_mut())
        .ok_or_else(|| EditError::UnknownServer(id.to_string()))?;
    if enabled {
        entry.remove("enabled");
    } else {
        entry.insert("enabled".into(), serde_json::Value::Bool(false));
    }
    let mut text = serde_json::to_string_pretty(&doc).map_err(|err| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: err.line(),
        column: err.column(),
        message: err.to_string(),
    })?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

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

    fn edit(text: &str, id: &str, enabled: bool) -> Result<String, EditError> {
        set_server_enabled(text.as_bytes(), Path::new("c.json"), id, enabled)
    }

    #[test]
    fn turning_a_server_off_and_on_changes_only_its_enabled_key() {
        let off = edit(FILE, "alpha", false).unwrap();
        assert_eq!(
            off,
            r#"{
  "settings": {
    "pollIntervalSecs": 0
  },
  "mcpServers": {
    "zeta": {
      "command": "z",
      "args": [
        "1"
      ],
      "enabled": false
    },
    "alpha": {
      "url": "https://example.com/mcp",
      "disabledTools": [
        "b",
        "a"
      ],
      "enabled": false
    }
  },
  "globalShortcut": "kept"
}
"#
        );
        let config = Config::parse(&off, Path::new("c.json")).unwrap();
        assert!(!config.server("alpha").unwrap().enabled);

        let on = edit(&off, "zeta", true).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&on).unwrap();
        assert_eq!(
            doc["mcpServers"]["zeta"],
            serde_json::json!({"command": "z", "args": ["1"]})
        );
        let config = Config::parse(&on, Path::new("c.json")).unwrap();
        assert!(config.server("zeta").unwrap().enabled);
        assert!(!config.server("alpha").unwrap().enabled);
        // Turning on a server that is on already leaves it as it was.
        assert_eq!(edit(&on, "zeta", true).unwrap(), on);
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
    }
}
