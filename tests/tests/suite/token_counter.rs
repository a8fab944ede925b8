//! Token counts (`toolTokens`) come from a helper process, the hub's own
//! binary as `__count-tokens`, so the hub never holds the `o200k_base`
//! vocabulary (about 35 MiB of tables once loaded):
//! - the helper mode itself: tool definitions in, one per line, the same
//!   counts out as the in-process tokenizer gives;
//! - a hub counts a server's tools through it (the snapshot's per-server
//!   count equals the in-process count of the tools as clients see them),
//!   and afterwards its own anonymous memory is far below what the loaded
//!   vocabulary alone takes;
//! - no request starts a count (issue #27, item 2: each unauthenticated
//!   `GET /api/v1/servers/<id>/tools` used to spawn a helper of ≈30 MB; 40
//!   at once ran 32): the hub counts once per listing, one helper at a
//!   time, and the route reads those counts.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use switchboard_e2e::{Hub, TestHub, bin, eventually, proc_status_kib, stdio_fixture};

#[test]
fn the_helper_mode_counts_like_the_tokenizer() {
    let texts = [
        r#"{"name":"echo","description":"Echoes the text back","inputSchema":{"type":"object"}}"#,
        "hello world",
        r#"{"name":"größe","description":"Unicode: 世界 and emoji 🙂"}"#,
    ];
    let mut child = Command::new(bin("switchboard"))
        .arg("__count-tokens")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for text in texts {
        writeln!(stdin, "{text}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let counts: Vec<usize> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let expected: Vec<usize> = texts
        .iter()
        .map(|t| switchboard_core::count_tokens(t))
        .collect();
    assert_eq!(counts, expected);
    assert_eq!(counts[1], 2, "hello world is 2 tokens in o200k_base");
}

#[tokio::test]
async fn the_hub_counts_through_the_helper_and_never_loads_the_vocabulary() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "echo,add,slow"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    let tools: Vec<_> = client
        .service
        .peer()
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .filter(|t| t.name.starts_with("a__"))
        .collect();
    assert_eq!(tools.len(), 3);
    let expected = switchboard_core::count_tool_tokens(&tools);
    let counted = hub
        .wait_for("a", "the tools counted", |s| s.tool_tokens > 0)
        .await
        .tool_tokens;
    assert_eq!(counted, expected);

    // The vocabulary's tables alone take about 35 MiB of anonymous memory
    // in the process that loads them; the hub, having counted, holds far
    // less than that in all.
    let anon = proc_status_kib(hub.child.id().unwrap(), "RssAnon");
    assert!(
        anon < 30 * 1024,
        "the hub holds {anon} KiB of anonymous memory after counting"
    );
    client.service.cancel().await.unwrap();
    assert_eq!(hub.terminate().await, Some(0));
}

/// The helpers (`__count-tokens`) that are children of process `parent` now.
fn helpers_of(parent: u32) -> Vec<u32> {
    switchboard_e2e::processes_with("__count-tokens")
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // The parent is the second field after the parenthesised name.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                    .and_then(|ppid| ppid.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

#[tokio::test]
async fn forty_unauthenticated_tool_lists_start_no_counter() {
    let mut hub = Hub::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--tools", "echo,add,slow"]),
    }}))
    .await
    .unwrap();
    let client = hub.client().await;
    assert_eq!(client.tool_names().await.len(), 3);
    // No credential: the route is open (the counts are no secret).
    let anonymous = reqwest::Client::new();
    let url = format!("{}/api/v1/servers/a/tools", hub.base);
    let tools = |answer: serde_json::Value| answer["tools"].as_array().cloned().unwrap();
    let counted = eventually("the listing counted", || async {
        let answer: serde_json::Value = anonymous.get(&url).send().await.ok()?.json().await.ok()?;
        let tools = tools(answer);
        (tools.len() == 3 && tools.iter().all(|t| t["tokens"].as_u64() > Some(0))).then_some(tools)
    })
    .await;
    let runs = || {
        hub.log()
            .matches("counting tool tokens in the helper")
            .count()
    };
    let runs_before = runs();
    assert!(runs_before >= 1, "the hub counted through its helper");

    // A watcher samples the hub's children while the requests run: before
    // the fix it saw dozens of helpers at once.
    let hub_pid = hub.child.id().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(HashSet::new()));
    let watcher = {
        let (stop, seen) = (stop.clone(), seen.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                seen.lock().unwrap().extend(helpers_of(hub_pid));
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    };
    let requests = (0..40).map(|_| {
        let (anonymous, url) = (anonymous.clone(), url.clone());
        async move {
            let response = anonymous.get(&url).send().await.unwrap();
            assert_eq!(response.status().as_u16(), 200);
            response.json::<serde_json::Value>().await.unwrap()
        }
    });
    let answers = futures::future::join_all(requests).await;
    stop.store(true, Ordering::Relaxed);
    watcher.join().unwrap();
    for answer in answers {
        assert_eq!(tools(answer), counted, "every answer has the hub's counts");
    }
    let seen = seen.lock().unwrap().clone();
    assert!(seen.is_empty(), "the requests started helpers: {seen:?}");
    assert_eq!(runs(), runs_before, "no count ran for the requests");

    // The endpoint's count is complete, and says so.
    let snapshot = hub.snapshot().await;
    let mcp = &snapshot.endpoints[0];
    assert!(mcp.tokens_counted, "{mcp:?}");
    assert_eq!(mcp.tool_tokens, snapshot.totals.tool_tokens);
    client.service.cancel().await.unwrap();
    assert_eq!(hub.terminate().await, Some(0));
}
