//! Credentials in tool results (`settings.resultSecrets`): a fixture tool
//! that returns well-known credential formats in its text and structured
//! content reaches the client with each replaced by `[redacted <kind>]`, on
//! the merged and the pass-through route; the activity log and the hub's log
//! name the kinds, never a value; a server set to `warn` passes its result on
//! as it is (noted), and ordinary results are untouched.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use switchboard_e2e::{Client, Hub, TestHub, eventually, spec_file, stdio_fixture};

const AWS: &str = "AKIAQWERTYUIOPASDFGH";
const GITHUB: &str = "ghp_R3sultS3cr3tR3sultS3cr3tR3sultS3cr3t";
const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZXN1bHQtdGVzdCJ9.c2lnbmF0dXJlLW9mLXRoZS10ZXN0";
const DB: &str = "postgres://app:Pa55-result-w0rd@db.internal/app";

fn params(name: &str, args: Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_string());
    p.arguments = args.as_object().cloned();
    p
}

#[tokio::test]
async fn secrets_in_results_are_redacted_before_any_client_sees_them() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([{"name": "env", "behavior": "structured"}, {"name": "echo"}]),
    );
    let mut loud = stdio_fixture(&["--spec", &spec]);
    loud["resultSecrets"] = json!("warn");
    let mut hub = Hub::start(json!({"mcpServers": {
        "vault": stdio_fixture(&["--spec", &spec]),
        "loud": loud,
    }}))
    .await
    .unwrap();
    let merged = hub.client().await;
    let text = format!("aws {AWS}, gh {GITHUB}\ntoken {JWT} db {DB}");

    // Text content.
    let said = merged
        .call_text("vault__echo", json!({"text": text}))
        .await
        .unwrap();
    assert_eq!(
        said,
        "aws [redacted aws-access-key], gh [redacted github-token]\n\
         token [redacted jwt] db postgres://app:[redacted url-password]@db.internal/app"
    );
    // Structured content (and its text copy), on the pass-through route too.
    let single = Client::connect(&format!("{}/servers/vault/mcp", hub.base)).await;
    let result = single
        .service
        .peer()
        .call_tool(params(
            "env",
            json!({"config": {"key": AWS, "list": [GITHUB]}}),
        ))
        .await
        .unwrap();
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(
        structured,
        json!({"config": {"key": "[redacted aws-access-key]", "list": ["[redacted github-token]"]}})
    );
    let whole = serde_json::to_string(&result).unwrap();
    for secret in [AWS, GITHUB] {
        assert!(
            !whole.contains(secret),
            "a secret reached the client: {whole}"
        );
    }

    // Ordinary results are untouched; a `warn` server's result passes as it is.
    assert_eq!(
        merged
            .call_text(
                "vault__echo",
                json!({"text": "risk-free task-list sk-short"})
            )
            .await
            .unwrap(),
        "risk-free task-list sk-short"
    );
    assert_eq!(
        merged
            .call_text("loud__echo", json!({"text": AWS}))
            .await
            .unwrap(),
        AWS
    );

    // The activity log names the kinds, never a value.
    let calls = eventually("the calls logged", || async {
        let calls = hub.get("/api/v1/activity").await["calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        (calls.len() == 4).then_some(calls)
    })
    .await;
    let kinds: Vec<Value> = calls
        .iter()
        .rev()
        .map(|c| c.get("resultSecrets").cloned().unwrap_or(json!([])))
        .collect();
    assert_eq!(
        kinds,
        [
            json!(["aws-access-key", "github-token", "jwt", "url-password"]),
            json!(["aws-access-key", "github-token"]),
            json!([]),
            json!(["aws-access-key"]),
        ]
    );
    assert_eq!(hub.terminate().await, Some(0));
    let log = hub.log();
    assert!(log.contains("credentials in a tool result"), "{log}");
    for secret in [GITHUB, JWT, "Pa55-result-w0rd"] {
        assert!(!log.contains(secret), "a secret in the hub's log");
    }
}
