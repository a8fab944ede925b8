//! The activity log (crates/switchboard-core/src/activity.rs) end to end:
//! calls through the merged endpoint (the HTTP fast path and rmcp's path)
//! and a pass-through route, prompts and resources, failures of every kind,
//! a cancelled and a timed-out call; what `GET /api/v1/activity` and
//! `switchboard activity` show; that argument values, secrets above all,
//! stay out of the API and of every file in the state directory unless
//! `activityArguments` is on (and then secrets are redacted); the file's
//! mode; its rotation; and the OpenTelemetry export to a receiver the test
//! runs.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use switchboard_e2e::api::{ActivityEntry, ActivityOutcome, ActivityResponse};
use switchboard_e2e::raw::RawMcp as Raw;
use switchboard_e2e::{Hub, TestHub, eventually, stdio_fixture};

/// A fixture spec: tools `echo`, `fail` (a JSON-RPC error), `oops` (a
/// result with `isError`), `slow` (sleeps `ms`, with progress), `stuck`
/// (never answers, no progress); prompt `greet`; resource
/// `file:///note`.
fn spec(dir: &Path) -> String {
    let path = dir.join("spec.json");
    std::fs::write(
        &path,
        serde_json::to_vec(&json!({
            "tools": [
                {"name": "echo", "behavior": "echo"},
                {"name": "fail", "behavior": "fail"},
                {"name": "oops", "behavior": "error"},
                {"name": "slow", "behavior": "sleep"},
                {"name": "stuck", "behavior": "hang"},
            ],
            "prompts": [{"name": "greet", "description": "says hello"}],
            "resources": [{"uri": "file:///note", "name": "note", "text": "a note"}],
        }))
        .unwrap(),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

/// A secret no other test uses, and a visible value beside it.
fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

async fn activity(hub: &Hub, query: &str) -> ActivityResponse {
    let value = hub.get(&format!("/api/v1/activity{query}")).await;
    serde_json::from_value(value.clone())
        .unwrap_or_else(|err| panic!("the activity answer does not parse ({err}): {value}"))
}

/// Waits until the log holds `n` calls; returns them newest first.
async fn wait_calls(hub: &Hub, n: usize) -> Vec<ActivityEntry> {
    eventually(&format!("{n} calls recorded"), || async {
        let calls = activity(hub, "?limit=1000").await.calls;
        (calls.len() >= n).then_some(calls)
    })
    .await
}

/// Every file under `dir`, with its content.
fn files_under(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
}

fn assert_nowhere_under(dir: &Path, needle: &str) {
    let mut files = Vec::new();
    files_under(dir, &mut files);
    assert!(
        files
            .iter()
            .any(|(name, _)| name.ends_with("activity.jsonl")),
        "no activity.jsonl in {files:?}",
        files = files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (name, content) in files {
        assert!(
            !String::from_utf8_lossy(&content).contains(needle),
            "{name} holds {needle}"
        );
    }
}

fn find<'a>(calls: &'a [ActivityEntry], name: &str, endpoint: &str) -> &'a ActivityEntry {
    calls
        .iter()
        .find(|c| c.name == name && c.endpoint == endpoint)
        .unwrap_or_else(|| panic!("no call of {name} on {endpoint} in {calls:#?}"))
}

#[tokio::test]
async fn calls_on_every_path_are_recorded_without_their_values() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec(scratch.path());
    let mut hub = Hub::start(json!({"mcpServers": {
        "a": stdio_fixture(&["--spec", &spec]),
    }}))
    .await
    .unwrap();
    let secret = unique("sk-live");
    let visible = unique("visible");
    let args = json!({"text": visible, "token": secret});

    let mut merged = Raw::new(&hub.url);
    assert_eq!(merged.initialize().await.status, 200);
    // A plain call: the fast path.
    let echoed = merged
        .request("tools/call", json!({"name": "a__echo", "arguments": args}))
        .await;
    assert_eq!(
        echoed.message["result"]["content"][0]["text"],
        json!(visible)
    );
    // With a progress token: rmcp's path.
    let with_meta = merged
        .request(
            "tools/call",
            json!({"name": "a__slow", "arguments": {"ms": 1},
                   "_meta": {"progressToken": "p1"}}),
        )
        .await;
    assert!(with_meta.messages.last().unwrap()["result"].is_object());
    merged
        .request("tools/call", json!({"name": "a__fail", "arguments": {}}))
        .await;
    merged
        .request("tools/call", json!({"name": "a__oops", "arguments": {}}))
        .await;
    merged
        .request("tools/call", json!({"name": "a__nope", "arguments": {}}))
        .await;
    merged
        .request("prompts/get", json!({"name": "a__greet"}))
        .await;
    merged
        .request("resources/read", json!({"uri": "file:///note"}))
        .await;
    // A call the client cancels once the server is running it (its
    // progress is coming back), from an rmcp client.
    let client = switchboard_e2e::Client::connect(&hub.url).await;
    let mut params = rmcp::model::CallToolRequestParams::new("a__slow");
    params.arguments = json!({"ms": 60000}).as_object().cloned();
    let handle = client
        .service
        .peer()
        .send_request_with_option(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    client
        .received
        .wait_until("the slow call running upstream", |r| {
            !r.progress.lock().unwrap().is_empty()
        })
        .await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();

    let mut single = Raw::new(&format!("{}/servers/a/mcp", hub.base));
    assert_eq!(single.initialize().await.status, 200);
    single
        .request("tools/call", json!({"name": "echo", "arguments": args}))
        .await;

    let calls = wait_calls(&hub, 9).await;
    let seqs: Vec<u64> = calls.iter().map(|c| c.seq).collect();
    let mut sorted = seqs.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(seqs, sorted, "newest first");

    let echo = find(&calls, "a__echo", "/mcp");
    assert_eq!(
        (echo.method.as_str(), echo.server.as_deref(), echo.outcome),
        ("tools/call", Some("a"), ActivityOutcome::Ok)
    );
    assert_eq!(echo.client.as_deref(), Some("raw-http"));
    assert_eq!(echo.session, merged.session);
    assert_eq!(echo.argument_bytes, args.to_string().len() as u64);
    assert!(echo.result_bytes > visible.len() as u64, "{echo:?}");
    assert_eq!(echo.arguments, None);
    assert_eq!(echo.profile, None);
    let rmcp_path = calls
        .iter()
        .find(|c| c.name == "a__slow" && c.outcome == ActivityOutcome::Ok)
        .expect("the call through rmcp's path");
    assert_eq!(rmcp_path.server.as_deref(), Some("a"));

    let fail = find(&calls, "a__fail", "/mcp");
    assert_eq!(fail.outcome, ActivityOutcome::Error);
    assert_eq!(fail.error.as_deref(), Some("server 'a': fail on purpose"));
    let oops = find(&calls, "a__oops", "/mcp");
    assert_eq!(oops.outcome, ActivityOutcome::Error);
    let nope = find(&calls, "a__nope", "/mcp");
    assert_eq!(
        (nope.outcome, nope.server.as_deref()),
        (ActivityOutcome::Error, None)
    );
    assert!(
        nope.error
            .as_deref()
            .unwrap()
            .contains("unknown tool 'a__nope'"),
        "{nope:?}"
    );
    let prompt = find(&calls, "a__greet", "/mcp");
    assert_eq!(
        (prompt.method.as_str(), prompt.outcome),
        ("prompts/get", ActivityOutcome::Ok)
    );
    let read = find(&calls, "file:///note", "/mcp");
    assert_eq!(
        (read.method.as_str(), read.server.as_deref(), read.outcome),
        ("resources/read", Some("a"), ActivityOutcome::Ok)
    );
    let cancelled = calls
        .iter()
        .find(|c| c.name == "a__slow" && c.outcome == ActivityOutcome::Cancelled)
        .unwrap_or_else(|| panic!("no cancelled call in {calls:#?}"));
    assert!(cancelled.duration_ms > 0.0);
    let direct = find(&calls, "echo", "/servers/a/mcp");
    assert_eq!(
        (direct.server.as_deref(), direct.outcome),
        (Some("a"), ActivityOutcome::Ok)
    );
    assert_eq!(direct.session, single.session);

    // `limit` and `after`.
    let newest_two = activity(&hub, "?limit=2").await.calls;
    assert_eq!(newest_two, calls[..2].to_vec());
    let after = activity(&hub, &format!("?after={}", calls[1].seq))
        .await
        .calls;
    assert_eq!(after, calls[..1].to_vec());
    let anonymous = reqwest::get(format!("{}/api/v1/activity", hub.base))
        .await
        .unwrap();
    assert_eq!(
        anonymous.status(),
        401,
        "the activity log needs a credential"
    );
    let bad = hub.get("/api/v1/activity?limit=many").await;
    assert!(bad["error"].as_str().unwrap().contains("`limit`"), "{bad}");

    // No argument value anywhere: not in the API, not in any state file.
    let answer = hub.get("/api/v1/activity?limit=1000").await.to_string();
    assert!(!answer.contains(&secret), "the API shows the secret");
    assert!(
        !answer.contains(&visible),
        "the API shows an argument value"
    );
    let log = hub.state_dir.join("activity.jsonl");
    eventually("the log file written", || async {
        let text = std::fs::read_to_string(&log).ok()?;
        (text.lines().count() >= 9).then_some(())
    })
    .await;
    assert_nowhere_under(&hub.state_dir, &secret);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&log).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Each line is one entry.
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let _: ActivityEntry = serde_json::from_str(line).unwrap();
    }

    // The CLI's table, oldest first, and its JSON.
    let out = hub
        .cli()
        .args(["activity", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("TIME"), "{table}");
    assert!(lines[0].contains("OUTCOME"), "{table}");
    assert!(lines.last().unwrap().contains(" echo "), "{table}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("a__fail") && l.contains("error: server 'a': fail on purpose")),
        "{table}"
    );
    assert!(lines.iter().any(|l| l.contains("cancelled")), "{table}");
    client.service.cancel().await.unwrap();
    let out = hub
        .cli()
        .args(["activity", "--json", "--limit", "3", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    let json: ActivityResponse = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json.calls, calls[..3].to_vec());

    // `--follow --json`: the recent calls, then each new one as a line.
    let mut follow = hub
        .cli()
        .args([
            "activity", "--follow", "--json", "--limit", "1", "--url", &hub.base,
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines =
        tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(follow.stdout.take().unwrap()));
    let first: ActivityEntry =
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first.seq, calls[0].seq);
    merged
        .request(
            "tools/call",
            json!({"name": "a__echo", "arguments": {"text": "later"}}),
        )
        .await;
    let next = tokio::time::timeout(switchboard_e2e::DEADLINE, lines.next_line())
        .await
        .expect("the new call followed")
        .unwrap()
        .unwrap();
    let next: ActivityEntry = serde_json::from_str(&next).unwrap();
    assert_eq!(
        (next.seq, next.name.as_str()),
        (calls[0].seq + 1, "a__echo")
    );
    follow.kill().await.unwrap();

    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn with_activity_arguments_values_are_kept_and_secrets_redacted() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec(scratch.path());
    let mut hub = Hub::start_with_env(
        json!({
            "mcpServers": {"a": stdio_fixture(&["--spec", &spec])},
            "settings": {"activityArguments": true, "callTimeoutSecs": 1},
        }),
        &[("SWITCHBOARD_BUILTIN_TOOLS", "1")],
    )
    .await
    .unwrap();
    let secret = unique("sk-live");
    let visible = unique("visible");
    let mut merged = Raw::new(&hub.url);
    merged.initialize().await;
    merged
        .request(
            "tools/call",
            json!({"name": "a__echo", "arguments": {"text": visible, "token": secret}}),
        )
        .await;
    merged
        .request(
            "tools/call",
            json!({"name": "switchboard__list_servers", "arguments": {}}),
        )
        .await;
    // No answer and no progress within callTimeoutSecs: a timeout.
    merged
        .request("tools/call", json!({"name": "a__stuck", "arguments": {}}))
        .await;

    let calls = wait_calls(&hub, 3).await;
    let echo = find(&calls, "a__echo", "/mcp");
    let arguments: Value = serde_json::from_str(echo.arguments.as_deref().unwrap()).unwrap();
    assert_eq!(arguments, json!({"text": visible, "token": "***"}));
    let builtin = find(&calls, "switchboard__list_servers", "/mcp");
    assert_eq!(
        (builtin.server.as_deref(), builtin.outcome),
        (Some("switchboard"), ActivityOutcome::Ok)
    );
    let stuck = find(&calls, "a__stuck", "/mcp");
    assert_eq!(stuck.outcome, ActivityOutcome::Timeout, "{stuck:?}");

    let answer = hub.get("/api/v1/activity").await.to_string();
    assert!(answer.contains(&visible));
    assert!(!answer.contains(&secret), "the API shows the secret");
    eventually("the log file written", || async {
        let text = std::fs::read_to_string(hub.state_dir.join("activity.jsonl")).ok()?;
        (text.lines().count() >= 3).then_some(())
    })
    .await;
    assert_nowhere_under(&hub.state_dir, &secret);
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn the_log_file_rotates_at_its_limit_keeping_one_older_file() {
    let mut hub = Hub::start_with_env(
        json!({"mcpServers": {"a": stdio_fixture(&["--tools", "echo"])}}),
        &[("SWITCHBOARD_ACTIVITY_MAX_BYTES", "2048")],
    )
    .await
    .unwrap();
    let mut merged = Raw::new(&hub.url);
    merged.initialize().await;
    const CALLS: usize = 40;
    for i in 0..CALLS {
        merged
            .request(
                "tools/call",
                json!({"name": "a__echo", "arguments": {"text": format!("call {i}")}}),
            )
            .await;
    }
    wait_calls(&hub, CALLS).await;
    let current = hub.state_dir.join("activity.jsonl");
    let older = hub.state_dir.join("activity.1.jsonl");
    let sizes = eventually("all calls written", || async {
        let lines = |p: &Path| {
            std::fs::read_to_string(p)
                .map(|t| t.lines().count())
                .unwrap_or(0)
        };
        (lines(&current) + lines(&older) > 0
            && std::fs::read_to_string(&current)
                .ok()?
                .contains(&format!("\"seq\":{CALLS},")))
        .then(|| {
            (
                std::fs::metadata(&current).unwrap().len(),
                std::fs::metadata(&older).unwrap().len(),
            )
        })
    })
    .await;
    assert!(sizes.0 <= 2048 && sizes.1 <= 2048, "{sizes:?}");
    assert!(sizes.1 > 0, "rotated");
    let mut names: Vec<String> = std::fs::read_dir(&hub.state_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("activity"))
        .collect();
    names.sort();
    assert_eq!(names, vec!["activity.1.jsonl", "activity.jsonl"]);
    // The newest entries are in the current file, a line each.
    let last = std::fs::read_to_string(&current).unwrap();
    let last: ActivityEntry = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    assert_eq!(last.seq, CALLS as u64);
    assert_eq!(hub.terminate().await, Some(0));
}

/// What an OTLP/HTTP receiver on 127.0.0.1 got: (path, JSON body) per request.
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, Value)>>>;

/// Starts an OTLP/HTTP (JSON) receiver; returns its base URL.
async fn otlp_receiver(received: Received) -> String {
    use axum::routing::post;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let keep = |path: &'static str, received: Received| {
        post(move |body: axum::body::Bytes| async move {
            let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            received.lock().unwrap().push((path.to_string(), json));
            ([("content-type", "application/json")], "{}")
        })
    };
    let app = axum::Router::new()
        .route("/v1/traces", keep("/v1/traces", received.clone()))
        .route("/v1/metrics", keep("/v1/metrics", received));
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// The spans in OTLP JSON bodies, as (name, attributes as a JSON object).
fn spans(bodies: &[(String, Value)]) -> Vec<(String, serde_json::Map<String, Value>)> {
    let mut out = Vec::new();
    for (path, body) in bodies {
        if path != "/v1/traces" {
            continue;
        }
        for rs in body["resourceSpans"].as_array().into_iter().flatten() {
            for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                for span in ss["spans"].as_array().into_iter().flatten() {
                    let mut attributes = serde_json::Map::new();
                    for kv in span["attributes"].as_array().into_iter().flatten() {
                        let value = kv["value"]
                            .as_object()
                            .and_then(|v| v.values().next().cloned())
                            .unwrap_or(Value::Null);
                        attributes.insert(kv["key"].as_str().unwrap_or("").to_string(), value);
                    }
                    out.push((span["name"].as_str().unwrap_or("").to_string(), attributes));
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn calls_are_exported_as_spans_and_metrics_over_otlp() {
    let received: Received = Default::default();
    let endpoint = otlp_receiver(received.clone()).await;
    let scratch = tempfile::tempdir().unwrap();
    let spec = spec(scratch.path());
    let mut hub = Hub::start_with_env(
        json!({
            "mcpServers": {"a": stdio_fixture(&["--spec", &spec])},
            "settings": {"otlpEndpoint": endpoint},
        }),
        // Export quickly instead of every 5 s (spans) and 60 s (metrics).
        &[
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
        ],
    )
    .await
    .unwrap();
    let secret = unique("sk-live");
    let mut merged = Raw::new(&hub.url);
    merged.initialize().await;
    merged
        .request(
            "tools/call",
            json!({"name": "a__echo", "arguments": {"text": secret}}),
        )
        .await;
    merged
        .request("tools/call", json!({"name": "a__fail", "arguments": {}}))
        .await;

    let found = eventually("both spans at the receiver", || async {
        let bodies = received.lock().unwrap().clone();
        let spans = spans(&bodies);
        let echo = spans
            .iter()
            .find(|s| s.0 == "tools/call a__echo")?
            .1
            .clone();
        let fail = spans
            .iter()
            .find(|s| s.0 == "tools/call a__fail")?
            .1
            .clone();
        Some((echo, fail))
    })
    .await;
    let (echo, fail) = found;
    assert_eq!(echo["switchboard.server"], json!("a"));
    assert_eq!(echo["switchboard.outcome"], json!("ok"));
    assert_eq!(echo["switchboard.client"], json!("raw-http"));
    assert_eq!(echo["gen_ai.tool.name"], json!("a__echo"));
    assert_eq!(echo["mcp.method.name"], json!("tools/call"));
    assert_eq!(fail["switchboard.outcome"], json!("error"));
    eventually("the call metrics at the receiver", || async {
        let bodies = received.lock().unwrap().clone();
        let text = bodies
            .iter()
            .filter(|(path, _)| path == "/v1/metrics")
            .map(|(_, body)| body.to_string())
            .collect::<String>();
        (text.contains("switchboard.calls")
            && text.contains("switchboard.call.errors")
            && text.contains("switchboard.call.duration"))
        .then_some(())
    })
    .await;
    // No argument value leaves the hub.
    let everything = format!("{:?}", received.lock().unwrap());
    assert!(
        !everything.contains(&secret),
        "an argument value was exported"
    );
    assert_eq!(hub.terminate().await, Some(0));
}
