//! OAuth helpers: the fake authorization server and protected MCP fixture
//! (`switchboard-auth-fixture`), the browser's step of a login, and the check
//! that none of the fixture's secrets leaked into a text.

use anyhow::Result;
use serde_json::Value;
use tokio::process::Child;

use super::{Hub, TestHub, spawn_listening};

/// A running `switchboard-auth-fixture`: authorization server and protected
/// MCP server on one loopback port.
pub struct AuthFixture {
    pub child: Child,
    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp` (`/sse` with `--sse`).
    pub url: String,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl AuthFixture {
    pub async fn start(args: &[&str]) -> Result<Self> {
        let (child, url) = spawn_listening("switchboard-auth-fixture", args).await?;
        // `/sse` with `--sse` (a legacy SSE server behind OAuth).
        let base = url
            .trim_end_matches("/mcp")
            .trim_end_matches("/sse")
            .to_string();
        Ok(Self { child, url, base })
    }

    /// What the authorization server has done (`/test/stats`).
    pub async fn stats(&self) -> Value {
        reqwest::get(format!("{}/test/stats", self.base))
            .await
            .expect("stats")
            .json()
            .await
            .expect("stats JSON")
    }

    /// `POST /test/<hook>` (`revoke`, `expire`).
    pub async fn hook(&self, hook: &str) {
        let response = reqwest::Client::new()
            .post(format!("{}/test/{hook}", self.base))
            .send()
            .await
            .expect("hook");
        assert!(
            response.status().is_success(),
            "{hook}: {}",
            response.status()
        );
    }
}

/// Plays the browser: follows the authorization URL and its redirects to the
/// loopback callback, returning the page the hub answered with.
pub async fn browse(authorization_url: &str) -> String {
    reqwest::get(authorization_url)
        .await
        .expect("the authorization URL answers")
        .text()
        .await
        .expect("page text")
}

/// Where the authorization endpoint redirects the browser to (not followed).
pub async fn redirect_target(authorization_url: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(authorization_url).send().await.unwrap();
    assert!(response.status().is_redirection(), "{}", response.status());
    response.headers()["location"].to_str().unwrap().to_string()
}

/// Prefixes of the secrets the auth fixture hands out (tokens, codes); none
/// may show up in a log, the snapshot, the control API or the config file.
pub const FIXTURE_SECRET_PREFIXES: [&str; 3] =
    ["fixture-access-", "fixture-refresh-", "fixture-code-"];

/// Fails if `text` (what `what` is) contains a fixture secret.
pub fn assert_no_secrets(what: &str, text: &str) {
    for prefix in FIXTURE_SECRET_PREFIXES {
        assert!(
            !text.contains(prefix),
            "{what} contains a secret ({prefix}...)"
        );
    }
}

impl Hub {
    /// `POST /api/v1/servers/<id>/login`: the authorization URL to open.
    pub async fn start_login(&self, id: &str) -> (u16, Value) {
        self.post(&format!("/api/v1/servers/{id}/login")).await
    }
}
