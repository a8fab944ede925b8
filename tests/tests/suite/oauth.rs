//! OAuth 2.1 for remote upstreams, end to end: the real hub, the real rmcp
//! client, and `switchboard-auth-fixture` (a fake authorization server and the
//! MCP server it protects) on loopback. Tokens are kept in memory here
//! (`SWITCHBOARD_TOKEN_STORE=memory`); `keyring.rs` covers the Secret Service.
//! The browser is played by an HTTP client following the redirects.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_e2e::api::KeyringKind;
use switchboard_e2e::prelude::*;
use switchboard_e2e::{AuthFixture, assert_no_secrets, bin, browse, redirect_target, rpc_error};

const MEMORY: [(&str, &str); 1] = [("SWITCHBOARD_TOKEN_STORE", "memory")];

async fn hub_with(servers: Value) -> Hub {
    Hub::start_with_env(json!({ "mcpServers": servers }), &MEMORY)
        .await
        .unwrap()
}

/// Starts a login over the API and checks the callback port listens already.
async fn login_url(hub: &Hub, id: &str) -> String {
    let (code, body) = hub.start_login(id).await;
    assert_eq!(code, 200, "{body}");
    let redirect = body["redirectUri"].as_str().unwrap();
    let port = redirect
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/oauth/callback"))
        .unwrap();
    tokio::net::TcpStream::connect(format!("127.0.0.1:{port}"))
        .await
        .expect("the callback port listens when the URL is handed out");
    let url = body["authorizationUrl"].as_str().unwrap().to_string();
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    url
}

#[tokio::test]
async fn login_refresh_and_logout_end_to_end() {
    let fixture = AuthFixture::start(&["--token-lifetime-secs", "2", "--tools", "echo"])
        .await
        .unwrap();
    let mut hub = hub_with(json!({
        "remote": {"url": fixture.url},
        "local": stdio_fixture(&["--tools", "x"]),
    }))
    .await;
    let client = hub.client().await;

    // 401 + WWW-Authenticate → authRequired; the local server is unaffected.
    assert_eq!(client.tool_names().await, vec!["local__x"]);
    let remote = hub
        .wait_for(
            "remote",
            "remote needs a login",
            is::all(vec![is::auth_required(), is::needs_login()]),
        )
        .await;
    assert!(!auth(&remote).logged_in);
    assert_eq!(auth(&remote).keyring, KeyringKind::Memory);
    assert!(
        last_error(&remote).contains("switchboard login remote"),
        "{remote:?}"
    );
    let err = client
        .call_text("local__x", json!({"text": "fine"}))
        .await
        .unwrap();
    assert_eq!(err, "fine");

    // Login: discovery, dynamic registration, PKCE, the browser, the callback.
    let url = login_url(&hub, "remote").await;
    let pending = hub.server_snapshot("remote").await;
    assert!(auth(&pending).login_pending, "{pending:?}");
    let page = browse(&url).await;
    assert!(page.contains("You are logged in"), "{page}");
    let ready = hub
        .wait_for(
            "remote",
            "remote ready after login",
            is::all(vec![is::ready(), is::logged_in(true), is::tools(1)]),
        )
        .await;
    assert!(!auth(&ready).login_pending);
    // Memory only (this test's choice), and the snapshot says so.
    assert_eq!(
        auth_message(&ready),
        "tokens are kept in memory only (tokenStore: memory)"
    );
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "hello"}))
            .await
            .unwrap(),
        "hello"
    );
    let stats = fixture.stats().await;
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["codeGrants"], 1, "{stats}");

    // The 2 s token is refreshed ahead of expiry, without the person.
    eventually("two refreshes", || async {
        (fixture.stats().await["refreshGrants"].as_u64().unwrap() >= 2).then_some(())
    })
    .await;
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "later"}))
            .await
            .unwrap(),
        "later"
    );

    // A token the server refuses (401) is refreshed once and the call retried.
    let before = fixture.stats().await["refreshGrants"].as_u64().unwrap();
    fixture.hook("expire").await;
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "after 401"}))
            .await
            .unwrap(),
        "after 401"
    );
    assert!(fixture.stats().await["refreshGrants"].as_u64().unwrap() > before);
    assert_eq!(fixture.stats().await["registrations"], 1);

    // Logout: tokens gone, back to authRequired, calls say so.
    let (code, body) = hub.post("/api/v1/servers/remote/logout").await;
    assert_eq!(code, 200, "{body}");
    let out = hub
        .wait_for(
            "remote",
            "remote logged out",
            is::all(vec![is::auth_required(), is::logged_in(false)]),
        )
        .await;
    assert!(auth_message(&out).contains("logged out"), "{out:?}");
    let err = client
        .call_text("remote__echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    let err = rpc_error(&err);
    assert_eq!(
        err.data,
        Some(json!({"server": "remote", "kind": "authRequired"})),
        "{err:?}"
    );
    assert!(
        err.message.contains("switchboard login remote"),
        "{}",
        err.message
    );

    // Never leak: no token or code in the log, the snapshot, the API or the config.
    let status = hub.status().await.to_string();
    let logs = hub.get("/api/v1/servers/remote/logs").await.to_string();
    let config = std::fs::read_to_string(&hub.config_path).unwrap();
    assert_eq!(hub.terminate().await, Some(0));
    assert_no_secrets("the snapshot", &status);
    assert_no_secrets("the logs API", &logs);
    assert_no_secrets("the config file", &config);
    let log = hub.log();
    assert!(log.contains("login complete"), "the log shows the login");
    assert_no_secrets("the hub's log", &log);
}

