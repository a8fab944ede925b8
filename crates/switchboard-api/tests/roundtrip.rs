//! Every answer in `tests/captured/` was captured from a real hub (fixture
//! servers, `curl` on the control API; see `tests/captured/capture.sh`). Each
//! must read as its type and write back as the very same JSON, key order
//! included: a renamed, missing or extra field fails here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use switchboard_api::*;

fn captured(name: &str) -> String {
    let path = format!("{}/tests/captured/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"))
}

/// Reads `name` as `T`, writes it back, and compares with the capture.
fn round_trip<T: Serialize + DeserializeOwned>(name: &str) -> T {
    let text = captured(name);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let typed: T = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{name} does not read as its type: {err}"));
    pretty_assertions::assert_eq!(
        serde_json::to_string_pretty(&typed).unwrap(),
        serde_json::to_string_pretty(&value).unwrap(),
        "{name} does not write back the same"
    );
    typed
}

#[test]
fn status_snapshot() {
    let snapshot: HubSnapshot = round_trip("status.json");
    let notes = snapshot.servers.iter().find(|s| s.id == "notes").unwrap();
    assert_eq!(notes.state, ServerState::Ready);
    assert_eq!(notes.health, Health::Healthy);
    assert_eq!(notes.refresh_trigger, Some(RefreshTrigger::Manual));
    assert_eq!(notes.server_name.as_deref(), Some("notes-server"));
    let broken = snapshot.servers.iter().find(|s| s.id == "broken").unwrap();
    assert_eq!(broken.state, ServerState::Failed);
    assert!(broken.last_error.is_some());
    let remote = snapshot.servers.iter().find(|s| s.id == "remote").unwrap();
    assert!(
        remote.auth.is_some(),
        "a remote server carries its auth state"
    );
    let off = snapshot.servers.iter().find(|s| s.id == "off").unwrap();
    assert_eq!(off.state, ServerState::Disabled);
    assert!(snapshot.last_reload.is_some());
    assert_eq!(snapshot.sessions.len(), 1);
}

#[test]
fn status_with_a_config_error() {
    let snapshot: HubSnapshot = round_trip("status-config-error.json");
    let Some(ConfigError::Invalid { line, column, .. }) = snapshot.config_error else {
        panic!(
            "expected an invalid-file error: {:?}",
            snapshot.config_error
        )
    };
    assert_eq!((line, column), (3, 15));
}

#[test]
fn refresh_answers() {
    let one: RefreshResult = round_trip("refresh-one.json");
    assert!(one.ok && one.error.is_none() && one.kind.is_none());
    let failed: RefreshResult = round_trip("refresh-one-failed.json");
    assert!(!failed.ok);
    assert_eq!(failed.kind.as_deref(), Some("spawnFailed"));
    let all: RefreshAllResponse = round_trip("refresh-all.json");
    assert_eq!(all.servers.len(), 4, "every enabled server");
}

#[test]
fn reload_answers() {
    let applied: ReloadResponse = round_trip("reload.json");
    let reload = applied.into_result().unwrap();
    assert_eq!(reload.changed, ["spare"]);
    let refused: ReloadResponse = round_trip("reload-refused.json");
    let ReloadResponse::Refused {
        ok: false,
        config_error: Some(ConfigError::Invalid { .. }),
        ..
    } = refused
    else {
        panic!("expected a refused reload: {refused:?}")
    };
}

#[test]
fn logs_login_dashboard_and_refusals() {
    let logs: LogsResponse = round_trip("logs.json");
    assert!(logs.events.iter().any(|e| e.level == "error"));
    let login: AuthFailure = round_trip("login-failed.json");
    assert!(!login.ok);
    let link: DashboardLink = round_trip("dashboard.json");
    assert!(link.url.unwrap().contains("/login?code="));
    let _: ErrorResponse = round_trip("not-found.json");
}

/// The enums are spelled as `docs/status.md` says.
#[test]
fn enum_spellings() {
    let json = |v: &dyn erased::Json| v.json();
    assert_eq!(json(&ServerState::AuthRequired), "\"authRequired\"");
    assert_eq!(json(&BreakerState::HalfOpen), "\"halfOpen\"");
    assert_eq!(json(&RefreshTrigger::FirstUse), "\"firstUse\"");
    assert_eq!(json(&KeyringKind::SecretService), "\"secret-service\"");
    assert_eq!(json(&Health::Degraded), "\"degraded\"");
    for state in [ServerState::Disabled, ServerState::AuthRequired] {
        assert_eq!(json(&state), format!("\"{state}\""));
    }
    for trigger in [RefreshTrigger::Startup, RefreshTrigger::FirstUse] {
        assert_eq!(json(&trigger), format!("\"{trigger}\""));
    }
}

mod erased {
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}
