//! What the conformance fixture serves: the fixed tool, prompt and resource
//! lists and the payloads the suite's scenarios look for.
//!
//! Pure data and pure functions, no state. Names and texts follow the
//! requirements written in the scenarios of `@modelcontextprotocol/conformance`
//! (the pinned version is in `scripts/conformance.sh`); each [`ToolName`] says
//! which scenario calls it. Adding a tool means adding a variant: the list and
//! the dispatch in [`super::server`] are exhaustive over [`ToolName::ALL`].

use rmcp::model::{
    JsonObject, Prompt, PromptArgument, Resource, ResourceContents, ResourceTemplate, Tool,
};
use serde_json::{Value, json};

/// A 1x1 red PNG, base64 (tools, prompts and `test://static-binary`).
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// A WAV file of 8 samples of silence (16-bit mono, 8 kHz), base64.
pub const WAV_BASE64: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// `resources/read` of `test://static-text`.
pub const STATIC_TEXT_URI: &str = "test://static-text";
/// `resources/read` of `test://static-binary` (a PNG blob).
pub const STATIC_BINARY_URI: &str = "test://static-binary";
/// The resource `resources/subscribe` and `resources/unsubscribe` use.
pub const WATCHED_URI: &str = "test://watched-resource";
/// The resource template; `{id}` is echoed into the contents.
pub const TEMPLATE_URI: &str = "test://template/{id}/data";

/// Every tool the fixture serves, named after what the suite calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    /// `tools-call-simple-text`.
    SimpleText,
    /// `tools-call-image`.
    ImageContent,
    /// `tools-call-audio`.
    AudioContent,
    /// `tools-call-embedded-resource`.
    EmbeddedResource,
    /// `tools-call-mixed-content`.
    MultipleContentTypes,
    /// `tools-call-with-logging`: three `info` log notifications ~50 ms apart.
    ToolWithLogging,
    /// `tools-call-with-progress`: progress 0, 50, 100 of 100 ~50 ms apart.
    ToolWithProgress,
    /// `tools-call-error`: a result with `isError: true`.
    ErrorHandling,
    /// `tools-call-sampling`: one `sampling/createMessage` to the client.
    Sampling,
    /// `tools-call-elicitation`: one `elicitation/create` (username, email).
    Elicitation,
    /// `elicitation-sep1034-defaults`: an elicitation whose fields have defaults.
    ElicitationDefaults,
    /// `elicitation-sep1330-enums`: an elicitation with the five enum shapes.
    ElicitationEnums,
    /// `server-sse-polling`: closes its POST SSE stream mid-call (SEP-1699).
    Reconnection,
    /// `json-schema-2020-12`: an input schema with `$schema`, `$defs`, `$ref`.
    JsonSchema2020_12,
}

impl ToolName {
    /// In the order `tools/list` returns them.
    pub const ALL: [Self; 14] = [
        Self::SimpleText,
        Self::ImageContent,
        Self::AudioContent,
        Self::EmbeddedResource,
        Self::MultipleContentTypes,
        Self::ToolWithLogging,
        Self::ToolWithProgress,
        Self::ErrorHandling,
        Self::Sampling,
        Self::Elicitation,
        Self::ElicitationDefaults,
        Self::ElicitationEnums,
        Self::Reconnection,
        Self::JsonSchema2020_12,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SimpleText => "test_simple_text",
            Self::ImageContent => "test_image_content",
            Self::AudioContent => "test_audio_content",
            Self::EmbeddedResource => "test_embedded_resource",
            Self::MultipleContentTypes => "test_multiple_content_types",
            Self::ToolWithLogging => "test_tool_with_logging",
            Self::ToolWithProgress => "test_tool_with_progress",
            Self::ErrorHandling => "test_error_handling",
            Self::Sampling => "test_sampling",
            Self::Elicitation => "test_elicitation",
            Self::ElicitationDefaults => "test_elicitation_sep1034_defaults",
            Self::ElicitationEnums => "test_elicitation_sep1330_enums",
            Self::Reconnection => "test_reconnection",
            Self::JsonSchema2020_12 => "json_schema_2020_12_tool",
        }
    }

    /// The tool with this wire name, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.as_str() == name)
    }

    fn description(self) -> &'static str {
        match self {
            Self::SimpleText => "Returns one text content block",
            Self::ImageContent => "Returns one PNG image content block",
            Self::AudioContent => "Returns one WAV audio content block",
            Self::EmbeddedResource => "Returns one embedded text resource",
            Self::MultipleContentTypes => "Returns text, image and embedded resource content",
            Self::ToolWithLogging => "Sends three info log notifications while it runs",
            Self::ToolWithProgress => "Reports progress 0, 50 and 100 of 100 while it runs",
            Self::ErrorHandling => "Always returns a tool error (isError: true)",
            Self::Sampling => "Asks the client to sample an LLM with the given prompt",
            Self::Elicitation => "Asks the client for a username and an email",
            Self::ElicitationDefaults => "Elicits fields of every primitive type, with defaults",
            Self::ElicitationEnums => "Elicits the five enum schema shapes of SEP-1330",
            Self::Reconnection => {
                "Closes its SSE response stream mid-call and answers after the client reconnects"
            }
            Self::JsonSchema2020_12 => "Tool with JSON Schema 2020-12 features",
        }
    }

    fn input_schema(self) -> Value {
        match self {
            Self::Sampling => json!({
                "type": "object",
                "properties": {
                    "prompt": {"type": "string", "description": "The prompt to send to the LLM"}
                },
                "required": ["prompt"]
            }),
            Self::Elicitation => json!({
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "The message to show the user"}
                },
                "required": ["message"]
            }),
            Self::JsonSchema2020_12 => json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"}
                        }
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"}
                },
                "additionalProperties": false
            }),
            _ => json!({"type": "object", "properties": {}}),
        }
    }

    /// The `tools/list` entry.
    pub fn to_tool(self) -> Tool {
        Tool::new(
            self.as_str(),
            self.description(),
            object(self.input_schema()),
        )
    }
}

