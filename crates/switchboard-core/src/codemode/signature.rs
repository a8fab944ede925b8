//! A tool as a script calls it, in TypeScript, for search results
//! (`"signature"`): `tools.github.create_issue(args: {owner: string; title:
//! string; body?: string}): Promise<{number: number; url: string}>`, from its
//! input and output schemas. Local `$ref`s (`#/$defs/...`,
//! `#/definitions/...`) are followed; nesting deeper than [`MAX_DEPTH`] and
//! anything the schema does not say become `unknown`, so a signature stays
//! short.

use serde_json::{Map, Value};

/// How deep object and array types are spelled out.
const MAX_DEPTH: usize = 4;
/// The most properties of one object spelled out (the rest are `...`).
const MAX_PROPERTIES: usize = 24;

/// The declaration of tool `exposed` (`<prefix>__<tool>`, as the session
/// names it) with `input` and `output` schemas.
pub(crate) fn signature(
    exposed: &str,
    input: &Map<String, Value>,
    output: Option<&Map<String, Value>>,
) -> String {
    let args = type_of(&Value::Object(input.clone()), input, 0);
    let optional = input
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| r.is_empty());
    let returns = match output {
        Some(schema) => type_of(&Value::Object(schema.clone()), schema, 0),
        None => "unknown".to_string(),
    };
    let args = format!("args{}: {args}", if optional { "?" } else { "" });
    match exposed.split_once("__") {
        Some((prefix, tool)) if !prefix.is_empty() && !tool.is_empty() => {
            format!(
                "tools{}{}({args}): Promise<{returns}>",
                access(prefix),
                access(tool)
            )
        }
        _ => format!(
            "callTool({}, {args}): Promise<CallToolResult>",
            Value::String(exposed.to_string())
        ),
    }
}

