//! `mcpServers.<id>.toolOverrides.<tool>`: the user's own words for one of a
//! server's tools — another name and description, default argument values,
//! arguments hidden from clients (which then always take their default).
//!
//! This module only reads and checks the key; the catalog applies an
//! override to what clients see and the gateway to each call. Overrides never
//! touch the server's own definition: pins and anything that reviews
//! definitions look at what the server listed.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The longest name an override may give a tool (the longest name the merged catalog exposes).
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// One tool's override, keyed in [`super::ServerConfig::tool_overrides`] by
/// the tool's name on the server.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOverride {
    /// The name clients see (before the server's prefix on the merged endpoint).
    pub name: Option<String>,
    pub description: Option<String>,
    /// Values filled in when a call leaves the argument out.
    pub arguments: Map<String, Value>,
    /// Arguments removed from the schema; a call may not pass them, and the
    /// value in `arguments` is always sent.
    pub hide_arguments: BTreeSet<String>,
}

#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a tool override (an object with `name`, `description`, `arguments` or `hideArguments`)"
)]
pub(super) struct RawToolOverride {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    arguments: Map<String, Value>,
    #[serde(default)]
    hide_arguments: BTreeSet<String>,
}

/// Checks a server's `toolOverrides`; the message names the tool and key.
pub(super) fn parse(
    raw: BTreeMap<String, RawToolOverride>,
) -> Result<BTreeMap<String, ToolOverride>, String> {
    raw.into_iter()
        .map(|(tool, o)| {
            let at = format!("`toolOverrides.{tool}`");
            if let Some(name) = &o.name {
                if name.is_empty() || name.len() > MAX_TOOL_NAME_LEN {
                    return Err(format!(
                        "{at}.name must have 1 to {MAX_TOOL_NAME_LEN} characters"
                    ));
                }
                if let Some(bad) = name
                    .chars()
                    .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
                {
                    return Err(format!(
                        "{at}.name {name:?} contains {bad:?}; only letters, digits, '_', '-' \
                         and '.' are allowed"
                    ));
                }
            }
            if let Some(hidden) = o
                .hide_arguments
                .iter()
                .find(|a| !o.arguments.contains_key(*a))
            {
                return Err(format!(
                    "{at}.hideArguments names {hidden:?}, which has no value in \
                     `arguments`: a hidden argument always takes its value from there"
                ));
            }
            Ok((
                tool,
                ToolOverride {
                    name: o.name,
                    description: o.description,
                    arguments: o.arguments,
                    hide_arguments: o.hide_arguments,
                },
            ))
        })
        .collect()
}

/// Checks one override given alone (the dashboard's editor): `value` as
/// `toolOverrides.<tool>` takes it; the message names the key.
pub(super) fn check_one(tool: &str, value: &Value) -> Result<(), String> {
    let raw: RawToolOverride = serde_json::from_value(value.clone())
        .map_err(|err| format!("`toolOverrides.{tool}`: {err}"))?;
    parse(BTreeMap::from([(tool.to_string(), raw)])).map(|_| ())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{ConfigError, Source, load};

    fn refused(overrides: &str) -> String {
        let text = format!(
            r#"{{"mcpServers": {{"s": {{"command": "x", "toolOverrides": {overrides}}}}}}}"#
        );
        match load(Source::text(&text, Path::new("config.json")).shape_only()) {
            Err(ConfigError::Invalid { message, .. }) => message,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn bad_overrides_are_refused_naming_the_tool_and_key() {
        let m = refused(r#"{"t": {"name": "has space"}}"#);
        assert!(m.contains("toolOverrides.t") && m.contains("' '"), "{m}");
        let m = refused(r#"{"t": {"name": ""}}"#);
        assert!(m.contains("toolOverrides.t`.name"), "{m}");
        let m = refused(r#"{"t": {"hideArguments": ["p"]}}"#);
        assert!(m.contains("\"p\"") && m.contains("arguments"), "{m}");
        let m = refused(r#"{"t": {"rename": "x"}}"#);
        assert!(m.contains("rename"), "{m}");
    }

    #[test]
    fn a_good_override_is_kept() {
        let text = r#"{"mcpServers": {"s": {"command": "x", "toolOverrides": {"t": {"name": "n", "description": "d", "arguments": {"a": 1, "b": "x"}, "hideArguments": ["b"]}}}}}"#;
        let config = load(Source::text(text, Path::new("config.json")).shape_only()).unwrap();
        let o = &config.servers[0].tool_overrides["t"];
        assert_eq!(o.name.as_deref(), Some("n"));
        assert_eq!(o.description.as_deref(), Some("d"));
        assert_eq!(o.arguments.len(), 2);
        assert!(o.hide_arguments.contains("b"));
    }
}
