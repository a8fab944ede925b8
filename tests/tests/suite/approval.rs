//! Asking before acting (`settings.confirmCalls`): a destructive call waits
//! until a person allows or denies it through the control API or the CLI,
//! on the merged and the pass-through route; a denied or unanswered call
//! never reaches the server and the client gets `isError: true` saying why;
//! read-only tools are never asked; `always` writes the tool into the
//! server's `allowTools`; the calling client is asked by elicitation when
//! it declared the capability (a 2026-07-28 client through an
//! input-required result and its retry); the activity log records each
//! decision.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation,
    InputResponses, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, TestHub, counts, eventually, spec_file, stdio_fixture};

/// A delete (destructive), a read (read-only) and a write (no annotation).
fn tools() -> Value {
    json!([
        {"name": "delete_file", "annotations": {"destructiveHint": true}},
        {"name": "read_file", "annotations": {"readOnlyHint": true}},
        {"name": "write_note"}
    ])
}

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_string());
    p.arguments = args.as_object().cloned();
    p
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn calls_made(counter: &Path) -> u64 {
    counts(counter)["tools/call"].as_u64().unwrap_or(0)
}

/// Waits until exactly `n` calls wait, returning them.
async fn waiting(hub: &Hub, n: usize) -> Vec<Value> {
    eventually(&format!("{n} calls waiting"), || async {
        let calls = hub.get("/api/v1/pending").await["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        (calls.len() == n).then_some(calls)
    })
    .await
}

/// `POST` with a JSON body and the control token.
async fn post_json(hub: &Hub, path: &str, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", hub.base))
        .bearer_auth(hub.token())
        .json(&body)
        .send()
        .await
        .unwrap();
    let code = response.status().as_u16();
    (code, response.json().await.unwrap_or(Value::Null))
}

fn file(hub: &Hub) -> Value {
    serde_json::from_slice(&std::fs::read(&hub.config_path).unwrap()).unwrap()
}

#[tokio::test]
async fn destructive_calls_wait_for_a_decision_through_the_api_and_the_cli() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let spec = spec_file(scratch.path(), tools());
    let mut hub = Hub::start(json!({
        "mcpServers": {"files": stdio_fixture(&[
            "--spec", &spec, "--counter-file", &counter.to_string_lossy()
        ])},
        "settings": {"confirmCalls": "destructive"}
    }))
    .await
    .unwrap();
    let merged = Arc::new(hub.client().await);

    // Read-only and unannotated tools are not asked in `destructive` mode.
    assert_eq!(
        merged
            .call_text("files__read_file", json!({"text": "r"}))
            .await
            .unwrap(),
        "r"
    );
    assert_eq!(
        merged
            .call_text("files__write_note", json!({"text": "w"}))
            .await
            .unwrap(),
        "w"
    );
    assert_eq!(hub.get("/api/v1/pending").await, json!({"calls": []}));
    assert_eq!(calls_made(&counter), 2);

    // A destructive call waits; the list shows it with secrets redacted.
    let call = {
        let merged = merged.clone();
        tokio::spawn(async move {
            merged
                .service
                .peer()
                .call_tool(params(
                    "files__delete_file",
                    json!({"text": "gone", "apiKey": "sk-live-123456"}),
                ))
                .await
        })
    };
    let calls = waiting(&hub, 1).await;
    let id = calls[0]["id"].as_str().unwrap().to_string();
    assert_eq!(calls[0]["server"], "files");
    assert_eq!(calls[0]["tool"], "delete_file");
    assert_eq!(
        calls[0]["arguments"],
        json!({"text": "gone", "apiKey": "***"})
    );
    assert_eq!(calls[0]["client"], "switchboard-e2e");
    assert!(
        calls[0]["since"].as_str().unwrap().ends_with('Z'),
        "{calls:?}"
    );
    assert_eq!(calls_made(&counter), 2, "the server saw a waiting call");
    // The pending list shows arguments: not without a credential.
    let open = reqwest::get(format!("{}/api/v1/pending", hub.base))
        .await
        .unwrap();
    assert_eq!(open.status().as_u16(), 401);

    let (code, answer) = hub.post(&format!("/api/v1/pending/{id}/allow")).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer,
        json!({"id": id, "decision": "allow", "always": false})
    );
    let result = call.await.unwrap().unwrap();
    assert_eq!(text_of(&result), "gone");
    assert_ne!(result.is_error, Some(true));
    assert_eq!(calls_made(&counter), 3);
    // While it waited, the client (it sent a progress token) was told.
    assert!(
        !merged.received.progress.lock().unwrap().is_empty(),
        "no progress notification while waiting"
    );
    // Decided already: nothing to decide.
    let (code, answer) = hub.post(&format!("/api/v1/pending/{id}/allow")).await;
    assert_eq!(code, 404, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains(&id), "{answer}");

    // The pass-through route asks too; denied with the CLI, the server never sees it.
    let single = Arc::new(Client::connect(&format!("{}/servers/files/mcp", hub.base)).await);
    let call = {
        let single = single.clone();
        tokio::spawn(async move {
            single
                .service
                .peer()
                .call_tool(params("delete_file", json!({"text": "x"})))
                .await
        })
    };
    let id = waiting(&hub, 1).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = hub
        .cli()
        .args(["deny", &id, "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("call {id}: denied\n")
    );
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text_of(&result),
        "The user declined the call of tool 'delete_file' of server 'files'; it was not made."
    );
    assert_eq!(calls_made(&counter), 3);

    // `always`: allowed, and written into the server's allowTools; not asked again.
    let call = {
        let merged = merged.clone();
        tokio::spawn(async move {
            merged
                .call_text("files__delete_file", json!({"text": "a"}))
                .await
        })
    };
    let calls = waiting(&hub, 1).await;
    let out = hub
        .cli()
        .args(["pending", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(listed.contains("files/delete_file"), "{listed}");
    let id = calls[0]["id"].as_str().unwrap();
    let (code, answer) = post_json(
        &hub,
        &format!("/api/v1/pending/{id}/allow"),
        json!({"always": true}),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["always"], true, "{answer}");
    assert_eq!(call.await.unwrap().unwrap(), "a");
    assert_eq!(
        file(&hub)["mcpServers"]["files"]["allowTools"],
        json!(["delete_file"])
    );
    assert_eq!(
        merged
            .call_text("files__delete_file", json!({"text": "again"}))
            .await
            .unwrap(),
        "again"
    );
    assert_eq!(calls_made(&counter), 5);

    // The activity log says who decided and how long the call waited.
    let decided = eventually("the decisions logged", || async {
        let calls = hub.get("/api/v1/activity").await["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let decided: Vec<Value> = calls
            .into_iter()
            .filter_map(|c| c.get("approval").cloned())
            .collect();
        (decided.len() == 3).then_some(decided)
    })
    .await;
    let summary: Vec<(String, String)> = decided
        .iter()
        .rev()
        .map(|a| {
            assert!(a["waitedMs"].as_f64().unwrap() > 0.0, "{a}");
            (
                a["decision"].as_str().unwrap().to_string(),
                a["by"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [("allowed", "api"), ("denied", "api"), ("allowed", "api")]
            .map(|(d, b)| (d.to_string(), b.to_string()))
    );
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn nobody_answering_denies_the_call_when_the_time_is_up() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let spec = spec_file(scratch.path(), tools());
    let mut server = stdio_fixture(&[
        "--spec",
        &spec,
        "--counter-file",
        &counter.to_string_lossy(),
    ]);
    // The server's own mode (`writes`) overrides the hub's (`off`).
    server["confirmCalls"] = json!("writes");
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {"files": server}}),
        &[("SWITCHBOARD_CONFIRM_TIMEOUT_SECS", "1")],
    )
    .await
    .unwrap();
    let merged = hub.client().await;
    let result = merged
        .service
        .peer()
        .call_tool(params("files__write_note", json!({"text": "x"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text_of(&result),
        "Nobody answered the approval request for tool 'write_note' of server 'files' in 1 s; \
         the call was not made."
    );
    assert_eq!(calls_made(&counter), 0);
    assert_eq!(hub.get("/api/v1/pending").await, json!({"calls": []}));
    // Read-only is never asked, even in `writes` mode.
    assert_eq!(
        merged
            .call_text("files__read_file", json!({"text": "r"}))
            .await
            .unwrap(),
        "r"
    );
    assert_eq!(calls_made(&counter), 1);
    assert_eq!(hub.terminate().await, Some(0));
}

/// A client that declares elicitation and answers approval forms with its
/// next scripted decision, recording the messages it was shown.
#[derive(Clone, Default)]
struct Person {
    answers: Arc<Mutex<Vec<&'static str>>>,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap();
        ClientConfig::new(capabilities, Implementation::new("person", "1"))
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
        let answer = self.answers.lock().unwrap().remove(0);
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"decision": answer}));
        Ok(result)
    }
}

#[tokio::test]
async fn the_calling_client_decides_by_elicitation() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let spec = spec_file(scratch.path(), tools());
    let mut hub = Hub::start(json!({
        "mcpServers": {"files": stdio_fixture(&[
            "--spec", &spec, "--counter-file", &counter.to_string_lossy()
        ])},
        "settings": {"confirmCalls": "destructive"}
    }))
    .await
    .unwrap();
    let person = Person::default();
    *person.answers.lock().unwrap() = vec!["deny", "allow", "always"];
    let client = person
        .clone()
        .serve(StreamableHttpClientTransport::from_uri(hub.url.clone()))
        .await
        .unwrap();
    let peer = client.peer();
    let call = |text: &str| {
        params(
            "files__delete_file",
            json!({"text": text, "password": "hunter2"}),
        )
    };

    let denied = peer.call_tool(call("one")).await.unwrap();
    assert_eq!(denied.is_error, Some(true));
    assert!(
        text_of(&denied).contains("declined"),
        "{}",
        text_of(&denied)
    );
    assert_eq!(calls_made(&counter), 0);
    let asked = person.asked.lock().unwrap()[0].clone();
    assert_eq!(
        asked["requestedSchema"]["properties"],
        json!({"decision": {"type": "string", "enum": ["allow", "always", "deny"]}})
    );
    let message = asked["message"].as_str().unwrap();
    assert!(
        message.contains("'delete_file'") && message.contains("'files'") && message.contains("one"),
        "{message}"
    );
    assert!(
        !message.contains("hunter2"),
        "a secret in the form: {message}"
    );

    let allowed = peer.call_tool(call("two")).await.unwrap();
    assert_eq!(text_of(&allowed), "two");
    let always = peer.call_tool(call("three")).await.unwrap();
    assert_eq!(text_of(&always), "three");
    eventually("allowTools written", || async {
        (file(&hub)["mcpServers"]["files"]["allowTools"] == json!(["delete_file"])).then_some(())
    })
    .await;
    let asked_before = person.asked.lock().unwrap().len();
    eventually("the call is no longer asked", || async {
        let result = peer.call_tool(call("four")).await.unwrap();
        (text_of(&result) == "four").then_some(())
    })
    .await;
    assert_eq!(person.asked.lock().unwrap().len(), asked_before);
    let decided = eventually("the elicitation decisions logged", || async {
        let calls = hub.get("/api/v1/activity").await["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let by: Vec<String> = calls
            .iter()
            .filter_map(|c| c["approval"]["by"].as_str().map(String::from))
            .collect();
        (by.len() == 3).then_some(by)
    })
    .await;
    assert_eq!(decided, ["elicitation"; 3]);
    assert_eq!(hub.terminate().await, Some(0));
}

/// The one input request of an input-required answer: its key and the
/// request as JSON, and the state to retry with.
fn input_request(response: CallToolResponse) -> (String, Value, String) {
    let CallToolResponse::InputRequired(asked) = response else {
        panic!("not input-required: {response:?}");
    };
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (key, request) = requests.into_iter().next().unwrap();
    (
        key,
        serde_json::to_value(request).unwrap(),
        asked.request_state.unwrap(),
    )
}

fn decided(key: &str, decision: &str) -> InputResponses {
    let mut responses = InputResponses::new();
    responses.insert(
        key.into(),
        json!({"action": "accept", "content": {"decision": decision}}),
    );
    responses
}

#[tokio::test]
async fn a_2026_client_decides_through_an_input_required_result() {
    let scratch = tempfile::tempdir().unwrap();
    let counter = scratch.path().join("counts.json");
    let spec = spec_file(scratch.path(), tools());
    let mut hub = Hub::start(json!({
        "mcpServers": {"files": stdio_fixture(&[
            "--spec", &spec, "--counter-file", &counter.to_string_lossy()
        ])},
        "settings": {"confirmCalls": "destructive"}
    }))
    .await
    .unwrap();
    let client = Person::default()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(hub.url.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let peer = client.peer();
    let call = |text: &str| {
        params(
            "files__delete_file",
            json!({"text": text, "password": "hunter2"}),
        )
    };

    // Asked in the answer itself; the call waits (listed) until the retry.
    let (key, request, state) = input_request(peer.call_tool_once(call("one")).await.unwrap());
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(
        request["params"]["requestedSchema"]["properties"],
        json!({"decision": {"type": "string", "enum": ["allow", "always", "deny"]}})
    );
    let message = request["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("'delete_file'") && !message.contains("hunter2"),
        "{message}"
    );
    assert_eq!(waiting(&hub, 1).await[0]["tool"], "delete_file");
    assert_eq!(calls_made(&counter), 0);
    let mut retry = call("one");
    retry.request_state = Some(state);
    retry.input_responses = Some(decided(&key, "allow"));
    let CallToolResponse::Complete(done) = peer.call_tool_once(retry).await.unwrap() else {
        panic!("the retry did not complete");
    };
    assert_eq!(text_of(&done), "one");
    assert_eq!(calls_made(&counter), 1);
    waiting(&hub, 0).await;

    // Denied in the retry: the server never sees it.
    let (key, _, state) = input_request(peer.call_tool_once(call("two")).await.unwrap());
    let mut retry = call("two");
    retry.request_state = Some(state);
    retry.input_responses = Some(decided(&key, "deny"));
    let CallToolResponse::Complete(refused) = peer.call_tool_once(retry).await.unwrap() else {
        panic!("the retry did not complete");
    };
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text_of(&refused).contains("declined"),
        "{}",
        text_of(&refused)
    );
    assert_eq!(calls_made(&counter), 1);

    // rmcp's own client answers the rounds through its handler.
    let person = Person::default();
    *person.answers.lock().unwrap() = vec!["allow"];
    let driven = person
        .clone()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(hub.url.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let result = driven.call_tool(call("three")).await.unwrap();
    assert_eq!(text_of(&result), "three");
    assert_eq!(person.asked.lock().unwrap().len(), 1);
    // Read-only tools are not asked.
    let read = driven
        .call_tool(params("files__read_file", json!({"text": "r"})))
        .await
        .unwrap();
    assert_eq!(text_of(&read), "r");
    let by = eventually("the decisions logged", || async {
        let calls = hub.get("/api/v1/activity").await["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let by: Vec<String> = calls
            .iter()
            .filter_map(|c| {
                c["approval"]["decision"]
                    .as_str()
                    .map(|d| format!("{d} by {}", c["approval"]["by"].as_str().unwrap_or("")))
            })
            .collect();
        (by.len() == 3).then_some(by)
    })
    .await;
    assert_eq!(
        by,
        [
            "allowed by elicitation",
            "denied by elicitation",
            "allowed by elicitation"
        ]
    );
    assert_eq!(hub.terminate().await, Some(0));
}
