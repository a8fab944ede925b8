//! Downstream sessions and connections (crates/switchboard-core/src/http/session_manager.rs,
//! http/listener.rs, and the corrections in http/fast_path.rs), spoken to with plain
//! HTTP: a session in use never expires and an idle one does; the session cap
//! closes the least recently used idle session and refuses a new one when all
//! are busy; DELETE answers 200 then 404 and the status loses the session at
//! once; stalled connections are closed and cannot lock other clients out;
//! malformed requests get the JSON-RPC error codes the protocol names.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::RawMcp as Raw;
use switchboard_e2e::spec_file;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Calls tool `a__echo` (or `echo` on a pass-through route) and returns
/// the status, asserting the text when it succeeded.
async fn echo(raw: &mut Raw, tool: &str, text: &str) -> u16 {
    let answer = raw
        .request(
            "tools/call",
            json!({"name": tool, "arguments": {"text": text}}),
        )
        .await;
    if answer.status == 200 {
        assert_eq!(
            answer.message["result"]["content"][0]["text"], text,
            "{}",
            answer.message
        );
    }
    answer.status
}

fn echo_server(dir: &std::path::Path) -> Value {
    let spec = spec_file(
        dir,
        json!([{"name": "echo", "description": "echoes", "behavior": "echo"}]),
    );
    stdio_fixture(&["--spec", &spec])
}

async fn session_count(hub: &Hub) -> usize {
    hub.snapshot().await.sessions.len()
}

#[tokio::test]
async fn a_session_in_use_never_expires_and_an_idle_one_does() {
    let scratch = tempfile::tempdir().unwrap();
    let hub = Hub::start(json!({
        "mcpServers": {"a": echo_server(scratch.path())},
        "settings": {"sessionIdleSecs": 1}
    }))
    .await
    .unwrap();
    let mut busy = Raw::new(&hub.url);
    let mut idle = Raw::new(&hub.url);
    let mut pass_through = Raw::new(&format!("{}/servers/a/mcp", hub.base));
    assert_eq!(busy.initialize().await.status, 200);
    assert_eq!(idle.initialize().await.status, 200);
    assert_eq!(pass_through.initialize().await.status, 200);
    assert_eq!(echo(&mut idle, "a__echo", "first").await, 200);
    assert_eq!(session_count(&hub).await, 3);

    // Calls answered by the fast path while two idle sessions expire one
    // after the other (each more than the idle expiry): every one succeeds,
    // on both routes. The calls pace themselves (each waits for its answer).
    let mut calls = 0;
    let mut second_idle = None;
    for round in 0..2 {
        let until_idle_expired = async {
            loop {
                assert_eq!(
                    echo(&mut busy, "a__echo", &format!("call {calls}")).await,
                    200
                );
                assert_eq!(echo(&mut pass_through, "echo", "through").await, 200);
                calls += 1;
                if session_count(&hub).await == 2 {
                    break;
                }
            }
        };
        tokio::time::timeout(DEADLINE, until_idle_expired)
            .await
            .expect("the idle session expired while the busy ones were used");
        if round == 0 {
            // Meanwhile the unused session expired: gone from rmcp and the status.
            assert_eq!(echo(&mut idle, "a__echo", "late").await, 404);
            assert_eq!(session_count(&hub).await, 2);
            // A second idle session, which must expire while the busy ones go on.
            let mut another = Raw::new(&hub.url);
            assert_eq!(another.initialize().await.status, 200);
            assert_eq!(session_count(&hub).await, 3);
            second_idle = Some(another);
        }
    }
    let mut second_idle = second_idle.unwrap();
    assert_eq!(echo(&mut second_idle, "a__echo", "late").await, 404);
    assert!(calls >= 2, "only {calls} calls");
    assert_eq!(echo(&mut busy, "a__echo", "still here").await, 200);

    // Once unused, the busy ones expire too (the status does not use them).
    eventually("the busy sessions to expire once idle", || async {
        (session_count(&hub).await == 0).then_some(())
    })
    .await;
    assert_eq!(echo(&mut busy, "a__echo", "x").await, 404);
    assert_eq!(echo(&mut pass_through, "echo", "x").await, 404);
}

