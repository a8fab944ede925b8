//! A remote server that redirects the hub to another origin gets nothing sent
//! there: a Streamable HTTP upstream on 127.0.0.1 answers every request with
//! `307` to a sink on 127.0.0.2 (another origin, still loopback); the hub is
//! configured with `X-Api-Key`, `X-Auth-Token` and a `?token=` URL. The sink,
//! a plain TCP listener recording whatever arrives, must receive no
//! connection at all, and the errors (the status `lastError`, the refresh
//! API, a client's JSON-RPC error) name the redirect target with its
//! secrets masked.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::rpc_error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What one listener was sent, request by request (head and body as text).
type Record = Arc<Mutex<Vec<String>>>;

/// Reads one HTTP/1.1 request (head and `Content-Length` body) as text.
async fn read_request(stream: &mut TcpStream) -> String {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&data).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                return text;
            }
        }
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&data).into_owned(),
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

/// Serves `answer` to every request on `listener`, after recording the
/// request (and, with `connections`, that a connection came at all).
fn serve(listener: TcpListener, answer: String, record: Record, connections: Record) {
    tokio::spawn(async move {
        while let Ok((mut stream, peer)) = listener.accept().await {
            connections.lock().unwrap().push(peer.to_string());
            let record = record.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                loop {
                    let request = read_request(&mut stream).await;
                    if request.is_empty() {
                        return;
                    }
                    record.lock().unwrap().push(request);
                    if stream.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_and_named() {
    let api_key = "SBXapikeyRedirect7f3k9QzL2m";
    let auth_token = "SBXauthtokenRedirect4Wq8Lp1";
    let url_token = "SBXurltokenRedirect9Hd2Kx5";
    let sink_token = "SBXsinktokenRedirect3Jv6Nb0";

    let sink = TcpListener::bind("127.0.0.2:0").await.unwrap();
    let sink_port = sink.local_addr().unwrap().port();
    let sink_requests = Record::default();
    let sink_connections = Record::default();
    serve(
        sink,
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".into(),
        sink_requests.clone(),
        sink_connections.clone(),
    );

    let target = format!("http://127.0.0.2:{sink_port}/sink?token={sink_token}&page=2");
    let redirector = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let redirector_port = redirector.local_addr().unwrap().port();
    let redirected = Record::default();
    serve(
        redirector,
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n"
        ),
        redirected.clone(),
        Record::default(),
    );

    let config = json!({"mcpServers": {"redir": {
        "url": format!("http://127.0.0.1:{redirector_port}/mcp?token={url_token}"),
        "headers": {"X-Api-Key": api_key, "X-Auth-Token": auth_token},
    }}});
    let hub = Hub::start(config).await.unwrap();

    // The refresh API answers with the server's error.
    let (code, refreshed) = hub.post("/api/v1/servers/redir/refresh").await;
    assert_eq!(code, 502, "{refreshed}");
    let shown = format!("127.0.0.2:{sink_port}/sink?token=***&page=2");
    let error = refreshed["error"].as_str().unwrap().to_string();
    assert!(
        error.contains(&shown) && error.contains("redirected"),
        "{error}"
    );

    // A client calling one of its tools gets a JSON-RPC error naming it too.
    let client = Client::connect(&hub.url).await;
    let err = client
        .call_text("redir__anything", json!({}))
        .await
        .unwrap_err();
    let message = rpc_error(&err).message.to_string();
    assert!(message.contains(&shown), "{message}");

    let server = hub.server_snapshot("redir").await;
    let last_error = last_error(&server);
    assert!(last_error.contains(&shown), "{last_error}");

    // The redirecting server did get the credentials (so the hub had them to
    // forward); the sink got nothing, not even a connection. The sink records
    // a request before it answers, and the hub's error came after any hop it
    // made, so nothing is still on its way there.
    let first = redirected.lock().unwrap().first().cloned().unwrap();
    assert!(
        first
            .to_ascii_lowercase()
            .contains(&api_key.to_ascii_lowercase()),
        "{first}"
    );
    assert_eq!(*sink_requests.lock().unwrap(), Vec::<String>::new());
    assert_eq!(*sink_connections.lock().unwrap(), Vec::<String>::new());
    for secret in [api_key, auth_token, url_token, sink_token] {
        for (what, text) in [
            ("the refresh API", refreshed.to_string()),
            ("the JSON-RPC error", message.clone()),
            ("the status", hub.status().await.to_string()),
            ("the log", hub.log()),
        ] {
            assert!(!text.contains(secret), "{what} contains {secret}:\n{text}");
        }
    }
}
