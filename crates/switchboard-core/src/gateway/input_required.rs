//! Input-required results (SEP-2322, protocol 2026-07-28) and the
//! server→client requests of earlier protocols, converted into each other, so
//! a call can cross between a client and a server on different sides of
//! 2026-07-28:
//!
//! - an older server's sampling/elicitation/roots request becomes one entry
//!   of an input-required result for a 2026-07-28 client ([`as_input_request`]),
//!   and that client's answer in the retry's `inputResponses` becomes the
//!   answer to the server ([`client_result`]);
//! - a 2026-07-28 server's input request becomes a sampling/elicitation/roots
//!   request to an older client ([`as_server_request`]), whose answer goes
//!   into the retry's `inputResponses` ([`response_value`]).
//!
//! Pure functions over rmcp's model types; `input_flow` calls them.

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577) but are exactly
// what is converted here.
#![allow(deprecated)]

use rmcp::model::{ClientResult, InputRequest, InputResponses, ServerRequest};
use serde_json::Value;

/// Why a request or an answer cannot cross the protocol boundary.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum InputRequiredError {
    /// Only sampling, elicitation and roots requests have an input-required form.
    #[error("a {what} request from a server cannot be passed on as an input request")]
    NotCarried { what: &'static str },
    /// The retry has no answer for an input request.
    #[error("the retry's inputResponses has no answer for input request '{key}'")]
    Missing { key: String },
    /// The answer does not have the shape its request asks for.
    #[error("the answer to input request '{key}' is not a valid {what} result: {reason}")]
    Invalid {
        key: String,
        what: &'static str,
        reason: String,
    },
}

/// The input-required entry for a server→client request of an older server.
pub(crate) fn as_input_request(request: ServerRequest) -> Result<InputRequest, InputRequiredError> {
    match request {
        ServerRequest::CreateMessageRequest(r) => Ok(InputRequest::CreateMessage(r)),
        ServerRequest::ElicitRequest(r) => Ok(InputRequest::Elicitation(r)),
        ServerRequest::ListRootsRequest(r) => Ok(InputRequest::ListRoots(r)),
        ServerRequest::PingRequest(_) => Err(InputRequiredError::NotCarried { what: "ping" }),
        _ => Err(InputRequiredError::NotCarried { what: "custom" }),
    }
}

/// The server→client request an older client understands, for one input
/// request of a 2026-07-28 server.
pub(crate) fn as_server_request(request: InputRequest) -> Option<ServerRequest> {
    match request {
        InputRequest::CreateMessage(r) => Some(ServerRequest::CreateMessageRequest(r)),
        InputRequest::Elicitation(r) => Some(ServerRequest::ElicitRequest(r)),
        InputRequest::ListRoots(r) => Some(ServerRequest::ListRootsRequest(r)),
        _ => None,
    }
}

/// An older client's answer, as the value of its key in `inputResponses`.
pub(crate) fn response_value(result: &ClientResult) -> Value {
    // The result types serialize to JSON objects; a failure leaves an empty
    // answer, which the server then refuses with its own error.
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// The answer to an older server's request `key`, taken from a 2026-07-28
/// client's `inputResponses` and checked against the request's kind.
pub(crate) fn client_result(
    key: &str,
    request: &InputRequest,
    responses: &InputResponses,
) -> Result<ClientResult, InputRequiredError> {
    let value = responses
        .get(key)
        .cloned()
        .ok_or_else(|| InputRequiredError::Missing {
            key: key.to_string(),
        })?;
    let invalid = |what: &'static str| {
        move |e: serde_json::Error| InputRequiredError::Invalid {
            key: key.to_string(),
            what,
            reason: e.to_string(),
        }
    };
    match request {
        InputRequest::CreateMessage(_) => serde_json::from_value(value)
            .map(|r| ClientResult::CreateMessageResult(Box::new(r)))
            .map_err(invalid("sampling")),
        InputRequest::Elicitation(_) => serde_json::from_value(value)
            .map(ClientResult::ElicitResult)
            .map_err(invalid("elicitation")),
        InputRequest::ListRoots(_) => serde_json::from_value(value)
            .map(ClientResult::ListRootsResult)
            .map_err(invalid("roots")),
        _ => Err(InputRequiredError::NotCarried { what: "unknown" }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use rmcp::model::{InputRequests, ServerResult};
    use serde_json::json;

    fn server_request(value: Value) -> ServerRequest {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_older_servers_sampling_request_round_trips_through_an_input_required_result() {
        let request = server_request(json!({
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                       "maxTokens": 10}
        }));
        let input = as_input_request(request).unwrap();
        let mut requests = InputRequests::new();
        requests.insert("s1".into(), input.clone());
        // What a 2026-07-28 client receives, as it goes on the wire.
        let result = ServerResult::InputRequiredResult(rmcp::model::InputRequiredResult::new(
            Some(requests),
            Some("state-1".into()),
        ));
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["resultType"], "input_required");
        assert_eq!(
            wire["inputRequests"]["s1"]["method"],
            "sampling/createMessage"
        );
        assert_eq!(wire["requestState"], "state-1");

        // The client's retry answers it; the server gets a sampling result.
        let mut responses = InputResponses::new();
        responses.insert(
            "s1".into(),
            json!({"role": "assistant", "model": "m",
                   "content": {"type": "text", "text": "hello"}}),
        );
        let answer = client_result("s1", &input, &responses).unwrap();
        let ClientResult::CreateMessageResult(answer) = answer else {
            panic!("not a sampling result: {answer:?}");
        };
        assert_eq!(answer.model, "m");
    }

    #[test]
    fn a_newer_servers_elicitation_input_becomes_a_request_and_its_answer_a_response() {
        let input: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Who are you?",
                       "requestedSchema": {"type": "object", "properties": {}}}
        }))
        .unwrap();
        let request = as_server_request(input).unwrap();
        assert!(
            matches!(request, ServerRequest::ElicitRequest(_)),
            "{request:?}"
        );
        let answer: ClientResult =
            serde_json::from_value(json!({"action": "accept", "content": {"name": "ada"}}))
                .unwrap();
        assert_eq!(
            response_value(&answer),
            json!({"action": "accept", "content": {"name": "ada"}})
        );
    }

    #[test]
    fn roots_cross_both_ways() {
        let input = as_input_request(server_request(json!({"method": "roots/list"}))).unwrap();
        assert!(matches!(
            as_server_request(input.clone()),
            Some(ServerRequest::ListRootsRequest(_))
        ));
        let mut responses = InputResponses::new();
        responses.insert("r".into(), json!({"roots": [{"uri": "file:///work"}]}));
        assert!(matches!(
            client_result("r", &input, &responses).unwrap(),
            ClientResult::ListRootsResult(_)
        ));
    }

    #[test]
    fn bad_or_missing_answers_and_pings_are_named() {
        let input = as_input_request(server_request(json!({"method": "roots/list"}))).unwrap();
        let mut responses = InputResponses::new();
        assert_eq!(
            client_result("r", &input, &responses)
                .unwrap_err()
                .to_string(),
            "the retry's inputResponses has no answer for input request 'r'"
        );
        responses.insert("r".into(), json!({"roots": "nope"}));
        let err = client_result("r", &input, &responses)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("the answer to input request 'r' is not a valid roots result: "),
            "{err}"
        );
        assert_eq!(
            as_input_request(server_request(json!({"method": "ping"}))).unwrap_err(),
            InputRequiredError::NotCarried { what: "ping" }
        );
    }
}
