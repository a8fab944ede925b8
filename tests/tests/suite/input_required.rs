//! Input-required results (SEP-2322) through the hub, with real rmcp clients
//! at 2026-07-28 and at 2025-11-25, and the upstream version the hub
//! negotiated with each kind of server:
//! - a 2026-07-28 server (the fixture's `ask` tool) answers with an
//!   input-required result: a 2026-07-28 client gets it as it is and its
//!   retry reaches the server; an older client is asked the elicitation by
//!   the hub, which retries for it; an older client that cannot be asked
//!   gets an error saying so;
//! - the same for `prompts/get` and `resources/read` (the fixture's `ask`
//!   prompt and `fixture://ask` resource): an older client is asked by the
//!   hub, which retries with the server's state, for each;
//! - an older server (the conformance fixture, limited to 2025-11-25) sends
//!   `elicitation/create` during a 2026-07-28 client's call: the client gets
//!   an input-required result whose `requestState` names the parked call,
//!   an altered state is refused, and the retry's answer reaches the server.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, GetPromptRequestParams, GetPromptResponse, Implementation, InputResponses,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService, ServiceExt,
};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use switchboard_e2e::{HttpFixture, Hub, TestHub, bin, stdio_fixture};

/// A client that answers every elicitation with the name "ada".
#[derive(Clone, Default)]
struct Answerer {
    asked: Arc<AtomicUsize>,
    elicitation: bool,
}

impl ClientHandler for Answerer {
    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities = if self.elicitation {
            serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(caps, Implementation::new("input-required-e2e", "0"))
    }

    async fn create_elicitation(
        &self,
        _params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(serde_json::from_value(
            json!({"action": "accept", "content": {"name": "ada", "username": "ada", "email": "ada@example.com"}}),
        )
        .unwrap())
    }
}

async fn modern(url: &str, handler: Answerer) -> RunningService<RoleClient, Answerer> {
    handler
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url.to_string()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client connects")
}

async fn legacy(url: &str, handler: Answerer) -> RunningService<RoleClient, Answerer> {
    handler
        .serve(StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .expect("a 2025-11-25 client connects")
}

/// An older client that declares elicitation, and the count of what it was asked.
async fn legacy_asked(url: &str) -> (RunningService<RoleClient, Answerer>, Arc<AtomicUsize>) {
    let answerer = Answerer {
        elicitation: true,
        ..Default::default()
    };
    let asked = answerer.asked.clone();
    (legacy(url, answerer).await, asked)
}

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_string());
    p.arguments = args.as_object().cloned();
    p
}

fn text(response: &CallToolResponse) -> String {
    match response {
        CallToolResponse::Complete(result) => result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default(),
        other => panic!("not a complete result: {other:?}"),
    }
}

fn accept(key: &str) -> InputResponses {
    let mut responses = InputResponses::new();
    responses.insert(
        key.into(),
        json!({"action": "accept", "content": {"name": "ada", "username": "ada", "email": "ada@example.com"}}),
    );
    responses
}

fn ask_spec(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("spec.json");
    std::fs::write(
        &path,
        json!({"tools": [{"name": "ask", "behavior": "ask"}]}).to_string(),
    )
    .unwrap();
    path.to_string_lossy().to_string()
}

#[tokio::test]
async fn a_2026_servers_input_request_reaches_new_and_old_clients() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ask_spec(&dir);
    let mut http = HttpFixture::start(&["--spec", &spec]).await.unwrap();
    let mut hub = Hub::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
        "h": {"url": http.url},
    }}))
    .await
    .unwrap();

    for (tool, server) in [("a__ask", "a"), ("h__ask", "h")] {
        // A 2026-07-28 client gets the server's own input request and state.
        let client = modern(&hub.url, Answerer::default()).await;
        let first = client
            .peer()
            .call_tool_once(params(tool, json!({})))
            .await
            .unwrap();
        let CallToolResponse::InputRequired(asked) = first else {
            panic!("not input-required: {first:?}");
        };
        let requests = asked.input_requests.clone().unwrap();
        assert_eq!(
            serde_json::to_value(&requests["name"]).unwrap()["method"],
            "elicitation/create"
        );
        assert_eq!(asked.request_state.as_deref(), Some("fixture-ask-1"));
        // Both servers were reached on 2026-07-28 (stdio and HTTP).
        let snapshot = hub.server_snapshot(server).await;
        assert_eq!(snapshot.protocol_version.as_deref(), Some("2026-07-28"));

        let mut retry = params(tool, json!({}));
        retry.request_state = asked.request_state.clone();
        retry.input_responses = Some(accept("name"));
        let done = client.peer().call_tool_once(retry).await.unwrap();
        assert_eq!(text(&done), "hello ada");
        client.cancel().await.unwrap();

        // An older client is asked by the hub, which retries for it.
        let (old, asked) = legacy_asked(&hub.url).await;
        let result = old.peer().call_tool(params(tool, json!({}))).await.unwrap();
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            "hello ada",
            "{}",
            hub.log()
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        old.cancel().await.unwrap();

        // An older client that declared no elicitation gets a clear error.
        let quiet = legacy(&hub.url, Answerer::default()).await;
        let err = quiet
            .peer()
            .call_tool(params(tool, json!({})))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("needs input from the client (elicitation)"),
            "{err}"
        );
        quiet.cancel().await.unwrap();
    }

    assert_eq!(hub.terminate().await, Some(0));
    http.stop().await;
}

/// A spec with the asking prompt and resource (and an ordinary prompt).
fn ask_prompt_spec(dir: &tempfile::TempDir, with_resource: bool) -> String {
    let path = dir.path().join(format!("spec-{with_resource}.json"));
    let resources = if with_resource {
        json!([{"uri": "fixture://ask", "name": "ask"}])
    } else {
        json!([])
    };
    std::fs::write(
        &path,
        json!({
            "prompts": [{"name": "ask"}, {"name": "plain"}],
            "resources": resources,
        })
        .to_string(),
    )
    .unwrap();
    path.to_string_lossy().to_string()
}

