//! `completion/complete` for the conformance fixture's prompt arguments and
//! resource template variables.
//!
//! Each completable argument has a fixed list of candidates; an answer is the
//! candidates that start with the typed value (case-insensitive), in list
//! order. An unknown argument of a known prompt or template completes to
//! nothing; an unknown prompt or template is an `invalid_params` error. Pure
//! functions, no state.

use rmcp::{
    ErrorData,
    model::{CompletionInfo, Reference},
};

use super::catalog::{PromptName, TEMPLATE_URI};

/// The candidates for `argument` of the prompt or template `reference` names.
fn candidates(reference: &Reference, argument: &str) -> Result<&'static [&'static str], ErrorData> {
    match reference {
        Reference::Prompt(prompt) => {
            let Some(prompt) = PromptName::parse(&prompt.name) else {
                return Err(ErrorData::invalid_params(
                    format!("unknown prompt: {}", prompt.name),
                    None,
                ));
            };
            Ok(match (prompt, argument) {
                (PromptName::WithArguments, "arg1") => &["paris", "park", "party", "testValue1"],
                (PromptName::WithArguments, "arg2") => &["world", "wonder", "testValue2"],
                (PromptName::WithEmbeddedResource, "resourceUri") => &[
                    "test://static-text",
                    "test://static-binary",
                    "test://watched-resource",
                ],
                _ => &[],
            })
        }
        Reference::Resource(template) if template.uri == TEMPLATE_URI => Ok(match argument {
            "id" => &["1", "2", "3", "123"],
            _ => &[],
        }),
        Reference::Resource(template) => Err(ErrorData::invalid_params(
            format!("unknown resource template: {}", template.uri),
            None,
        )),
        _ => Err(ErrorData::invalid_params(
            "unsupported reference type",
            None,
        )),
    }
}

/// The completion of `value` for `argument` of `reference`.
pub fn complete(
    reference: &Reference,
    argument: &str,
    value: &str,
) -> Result<CompletionInfo, ErrorData> {
    let prefix = value.to_lowercase();
    let values = candidates(reference, argument)?
        .iter()
        .filter(|candidate| candidate.to_lowercase().starts_with(&prefix))
        .map(|candidate| (*candidate).to_owned())
        .collect();
    CompletionInfo::with_all_values(values).map_err(|error| ErrorData::internal_error(error, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(reference: &Reference, argument: &str, value: &str) -> Vec<String> {
        complete(reference, argument, value).unwrap().values
    }

    #[test]
    fn completes_prompt_arguments_by_prefix() {
        let prompt = Reference::for_prompt("test_prompt_with_arguments");
        assert_eq!(values(&prompt, "arg1", "par"), ["paris", "park", "party"]);
        assert_eq!(values(&prompt, "arg1", "TEST"), ["testValue1"]);
        assert_eq!(values(&prompt, "arg1", "zzz"), Vec::<String>::new());
        assert_eq!(values(&prompt, "arg2", "").len(), 3);
        assert_eq!(values(&prompt, "other", ""), Vec::<String>::new());
        let info = complete(&prompt, "arg1", "p").unwrap();
        assert_eq!((info.total, info.has_more), (Some(3), Some(false)));
    }

    #[test]
    fn completes_template_variables() {
        let template = Reference::for_resource(TEMPLATE_URI);
        assert_eq!(values(&template, "id", "1"), ["1", "123"]);
    }

    #[test]
    fn unknown_references_are_errors() {
        assert!(complete(&Reference::for_prompt("nope"), "arg1", "").is_err());
        assert!(complete(&Reference::for_resource("test://nope/{x}"), "x", "").is_err());
    }
}
