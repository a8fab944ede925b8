//! The fixture's catalog as JSON: what `--spec FILE` and the control file contain.
//!
//! A [`Spec`] is the whole catalog (tools, prompts, resources, resource
//! templates); a [`ControlUpdate`] replaces some of its lists at run time. Both
//! are plain values: [`crate::state::FixtureState`] owns the live copy and is the
//! only place that changes it. Invariant checked by [`Spec::validate`]: tool
//! names, prompt names and resource URIs are unique, so lookups by name are
//! unambiguous. The one exception is on purpose: `listedTwice` definitions
//! are listed before `tools` under names `tools` may have too (a server that
//! lists a name twice), and are never looked up.
//!
//! Tool input schemas are kept as the JSON objects given (key order included,
//! `$schema` and `$defs` untouched); prompts and resource templates use rmcp's
//! own model types, whose JSON field names are the spec's.

use std::{collections::HashSet, path::Path, sync::Arc};

use anyhow::{Context as _, bail};
use rmcp::model::{JsonObject, Prompt, Resource, ResourceTemplate, Tool, ToolAnnotations};
use serde::Deserialize;
use serde_json::{Value, json};

/// The whole catalog served by a fixture.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Spec {
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Listed in `tools/list` before `tools`, names not checked: lets a test
    /// list a tool's name twice with two definitions. Calls use `tools`.
    #[serde(default)]
    pub listed_twice: Vec<ToolSpec>,
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplate>,
}

/// One tool: its advertised definition plus what it does when called.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    /// Defaults to the `--tools` echo tools' description, so `{"name": "x"}`
    /// lists exactly like `--tools x` (`null` for none).
    #[serde(default = "default_description")]
    pub description: Option<String>,
    /// Advertised as given; defaults to an object with one string `text` property.
    #[serde(default = "default_input_schema")]
    pub input_schema: JsonObject,
    #[serde(default)]
    pub output_schema: Option<JsonObject>,
    #[serde(default)]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default)]
    pub behavior: Behavior,
    /// What a `data` tool answers: the first response whose `when` the
    /// arguments match (each of its members equal), else an `isError` result.
    #[serde(default)]
    pub responses: Vec<DataResponse>,
}

/// One canned answer of a `data` tool (deterministic data for code mode's
/// tests and benchmark).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataResponse {
    /// The arguments this answer is for (a subset of them; empty matches all).
    #[serde(default)]
    pub when: JsonObject,
    /// The answer: an object is sent as `structuredContent` and as JSON
    /// text, anything else as JSON text only.
    pub result: Value,
}

/// What a tool does when called (see [`crate::tools`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Behavior {
    /// Returns the `text` argument, or the arguments as compact JSON.
    #[default]
    Echo,
    /// Waits `arguments.ms` milliseconds (default 1000), reporting progress.
    Sleep,
    /// Never answers until cancelled.
    Hang,
    /// Exits the whole process with code 3.
    Crash,
    /// Returns a result with `isError: true`.
    Error,
    /// Returns a JSON-RPC internal error.
    Fail,
    /// Returns the arguments as `structuredContent` (and as text).
    Structured,
    /// Answers like `echo`, then never reads stdin again (stdio only).
    Deaf,
    /// Returns a text of `arguments.bytes` characters (default 20,000,000).
    Large,
    /// Sends `arguments.count` notifications of `arguments.kind` (default
    /// `progress`) before answering (see [`crate::flood`]).
    Flood,
    /// Asks the client its name (an elicitation) and answers `hello <name>`:
    /// on 2026-07-28 with an input-required result and the retry, before
    /// that with an `elicitation/create` request (see [`crate::ask`]).
    Ask,
    /// Answers from the tool's `responses` (see [`DataResponse`]).
    Data,
    /// Tries what a sandbox should refuse and says what happened:
    /// `{"op": "read" | "write" | "list", "path"}`, `{"op": "connect",
    /// "port"}` (127.0.0.1), `{"op": "env", "name"}` (see [`crate::probe`]).
    Probe,
}

/// One readable resource with fixed text content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpec {
    pub uri: String,
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub mime_type: Option<String>,
    /// What `resources/read` returns for this URI.
    #[serde(default)]
    pub text: String,
}

/// The control file's content: lists that replace the live ones.
///
/// A list that is absent is left as it is; `notify` sends the matching
/// `list_changed` notifications for the lists present.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControlUpdate {
    #[serde(default)]
    pub tools: Option<Vec<ToolSpec>>,
    /// Replaces [`Spec::listed_twice`] (a change of the tool list).
    #[serde(default)]
    pub listed_twice: Option<Vec<ToolSpec>>,
    #[serde(default)]
    pub prompts: Option<Vec<Prompt>>,
    #[serde(default)]
    pub resources: Option<Vec<ResourceSpec>>,
    #[serde(default)]
    pub resource_templates: Option<Vec<ResourceTemplate>>,
    #[serde(default)]
    pub notify: bool,
}