#[tokio::test]
async fn the_cap_closes_the_least_recently_used_idle_session() {
    let scratch = tempfile::tempdir().unwrap();
    let hub = Hub::start(json!({
        "mcpServers": {"a": echo_server(scratch.path())},
        "settings": {"maxSessions": 3}
    }))
    .await
    .unwrap();
    let mut first = Raw::new(&hub.url);
    let mut second = Raw::new(&hub.url);
    let mut third = Raw::new(&hub.url);
    let mut pass_through = Raw::new(&format!("{}/servers/a/mcp", hub.base));
    assert_eq!(first.initialize().await.status, 200);
    assert_eq!(second.initialize().await.status, 200);
    assert_eq!(third.initialize().await.status, 200);
    // The oldest session has its event stream open: it is busy, not idle.
    let stream = first.open_stream().await;
    assert_eq!(echo(&mut third, "a__echo", "third").await, 200);

    // A fourth session (on the other route: the cap counts both) closes the
    // least recently used idle one: the second.
    assert_eq!(pass_through.initialize().await.status, 200);
    assert_eq!(echo(&mut second, "a__echo", "evicted?").await, 404);
    assert_eq!(echo(&mut first, "a__echo", "kept").await, 200);
    assert_eq!(echo(&mut third, "a__echo", "kept").await, 200);
    assert_eq!(echo(&mut pass_through, "echo", "new").await, 200);
    assert_eq!(session_count(&hub).await, 3);

    // With every session busy, a new one is refused, not let past the cap.
    let third_stream = third.open_stream().await;
    let through_stream = pass_through.open_stream().await;
    let mut refused = Raw::new(&hub.url);
    let answer = refused.initialize().await;
    assert_eq!(answer.status, 503, "{}", answer.message);
    assert!(
        answer.message["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maxSessions"),
        "{}",
        answer.message
    );
    assert_eq!(session_count(&hub).await, 3);

    // A closed stream makes its session idle again, and room for a new one.
    drop(third_stream);
    eventually("room for a new session", || {
        let url = hub.url.clone();
        async move {
            let mut later = Raw::new(&url);
            (later.initialize().await.status == 200).then_some(later)
        }
    })
    .await;
    assert_eq!(echo(&mut third, "a__echo", "evicted?").await, 404);
    assert_eq!(echo(&mut first, "a__echo", "kept").await, 200);
    assert_eq!(session_count(&hub).await, 3);
    drop((stream, through_stream));
}

#[tokio::test]
async fn delete_answers_200_then_404_and_the_status_drops_the_session_at_once() {
    let scratch = tempfile::tempdir().unwrap();
    let hub = Hub::start(json!({"mcpServers": {"a": echo_server(scratch.path())}}))
        .await
        .unwrap();
    for url in [hub.url.clone(), format!("{}/servers/a/mcp", hub.base)] {
        let mut raw = Raw::new(&url);
        assert_eq!(raw.initialize().await.status, 200);
        // Counted from its initialize on, without waiting.
        assert_eq!(session_count(&hub).await, 1, "{url}");
        let mut other = Raw::new(&url);
        assert_eq!(other.initialize().await.status, 200);
        assert_eq!(session_count(&hub).await, 2, "{url}");

        assert_eq!(raw.delete().await, 200, "{url}");
        assert_eq!(session_count(&hub).await, 1, "{url}");
        assert_eq!(raw.delete().await, 404, "{url}");
        assert_eq!(echo(&mut raw, "a__echo", "gone").await, 404, "{url}");

        raw.session = Some("no-such-session".into());
        assert_eq!(raw.delete().await, 404, "{url}");
        assert_eq!(other.delete().await, 200, "{url}");
        assert_eq!(session_count(&hub).await, 0, "{url}");
    }
}

/// Opens `count` connections that each send half a request line and stall.
async fn stalled_connections(addr: &str, count: usize) -> Vec<tokio::net::TcpStream> {
    let mut stalled = Vec::with_capacity(count);
    for _ in 0..count {
        // The hub may close a stalled connection even before it is written to.
        let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else {
            continue;
        };
        let _ = stream.write_all(b"POST /mcp HT").await;
        stalled.push(stream);
    }
    stalled
}

