//! Token counts (`toolTokens`) come from a helper process, the hub's own
//! binary as `__count-tokens`, so the hub never holds the `o200k_base`
//! vocabulary (about 35 MiB of tables once loaded):
//! - the helper mode itself: tool definitions in, one per line, the same
//!   counts out as the in-process tokenizer gives;
//! - a hub counts a server's tools through it (the snapshot's per-server
//!   count equals the in-process count of the tools as clients see them),
//!   and afterwards its own anonymous memory is far below what the loaded
//!   vocabulary alone takes.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::json;
use switchboard_e2e::{Hub, bin, eventually, proc_status_kib, stdio_fixture};

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
    let counted = eventually("the tools counted", || async {
        let tokens = hub.server_snapshot("a").await.tool_tokens;
        (tokens > 0).then_some(tokens)
    })
    .await;
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