/// Which lists a [`ControlUpdate`] replaced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListChanges {
    pub tools: bool,
    pub prompts: bool,
    /// Resources or resource templates.
    pub resources: bool,
}

/// `{"type":"object","properties":{"text":{"type":"string"}}}`
fn default_input_schema() -> JsonObject {
    let mut properties = JsonObject::new();
    properties.insert("text".to_owned(), json!({ "type": "string" }));
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), json!("object"));
    schema.insert("properties".to_owned(), Value::Object(properties));
    schema
}

impl Spec {
    /// Reads and validates a spec file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading spec file {}", path.display()))?;
        let spec: Self = serde_json::from_str(&text)
            .with_context(|| format!("parsing spec file {}", path.display()))?;
        spec.validate()
            .with_context(|| format!("invalid spec file {}", path.display()))?;
        Ok(spec)
    }

    /// Checks that names and URIs are unique.
    pub fn validate(&self) -> anyhow::Result<()> {
        ensure_unique(
            "tool name",
            self.tools.iter().map(|tool| tool.name.as_str()),
        )?;
        ensure_unique(
            "prompt name",
            self.prompts.iter().map(|prompt| prompt.name.as_str()),
        )?;
        ensure_unique(
            "resource uri",
            self.resources.iter().map(|res| res.uri.as_str()),
        )?;
        Ok(())
    }

    /// Replaces the lists present in `update`, returning which ones it replaced.
    pub fn apply(&mut self, update: ControlUpdate) -> ListChanges {
        let mut changes = ListChanges::default();
        if let Some(tools) = update.tools {
            self.tools = tools;
            changes.tools = true;
        }
        if let Some(tools) = update.listed_twice {
            self.listed_twice = tools;
            changes.tools = true;
        }
        if let Some(prompts) = update.prompts {
            self.prompts = prompts;
            changes.prompts = true;
        }
        if let Some(resources) = update.resources {
            self.resources = resources;
            changes.resources = true;
        }
        if let Some(templates) = update.resource_templates {
            self.resource_templates = templates;
            changes.resources = true;
        }
        changes
    }

    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|prompt| prompt.name == name)
    }

    pub fn resource(&self, uri: &str) -> Option<&ResourceSpec> {
        self.resources.iter().find(|resource| resource.uri == uri)
    }
}

fn ensure_unique<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> anyhow::Result<()> {
    let mut seen = HashSet::new();
    for name in names {
        if !seen.insert(name) {
            bail!("duplicate {what} {name:?}");
        }
    }
    Ok(())
}

/// The description of a tool that does not give one.
fn default_description() -> Option<String> {
    Some("Echoes its text argument".to_owned())
}

impl ToolSpec {
    /// An `echo` tool with the default schema, as created by `--tools a,b,c`.
    pub fn echo(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: default_description(),
            input_schema: default_input_schema(),
            output_schema: None,
            annotations: None,
            behavior: Behavior::Echo,
            responses: Vec::new(),
        }
    }

    /// The definition advertised by `tools/list`.
    pub fn to_tool(&self) -> Tool {
        let mut tool = Tool::new_with_raw(
            self.name.clone(),
            self.description.clone().map(Into::into),
            Arc::new(self.input_schema.clone()),
        );
        if let Some(title) = &self.title {
            tool = tool.with_title(title.clone());
        }
        if let Some(schema) = &self.output_schema {
            tool = tool.with_raw_output_schema(Arc::new(schema.clone()));
        }
        if let Some(annotations) = &self.annotations {
            tool = tool.with_annotations(annotations.clone());
        }
        tool
    }
}

