//! Reading a client's config file into its list of server entries.
//!
//! JSON files go through [`jsonc`](super::jsonc) (comments and trailing commas
//! allowed); Codex's TOML through `toml_edit` and Continue's and Goose's YAML
//! through [`yaml`](super::yaml), converted to JSON values so that one
//! converter handles every dialect.

use std::path::Path;

use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, TableLike};

use super::jsonc::Doc;
use super::{ClientError, FileFormat};

/// One server as the client wrote it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawEntry {
    pub name: String,
    /// Where in the file, when a file has several lists (Claude Code projects).
    pub scope: Option<String>,
    /// The path of keys leading to the entry's container, e.g. `["mcpServers"]`.
    pub container: Vec<String>,
    pub value: Value,
    /// Switched off by a list outside the entry.
    pub disabled: bool,
}

/// Parses `text` (a file in `format`) into a JSON value.
pub(crate) fn parse(path: &Path, text: &str, format: FileFormat) -> Result<Value, ClientError> {
    if format == FileFormat::Codex {
        let doc: DocumentMut = text.parse().map_err(|err: toml_edit::TomlError| {
            let (line, column) = err
                .span()
                .map(|span| line_col(text, span.start))
                .unwrap_or((1, 1));
            ClientError::Syntax {
                path: path.to_path_buf(),
                line,
                column,
                message: err.message().to_string(),
            }
        })?;
        return Ok(table_to_json(doc.as_table()));
    }
    if format.is_yaml() {
        return super::yaml::parse(path, text);
    }
    parse_json(path, text)
}

pub(crate) fn parse_json(path: &Path, text: &str) -> Result<Value, ClientError> {
    let doc = Doc::parse(text).map_err(|err| ClientError::Syntax {
        path: path.to_path_buf(),
        line: err.line,
        column: err.column,
        message: err.message,
    })?;
    Ok(doc.value().unwrap_or_else(|| Value::Object(Map::new())))
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The key holding servers in a file of `format`.
pub(crate) fn container_key(format: FileFormat) -> &'static str {
    format.container()
}

/// Every server entry of a parsed file, in file order.
pub(crate) fn entries(
    path: &Path,
    format: FileFormat,
    root: &Value,
) -> Result<Vec<RawEntry>, ClientError> {
    let shape = |message: String| ClientError::Shape {
        path: path.to_path_buf(),
        message,
    };
    let Some(root) = root.as_object() else {
        return Err(shape("the top level is not an object".into()));
    };
    let key = container_key(format);
    let excluded: Vec<String> = match format {
        FileFormat::Gemini => string_list(root.get("mcp").and_then(|m| m.get("excluded"))),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    let list =
        |container: &[&str], value: Option<&Value>, scope: Option<String>, off: &[String]| {
            let mut found = Vec::new();
            match value {
                None | Some(Value::Null) => {}
                Some(Value::Object(servers)) => {
                    for (name, value) in servers {
                        found.push(RawEntry {
                            name: name.clone(),
                            scope: scope.clone(),
                            container: container.iter().map(|s| s.to_string()).collect(),
                            value: value.clone(),
                            disabled: off.contains(name),
                        });
                    }
                }
                // Continue's list of `{name, ...}` items.
                Some(Value::Array(items)) if format == FileFormat::Continue => {
                    for (at, value) in items.iter().enumerate() {
                        let name = value
                            .get("name")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .ok_or_else(|| {
                                shape(format!(
                                    "item {} of `{}` has no `name`",
                                    at + 1,
                                    container.join(".")
                                ))
                            })?;
                        found.push(RawEntry {
                            disabled: off.contains(&name),
                            name,
                            scope: scope.clone(),
                            container: container.iter().map(|s| s.to_string()).collect(),
                            value: value.clone(),
                        });
                    }
                }
                Some(_) if format == FileFormat::Continue => {
                    return Err(shape(format!("`{}` is not a list", container.join("."))));
                }
                Some(_) => {
                    return Err(shape(format!("`{}` is not an object", container.join("."))));
                }
            }
            Ok(found)
        };
    let user_scope = (format == FileFormat::ClaudeCode).then(|| "user".to_string());
    out.extend(list(&[key], root.get(key), user_scope, &excluded)?);
    if format == FileFormat::ClaudeCode
        && let Some(projects) = root.get("projects").and_then(Value::as_object)
    {
        for (project, settings) in projects {
            let off = string_list(settings.get("disabledMcpServers"));
            out.extend(list(
                &["projects", project, "mcpServers"],
                settings.get("mcpServers"),
                Some(format!("local: {project}")),
                &off,
            )?);
        }
    }
    Ok(out)
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn table_to_json(t: &dyn TableLike) -> Value {
    let mut map = Map::new();
    for (k, item) in t.iter() {
        map.insert(k.to_string(), item_to_json(item));
    }
    Value::Object(map)
}

pub(crate) fn item_to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_to_json(v),
        Item::Table(t) => table_to_json(t),
        Item::ArrayOfTables(a) => Value::Array(a.iter().map(|t| table_to_json(t)).collect()),
    }
}

fn value_to_json(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match v {
        T::String(s) => Value::String(s.value().clone()),
        T::Integer(i) => Value::from(*i.value()),
        T::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number),
        T::Boolean(b) => Value::Bool(*b.value()),
        T::Datetime(d) => Value::String(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        T::InlineTable(t) => table_to_json(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn codex_toml_becomes_json() {
        let text = "# c\n[mcp_servers.a]\ncommand = \"x\"\nargs = [\"1\"]\n\n[mcp_servers.a.env]\nK = \"v\"\n";
        let root = parse(Path::new("c.toml"), text, FileFormat::Codex).unwrap();
        assert_eq!(
            root,
            json!({"mcp_servers": {"a": {"command": "x", "args": ["1"], "env": {"K": "v"}}}})
        );
    }

    #[test]
    fn claude_code_reads_user_and_project_servers() {
        let root = json!({
            "mcpServers": {"u": {"command": "a"}},
            "projects": {"/p": {"mcpServers": {"l": {"command": "b"}},
                                "disabledMcpServers": ["l"]}}
        });
        let found = entries(Path::new(".claude.json"), FileFormat::ClaudeCode, &root).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|e| (e.name.as_str(), e.scope.as_deref(), e.disabled))
            .collect();
        assert_eq!(
            names,
            vec![("u", Some("user"), false), ("l", Some("local: /p"), true)]
        );
    }
}
