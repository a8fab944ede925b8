//! A key that appears twice in one object of the config file is refused
//! (issue #27, item 8), wherever it is, with `path:line:column`: serde keeps
//! the last of two equal keys, so a second entry of a profile without its
//! `token` used to open that profile to everyone. Here the second entry comes
//! with a reload; the reload is refused and the profile stays closed.
//! In-process (`Engine::serve` watches its file): the hub's process is not
//! what is tested.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use switchboard_e2e::prelude::*;
use switchboard_e2e::raw::RawMcp;

const TOKEN: &str = "e2e-duplicate-profile-token-5d1f";

#[tokio::test]
async fn a_second_profile_entry_without_a_token_is_refused_and_the_profile_stays_closed() {
    let a = stdio_fixture(&["--tools", "x"]);
    let mut hub = Engine::serve(json!({
        "mcpServers": {"a": a},
        "profiles": {"p": {"servers": ["a"], "token": TOKEN}},
    }))
    .await
    .unwrap();
    let url = format!("{}/profiles/p/mcp", hub.base);
    assert_eq!(RawMcp::new(&url).initialize().await.status, 401);

    // Written by hand: a JSON serializer cannot repeat a key.
    let text = format!(
        "{{\n  \"mcpServers\": {{\"a\": {a}}},\n  \"profiles\": {{\n    \"p\": {{\"servers\": [\"a\"], \"token\": \"{TOKEN}\"}},\n    \"p\": {{\"servers\": [\"a\"]}}\n  }}\n}}\n"
    );
    std::fs::write(&hub.config_path, text).unwrap();
    let error = hub
        .wait_snapshot("the repeated profile refused", |s| s.config_error.is_some())
        .await
        .config_error
        .unwrap();
    let api::ConfigError::Invalid {
        path,
        line,
        column,
        message,
    } = error
    else {
        panic!("not refused as an invalid file: {error:?}");
    };
    assert_eq!(path, hub.config_path.to_string_lossy());
    assert_eq!((line, column), (5, 7));
    assert_eq!(message, "profile \"p\" is defined twice");

    // Still closed without the token, open with it.
    assert_eq!(RawMcp::new(&url).initialize().await.status, 401);
    let client = Client::connect_with_token(&url, TOKEN).await.unwrap();
    assert_eq!(
        client
            .call_text("a__x", json!({"text": "in"}))
            .await
            .unwrap(),
        "in"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_repeated_env_key_is_refused_on_reload_and_the_server_keeps_its_value() {
    let mut hub = Engine::serve(json!({"mcpServers": {"a": stdio_fixture(&["--tools", "x"])}}))
        .await
        .unwrap();
    let client = hub.client().await;
    let mut server = stdio_fixture(&["--tools", "x,y"]);
    server["env"] = json!({"MODE": "first"});
    let server = serde_json::to_string(&server).unwrap();
    let repeated = server.replacen(
        "\"MODE\":\"first\"",
        "\"MODE\":\"first\",\"MODE\":\"second\"",
        1,
    );
    assert_ne!(repeated, server);
    std::fs::write(
        &hub.config_path,
        format!("{{\"mcpServers\": {{\"a\": {repeated}}}}}"),
    )
    .unwrap();
    let error = hub
        .wait_snapshot("the repeated env key refused", |s| s.config_error.is_some())
        .await
        .config_error
        .unwrap();
    assert_eq!(
        error.message(),
        "the key \"MODE\" appears twice in `mcpServers.a.env`",
        "{error:?}"
    );
    assert_eq!(
        client.tool_names().await,
        vec!["a__x"],
        "the old config keeps running"
    );
    hub.shutdown().await;
}