/// The `tools/list` result, in [`ToolName::ALL`] order.
pub fn tools() -> Vec<Tool> {
    ToolName::ALL.into_iter().map(ToolName::to_tool).collect()
}

/// Every prompt the fixture serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptName {
    /// `prompts-get-simple`.
    Simple,
    /// `prompts-get-with-args` and `completion-complete`: `arg1`, `arg2`.
    WithArguments,
    /// `prompts-get-embedded-resource`: `resourceUri`.
    WithEmbeddedResource,
    /// `prompts-get-with-image`.
    WithImage,
}

impl PromptName {
    /// In the order `prompts/list` returns them.
    pub const ALL: [Self; 4] = [
        Self::Simple,
        Self::WithArguments,
        Self::WithEmbeddedResource,
        Self::WithImage,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Simple => "test_simple_prompt",
            Self::WithArguments => "test_prompt_with_arguments",
            Self::WithEmbeddedResource => "test_prompt_with_embedded_resource",
            Self::WithImage => "test_prompt_with_image",
        }
    }

    /// The prompt with this wire name, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|prompt| prompt.as_str() == name)
    }

    /// The names of its arguments, all required.
    pub fn arguments(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Simple | Self::WithImage => &[],
            Self::WithArguments => &[
                ("arg1", "First test argument"),
                ("arg2", "Second test argument"),
            ],
            Self::WithEmbeddedResource => &[("resourceUri", "URI of the resource to embed")],
        }
    }

    fn description(self) -> &'static str {
        match self {
            Self::Simple => "A simple prompt without arguments",
            Self::WithArguments => "A prompt that substitutes two arguments",
            Self::WithEmbeddedResource => "A prompt that embeds the resource it is given",
            Self::WithImage => "A prompt that includes an image",
        }
    }

    /// The `prompts/list` entry.
    pub fn to_prompt(self) -> Prompt {
        let arguments = self
            .arguments()
            .iter()
            .map(|(name, description)| {
                PromptArgument::new(*name)
                    .with_description(*description)
                    .with_required(true)
            })
            .collect::<Vec<_>>();
        Prompt::new(
            self.as_str(),
            Some(self.description()),
            (!arguments.is_empty()).then_some(arguments),
        )
    }
}

/// The `prompts/list` result.
pub fn prompts() -> Vec<Prompt> {
    PromptName::ALL
        .into_iter()
        .map(PromptName::to_prompt)
        .collect()
}

/// The `resources/list` result (direct resources, not templates).
pub fn resources() -> Vec<Resource> {
    [
        (
            STATIC_TEXT_URI,
            "Static text",
            "A static text resource",
            "text/plain",
        ),
        (
            STATIC_BINARY_URI,
            "Static binary",
            "A static PNG blob",
            "image/png",
        ),
        (
            WATCHED_URI,
            "Watched resource",
            "A resource clients may subscribe to",
            "text/plain",
        ),
    ]
    .into_iter()
    .map(|(uri, name, description, mime_type)| {
        Resource::new(uri, name)
            .with_description(description)
            .with_mime_type(mime_type)
    })
    .collect()
}

