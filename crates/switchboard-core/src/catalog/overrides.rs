//! Applying a server's `toolOverrides` (see `switchboard-config/src/overrides.rs`): to the
//! tool clients see in the merged catalog (name, description, schema without
//! hidden arguments and with defaults shown), and to a call's arguments on
//! its way to the server (defaults filled in, hidden ones refused). Pure
//! functions; the server's own definition (`Capabilities`) is never changed.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

use crate::config::ToolOverride;

/// The name a tool is shown under before prefixing.
pub(crate) fn shown_name<'a>(o: Option<&'a ToolOverride>, original: &'a str) -> &'a str {
    o.and_then(|o| o.name.as_deref()).unwrap_or(original)
}

/// `tool` (the server's definition) as the override describes it; its
/// `name` is left for the caller, which prefixes it.
pub(crate) fn apply_to_tool(tool: &mut Tool, o: &ToolOverride) {
    if let Some(description) = &o.description {
        tool.description = Some(description.clone().into());
    }
    if o.arguments.is_empty() && o.hide_arguments.is_empty() {
        return;
    }
    let mut schema: JsonObject = (*tool.input_schema).clone();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for hidden in &o.hide_arguments {
            properties.remove(hidden);
        }
        for (name, value) in &o.arguments {
            if let Some(Value::Object(property)) = properties.get_mut(name) {
                property.insert("default".into(), value.clone());
            }
        }
    }
    // An argument with a default need not be passed: the hub fills it in.
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| r.as_str().is_none_or(|r| !o.arguments.contains_key(r)));
    }
    tool.input_schema = Arc::new(schema);
}

/// A call's `arguments` made ready for the server: a hidden argument passed
/// by the client is refused (the message names it and the tool as the
/// client called it); defaults fill what the call left out.
pub(crate) fn apply_to_call(
    arguments: &mut Option<JsonObject>,
    o: &ToolOverride,
    called: &str,
) -> Result<(), String> {
    if let Some(given) = arguments
        .as_ref()
        .and_then(|args| o.hide_arguments.iter().find(|h| args.contains_key(*h)))
    {
        return Err(format!(
            "tool {called:?} does not take the argument {given:?}: it is set by the hub's \
             configuration (toolOverrides)"
        ));
    }
    if o.arguments.is_empty() {
        return Ok(());
    }
    let args = arguments.get_or_insert_with(JsonObject::new);
    for (name, value) in &o.arguments {
        args.entry(name.clone()).or_insert_with(|| value.clone());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn over(v: Value) -> ToolOverride {
        let o = v.as_object().unwrap();
        ToolOverride {
            name: o.get("name").and_then(Value::as_str).map(str::to_string),
            description: o
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            arguments: o
                .get("arguments")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            hide_arguments: o
                .get("hideArguments")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    #[test]
    fn the_schema_loses_hidden_arguments_and_shows_defaults() {
        let schema = json!({"type": "object", "properties": {
            "q": {"type": "string"}, "limit": {"type": "integer"}, "project": {"type": "string"}},
            "required": ["q", "project"]});
        let mut tool = Tool::new(
            "search",
            "Search",
            Arc::new(schema.as_object().unwrap().clone()),
        );
        let o = over(
            json!({"description": "Search ACME", "arguments": {"limit": 5, "project": "ACME"},
                            "hideArguments": ["project"]}),
        );
        apply_to_tool(&mut tool, &o);
        assert_eq!(tool.description.as_deref(), Some("Search ACME"));
        assert_eq!(
            Value::Object((*tool.input_schema).clone()),
            json!({"type": "object", "properties": {
                "q": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
                "required": ["q"]})
        );
    }

    #[test]
    fn calls_get_defaults_and_hidden_arguments_are_refused() {
        let o = over(
            json!({"arguments": {"limit": 5, "project": "ACME"}, "hideArguments": ["project"]}),
        );
        let mut none = None;
        apply_to_call(&mut none, &o, "s__find").unwrap();
        assert_eq!(
            Value::Object(none.unwrap()),
            json!({"limit": 5, "project": "ACME"})
        );
        let mut given = json!({"limit": 9}).as_object().cloned();
        apply_to_call(&mut given, &o, "s__find").unwrap();
        assert_eq!(
            Value::Object(given.unwrap()),
            json!({"limit": 9, "project": "ACME"})
        );
        let mut hidden = json!({"project": "OTHER"}).as_object().cloned();
        let err = apply_to_call(&mut hidden, &o, "s__find").unwrap_err();
        assert!(
            err.contains("\"project\"") && err.contains("s__find"),
            "{err}"
        );
    }
}