#[tokio::test]
async fn a_rejected_refresh_token_asks_for_a_new_login() {
    let fixture = AuthFixture::start(&["--token-lifetime-secs", "2"])
        .await
        .unwrap();
    let mut hub = hub_with(json!({"remote": {"url": fixture.url}})).await;
    let client = hub.client().await;
    assert!(client.tool_names().await.is_empty());
    hub.wait_for("remote", "authRequired", is::auth_required())
        .await;
    let url = login_url(&hub, "remote").await;
    browse(&url).await;
    hub.wait_for("remote", "ready", is::ready()).await;

    // The authorization server revokes everything: the next refresh is refused.
    fixture.hook("revoke").await;
    let s = hub
        .wait_for(
            "remote",
            "authRequired after the refused refresh",
            is::auth_required(),
        )
        .await;
    let message = auth_message(&s);
    assert!(message.contains("rejected the refresh token"), "{s:?}");
    assert!(message.contains("switchboard login remote"), "{s:?}");
    assert!(!auth(&s).logged_in);
    assert!(fixture.stats().await["rejectedRefreshes"].as_u64().unwrap() >= 1);

    // A new login brings it back.
    let url = login_url(&hub, "remote").await;
    browse(&url).await;
    hub.wait_for("remote", "ready again", is::ready()).await;
    assert_eq!(
        client
            .call_text("remote__echo", json!({"text": "back"}))
            .await
            .unwrap(),
        "back"
    );
    assert_eq!(hub.terminate().await, Some(0));
    assert_no_secrets("the hub's log", &hub.log());
}

