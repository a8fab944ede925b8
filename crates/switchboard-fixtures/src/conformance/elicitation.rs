//! The three `elicitation/create` requests the conformance tools send, and how
//! their answers are reported back as tool text.
//!
//! The schemas are written as JSON (the shape the suite checks field by field)
//! and parsed into rmcp's typed [`ElicitationSchema`]; the unit tests prove the
//! typed value serializes back with every keyword the suite looks for
//! (`default`, `enum`, `enumNames`, `oneOf`, `items.anyOf`). Pure functions.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use serde_json::{Value, json};

/// Which elicitation a tool sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `test_elicitation`: username and email, both required.
    UserInfo,
    /// `test_elicitation_sep1034_defaults`: one field per primitive type, each with a default.
    Defaults,
    /// `test_elicitation_sep1330_enums`: the five enum shapes.
    Enums,
}

impl Form {
    fn schema(self) -> Value {
        match self {
            Self::UserInfo => json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            }),
            Self::Defaults => json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {
                        "type": "string",
                        "description": "User status",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active"
                    },
                    "verified": {
                        "type": "boolean",
                        "description": "Verification status",
                        "default": true
                    }
                }
            }),
            Self::Enums => json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {
                        "type": "string",
                        "enum": ["option1", "option2", "option3"]
                    },
                    "titledSingle": {
                        "type": "string",
                        "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"}
                        ]
                    },
                    "legacyEnum": {
                        "type": "string",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"]
                    },
                    "untitledMulti": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                    },
                    "titledMulti": {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                {"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                                {"const": "value3", "title": "Third Choice"}
                            ]
                        }
                    }
                }
            }),
        }
    }

    fn default_message(self) -> &'static str {
        match self {
            Self::UserInfo => "Please provide your information",
            Self::Defaults => "Please review and update the form fields with defaults",
            Self::Enums => "Please choose from each kind of enum",
        }
    }

    /// The request parameters; `message` replaces the default message.
    pub fn request(self, message: Option<&str>) -> Result<ElicitRequestParams, serde_json::Error> {
        let requested_schema: ElicitationSchema = serde_json::from_value(self.schema())?;
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.unwrap_or(self.default_message()).to_owned(),
            requested_schema,
        })
    }

    /// The tool's text for the client's answer.
    pub fn report(self, result: &ElicitResult) -> String {
        let action = action_name(&result.action);
        let content = result.content.clone().unwrap_or(Value::Null);
        match self {
            Self::UserInfo => format!("User response: action={action}, content={content}"),
            Self::Defaults | Self::Enums => {
                format!("Elicitation completed: action={action}, content={content}")
            }
        }
    }
}

/// The wire name of an elicitation action.
fn action_name(action: &ElicitationAction) -> String {
    match serde_json::to_value(action) {
        Ok(Value::String(name)) => name,
        _ => format!("{action:?}").to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requested_properties(form: Form) -> Value {
        let params = serde_json::to_value(form.request(None).unwrap()).unwrap();
        assert_eq!(params["mode"], "form", "{params}");
        params["requestedSchema"]["properties"].clone()
    }

    #[test]
    fn every_form_parses_into_the_typed_schema() {
        for form in [Form::UserInfo, Form::Defaults, Form::Enums] {
            form.request(Some("hi")).unwrap();
        }
    }

    #[test]
    fn user_info_keeps_required_fields_and_message() {
        let params = serde_json::to_value(Form::UserInfo.request(Some("Who?")).unwrap()).unwrap();
        assert_eq!(params["message"], "Who?");
        assert_eq!(
            params["requestedSchema"]["required"],
            json!(["username", "email"])
        );
    }

    #[test]
    fn defaults_survive_the_typed_schema() {
        let properties = requested_properties(Form::Defaults);
        assert_eq!(properties["name"]["default"], "John Doe");
        assert_eq!(properties["age"]["type"], "integer");
        assert_eq!(properties["age"]["default"], 30);
        assert_eq!(properties["score"]["type"], "number");
        assert_eq!(properties["score"]["default"], 95.5);
        assert_eq!(properties["status"]["default"], "active");
        assert_eq!(
            properties["status"]["enum"],
            json!(["active", "inactive", "pending"])
        );
        assert_eq!(properties["verified"]["type"], "boolean");
        assert_eq!(properties["verified"]["default"], true);
    }

    #[test]
    fn enum_shapes_survive_the_typed_schema() {
        let properties = requested_properties(Form::Enums);
        let untitled = &properties["untitledSingle"];
        assert_eq!(untitled["type"], "string");
        assert!(untitled["enum"].is_array());
        assert!(untitled.get("oneOf").is_none() && untitled.get("enumNames").is_none());

        let titled = &properties["titledSingle"];
        assert_eq!(
            titled["oneOf"][0],
            json!({"const": "value1", "title": "First Option"})
        );
        assert!(titled.get("enum").is_none());

        let legacy = &properties["legacyEnum"];
        assert_eq!(legacy["enumNames"].as_array().unwrap().len(), 3);
        assert_eq!(legacy["enum"].as_array().unwrap().len(), 3);

        let untitled_multi = &properties["untitledMulti"];
        assert_eq!(untitled_multi["type"], "array");
        assert_eq!(untitled_multi["items"]["type"], "string");
        assert!(untitled_multi["items"]["enum"].is_array());
        assert!(untitled_multi["items"].get("anyOf").is_none());

        let titled_multi = &properties["titledMulti"];
        assert_eq!(titled_multi["type"], "array");
        assert_eq!(
            titled_multi["items"]["anyOf"][2],
            json!({"const": "value3", "title": "Third Choice"})
        );
        assert!(titled_multi["items"].get("enum").is_none());
    }

    #[test]
    fn reports_the_action_and_content() {
        let result: ElicitResult = serde_json::from_value(json!({
            "action": "accept",
            "content": {"username": "testuser"}
        }))
        .unwrap();
        assert_eq!(
            Form::UserInfo.report(&result),
            r#"User response: action=accept, content={"username":"testuser"}"#
        );
        let declined: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        assert_eq!(
            Form::Enums.report(&declined),
            "Elicitation completed: action=decline, content=null"
        );
    }
}
