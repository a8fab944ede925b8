//! Clients that hold connections without finishing with them
//! (crates/switchboard-core/src/http/listener.rs): request bodies that trickle
//! in, chunked or behind a large `Content-Length`, on MCP and control routes,
//! and event streams opened past their cap. None of them may lock out a plain
//! request or an MCP `initialize`.
//!
//! In-process (`Engine`): the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::RawMcp as Raw;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// The two framings of a body that never ends.
#[derive(Clone, Copy)]
enum Framing {
    Chunked,
    LargeLength,
}

/// A request head on `path` whose body starts but does not end.
fn slow_request(path: &str, framing: Framing, token: &str) -> Vec<u8> {
    let framing_header = match framing {
        Framing::Chunked => "Transfer-Encoding: chunked".to_string(),
        // Beyond the fast path's 256 KiB, below rmcp's 4 MiB body limit.
        Framing::LargeLength => "Content-Length: 3000000".to_string(),
    };
    let first = match framing {
        Framing::Chunked => "1\r\n{\r\n",
        Framing::LargeLength => "{",
    };
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer {token}\r\n\
         {framing_header}\r\n\r\n{first}"
    )
    .into_bytes()
}

/// One byte more of the body every 200 ms, until the hub closes the connection.
fn trickle(mut write: OwnedWriteHalf, framing: Framing) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let byte: &[u8] = match framing {
            Framing::Chunked => b"1\r\n \r\n",
            Framing::LargeLength => b" ",
        };
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        loop {
            tick.tick().await;
            if write.write_all(byte).await.is_err() {
                return;
            }
        }
    })
}

/// Opens `count` connections that each send a head on one of `paths` (in
/// turn) and then trickle their body.
async fn trickling(
    addr: &str,
    paths: &[&str],
    framing: Framing,
    count: usize,
    token: &str,
) -> Vec<(OwnedReadHalf, tokio::task::JoinHandle<()>)> {
    let mut open = Vec::with_capacity(count);
    for i in 0..count {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (read, mut write) = stream.into_split();
        // The hub may close it for a newer one even before it is written to.
        let _ = write
            .write_all(&slow_request(paths[i % paths.len()], framing, token))
            .await;
        open.push((read, trickle(write, framing)));
    }
    open
}

/// Reads until the hub closes the connection; what it answered on the way.
async fn until_closed(read: &mut OwnedReadHalf) -> String {
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(DEADLINE, read.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return String::from_utf8_lossy(&answer).into_owned(),
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
            Err(_) => panic!("the hub kept a slow connection open for {DEADLINE:?}"),
        }
    }
}

fn hub_config(settings: serde_json::Value) -> serde_json::Value {
    json!({
        "mcpServers": {
            "a": switchboard_e2e::stdio_fixture(&["--tools", "x"]),
        },
        "settings": settings,
    })
}

/// A plain status request and an MCP initialize, both of which must succeed.
async fn plain_clients_are_served(hub: &Engine) {
    let status = reqwest::Client::new()
        .get(format!("{}/api/v1/status", hub.base))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap();
    assert_eq!(status.status().as_u16(), 200);
    let mut raw = Raw::new(&hub.url);
    assert_eq!(raw.initialize().await.status, 200);
}

#[tokio::test]
async fn trickling_bodies_cannot_take_every_connection() {
    // The header timeout is long: only the connection limit can help.
    let hub = Engine::serve(hub_config(
        json!({"maxConnections": 20, "headerTimeoutSecs": 300}),
    ))
    .await
    .unwrap();
    let addr = hub.base.trim_start_matches("http://").to_string();
    let token = hub.token();
    let paths = ["/mcp", "/servers/a/mcp", "/api/v1/servers/a/approve"];
    let mut slow = trickling(&addr, &paths, Framing::Chunked, 70, &token).await;
    slow.extend(trickling(&addr, &paths, Framing::LargeLength, 70, &token).await);

    plain_clients_are_served(&hub).await;

    // The oldest slow connections made room for the newer ones: at most 20
    // of the 140 are still open, so the oldest 100 have been closed.
    for (read, _) in slow.iter_mut().take(100) {
        until_closed(read).await;
    }
    for (_, writer) in &slow {
        writer.abort();
    }
}

#[tokio::test]
async fn a_body_that_is_not_done_in_time_gets_408_whatever_its_framing() {
    let hub = Engine::serve(hub_config(json!({"headerTimeoutSecs": 1})))
        .await
        .unwrap();
    let addr = hub.base.trim_start_matches("http://").to_string();
    let token = hub.token();
    let paths = ["/mcp", "/servers/a/mcp", "/api/v1/servers/a/approve"];
    let mut slow = Vec::new();
    for framing in [Framing::Chunked, Framing::LargeLength] {
        slow.extend(trickling(&addr, &paths, framing, paths.len(), &token).await);
    }
    for (i, (read, writer)) in slow.iter_mut().enumerate() {
        let answer = until_closed(read).await;
        writer.abort();
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "connection {i} ({}): {answer}",
            paths[i % paths.len()]
        );
        assert!(answer.contains("headerTimeoutSecs"), "{answer}");
    }
    plain_clients_are_served(&hub).await;
}

#[tokio::test]
async fn event_streams_past_their_cap_cannot_starve_requests() {
    // 20 connections: at most 10 streams.
    let hub = Engine::serve(hub_config(json!({"maxConnections": 20})))
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let mut streams = Vec::new();
    for i in 0..30 {
        let stream = if i % 6 == 5 {
            // Now and then an MCP session's GET stream.
            let mut raw = Raw::new(&hub.url);
            assert_eq!(raw.initialize().await.status, 200);
            raw.open_stream().await
        } else {
            let response = http
                .get(format!("{}/api/v1/events", hub.base))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200, "events stream {i}");
            response
        };
        streams.push(stream);
    }

    plain_clients_are_served(&hub).await;

    // The hub closed the oldest 20 streams to keep at most 10 open.
    for (i, stream) in streams.iter_mut().take(20).enumerate() {
        loop {
            match tokio::time::timeout(DEADLINE, stream.chunk()).await {
                Ok(Ok(Some(_))) => continue,
                Ok(Ok(None) | Err(_)) => break,
                Err(_) => panic!("stream {i} is still open past the stream limit"),
            }
        }
    }
}
