//! The sandbox of stdio servers, for real: a fixture server whose `probe`
//! tool reads and writes paths, connects to a loopback port and looks at its
//! environment, run under the standard profile, a custom profile, `expose`,
//! and `sandbox: false` — the control that shows each probe works, since
//! these tests run as root and only the sandbox can refuse.
//!
//! Each hub gets a home directory of its own (`HOME`), with a canary in its
//! `.ssh` and `.aws`, so the secret places are real folders that nothing
//! else protects.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use switchboard_e2e::api::SandboxStatus;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{bin, spec_file};

/// A home directory with secrets in it, and a project folder.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        for (file, text) in [
            (".ssh/id_canary", "SSH-CANARY"),
            (".aws/credentials", "AWS-CANARY"),
            (".kube/config", "KUBE-CANARY"),
            ("work/notes.txt", "project notes"),
            ("other/private.txt", "not listed"),
        ] {
            let path = home.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(home.join("out")).unwrap();
        Self { dir }
    }

    fn path(&self, relative: &str) -> String {
        self.dir
            .path()
            .join(relative)
            .to_string_lossy()
            .into_owned()
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// A stdio fixture serving the `probe` tool, with `sandbox` as its key
/// (`Value::Null`: no key), in `dir`.
fn probe_server(dir: &Path, sandbox: Value, extra: Value) -> Value {
    let spec = spec_file(
        dir,
        json!([{"name": "probe", "behavior": "probe", "inputSchema": {"type": "object"}}]),
    );
    let mut server = json!({
        "command": bin("switchboard-fixture").to_string_lossy(),
        "args": ["--spec", spec],
    });
    if !sandbox.is_null() {
        server["sandbox"] = sandbox;
    }
    if let Value::Object(extra) = extra {
        for (key, value) in extra {
            server[key] = value;
        }
    }
    server
}

/// Calls `<server>__probe`: `Ok(text)` on success, `Err(text)` for a refusal.
async fn probe(client: &Client, server: &str, args: Value) -> Result<String, String> {
    let mut params = rmcp::model::CallToolRequestParams::new(format!("{server}__probe"));
    params.arguments = args.as_object().cloned();
    let result = client.service.peer().call_tool(params).await.unwrap();
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    if result.is_error == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

async fn start(home: &Home, servers: Value) -> Hub {
    Hub::start_with_env(
        json!({ "mcpServers": servers }),
        &[
            ("HOME", home.root().to_str().unwrap()),
            ("SB_TEST_API_TOKEN", "inherited-secret"),
            ("SB_TEST_PLAIN", "inherited-plain"),
        ],
    )
    .await
    .unwrap()
}

fn sandbox_of(snapshot: &HubSnapshot, id: &str) -> SandboxStatus {
    server(snapshot, id).sandbox.clone()
}

#[tokio::test]
async fn the_standard_profile_refuses_secret_places_and_switchboards_files_but_nothing_else() {
    let home = Home::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let scratch = tempfile::tempdir().unwrap();
    let hub = start(
        &home,
        json!({
            "boxed": probe_server(scratch.path(), Value::Null, json!({"env": {"OWN_TOKEN": "given"}})),
            "open": probe_server(scratch.path(), json!(false), Value::Null),
        }),
    )
    .await;
    let client = Client::connect(&hub.url).await;
    let token_file = hub.state_dir.join("control-token");
    let config_file = hub.config_path.to_string_lossy().into_owned();
    let token_file = token_file.to_string_lossy().into_owned();

    // The control: unsandboxed, every probe works (so a refusal below is the sandbox's).
    for path in [
        home.path(".ssh/id_canary"),
        token_file.clone(),
        config_file.clone(),
    ] {
        let read = probe(&client, "open", json!({"op": "read", "path": path})).await;
        assert!(
            read.is_ok(),
            "the unsandboxed probe could not read {path}: {read:?}"
        );
    }
    assert_eq!(
        probe(
            &client,
            "open",
            json!({"op": "env", "name": "SB_TEST_API_TOKEN"})
        )
        .await,
        Ok("SB_TEST_API_TOKEN is set".into())
    );

    // Sandboxed: the secret places and Switchboard's own files are out of reach.
    // What is inside a hidden folder is gone; a hidden file is covered.
    for path in [
        home.path(".ssh/id_canary"),
        home.path(".aws/credentials"),
        token_file.clone(),
    ] {
        let read = probe(&client, "boxed", json!({"op": "read", "path": path})).await;
        let refused = read.expect_err(&format!("the sandboxed probe read {path}"));
        assert!(!refused.contains("CANARY"), "{refused}");
    }
    // As root (these tests) the cover reads as empty; as anyone else, not at all.
    let covered = probe(&client, "boxed", json!({"op": "read", "path": config_file})).await;
    assert!(
        matches!(&covered, Ok(text) if text == "read: ") || covered.is_err(),
        "{covered:?}"
    );
    let rewrote = probe(
        &client,
        "boxed",
        json!({"op": "write", "path": config_file}),
    )
    .await;
    assert!(rewrote.is_err(), "{rewrote:?}");
    assert!(
        std::fs::read_to_string(&hub.config_path)
            .unwrap()
            .contains("mcpServers")
    );
    let listed = probe(
        &client,
        "boxed",
        json!({"op": "list", "path": home.path(".ssh")}),
    )
    .await;
    assert_eq!(listed, Ok("list: ".into()), "the .ssh folder looks empty");
    let wrote = probe(
        &client,
        "boxed",
        json!({"op": "write", "path": home.path(".ssh/authorized_keys")}),
    )
    .await;
    assert!(wrote.is_err(), "{wrote:?}");
    assert!(!home.root().join(".ssh/authorized_keys").exists());

    // Everything else works as without a sandbox: files, writes, loopback.
    assert_eq!(
        probe(
            &client,
            "boxed",
            json!({"op": "read", "path": home.path("work/notes.txt")})
        )
        .await,
        Ok("read: project notes".into())
    );
    assert!(
        probe(
            &client,
            "boxed",
            json!({"op": "write", "path": home.path("work/new.txt")})
        )
        .await
        .is_ok()
    );
    assert!(home.root().join("work/new.txt").exists());
    assert!(
        probe(&client, "boxed", json!({"op": "connect", "port": port}))
            .await
            .is_ok()
    );

    // Inherited secret-looking variables are not passed on; its own env is.
    for (name, expected) in [
        ("SB_TEST_API_TOKEN", "unset"),
        ("SB_TEST_PLAIN", "set"),
        ("OWN_TOKEN", "set"),
    ] {
        assert_eq!(
            probe(&client, "boxed", json!({"op": "env", "name": name})).await,
            Ok(format!("{name} is {expected}"))
        );
    }

    // The refusal reaches the status once the hub has read the server's stderr.
    hub.wait_for("boxed", "a refusal in its sandbox status", |s| {
        s.sandbox.last_denial.is_some()
    })
    .await;
    let status = hub.snapshot().await;
    let boxed = sandbox_of(&status, "boxed");
    assert_eq!(boxed.profile, "standard", "{boxed:?}");
    assert!(boxed.enforced, "{boxed:?}");
    assert!(boxed.mechanism.contains("Landlock"), "{boxed:?}");
    assert!(
        boxed.dropped_env.iter().any(|v| v == "SB_TEST_API_TOKEN"),
        "{boxed:?}"
    );
    assert!(
        boxed
            .last_denial
            .as_deref()
            .unwrap()
            .contains("refused by the sandbox"),
        "{boxed:?}"
    );
    let open = sandbox_of(&status, "open");
    assert_eq!(open.profile, "off", "{open:?}");
    assert!(!open.enforced, "{open:?}");
    // The log says which variables stayed behind and how to pass one.
    assert!(hub.log().contains("SB_TEST_API_TOKEN"), "{}", hub.log());
    assert!(
        hub.log().contains("refused by the sandbox"),
        "{}",
        hub.log()
    );
    drop(listener);
}

#[tokio::test]
async fn a_custom_profile_allows_only_its_paths_and_network_none_refuses_loopback() {
    let home = Home::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let scratch = tempfile::tempdir().unwrap();
    let outside: PathBuf = scratch.path().join("outside.txt");
    let hub = start(
        &home,
        json!({
            "custom": probe_server(scratch.path(), json!({
                "filesystem": {"read": ["~/work"], "write": ["~/out"]},
                "network": "none",
            }), Value::Null),
            "control": probe_server(scratch.path(), json!(false), Value::Null),
        }),
    )
    .await;
    let client = Client::connect(&hub.url).await;
    let outside = outside.to_string_lossy().into_owned();

    // The control reaches all of it.
    for args in [
        json!({"op": "read", "path": home.path("other/private.txt")}),
        json!({"op": "write", "path": outside}),
        json!({"op": "connect", "port": port}),
    ] {
        let done = probe(&client, "control", args.clone()).await;
        assert!(done.is_ok(), "unsandboxed {args}: {done:?}");
    }
    std::fs::remove_file(&outside).unwrap();

    assert_eq!(
        probe(
            &client,
            "custom",
            json!({"op": "read", "path": home.path("work/notes.txt")})
        )
        .await,
        Ok("read: project notes".into())
    );
    assert!(
        probe(
            &client,
            "custom",
            json!({"op": "write", "path": home.path("out/result.txt")})
        )
        .await
        .is_ok()
    );
    for args in [
        json!({"op": "read", "path": home.path("other/private.txt")}),
        json!({"op": "read", "path": home.path(".ssh/id_canary")}),
        json!({"op": "write", "path": home.path("work/changed.txt")}),
        json!({"op": "write", "path": outside}),
        json!({"op": "connect", "port": port}),
    ] {
        let done = probe(&client, "custom", args.clone()).await;
        assert!(done.is_err(), "the custom profile allowed {args}: {done:?}");
    }
    assert!(!Path::new(&outside).exists());
    assert!(!home.root().join("work/changed.txt").exists());

    let custom = sandbox_of(&hub.snapshot().await, "custom");
    assert_eq!(custom.profile, "custom", "{custom:?}");
    assert!(custom.enforced, "{custom:?}");
    assert!(custom.mechanism.contains("network namespace"), "{custom:?}");
    drop(listener);
}

#[tokio::test]
async fn expose_gives_one_server_back_its_own_credentials_only() {
    let home = Home::new();
    let scratch = tempfile::tempdir().unwrap();
    let hub = start(
        &home,
        json!({"kube": probe_server(scratch.path(), json!({"expose": ["~/.kube"]}), Value::Null)}),
    )
    .await;
    let client = Client::connect(&hub.url).await;
    assert_eq!(
        probe(
            &client,
            "kube",
            json!({"op": "read", "path": home.path(".kube/config")})
        )
        .await,
        Ok("read: KUBE-CANARY".into())
    );
    assert!(
        probe(
            &client,
            "kube",
            json!({"op": "read", "path": home.path(".ssh/id_canary")})
        )
        .await
        .is_err()
    );
}

#[tokio::test]
async fn a_server_that_dies_on_a_refused_path_says_the_sandbox_refused_it() {
    let home = Home::new();
    let credentials = home.path(".aws/credentials");
    let hub = start(
        &home,
        json!({"aws": {
            "command": bin("switchboard-fixture").to_string_lossy(),
            "args": ["--tools", "ok", "--read-at-start", credentials],
        }}),
    )
    .await;
    let (code, answer) = hub.post("/api/v1/servers/aws/refresh").await;
    assert_ne!(code, 200, "{answer}");
    let server = hub.wait_for("aws", "a last error", is::failed_once()).await;
    let error = last_error(&server);
    assert!(
        error.contains("read of ~/.aws/credentials (AWS credentials) refused by the sandbox")
            && error.contains("sandbox.expose"),
        "{error}"
    );
}
