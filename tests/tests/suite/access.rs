//! Access control on the hub's listener (issue 15): the exact-Origin rule
//! and the control token on state-changing control routes, the dashboard's
//! one-time sign-in link and session cookie, another local user, and
//! listening beyond loopback. Raw HTTP (reqwest, curl), the real binary.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{
    AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, ORIGIN, SET_COOKIE, WWW_AUTHENTICATE,
};
use serde_json::{Value, json};
use switchboard_e2e::bin;
use switchboard_e2e::prelude::*;

fn two_servers() -> Value {
    json!({"mcpServers": {
        "alpha": stdio_fixture(&["--tools", "x"]),
        "beta": stdio_fixture(&["--tools", "y"]),
    }})
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(DEADLINE)
        .build()
        .unwrap()
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn state_changing_routes_need_the_token_and_the_hubs_own_origin() {
    let mut hub = Hub::start(two_servers()).await.unwrap();
    let http = http();
    let token = hub.token();
    let bearer = format!("Bearer {token}");
    let disable = format!("{}/api/v1/servers/beta/disable", hub.base);
    let enable = format!("{}/api/v1/servers/beta/enable", hub.base);
    let other_port = switchboard_e2e::free_port();

    // The token file: private, in a private directory, and the token is long.
    let token_file = hub.state_dir.join("control-token");
    assert_eq!(mode(&token_file), 0o600);
    assert_eq!(mode(&hub.state_dir), 0o700);
    assert_eq!(token.len(), 64, "{token:?}");

    let config_before = std::fs::read(&hub.config_path).unwrap();
    let refused = [
        // No credential at all: 401 with a challenge.
        (None, None, "", StatusCode::UNAUTHORIZED),
        // A form or text/plain POST from a page on another loopback port
        // (no preflight), with and without a token.
        (
            None,
            Some("http://localhost:3000".to_string()),
            "text/plain",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(bearer.clone()),
            Some("http://localhost:3000".to_string()),
            "",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(bearer.clone()),
            Some(format!("http://127.0.0.1:{other_port}")),
            "",
            StatusCode::FORBIDDEN,
        ),
        // The hub's host with another scheme is another origin.
        (
            Some(bearer.clone()),
            Some(hub.base.replace("http://", "https://")),
            "",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(bearer.clone()),
            Some("https://evil.example".to_string()),
            "",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(bearer.clone()),
            Some("null".to_string()),
            "",
            StatusCode::FORBIDDEN,
        ),
        // A wrong token, or a token in the wrong form.
        (
            Some("Bearer 0000".to_string()),
            None,
            "",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(format!("Bearer {}", "f".repeat(64))),
            None,
            "",
            StatusCode::FORBIDDEN,
        ),
        (
            Some(format!("Basic {token}")),
            None,
            "",
            StatusCode::FORBIDDEN,
        ),
    ];
    for (auth, origin, content_type, expected) in refused {
        let mut request = http.post(&disable).body("{}");
        if let Some(auth) = &auth {
            request = request.header(AUTHORIZATION, auth);
        }
        if let Some(origin) = &origin {
            request = request.header(ORIGIN, origin);
        }
        if !content_type.is_empty() {
            request = request.header(CONTENT_TYPE, content_type);
        }
        let response = request.send().await.unwrap();
        let code = response.status();
        let challenge = response.headers().get(WWW_AUTHENTICATE).cloned();
        let body: Value = response.json().await.unwrap();
        assert_eq!(code, expected, "{auth:?} {origin:?}: {body}");
        assert!(body["error"].is_string(), "{body}");
        assert!(
            !body.to_string().contains(&token),
            "the answer shows the token: {body}"
        );
        if expected == StatusCode::UNAUTHORIZED {
            let challenge = challenge.expect("401 carries WWW-Authenticate");
            assert!(
                challenge.to_str().unwrap().starts_with("Bearer"),
                "{challenge:?}"
            );
        }
    }
    assert!(
        hub.server_snapshot("beta").await.enabled,
        "nothing was disabled"
    );
    assert_eq!(
        std::fs::read(&hub.config_path).unwrap(),
        config_before,
        "the config is unchanged"
    );

    // The token with the hub's own origin, or with no origin (the CLI), works.
    let response = http
        .post(&disable)
        .header(AUTHORIZATION, &bearer)
        .header(ORIGIN, &hub.base)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(!hub.server_snapshot("beta").await.enabled);
    let response = http.post(&enable).bearer_auth(&token).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(hub.server_snapshot("beta").await.enabled);

    // Status stays open to the owner's tools; logs need the credential.
    let status = http
        .get(format!("{}/api/v1/status", hub.base))
        .send()
        .await
        .unwrap();
    assert_eq!(status.status(), StatusCode::OK);
    let logs = format!("{}/api/v1/servers/alpha/logs", hub.base);
    assert_eq!(
        http.get(&logs).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        http.get(&logs)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    // DNS rebinding stays refused, with or without the token.
    for auth in [None, Some(&bearer)] {
        let mut request = http.post(&disable).header(
            HOST,
            format!("attacker.example:{}", hub.base.rsplit(':').next().unwrap()),
        );
        if let Some(auth) = auth {
            request = request.header(AUTHORIZATION, auth);
        }
        assert_eq!(
            request.send().await.unwrap().status(),
            StatusCode::FORBIDDEN
        );
    }

    // The CLI finds the token by itself (same state directory), and says what
    // to do when it cannot.
    let out = hub
        .cli()
        .args(["disable", "beta", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = hub
        .cli()
        .args(["enable", "beta", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let out = hub
        .cli()
        .env("SWITCHBOARD_CACHE_DIR", elsewhere.path())
        .args(["disable", "beta", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("HTTP 401") && stderr.contains("control token"),
        "{stderr}"
    );
    assert!(hub.server_snapshot("beta").await.enabled);
    // A restart keeps the token: running CLIs and scripts keep working.
    assert_eq!(hub.terminate().await, Some(0));
    assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), token);
}

#[tokio::test]
async fn the_dashboard_signs_in_once_with_a_link_and_its_cookie_needs_the_own_origin() {
    let mut hub = Hub::start(two_servers()).await.unwrap();
    let http = http();
    let refresh = format!("{}/api/v1/servers/alpha/refresh", hub.base);

    // The page itself is open, but hands out no credential.
    let page = http.get(format!("{}/", hub.base)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers().get(SET_COOKIE).is_none());

    // A sign-in link needs the token.
    let link = format!("{}/api/v1/dashboard", hub.base);
    assert_eq!(
        http.post(&link).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let (code, body) = hub.post("/api/v1/dashboard").await;
    assert_eq!(code, 200, "{body}");
    let url = body["url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with(&format!("{}/login?code=", hub.base)),
        "{url}"
    );

    let signed_in = http.get(&url).send().await.unwrap();
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    assert_eq!(signed_in.headers()["location"], "/");
    let set_cookie = signed_in.headers()[SET_COOKIE]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Strict"),
        "{set_cookie}"
    );
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    // The link works once.
    assert_eq!(
        http.get(&url).send().await.unwrap().status(),
        StatusCode::FORBIDDEN
    );

    // The cookie with the hub's own Origin: the page's own requests.
    let with = |origin: Option<String>, cookie: &str| {
        let mut request = http.post(&refresh).header(COOKIE, cookie.to_string());
        if let Some(origin) = origin {
            request = request.header(ORIGIN, origin);
        }
        request.send()
    };
    assert_eq!(
        with(Some(hub.base.clone()), &cookie)
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    // Without Origin (not a browser), or from another loopback port: refused.
    assert_eq!(
        with(None, &cookie).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        with(Some("http://localhost:3000".into()), &cookie)
            .await
            .unwrap()
            .status(),
        StatusCode::FORBIDDEN
    );
    // A made-up session is no session.
    let (name, _) = cookie.split_once('=').unwrap();
    let forged = format!("{name}={}", "a".repeat(64));
    assert_eq!(
        with(Some(hub.base.clone()), &forged)
            .await
            .unwrap()
            .status(),
        StatusCode::UNAUTHORIZED
    );
    // Logs read with the cookie (the page's log dialog).
    let logs = http
        .get(format!("{}/api/v1/servers/alpha/logs", hub.base))
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(logs.status(), StatusCode::OK);
    // Sessions end with the hub.
    assert_eq!(hub.terminate().await, Some(0));
}

/// Runs `args` as user `nobody` (uid 65534), returning (success, stdout, stderr).
async fn as_nobody(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = tokio::process::Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .args(args)
        .env("HOME", "/nonexistent")
        .envs(env.iter().copied())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(DEADLINE, out).await.unwrap().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn another_local_user_can_neither_read_the_state_nor_change_servers() {
    assert!(
        std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0,
        "this test switches to user nobody with setpriv: run it as root (as CI does)"
    );
    let mut hub = Hub::start(two_servers()).await.unwrap();
    // Only the hub's own modes stand in the way: the test's temp folder is
    // opened up, and the config is what a careful owner keeps (0600).
    std::fs::set_permissions(hub.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&hub.config_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    // A listing, so that the warm catalog is written.
    let (code, _) = hub.post("/api/v1/servers/alpha/refresh").await;
    assert_eq!(code, 200);
    let catalog = hub.state_dir.join("catalog.json");
    eventually("the warm catalog to be written", || async {
        catalog.exists().then_some(())
    })
    .await;
    let token_file = hub.state_dir.join("control-token");
    let config_before = std::fs::read(&hub.config_path).unwrap();

    // The nobody user can reach the folder but not read the state.
    let (ok, _, _) = as_nobody(&["test", "-r", hub.dir.path().to_str().unwrap()], &[]).await;
    assert!(
        ok,
        "nobody can look into the test folder (so the modes below are what protects)"
    );
    for file in [&token_file, &catalog, &hub.config_path] {
        let (ok, stdout, stderr) = as_nobody(&["cat", file.to_str().unwrap()], &[]).await;
        assert!(!ok, "nobody read {}: {stdout}", file.display());
        assert!(stderr.contains("Permission denied"), "{stderr}");
    }
    let (ok, _, stderr) = as_nobody(&["ls", hub.state_dir.to_str().unwrap()], &[]).await;
    assert!(!ok && stderr.contains("Permission denied"), "{stderr}");

    // Nor change a server through the control API: plain, as a page would,
    // with a made-up token or cookie, and with the CLI pointed at the state dir.
    let disable = format!("{}/api/v1/servers/beta/disable", hub.base);
    let port = hub.base.rsplit(':').next().unwrap().to_string();
    let forged_cookie = format!("Cookie: switchboard-session-{port}={}", "b".repeat(64));
    let origin = format!("Origin: {}", hub.base);
    let attempts: Vec<Vec<&str>> = vec![
        vec!["-X", "POST", &disable],
        vec![
            "-X",
            "POST",
            "-H",
            "Content-Type: text/plain",
            "-H",
            "Origin: http://localhost:3000",
            "--data",
            "x",
            &disable,
        ],
        vec![
            "-X",
            "POST",
            "-H",
            "Authorization: Bearer 0123456789abcdef0123456789abcdef",
            &disable,
        ],
        vec!["-X", "POST", "-H", &origin, "-H", &forged_cookie, &disable],
    ];
    for attempt in attempts {
        let mut args = vec![
            "curl",
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "--noproxy",
            "*",
        ];
        args.extend(attempt.iter().copied());
        let (_, code, stderr) = as_nobody(&args, &[]).await;
        assert!(
            code == "401" || code == "403",
            "{attempt:?} answered {code:?} {stderr}"
        );
    }
    let switchboard = bin("switchboard");
    let state = hub.state_dir.to_str().unwrap().to_string();
    let (ok, _, stderr) = as_nobody(
        &[
            switchboard.to_str().unwrap(),
            "disable",
            "beta",
            "--url",
            &hub.base,
        ],
        &[("SWITCHBOARD_CACHE_DIR", &state)],
    )
    .await;
    assert!(!ok, "the CLI as nobody disabled a server");
    assert!(stderr.contains("control token"), "{stderr}");

    assert!(hub.server_snapshot("beta").await.enabled);
    assert_eq!(
        std::fs::read(&hub.config_path).unwrap(),
        config_before,
        "the config is unchanged"
    );
    assert_eq!(hub.terminate().await, Some(0));
}

/// Runs `switchboard serve` expecting it to refuse to start; returns stderr.
async fn refused_start(args: &[&str], env: &[(&str, &str)], config: Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let out = tokio::process::Command::new(bin("switchboard"))
        .arg("serve")
        .args(args)
        .arg("--config")
        .arg(&config_path)
        .env("SWITCHBOARD_CACHE_DIR", dir.path().join("cache"))
        .env_remove("SWITCHBOARD_LISTEN")
        .env_remove("SWITCHBOARD_ALLOW_REMOTE")
        .envs(env.iter().copied())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(DEADLINE, out)
        .await
        .expect("the hub exits instead of listening")
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "it printed a listening line: {out:?}"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn a_listen_address_beyond_loopback_is_refused_unless_allowed() {
    /// `serve` arguments, environment, config file, the address in the message.
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, Value, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec!["--listen", "0.0.0.0:0"],
            vec![],
            json!({}),
            "0.0.0.0:0",
        ),
        (vec!["--listen", "[::]:0"], vec![], json!({}), "[::]:0"),
        (
            vec![],
            vec![("SWITCHBOARD_LISTEN", "0.0.0.0:0")],
            json!({}),
            "0.0.0.0:0",
        ),
        (
            vec![],
            vec![],
            json!({"settings": {"listen": "0.0.0.0:0"}}),
            "0.0.0.0:0",
        ),
    ];
    for (args, env, config, addr) in cases {
        let stderr = refused_start(&args, &env, config).await;
        assert!(
            stderr.contains(&format!("refusing to listen on {addr}"))
                && stderr.contains("allowRemote")
                && stderr.contains("--allow-remote"),
            "{args:?} {env:?}: {stderr}"
        );
    }
}

#[tokio::test]
async fn with_allow_remote_mcp_needs_the_token_and_a_warning_is_printed() {
    let config = json!({"mcpServers": {"alpha": stdio_fixture(&["--tools", "x"])}});
    // The flag, the env var and the setting each turn it on (on 127.0.0.1: a
    // test listens on loopback only; a foreign Host header stands in for
    // another machine).
    let hubs = [
        Hub::start_with_args(config.clone(), &[], &["--allow-remote"])
            .await
            .unwrap(),
        Hub::start_with_env(config.clone(), &[("SWITCHBOARD_ALLOW_REMOTE", "1")])
            .await
            .unwrap(),
        Hub::start({
            let mut c = config.clone();
            c["settings"] = json!({"allowRemote": true});
            c
        })
        .await
        .unwrap(),
    ];
    let http = http();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "access-test", "version": "0"}}});
    for mut hub in hubs {
        let token = hub.token();
        eventually("the warning line", || async {
            hub.log().contains("allowRemote is on").then_some(())
        })
        .await;
        let post = |auth: Option<String>| {
            let mut request = http
                .post(&hub.url)
                .header("accept", "application/json, text/event-stream")
                .json(&initialize);
            if let Some(auth) = auth {
                request = request.header(AUTHORIZATION, auth);
            }
            request.send()
        };
        let response = post(None).await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(
            response.headers()[WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .starts_with("Bearer")
        );
        assert_eq!(
            post(Some("Bearer nope".into())).await.unwrap().status(),
            StatusCode::FORBIDDEN
        );
        let pass_through = http
            .post(format!("{}/servers/alpha/mcp", hub.base))
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
            .await
            .unwrap();
        assert_eq!(pass_through.status(), StatusCode::UNAUTHORIZED);
        // A real MCP client with the token gets the tools.
        assert!(Client::connect_with_token(&hub.url, "nope").await.is_err());
        let client = Client::connect_with_token(&hub.url, &token).await.unwrap();
        assert_eq!(client.tool_names().await, vec!["alpha__x"]);
        drop(client);

        // From "another machine" (a non-loopback Host): everything needs the token.
        let port = hub.base.rsplit(':').next().unwrap().to_string();
        let remote_status = |auth: bool| {
            let mut request = http
                .get(format!("{}/api/v1/status", hub.base))
                .header(HOST, format!("hub.example:{port}"));
            if auth {
                request = request.bearer_auth(&token);
            }
            request.send()
        };
        assert_eq!(
            remote_status(false).await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(remote_status(true).await.unwrap().status(), StatusCode::OK);
        // The stdio bridge sends the token by itself (same state directory).
        let mut bridge = hub
            .cli()
            .args(["stdio", "--url", &hub.base])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let mut stdin = bridge.stdin.take().unwrap();
        stdin
            .write_all(format!("{initialize}\n").as_bytes())
            .await
            .unwrap();
        let mut lines = tokio::io::BufReader::new(bridge.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(DEADLINE, lines.next_line())
            .await
            .expect("the bridge answers")
            .unwrap()
            .unwrap_or_default();
        assert!(line.contains("\"serverInfo\""), "{line}");
        drop(stdin);
        let _ = tokio::time::timeout(Duration::from_secs(10), bridge.wait()).await;
        let _ = bridge.kill().await;
        assert_eq!(hub.terminate().await, Some(0));
    }

    // Without allowRemote a foreign Host is refused even with the token.
    let mut hub = Hub::start(config).await.unwrap();
    let port = hub.base.rsplit(':').next().unwrap().to_string();
    let response = http
        .get(format!("{}/api/v1/status", hub.base))
        .header(HOST, format!("hub.example:{port}"))
        .bearer_auth(hub.token())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(!hub.log().contains("allowRemote is on"));
    assert_eq!(hub.terminate().await, Some(0));
}