/// The `resources/templates/list` result.
pub fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(TEMPLATE_URI, "Template data")
            .with_description("JSON data for any id, with the id substituted")
            .with_mime_type("application/json"),
    ]
}

/// The contents of `uri`, or `None` when the fixture has no such resource.
pub fn read_resource(uri: &str) -> Option<ResourceContents> {
    match uri {
        STATIC_TEXT_URI => Some(
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain"),
        ),
        STATIC_BINARY_URI => {
            Some(ResourceContents::blob(PNG_BASE64, uri).with_mime_type("image/png"))
        }
        WATCHED_URI => Some(
            ResourceContents::text("This is the content of the watched resource.", uri)
                .with_mime_type("text/plain"),
        ),
        _ => {
            let bindings = crate::uri_template::match_template(TEMPLATE_URI, uri)?;
            let id = bindings.into_iter().find(|(name, _)| name == "id")?.1;
            let data =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            Some(ResourceContents::text(data.to_string(), uri).with_mime_type("application/json"))
        }
    }
}

/// Whether `resources/subscribe` accepts `uri`: any resource the fixture can read.
pub fn is_known_resource(uri: &str) -> bool {
    read_resource(uri).is_some()
}

/// A JSON object literal as rmcp's `JsonObject` (non-objects become `{}`).
fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn tool_names_round_trip_and_are_unique() {
        let names: HashSet<_> = ToolName::ALL.iter().map(|tool| tool.as_str()).collect();
        assert_eq!(names.len(), ToolName::ALL.len());
        for tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
        }
        assert_eq!(ToolName::parse("nope"), None);
        for prompt in PromptName::ALL {
            assert_eq!(PromptName::parse(prompt.as_str()), Some(prompt));
        }
    }

    #[test]
    fn every_listed_tool_has_what_tools_list_checks() {
        for tool in tools() {
            let value = serde_json::to_value(&tool).unwrap();
            assert!(value["name"].is_string(), "{value}");
            assert!(value["description"].is_string(), "{value}");
            assert_eq!(value["inputSchema"]["type"], "object", "{value}");
        }
    }

    #[test]
    fn json_schema_2020_12_keywords_survive_serialization() {
        let value = serde_json::to_value(ToolName::JsonSchema2020_12.to_tool()).unwrap();
        let schema = &value["inputSchema"];
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(schema["$defs"]["address"].is_object());
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(value["name"], "json_schema_2020_12_tool");
    }

    #[test]
    fn prompts_declare_required_arguments() {
        let value = serde_json::to_value(PromptName::WithArguments.to_prompt()).unwrap();
        assert_eq!(
            value["arguments"],
            json!([
                {"name": "arg1", "description": "First test argument", "required": true},
                {"name": "arg2", "description": "Second test argument", "required": true}
            ])
        );
        let simple = serde_json::to_value(PromptName::Simple.to_prompt()).unwrap();
        assert!(simple.get("arguments").is_none(), "{simple}");
    }

    #[test]
    fn reads_static_and_templated_resources() {
        let text = serde_json::to_value(read_resource(STATIC_TEXT_URI).unwrap()).unwrap();
        assert_eq!(text["mimeType"], "text/plain");
        assert!(text["text"].is_string());
        let blob = serde_json::to_value(read_resource(STATIC_BINARY_URI).unwrap()).unwrap();
        assert_eq!(blob["blob"], PNG_BASE64);
        let templated =
            serde_json::to_value(read_resource("test://template/123/data").unwrap()).unwrap();
        assert_eq!(templated["uri"], "test://template/123/data");
        assert_eq!(templated["mimeType"], "application/json");
        let data: Value = serde_json::from_str(templated["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            data,
            json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
        );
        assert!(read_resource("test://template/1/2/data").is_none());
        assert!(read_resource("test://missing").is_none());
        assert!(is_known_resource(WATCHED_URI));
    }

    #[test]
    fn payloads_are_a_png_and_a_wav() {
        // base64 of "\x89PNG\r\n\x1a\n" and of "RIFF....WAVE".
        assert!(PNG_BASE64.starts_with("iVBORw0KGgo"));
        assert!(WAV_BASE64.starts_with("UklGR") && WAV_BASE64[8..].starts_with("AABXQVZF"));
    }
}
