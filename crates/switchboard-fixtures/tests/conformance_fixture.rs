//! The conformance fixture binary over Streamable HTTP, driven by rmcp's own
//! client: it announces its address, lists its catalog, and `test_reconnection`
//! closes its SSE stream mid-call and answers once the client has resumed it.
// Test helpers outside `#[test]` functions panic on purpose, like the tests.
#![allow(clippy::unwrap_used)]

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use rmcp::{
    ServiceExt as _,
    model::{CallToolRequestParams, ReadResourceRequestParams},
    transport::StreamableHttpClientTransport,
};
use tokio::{
    io::{AsyncBufReadExt as _, BufReader},
    process::{Child, Command},
};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard-conformance-fixture");

/// Starts the fixture on a free loopback port and returns it with its `/mcp` URL.
async fn start_http() -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(["--http", "127.0.0.1:0", "--reconnect-retry-ms", "50"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    tokio::time::timeout(
        Duration::from_secs(30),
        BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .unwrap()
    .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    (child, url)
}

fn first_text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn serves_the_catalog_and_resumes_test_reconnection() {
    let (mut child, url) = start_http().await;
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names.len(), 14, "{names:?}");
    assert!(names.contains(&"json_schema_2020_12_tool"), "{names:?}");
    assert_eq!(client.list_all_prompts().await.unwrap().len(), 4);
    assert_eq!(client.list_all_resource_templates().await.unwrap().len(), 1);

    let read = client
        .read_resource(ReadResourceRequestParams::new("test://template/42/data"))
        .await
        .unwrap();
    let read = serde_json::to_value(read).unwrap();
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Data for ID: 42"),
        "{read}"
    );

    let simple = client
        .call_tool(CallToolRequestParams::new("test_simple_text"))
        .await
        .unwrap();
    assert_eq!(
        first_text(&simple),
        "This is a simple text response for testing."
    );

    let started = Instant::now();
    let reconnection = client
        .call_tool(CallToolRequestParams::new("test_reconnection"))
        .await
        .unwrap();
    assert_eq!(
        first_text(&reconnection),
        "Reconnection test completed: the stream was closed and the client resumed it",
        "after {:?}",
        started.elapsed()
    );

    // The session still works after the resumed stream.
    let error = client
        .call_tool(CallToolRequestParams::new("test_error_handling"))
        .await
        .unwrap();
    assert_eq!(error.is_error, Some(true));

    client.cancel().await.unwrap();
    child.kill().await.unwrap();
}

#[tokio::test]
async fn without_sampling_capability_the_sampling_tool_reports_a_tool_error() {
    let (mut child, url) = start_http().await;
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    let mut params = CallToolRequestParams::new("test_sampling");
    params.arguments = serde_json::json!({"prompt": "hi"}).as_object().cloned();
    let result = client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(first_text(&result).contains("sampling"), "{result:?}");
    client.cancel().await.unwrap();
    child.kill().await.unwrap();
}