fn prompt_text(response: &GetPromptResponse) -> String {
    match response {
        GetPromptResponse::Complete(result) => {
            let value = serde_json::to_value(&result.messages[0].content).unwrap();
            value["text"].as_str().unwrap_or_default().to_string()
        }
        other => panic!("not a complete result: {other:?}"),
    }
}

#[tokio::test]
async fn an_older_client_is_asked_for_a_2026_servers_prompt_and_resource() {
    let dir = tempfile::tempdir().unwrap();
    let with_resource = ask_prompt_spec(&dir, true);
    let prompt_only = ask_prompt_spec(&dir, false);
    let mut http = HttpFixture::start(&["--spec", &prompt_only]).await.unwrap();
    let mut hub = Hub::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &with_resource]),
        "h": {"url": http.url},
    }}))
    .await
    .unwrap();

    for prompt in ["a__ask", "h__ask"] {
        // A 2026-07-28 client gets the server's input request itself.
        let client = modern(&hub.url, Answerer::default()).await;
        let first = client
            .peer()
            .get_prompt_once(GetPromptRequestParams::new(prompt))
            .await
            .unwrap();
        let GetPromptResponse::InputRequired(asked) = first else {
            panic!("not input-required: {first:?}");
        };
        assert_eq!(asked.request_state.as_deref(), Some("fixture-ask-1"));
        client.cancel().await.unwrap();

        // An older client is asked by the hub; its one request gets the answer.
        let (old, asked) = legacy_asked(&hub.url).await;
        let got = old
            .peer()
            .get_prompt_once(GetPromptRequestParams::new(prompt))
            .await
            .unwrap();
        assert_eq!(prompt_text(&got), "hello ada", "{}", hub.log());
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        // A prompt that asks nothing is answered as before.
        let plain = old
            .peer()
            .get_prompt_once(GetPromptRequestParams::new(prompt.replace("ask", "plain")))
            .await
            .unwrap();
        assert!(prompt_text(&plain).starts_with("prompt plain"), "{plain:?}");
        old.cancel().await.unwrap();

        // An older client that declared no elicitation gets a clear error naming the prompt.
        let quiet = legacy(&hub.url, Answerer::default()).await;
        let err = quiet
            .peer()
            .get_prompt_once(GetPromptRequestParams::new(prompt))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "prompt '{prompt}' needs input from the client (elicitation)"
            )),
            "{err}"
        );
        quiet.cancel().await.unwrap();
    }

    // resources/read of the stdio server's asking resource.
    let (old, asked) = legacy_asked(&hub.url).await;
    let read = old
        .peer()
        .read_resource_once(ReadResourceRequestParams::new("fixture://ask"))
        .await
        .unwrap();
    let ReadResourceResponse::Complete(read) = read else {
        panic!("not a complete result: {read:?}");
    };
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(contents["text"], "hello ada", "{}", hub.log());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    old.cancel().await.unwrap();

    assert_eq!(hub.terminate().await, Some(0));
    http.stop().await;
}

#[tokio::test]
async fn an_older_servers_elicitation_becomes_input_required_for_a_new_client() {
    let conformance = bin("switchboard-conformance-fixture");
    let mut hub = Hub::start(json!({"mcpServers": {
        "conf": {"command": conformance.to_string_lossy()},
    }}))
    .await
    .unwrap();
    let client = modern(&hub.url, Answerer::default()).await;
    let call = || params("conf__test_elicitation", json!({"message": "Who are you?"}));

    let first = client.peer().call_tool_once(call()).await.unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("not input-required: {first:?}\n{}", hub.log());
    };
    // The server speaks 2025-11-25 only: the hub fell back to `initialize`.
    let snapshot = hub.server_snapshot("conf").await;
    assert_eq!(snapshot.protocol_version.as_deref(), Some("2025-11-25"));
    let state = asked.request_state.clone().unwrap();
    assert!(state.starts_with("switchboard-input:"), "{state}");
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    let request = serde_json::to_value(request).unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Who are you?");

    // An altered state names nothing.
    let mut tampered = call();
    tampered.request_state = Some(format!("{state}0"));
    tampered.input_responses = Some(accept(key));
    let err = client
        .peer()
        .call_tool_once(tampered)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("names no call waiting for input"), "{err}");

    // A retry without the answer is refused and loses nothing.
    let mut empty = call();
    empty.request_state = Some(state.clone());
    let err = client
        .peer()
        .call_tool_once(empty)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no answer for input request"), "{err}");

    // The retry answers the waiting server, and the call completes.
    let mut retry = call();
    retry.request_state = Some(state.clone());
    retry.input_responses = Some(accept(key));
    let done = client.peer().call_tool_once(retry.clone()).await.unwrap();
    let done = text(&done);
    assert!(
        done.starts_with("User response: action=accept") && done.contains("ada@example.com"),
        "{done}"
    );
    // Used once.
    let err = client
        .peer()
        .call_tool_once(retry)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("names no call waiting for input"), "{err}");

    // rmcp's own client drives the rounds through its handler.
    let answerer = Answerer {
        elicitation: true,
        ..Default::default()
    };
    let asked = answerer.asked.clone();
    let driven = modern(&hub.url, answerer).await;
    let result = driven.call_tool(call()).await.unwrap();
    assert!(
        result.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("action=accept"),
        "{result:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);

    client.cancel().await.unwrap();
    driven.cancel().await.unwrap();
    assert_eq!(hub.terminate().await, Some(0));
}