#[tokio::test]
async fn preregistered_client_with_secret_skips_registration() {
    let fixture = AuthFixture::start(&["--no-registration", "--client", "sb-client:sb-secret"])
        .await
        .unwrap();
    let mut hub = hub_with(json!({"remote": {
        "url": fixture.url,
        "oauth": {"clientId": "sb-client", "clientSecret": "sb-secret", "scopes": ["mcp"]}
    }}))
    .await;
    let s = hub.server_snapshot("remote").await;
    // `oauth` settings mark the server as needing a login before it is tried.
    assert!(auth(&s).required, "{s:?}");
    let url = login_url(&hub, "remote").await;
    assert!(url.contains("client_id=sb-client"), "{url}");
    assert!(url.contains("scope=mcp"), "{url}");
    browse(&url).await;
    hub.wait_for("remote", "ready", is::all(vec![is::ready(), is::tools(1)]))
        .await;
    let stats = fixture.stats().await;
    assert_eq!(stats["registrations"], 0, "{stats}");
    assert_eq!(stats["codeGrants"], 1, "{stats}");
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn bad_authorization_servers_give_clear_errors_and_hurt_no_one_else() {
    let dead_port = switchboard_e2e::free_port();
    let malformed = AuthFixture::start(&["--malformed-metadata", "--no-registration"])
        .await
        .unwrap();
    let denied = AuthFixture::start(&["--deny-consent"]).await.unwrap();
    let forged = AuthFixture::start(&[]).await.unwrap();
    let dead_as = format!("http://127.0.0.1:{dead_port}");
    let unreachable = AuthFixture::start(&["--authorization-server", &dead_as])
        .await
        .unwrap();
    let mut hub = hub_with(json!({
        "malformed": {"url": malformed.url},
        "denied": {"url": denied.url},
        "forged": {"url": forged.url},
        "unreachable": {"url": unreachable.url},
        "local": stdio_fixture(&["--tools", "x"]),
    }))
    .await;
    let client = hub.client().await;
    assert_eq!(client.tool_names().await, vec!["local__x"]);
    for id in ["malformed", "denied", "forged", "unreachable"] {
        hub.wait_for(id, "authRequired", is::auth_required()).await;
    }

    // Malformed metadata: the login is refused with the reason.
    let (code, body) = hub.start_login("malformed").await;
    assert_eq!(code, 502, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("OAuth discovery failed"), "{error}");
    assert!(error.contains("oauth-protected-resource"), "{error}");
    let s = hub.server_snapshot("malformed").await;
    assert_eq!(s.state, ServerState::AuthRequired);
    assert!(
        auth_message(&s).starts_with("login failed: OAuth discovery failed"),
        "{s:?}"
    );

    // An authorization server that is not running.
    let (code, body) = hub.start_login("unreachable").await;
    assert_eq!(code, 502, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("OAuth discovery failed"), "{error}");
    assert!(error.contains(&dead_as), "{error}");

    // Denied consent: the browser comes back with error=access_denied.
    let url = login_url(&hub, "denied").await;
    let page = browse(&url).await;
    assert!(page.contains("denied access"), "{page}");
    let s = hub
        .wait_for("denied", "denied login reported", is::login_settled())
        .await;
    assert_eq!(s.state, ServerState::AuthRequired);
    assert!(
        auth_message(&s)
            .contains("login failed: the authorization server denied access (access_denied"),
        "{s:?}"
    );

    // A callback whose state is not the login's: refused, nothing exchanged.
    let url = login_url(&hub, "forged").await;
    let target = redirect_target(&url).await;
    let (before, _) = target.split_once("state=").unwrap();
    let page = reqwest::get(format!("{before}state=forged-state"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("does not match"), "{page}");
    let s = hub
        .wait_for("forged", "forged callback reported", is::login_settled())
        .await;
    assert_eq!(s.state, ServerState::AuthRequired);
    assert!(auth_message(&s).contains("state does not match"), "{s:?}");
    assert_eq!(forged.stats().await["codeGrants"], 0);

    // Not a remote server; unknown server.
    let (code, body) = hub.start_login("local").await;
    assert_eq!(code, 409, "{body}");
    let (code, _) = hub.start_login("nope").await;
    assert_eq!(code, 404);

    // Everyone else is fine and the hub is alive.
    assert_eq!(
        client
            .call_text("local__x", json!({"text": "still"}))
            .await
            .unwrap(),
        "still"
    );
    assert_eq!(hub.terminate().await, Some(0));
    assert_no_secrets("the hub's log", &hub.log());
}

#[tokio::test]
async fn cli_login_prints_the_url_and_waits_for_the_browser() {
    let fixture = AuthFixture::start(&[]).await.unwrap();
    let mut hub = hub_with(json!({"remote": {"url": fixture.url}})).await;
    let mut login = hub
        .cli()
        .args(["login", "remote", "--no-browser", "--url", &hub.base])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = login.stdout.take().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let url = tokio::time::timeout(switchboard_e2e::DEADLINE, async {
        loop {
            let line = lines.next_line().await.unwrap().expect("the URL line");
            if line.starts_with("http://") {
                break line;
            }
        }
    })
    .await
    .unwrap();
    browse(&url).await;
    let mut rest = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        rest.push_str(&line);
        rest.push('\n');
    }
    let output = tokio::time::timeout(Duration::from_secs(30), login.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{rest}{stderr}");
    assert!(rest.contains("remote: logged in"), "{rest}");
    // Memory only: the person is told.
    assert!(stderr.contains("memory only"), "{stderr}");

    let out = hub
        .cli()
        .args(["logout", "remote", "--url", &hub.base])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("remote: logged out"));
    hub.wait_for("remote", "logged out", is::auth_required())
        .await;
    assert_eq!(hub.terminate().await, Some(0));
}

#[tokio::test]
async fn secrets_need_an_os_keyring() {
    let out = tokio::process::Command::new(bin("switchboard"))
        .args(["secret", "set", "API_KEY"])
        .env("SWITCHBOARD_TOKEN_STORE", "memory")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("secrets need an OS keyring"), "{stderr}");
}
