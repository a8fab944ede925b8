//! The HTTP fast path in front of rmcp (crates/switchboard-core/src/fast_path.rs),
//! spoken to with plain HTTP so the content types and bodies can be checked:
//! answers that come first are `application/json`; progress keeps the event
//! stream; prepared lists equal what rmcp's own path answers; and sessions
//! that are unknown or ended are still refused by rmcp.
//!
//! In-process (`Engine`): the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::{Answer, RawMcp as Raw};
use switchboard_e2e::spec_file;

fn tool_names(answer: &Answer) -> Vec<String> {
    answer.messages[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Calls echo tool `tool` with `text`: the answer must be one JSON body with
/// this request's id and the text.
async fn assert_echo_is_json(raw: &mut Raw, tool: &str, text: &str) {
    let call = raw
        .request(
            "tools/call",
            json!({"name": tool, "arguments": {"text": text}}),
        )
        .await;
    assert_eq!(call.content_type, "application/json", "{tool}");
    assert_eq!(call.messages[0]["id"], json!(raw.next_id - 1), "{tool}");
    assert_eq!(call.messages[0]["result"]["content"][0]["text"], text);
}

#[tokio::test]
async fn answers_come_as_json_progress_keeps_the_stream_and_lists_match_rmcp() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([
            {"name": "echo", "description": "echoes", "behavior": "echo"},
            {"name": "slow", "description": "sleeps", "behavior": "sleep"}
        ]),
    );
    let counter = scratch.path().join("counts.json");
    let counter_arg = counter.to_string_lossy().to_string();
    let hub = Engine::serve(json!({
        "mcpServers": {
            "a": stdio_fixture(&["--spec", &spec, "--counter-file", &counter_arg]),
            "b": stdio_fixture(&["--tools", "x,y"]),
        }
    }))
    .await
    .unwrap();
    let mut raw = Raw::new(&hub.url);

    let init = raw.initialize().await;
    assert_eq!(init.status, 200);
    assert_eq!(init.content_type, "application/json");
    assert!(raw.session.is_some(), "initialize gave no session id");
    assert_eq!(
        init.messages[0]["result"]["serverInfo"]["name"],
        "switchboard"
    );

    // Every list is JSON, whether rmcp answered it (the session was not
    // known to the fast path yet) or the fast path did.
    let first = raw.request("tools/list", json!({})).await;
    assert_eq!(first.content_type, "application/json");
    assert_eq!(
        tool_names(&first),
        vec!["a__echo", "a__slow", "b__x", "b__y"]
    );

    // Prepared bytes (fast path) and rmcp's own answer (a SEP-2243 header makes
    // the request go to rmcp untouched) carry the same result.
    let fast = raw.request("tools/list", json!({})).await;
    let via_rmcp = raw
        .request_with("tools/list", json!({}), &[("mcp-method", "tools/list")])
        .await;
    assert_eq!(fast.content_type, "application/json");
    assert!(
        via_rmcp.content_type.starts_with("text/event-stream"),
        "rmcp's path should stream: {}",
        via_rmcp.content_type
    );
    assert_eq!(fast.messages[0]["id"], json!(raw.next_id - 2));
    assert_eq!(fast.messages[0]["result"], via_rmcp.messages[0]["result"]);
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let fast = raw.request(method, json!({})).await;
        let via_rmcp = raw
            .request_with(method, json!({}), &[("mcp-method", method)])
            .await;
        assert_eq!(fast.content_type, "application/json", "{method}");
        assert_eq!(
            fast.messages[0]["result"], via_rmcp.messages[0]["result"],
            "{method}"
        );
    }
    // A cursor is accepted: everything is one page.
    let cursor = raw
        .request("tools/list", json!({"cursor": "anything"}))
        .await;
    assert_eq!(tool_names(&cursor).len(), 4);

    // A call whose answer comes first is one JSON body.
    assert_echo_is_json(&mut raw, "a__echo", "hi").await;

    // A call that reports progress keeps the event stream: progress first,
    // then the answer.
    let slow = raw
        .request(
            "tools/call",
            json!({"name": "a__slow", "arguments": {"ms": 350}, "_meta": {"progressToken": "p1"}}),
        )
        .await;
    assert!(
        slow.content_type.starts_with("text/event-stream"),
        "{}",
        slow.content_type
    );
    let methods: Vec<&str> = slow
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(answer)"))
        .collect();
    assert!(methods.len() >= 2, "{methods:?}");
    assert!(
        methods[..methods.len() - 1]
            .iter()
            .all(|m| *m == "notifications/progress"),
        "{methods:?}"
    );
    assert_eq!(methods.last(), Some(&"(answer)"));
    assert!(slow.messages.last().unwrap()["result"].is_object());

    // An error answer is JSON too, and names the tool.
    let unknown = raw
        .request("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(unknown.content_type, "application/json");
    assert!(
        unknown.messages[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );

    // A call the client cancels (this client declared no capabilities, so its
    // plain calls run on the fast path) is cancelled upstream too, and its
    // POST ends without an answer, as on rmcp's path.
    let (calls_before, started_before) = {
        let counts: Value = serde_json::from_slice(&std::fs::read(&counter).unwrap()).unwrap();
        (
            counts["tools/call"].as_u64().unwrap(),
            counts["tools/call started"].as_u64().unwrap(),
        )
    };
    let slow_id = raw.next_id;
    raw.next_id += 1;
    let long_call = {
        let raw = raw.clone();
        tokio::spawn(async move {
            raw.post(
                &json!({"jsonrpc": "2.0", "id": slow_id, "method": "tools/call",
                        "params": {"name": "a__slow", "arguments": {"ms": 60000}}}),
                &[],
            )
            .await
        })
    };
    // Cancelled once the call is in the server (counted when it arrives).
    switchboard_e2e::eventually("the slow call to reach the server", || async {
        let counts: Value = serde_json::from_slice(&std::fs::read(&counter).ok()?).ok()?;
        (counts["tools/call started"].as_u64() > Some(started_before)).then_some(())
    })
    .await;
    let cancelled = raw
        .post(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": slow_id, "reason": "changed my mind"}}),
            &[],
        )
        .await;
    assert_eq!(cancelled.status, 202);
    let long_call = tokio::time::timeout(std::time::Duration::from_secs(20), long_call)
        .await
        .expect("the cancelled call's POST ended")
        .unwrap();
    assert_eq!(long_call.status, 200);
    assert!(
        long_call.messages.is_empty(),
        "no answer for a cancelled request: {:?}",
        long_call.messages
    );
    switchboard_e2e::eventually("the upstream saw the cancellation", || async {
        let counts: Value = serde_json::from_slice(&std::fs::read(&counter).ok()?).ok()?;
        (counts["tools/call"].as_u64() == Some(calls_before + 1)).then_some(())
    })
    .await;

    // The pass-through route: its calls run on the fast path too (checked by
    // the answer's id and content); a merged session id is not valid there.
    let mut single = Raw::new(&format!("{}/servers/a/mcp", hub.base));
    let init = single.initialize().await;
    assert_eq!(init.status, 200);
    assert_echo_is_json(&mut single, "echo", "direct").await;
    let listed = single.request("tools/list", json!({})).await;
    assert_eq!(tool_names(&listed), vec!["echo", "slow"]);
    single.session = raw.session.clone();
    assert_eq!(
        single.request("tools/list", json!({})).await.status,
        404,
        "a merged session is not a session of the pass-through route"
    );

    // Unknown and ended sessions are refused by rmcp, lists included.
    let session = raw.session.clone().unwrap();
    raw.session = Some("not-a-session".into());
    assert_eq!(raw.request("tools/list", json!({})).await.status, 404);
    raw.session = Some(session.clone());
    let deleted = reqwest::Client::new()
        .delete(&hub.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(
        deleted.status().is_success(),
        "DELETE: {}",
        deleted.status()
    );
    let after = raw.request("tools/list", json!({})).await;
    assert_eq!(after.status, 404, "a deleted session must not be served");
}