/// `.name` for an identifier, `["name"]` otherwise.
fn access(name: &str) -> String {
    if is_identifier(name) {
        format!(".{name}")
    } else {
        format!("[{}]", Value::String(name.to_string()))
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The TypeScript type of `schema` (`root`: the whole schema, for `$ref`s).
fn type_of(schema: &Value, root: &Map<String, Value>, depth: usize) -> String {
    let Some(schema) = schema.as_object() else {
        // `true` (anything) or `false` (nothing).
        return if schema == &Value::Bool(false) {
            "never".into()
        } else {
            "unknown".into()
        };
    };
    if depth > MAX_DEPTH {
        return "unknown".into();
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return match resolve(target, root) {
            Some(found) => type_of(found, root, depth + 1),
            None => "unknown".into(),
        };
    }
    if let Some(value) = schema.get("const") {
        return literal(value);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.is_empty()
    {
        return values.iter().map(literal).collect::<Vec<_>>().join(" | ");
    }
    for (key, joiner) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
        if let Some(parts) = schema.get(key).and_then(Value::as_array) {
            let types: Vec<String> = parts
                .iter()
                .map(|p| grouped(type_of(p, root, depth + 1)))
                .collect();
            if !types.is_empty() {
                return types.join(joiner);
            }
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if schema.contains_key("properties") => vec!["object"],
        _ if schema.contains_key("items") => vec!["array"],
        _ => return "unknown".into(),
    };
    let spelled: Vec<String> = types
        .iter()
        .map(|t| match *t {
            "string" => "string".to_string(),
            "number" | "integer" => "number".to_string(),
            "boolean" => "boolean".to_string(),
            "null" => "null".to_string(),
            "array" => array(schema, root, depth),
            "object" => object(schema, root, depth),
            _ => "unknown".to_string(),
        })
        .collect();
    if spelled.len() > 1 {
        spelled.join(" | ")
    } else {
        spelled
            .into_iter()
            .next()
            .unwrap_or_else(|| "unknown".into())
    }
}

fn array(schema: &Map<String, Value>, root: &Map<String, Value>, depth: usize) -> String {
    match schema.get("items") {
        Some(items) => format!("{}[]", grouped(type_of(items, root, depth + 1))),
        None => "unknown[]".into(),
    }
}

fn object(schema: &Map<String, Value>, root: &Map<String, Value>, depth: usize) -> String {
    let properties = schema.get("properties").and_then(Value::as_object);
    let Some(properties) = properties.filter(|p| !p.is_empty()) else {
        return match schema.get("additionalProperties") {
            Some(Value::Object(values)) => format!(
                "Record<string, {}>",
                type_of(&Value::Object(values.clone()), root, depth + 1)
            ),
            _ => "Record<string, unknown>".into(),
        };
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<String> = properties
        .iter()
        .take(MAX_PROPERTIES)
        .map(|(name, property)| {
            let key = if is_identifier(name) {
                name.clone()
            } else {
                Value::String(name.clone()).to_string()
            };
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{key}{optional}: {}", type_of(property, root, depth + 1))
        })
        .collect();
    if properties.len() > MAX_PROPERTIES {
        fields.push("...".into());
    }
    format!("{{{}}}", fields.join("; "))
}

/// A union or intersection in parentheses, for `[]` and nesting.
fn grouped(ty: String) -> String {
    if ty.contains(" | ") || ty.contains(" & ") {
        format!("({ty})")
    } else {
        ty
    }
}

fn literal(value: &Value) -> String {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => value.to_string(),
        _ => "unknown".into(),
    }
}

/// The schema a local `$ref` names.
fn resolve<'a>(target: &str, root: &'a Map<String, Value>) -> Option<&'a Value> {
    let path = target.strip_prefix("#/")?;
    let mut at: Option<&Value> = None;
    for part in path.split('/') {
        let part = part.replace("~1", "/").replace("~0", "~");
        at = Some(match at {
            None => root.get(&part)?,
            Some(value) => value.get(&part)?,
        });
    }
    at
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_issues_example() {
        let input = map(json!({"type": "object", "properties": {
            "owner": {"type": "string"}, "repo": {"type": "string"},
            "title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["owner", "repo", "title"]}));
        let output = map(json!({"type": "object", "properties": {
            "number": {"type": "integer"}, "url": {"type": "string"}},
            "required": ["number", "url"]}));
        assert_eq!(
            signature("github__create_issue", &input, Some(&output)),
            "tools.github.create_issue(args: {owner: string; repo: string; title: string; \
             body?: string}): Promise<{number: number; url: string}>"
        );
    }

    #[test]
    fn names_unions_arrays_refs_and_odd_keys() {
        let input = map(json!({"type": "object", "properties": {
            "state": {"enum": ["open", "closed"]},
            "labels": {"type": "array", "items": {"type": ["string", "null"]}},
            "page-size": {"type": "integer"},
            "filter": {"$ref": "#/$defs/filter"},
            "meta": {"type": "object", "additionalProperties": {"type": "number"}},
            "any": {}},
            "$defs": {"filter": {"type": "object", "properties": {"q": {"type": "string"}},
                "required": ["q"]}}}));
        assert_eq!(
            signature("my-server__get-thing", &input, None),
            "tools[\"my-server\"][\"get-thing\"](args?: {state?: \"open\" | \"closed\"; \
             labels?: (string | null)[]; \"page-size\"?: number; filter?: {q: string}; \
             meta?: Record<string, number>; any?: unknown}): Promise<unknown>"
        );
        assert_eq!(
            signature("bare", &map(json!({"type": "object"})), None),
            "callTool(\"bare\", args?: Record<string, unknown>): Promise<CallToolResult>"
        );
    }

    #[test]
    fn deep_and_recursive_schemas_stop() {
        let input = map(json!({"type": "object", "properties": {"node": {"$ref": "#"}}}));
        let text = signature("a__tree", &input, None);
        assert!(text.contains("unknown"), "{text}");
        assert!(text.len() < 400, "{text}");
    }
}