/// Waits until the hub has closed `stream` (EOF or reset).
async fn closed_by_hub(stream: &mut tokio::net::TcpStream) {
    let mut buf = [0u8; 256];
    let read = tokio::time::timeout(DEADLINE, stream.read(&mut buf)).await;
    match read {
        Ok(Ok(0) | Err(_)) => {}
        Ok(Ok(n)) => panic!("the hub answered a stalled connection: {:?}", &buf[..n]),
        Err(_) => panic!("a stalled connection was not closed within {DEADLINE:?}"),
    }
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

#[tokio::test]
async fn stalled_connections_cannot_lock_clients_out() {
    let hub = Hub::start(json!({
        "mcpServers": {},
        "settings": {"maxConnections": 40, "headerTimeoutSecs": 300}
    }))
    .await
    .unwrap();
    let pid = hub.child.id().unwrap();
    let addr = hub.base.trim_start_matches("http://").to_string();
    let fds_before = open_fds(pid);

    // Far more stalled connections than the limit; the header timeout is long,
    // so only the limit can stop them.
    let mut stalled = stalled_connections(&addr, 300).await;
    // A normal client is served at once: it takes a stalled connection's place.
    let status = reqwest::Client::new()
        .get(format!("{}/api/v1/status", hub.base))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap();
    assert_eq!(status.status().as_u16(), 200);
    // The hub holds no more than its limit of connections.
    let fds = open_fds(pid);
    assert!(
        fds <= fds_before + 40 + 8,
        "{fds} open files with 300 stalled connections (before: {fds_before})"
    );
    // And an MCP client gets its session.
    let mut raw = Raw::new(&hub.url);
    assert_eq!(raw.initialize().await.status, 200);
    // All but the newest 40 stalled connections were closed by the hub.
    let mut closed = 0;
    for stream in stalled.iter_mut().take(250) {
        closed_by_hub(stream).await;
        closed += 1;
    }
    assert_eq!(closed, 250);
}

#[tokio::test]
async fn stalled_and_idle_connections_are_closed_after_the_header_timeout() {
    let hub = Hub::start(json!({
        "mcpServers": {},
        "settings": {"headerTimeoutSecs": 1}
    }))
    .await
    .unwrap();
    let addr = hub.base.trim_start_matches("http://").to_string();
    let mut stalled = stalled_connections(&addr, 20).await;
    assert_eq!(stalled.len(), 20);
    // One that sends nothing at all, and one idle after a complete exchange.
    let mut silent = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let mut idle = tokio::net::TcpStream::connect(&addr).await.unwrap();
    idle.write_all(b"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    idle.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // And one whose head is complete but whose body stalls.
    let mut slow_body = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow_body
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();

    let start = Instant::now();
    for stream in stalled.iter_mut() {
        closed_by_hub(stream).await;
    }
    closed_by_hub(&mut silent).await;
    // The rest of the status answer, then the close.
    let mut rest = Vec::new();
    let read = tokio::time::timeout(DEADLINE, idle.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(_)) | Ok(Err(_))),
        "an idle connection was not closed"
    );
    let mut answer = Vec::new();
    let read = tokio::time::timeout(DEADLINE, slow_body.read_to_end(&mut answer)).await;
    assert!(
        matches!(read, Ok(Ok(_)) | Ok(Err(_))),
        "a stalled body kept its connection"
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(start.elapsed() < DEADLINE);
    // The listener still serves.
    assert_eq!(hub.snapshot().await.sessions, vec![]);
}

#[tokio::test]
async fn malformed_requests_get_the_json_rpc_error_codes() {
    let scratch = tempfile::tempdir().unwrap();
    let hub = Hub::start(json!({"mcpServers": {"a": echo_server(scratch.path())}}))
        .await
        .unwrap();
    for url in [hub.url.clone(), format!("{}/servers/a/mcp", hub.base)] {
        let mut raw = Raw::new(&url);
        // Not JSON: HTTP 400, parse error, with or without a session.
        for body in [&b"{not json"[..], b"", b"{\"jsonrpc\": \"2.0\", "] {
            let answer = raw.post_bytes(body.to_vec(), &[]).await;
            assert_eq!(answer.status, 400, "{url} {body:?}: {}", answer.message);
            assert_eq!(
                answer.message["error"]["code"], -32700,
                "{}",
                answer.message
            );
            assert_eq!(answer.message["id"], Value::Null);
        }
        // JSON, but no JSON-RPC message: HTTP 400, invalid request.
        for body in [json!([1, 2]), json!({"hello": "world"}), json!(42)] {
            let answer = raw
                .post_bytes(serde_json::to_vec(&body).unwrap(), &[])
                .await;
            assert_eq!(answer.status, 400, "{url} {body}: {}", answer.message);
            assert_eq!(
                answer.message["error"]["code"], -32600,
                "{}",
                answer.message
            );
        }

        assert_eq!(raw.initialize().await.status, 200);
        let answer = raw.post_bytes(b"{not json".to_vec(), &[]).await;
        assert_eq!(answer.status, 400);
        assert_eq!(answer.message["error"]["code"], -32700);

        // Invalid params of standard methods: -32602, saying what is wrong.
        let tool = if url.ends_with("/servers/a/mcp") {
            "echo"
        } else {
            "a__echo"
        };
        let cases = [
            ("tools/call", Value::Null, "params must be an object"),
            ("tools/call", json!({"arguments": {}}), "name"),
            ("tools/call", json!({"name": 5}), "invalid type"),
            ("logging/setLevel", json!({"level": "loud"}), "loud"),
            ("logging/setLevel", Value::Null, "params must be an object"),
            ("prompts/get", json!({"arguments": {}}), "name"),
            ("resources/read", json!({"uri": 7}), "invalid type"),
        ];
        for (method, params, says) in cases {
            let answer = raw.request(method, params.clone()).await;
            assert_eq!(answer.status, 200, "{method} {params}");
            let error = &answer.message["error"];
            assert_eq!(
                error["code"], -32602,
                "{method} {params}: {}",
                answer.message
            );
            let message = error["message"].as_str().unwrap();
            assert!(message.contains(says), "{method} {params}: {message}");
            assert!(!message.contains("Params"), "a Rust type name: {message}");
            assert_eq!(answer.message["id"], json!(raw.next_id - 1));
        }
        // An unknown method is still -32601, and the session still works.
        let unknown = raw.request("no/such/method", json!({})).await;
        assert_eq!(
            unknown.message["error"]["code"], -32601,
            "{}",
            unknown.message
        );
        assert_eq!(echo(&mut raw, tool, "fine").await, 200);
        assert_eq!(raw.delete().await, 200);
    }
}

fn rss_kb(pid: u32) -> u64 {
    switchboard_e2e::proc_status_kib(pid, "VmRSS")
}

#[tokio::test]
async fn leaked_sessions_stay_within_the_cap() {
    let hub = Hub::start(json!({
        "mcpServers": {},
        "settings": {"maxSessions": 20}
    }))
    .await
    .unwrap();
    let pid = hub.child.id().unwrap();
    let http = reqwest::Client::new();
    // Warm up (allocator, first connections), then measure.
    for _ in 0..20 {
        let mut raw = Raw::with_client(http.clone(), &hub.url);
        assert_eq!(raw.initialize().await.status, 200);
    }
    let before = rss_kb(pid);
    // 1,000 clients that initialize and never end their session: ~90 MB
    // without a cap.
    for _ in 0..1000 {
        let mut raw = Raw::with_client(http.clone(), &hub.url);
        assert_eq!(raw.initialize().await.status, 200);
    }
    assert_eq!(session_count(&hub).await, 20);
    let grown = rss_kb(pid).saturating_sub(before);
    eprintln!("RSS {before} kB before, grew {grown} kB for 1,000 sessions");
    assert!(
        grown < 30 * 1024,
        "RSS grew by {grown} kB for 1,000 leaked sessions under a cap of 20"
    );
}