impl ResourceSpec {
    /// The definition advertised by `resources/list`.
    pub fn to_resource(&self) -> Resource {
        let mut resource = Resource::new(self.uri.clone(), self.name.clone());
        if let Some(title) = &self.title {
            resource = resource.with_title(title.clone());
        }
        if let Some(description) = &self.description {
            resource = resource.with_description(description.clone());
        }
        if let Some(mime_type) = &self.mime_type {
            resource = resource.with_mime_type(mime_type.clone());
        }
        resource
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_spec() {
        let spec: Spec = serde_json::from_value(json!({
            "tools": [{"name": "x", "description": "an x", "behavior": "sleep"}],
            "prompts": [{"name": "p", "description": "a p",
                         "arguments": [{"name": "topic", "required": true}]}],
            "resources": [{"uri": "fixture://a/readme", "name": "readme",
                           "mimeType": "text/plain", "text": "hello"}],
            "resourceTemplates": [{"uriTemplate": "fixture://a/items/{id}", "name": "item"}]
        }))
        .unwrap();
        spec.validate().unwrap();

        assert_eq!(spec.tools.len(), 1);
        assert_eq!(spec.tools[0].behavior, Behavior::Sleep);
        assert_eq!(spec.tools[0].input_schema, default_input_schema());
        assert_eq!(
            serde_json::to_value(&spec.prompts).unwrap(),
            json!([{"name": "p", "description": "a p",
                    "arguments": [{"name": "topic", "required": true}]}])
        );
        assert_eq!(
            serde_json::to_value(spec.resources[0].to_resource()).unwrap(),
            json!({"uri": "fixture://a/readme", "name": "readme", "mimeType": "text/plain"})
        );
        assert_eq!(spec.resources[0].text, "hello");
        assert_eq!(
            serde_json::to_value(&spec.resource_templates).unwrap(),
            json!([{"uriTemplate": "fixture://a/items/{id}", "name": "item"}])
        );
    }

    #[test]
    fn defaults_to_an_echo_tool_with_a_text_schema() {
        let spec: Spec = serde_json::from_str(r#"{"tools":[{"name":"e"}]}"#).unwrap();
        let tool = serde_json::to_value(spec.tools[0].to_tool()).unwrap();
        assert_eq!(spec.tools[0].behavior, Behavior::Echo);
        assert_eq!(
            tool,
            json!({"name": "e",
                   "description": "Echoes its text argument",
                   "inputSchema": {"type": "object",
                                   "properties": {"text": {"type": "string"}}}})
        );
        // Exactly what `--tools e` lists, so a control file that repeats a
        // tool does not change its definition.
        assert_eq!(ToolSpec::echo("e"), spec.tools[0]);
        let bare: Spec =
            serde_json::from_str(r#"{"tools":[{"name":"e","description":null}]}"#).unwrap();
        assert_eq!(bare.tools[0].description, None);
    }

    #[test]
    fn keeps_the_input_schema_as_given() {
        let schema = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"item":{"$ref":"#/$defs/item"},"n":{"type":"number","minimum":1.5}},"required":["item"],"$defs":{"item":{"type":"string","enum":["b","a"]}},"additionalProperties":false}"##;
        let spec: Spec = serde_json::from_str(&format!(
            r#"{{"tools":[{{"name":"s","inputSchema":{schema}}}]}}"#
        ))
        .unwrap();
        let tool = spec.tools[0].to_tool();
        assert_eq!(serde_json::to_string(&tool.input_schema).unwrap(), schema);
    }

    #[test]
    fn rejects_unknown_behaviors_fields_and_duplicates() {
        assert!(
            serde_json::from_str::<Spec>(r#"{"tools":[{"name":"x","behavior":"explode"}]}"#)
                .is_err()
        );
        assert!(serde_json::from_str::<Spec>(r#"{"tool":[]}"#).is_err());
        assert!(
            serde_json::from_str::<Spec>(r#"{"tools":[{"name":"x","inputSchema":[]}]}"#).is_err()
        );
        let spec: Spec = serde_json::from_str(r#"{"tools":[{"name":"x"},{"name":"x"}]}"#).unwrap();
        assert!(spec.validate().is_err());
    }

    #[test]
    fn control_updates_replace_only_the_lists_present() {
        let mut spec = Spec {
            tools: vec![ToolSpec::echo("a")],
            prompts: vec![Prompt::new("p", None::<String>, None)],
            ..Spec::default()
        };
        let update: ControlUpdate =
            serde_json::from_str(r#"{"tools":[{"name":"b","behavior":"hang"}],"notify":true}"#)
                .unwrap();
        assert!(update.notify);
        let changes = spec.apply(update);
        assert_eq!(
            changes,
            ListChanges {
                tools: true,
                prompts: false,
                resources: false
            }
        );
        assert_eq!(spec.tools.len(), 1);
        assert_eq!(spec.tool("b").unwrap().behavior, Behavior::Hang);
        assert!(spec.prompt("p").is_some());

        let update: ControlUpdate =
            serde_json::from_str(r#"{"resourceTemplates":[],"prompts":[]}"#).unwrap();
        assert!(!update.notify);
        let changes = spec.apply(update);
        assert_eq!(
            changes,
            ListChanges {
                tools: false,
                prompts: true,
                resources: true
            }
        );
        assert!(spec.prompts.is_empty());
    }
}
