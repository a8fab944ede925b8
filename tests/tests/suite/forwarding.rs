//! Everything a call can involve flows through the merged `/mcp` with
//! prefixed names: progress, cancellation, sampling and elicitation (the
//! upstream asks the very client whose call it is serving). In-process: the
//! hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation, Request, SamplingMessage,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::{bin, spec_file};

/// A client that supports sampling and elicitation and records what it was asked.
#[derive(Clone, Default)]
struct Assistant {
    asked: Arc<Mutex<Vec<String>>>,
    progress: Arc<Mutex<Vec<f64>>>,
}

impl ClientHandler for Assistant {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"sampling": {}, "elicitation": {"form": {}}})).unwrap();
        ClientConfig::new(capabilities, Implementation::new("assistant", "1"))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let prompt = serde_json::to_value(&params.messages).unwrap();
        self.asked
            .lock()
            .unwrap()
            .push(format!("sampling: {prompt}"));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("hello from the client"),
            "test-model".into(),
        ))
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let asked = serde_json::to_value(&params).unwrap();
        self.asked
            .lock()
            .unwrap()
            .push(format!("elicitation: {}", asked["message"]));
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"username": "ada", "email": "ada@example.com"}));
        Ok(result)
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params.progress);
    }
}

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_string());
    p.arguments = args.as_object().cloned();
    p
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn sampling_elicitation_progress_and_cancel_through_the_merged_endpoint() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let spec = spec_file(
        scratch.path(),
        json!([{"name": "slow", "behavior": "sleep"}]),
    );
    let conformance = bin("switchboard-conformance-fixture");
    let mut hub = Engine::serve(json!({"mcpServers": {
        "conf": {"command": conformance.to_string_lossy()},
        "plain": stdio_fixture(&["--spec", &spec, "--counter-file", &counter.to_string_lossy()]),
    }}))
    .await
    .unwrap();
    let assistant = Assistant::default();
    let client = assistant
        .clone()
        .serve(StreamableHttpClientTransport::from_uri(hub.url.clone()))
        .await
        .unwrap();
    let peer = client.peer();

    // Sampling: the upstream asks this client, whose call it is serving.
    let result = peer
        .call_tool(params("conf__test_sampling", json!({"prompt": "Say hi"})))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "LLM response: hello from the client");
    let asked = assistant.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].starts_with("sampling: ") && asked[0].contains("Say hi"),
        "{asked:?}"
    );

    // Elicitation, likewise.
    let result = peer
        .call_tool(params(
            "conf__test_elicitation",
            json!({"message": "Who are you?"}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text_of(&result).contains("accept"), "{}", text_of(&result));
    assert!(text_of(&result).contains("ada"), "{}", text_of(&result));
    assert_eq!(
        assistant.asked.lock().unwrap()[1],
        "elicitation: \"Who are you?\""
    );

    // Progress comes back re-keyed to this client's token.
    let result = peer
        .call_tool(params("conf__test_tool_with_progress", json!({})))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true));
    let progress = assistant.progress.lock().unwrap().clone();
    assert!(progress.len() >= 3, "progress received: {progress:?}");

    // Cancellation: the client cancels a long call once the upstream is
    // running it (its progress is coming back); the upstream hears it.
    let seen = assistant.progress.lock().unwrap().len();
    let request =
        ClientRequest::CallToolRequest(Request::new(params("plain__slow", json!({"ms": 60000}))));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    eventually("the long call running upstream", || async {
        (assistant.progress.lock().unwrap().len() > seen).then_some(())
    })
    .await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    eventually("the upstream saw the cancellation", || async {
        let counts: Value = serde_json::from_slice(&std::fs::read(&counter).ok()?).ok()?;
        (counts["tools/call"] == 1).then_some(())
    })
    .await;
    // The hub is not left waiting on it.
    eventually("no call in flight", || async {
        let calls = hub.get("/api/v1/servers/plain/logs").await;
        calls.is_object().then_some(())
    })
    .await;
    let again = peer
        .call_tool(params("plain__slow", json!({"ms": 10})))
        .await
        .unwrap();
    assert_eq!(text_of(&again), "slept 10 ms");

    client.cancel().await.unwrap();
    hub.shutdown().await;
}

#[tokio::test]
async fn a_client_without_sampling_gets_a_clear_tool_error() {
    let conformance = bin("switchboard-conformance-fixture");
    let mut hub = Engine::serve(json!({"mcpServers": {
        "conf": {"command": conformance.to_string_lossy()},
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    let result = client
        .service
        .peer()
        .call_tool(params("conf__test_sampling", json!({"prompt": "hi"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    assert!(
        text.contains(
            "the client connected to Switchboard does not support sampling (server 'conf')"
        ),
        "{text}"
    );
    hub.shutdown().await;
}
