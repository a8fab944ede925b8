//! Priming events (an event id and `retry:` with empty data, SEP-1699) go
//! only to sessions that negotiated 2025-11-25 or later (issue #27, item
//! 12): Gemini CLI's bundled SDK speaks 2025-06-18 and parses every event's
//! data as JSON, so an empty one made its discovery fail ("Unexpected end of
//! JSON input"). Checked on the wire, on both kinds of event stream the hub
//! sends: the standalone `GET` stream and a `POST` answered as a stream.
//!
//! In-process (`Engine`): the hub's process is not what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::RawMcp;
use switchboard_e2e::spec_file;

/// Long enough for any event the test waits for; a safety net, not a timing.
const DEADLINE: Duration = Duration::from_secs(20);

/// The events of an open event stream, each as its raw text, up to and
/// including the first that carries data.
async fn events_until_data(stream: &mut reqwest::Response) -> Vec<String> {
    let mut buffer = String::new();
    let mut events = Vec::new();
    loop {
        let chunk = tokio::time::timeout(DEADLINE, stream.chunk())
            .await
            .expect("an event in time")
            .expect("the stream reads")
            .expect("the stream stays open");
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let event = buffer[..end].to_string();
            buffer.drain(..end + 2);
            let done = has_data(&event);
            events.push(event);
            if done {
                return events;
            }
        }
    }
}

/// Whether an event's text has a `data:` line with something in it.
fn has_data(event: &str) -> bool {
    event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .any(|data| !data.trim().is_empty())
}

/// Whether an event is a priming event: an id or retry hint, no data.
fn is_priming(event: &str) -> bool {
    let fields = || event.lines().filter(|l| !l.starts_with(':'));
    fields().any(|l| l.starts_with("retry:") || l.starts_with("id:")) && !has_data(event)
}

/// A session on `/mcp` speaking `version`, its tools listed (so it hears of
/// changes), its standalone stream open, and a slow call answered as a
/// stream; returns the events of both streams, the `GET` one up to the
/// `list_changed` that disabling server `b` sends.
async fn streams_of(hub: &Engine, version: &'static str) -> (Vec<String>, Vec<String>) {
    let mut raw = RawMcp::new(&hub.url).speaking(version);
    let init = raw.initialize().await;
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.message["result"]["protocolVersion"], version);
    let listed = raw.request("tools/list", json!({})).await;
    assert_eq!(listed.status, 200);

    // A call that outlasts the fast path's wait for a JSON answer (one
    // second) keeps its event stream, whatever the machine's load.
    let slow = raw
        .request(
            "tools/call",
            json!({"name": "a__slow", "arguments": {"ms": 1300}, "_meta": {"progressToken": "p"}}),
        )
        .await;
    assert!(
        slow.content_type.starts_with("text/event-stream"),
        "{}: {}",
        slow.content_type,
        slow.body
    );
    let post_events: Vec<String> = slow
        .body
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert!(
        post_events.iter().any(|e| e.contains("\"result\"")),
        "{post_events:?}"
    );

    let mut stream = raw.open_stream().await;
    let (code, _) = hub.post("/api/v1/servers/b/disable").await;
    assert_eq!(code, 200);
    let get_events = events_until_data(&mut stream).await;
    assert!(
        get_events
            .last()
            .unwrap()
            .contains("notifications/tools/list_changed"),
        "{get_events:?}"
    );
    // Back as it was, for the next session.
    let (code, _) = hub.post("/api/v1/servers/b/enable").await;
    assert_eq!(code, 200);
    (get_events, post_events)
}

#[tokio::test]
async fn a_2025_06_18_session_gets_no_event_without_data_and_a_2025_11_25_one_is_primed() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec_file(
        scratch.path(),
        json!([{"name": "slow", "description": "sleeps", "behavior": "sleep"}]),
    );
    let hub = Engine::serve(json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
        "b": stdio_fixture(&["--tools", "x"]),
    }}))
    .await
    .unwrap();

    let (get_events, post_events) = streams_of(&hub, "2025-06-18").await;
    for event in get_events.iter().chain(&post_events) {
        // Keep-alive comments (`:`) carry no event; anything else has data.
        if event.lines().all(|l| l.starts_with(':')) {
            continue;
        }
        assert!(
            has_data(event),
            "an event without data reached a 2025-06-18 session: {event:?}"
        );
    }

    // The control: a 2025-11-25 session gets its priming event first, on
    // both streams, so the probe above would have seen one.
    let (get_events, post_events) = streams_of(&hub, "2025-11-25").await;
    assert!(is_priming(&get_events[0]), "{get_events:?}");
    assert!(is_priming(&post_events[0]), "{post_events:?}");
}
