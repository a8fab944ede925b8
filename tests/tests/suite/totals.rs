//! The status totals count what a real client of the merged `/mcp` gets:
//! the servers' tools plus Switchboard's own built-ins (`builtinTools` of
//! them), with the built-ins on and off, in the snapshot and in
//! `switchboard status`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::{Hub, TestHub, stdio_fixture};

#[tokio::test]
async fn totals_count_the_tools_clients_list_built_ins_included() {
    for builtin in [true, false] {
        // The harness turns the built-ins off unless told (SWITCHBOARD_BUILTIN_TOOLS).
        let mut hub = Hub::start_with_env(
            json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x,y"]),
                                  "b": stdio_fixture(&["--tools", "z"])}}),
            &[("SWITCHBOARD_BUILTIN_TOOLS", if builtin { "1" } else { "0" })],
        )
        .await
        .unwrap();
        let client = hub.client().await;
        let listed = client.tool_names().await;
        assert_eq!(listed.len(), if builtin { 6 } else { 3 }, "{listed:?}");
        let totals = hub
            .wait_snapshot("both servers counted", |s| s.totals.tools == listed.len())
            .await
            .totals;
        let expected_builtins = if builtin { 3 } else { 0 };
        assert_eq!(totals.builtin_tools, expected_builtins);
        assert_eq!(
            listed
                .iter()
                .filter(|n| n.starts_with("switchboard__"))
                .count(),
            expected_builtins
        );

        let out = hub
            .cli()
            .args(["status", "--url", &hub.base])
            .output()
            .await
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        let line = if builtin {
            "2 servers, 6 tools (3 built-in), 0 prompts"
        } else {
            "2 servers, 3 tools, 0 prompts"
        };
        assert!(said.contains(line), "{said}");
        assert_eq!(hub.terminate().await, Some(0));
    }
}
