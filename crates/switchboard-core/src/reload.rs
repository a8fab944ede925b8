//! Config reload, the deciding half: [`plan`] compares what runs with what
//! the config now asks for and says what to do, without doing it (no I/O, no
//! hub). `hub/apply.rs` carries a plan out.
//!
//! Servers are compared by [`Fingerprint`]:
//! - same fingerprint, same config → [`Action::Keep`]: the running upstream
//!   is kept as is (same process, same session, in-flight calls untouched);
//! - same fingerprint, other config (only `disabledTools` or timeouts) →
//!   [`Action::Update`]: the config is swapped in place, nothing restarts;
//! - other fingerprint → [`Action::Restart`]: a new upstream replaces the
//!   old one, which drains and is then closed;
//! - new in the config → [`Action::Start`] (started lazily, on first need);
//! - gone from the config → in [`ReloadPlan::stop`].
//!
//! Settings are fixed for the hub's lifetime: those the file now sets
//! differently are listed in [`ReloadPlan::restart_settings`] and reported as
//! needing a restart ([`settings_needing_restart`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{Config, ConfigError, ServerConfig, ServerId, Settings};
use crate::fingerprint::Fingerprint;

/// What a reload did (a wire type).
pub use switchboard_api::ReloadResult;

/// Why a reload could not run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReloadError {
    #[error("the hub was started without a config file")]
    NoConfigFile,
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("no server with id '{0}'")]
    UnknownServer(String),
    #[error("cannot write {path}: {message}")]
    Write { path: PathBuf, message: String },
    /// An edit of the file (a server added, replaced or removed) was refused.
    #[error(transparent)]
    Edit(crate::config::EditError),
}

/// One running server as the plan sees it.
#[derive(Debug, Clone)]
pub struct RunningServer {
    pub id: ServerId,
    /// The fingerprint it was started with.
    pub fingerprint: Fingerprint,
    pub config: Arc<ServerConfig>,
}

/// What runs now: the servers (in registry order) and the settings in force.
#[derive(Debug, Clone, Copy)]
pub struct Running<'a> {
    pub servers: &'a [RunningServer],
    pub settings: &'a Settings,
    /// The listen address the config file asked for at start (`--listen` may
    /// override the one in force), to tell whether the file changed it.
    pub initial_listen: SocketAddr,
}

/// What happens to one server of the desired config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// New in the config: a new upstream (started lazily).
    Start,
    /// Same fingerprint, same config: untouched.
    Keep,
    /// Same fingerprint, other config: the config is swapped in place.
    Update,
    /// Other fingerprint: a new upstream replaces the running one.
    Restart,
}

/// One server of the desired config and what to do with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub server: ServerConfig,
    pub action: Action,
}

/// What a reload does, decided before anything is done.
#[derive(Debug, Clone, PartialEq)]
pub struct ReloadPlan {
    /// Every desired server, in config order, with its action.
    pub servers: Vec<Step>,
    /// Running servers gone from the config, in registry order.
    pub stop: Vec<ServerId>,
    /// Settings (file keys) the config changed that need a restart.
    pub restart_settings: Vec<&'static str>,
}

impl ReloadPlan {
    /// The ids of the servers given `action`, in config order.
    pub fn ids(&self, action: Action) -> Vec<String> {
        self.servers
            .iter()
            .filter(|step| step.action == action)
            .map(|step| step.server.id.to_string())
            .collect()
    }

    /// The result reported for this plan, stamped `at`.
    pub fn result(&self, at: String) -> ReloadResult {
        ReloadResult {
            at,
            added: self.ids(Action::Start),
            changed: self.ids(Action::Restart),
            updated: self.ids(Action::Update),
            removed: self.stop.iter().map(ToString::to_string).collect(),
            unchanged: self.ids(Action::Keep),
            errors: self
                .restart_settings
                .iter()
                .map(|name| format!("settings.{name} changed; restart Switchboard to apply it"))
                .collect(),
        }
    }
}

/// Decides what a reload to `desired` does (see the module docs).
pub fn plan(running: Running<'_>, desired: &Config) -> ReloadPlan {
    let servers = desired
        .servers
        .iter()
        .map(|server| {
            let action = match running.servers.iter().find(|r| r.id == server.id) {
                None => Action::Start,
                Some(current) if current.fingerprint != Fingerprint::of(server) => Action::Restart,
                Some(current) if *current.config == *server => Action::Keep,
                Some(_) => Action::Update,
            };
            Step {
                server: server.clone(),
                action,
            }
        })
        .collect();
    let stop = running
        .servers
        .iter()
        .filter(|r| !desired.servers.iter().any(|s| s.id == r.id))
        .map(|r| r.id.clone())
        .collect();
    ReloadPlan {
        servers,
        stop,
        restart_settings: settings_needing_restart(
            running.settings,
            running.initial_listen,
            &desired.settings,
        ),
    }
}

/// The settings (file keys) `desired` sets differently from those `in_force`
/// (listen: from what the file said at start, `initial_listen`, since
/// `--listen` may override it). All of them need a restart today.
pub fn settings_needing_restart(
    in_force: &Settings,
    initial_listen: SocketAddr,
    desired: &Settings,
) -> Vec<&'static str> {
    // `listen` is compared with what the file said at start, since `--listen`
    // may have overridden it; the settings table says which others need a restart.
    let mut in_force = in_force.clone();
    in_force.listen = initial_listen;
    in_force.changed_needing_restart(desired)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::*;

    fn config(json: &str) -> Config {
        crate::config::load(crate::config::Source::text(json, Path::new("t.json"))).unwrap()
    }

    fn id(id: &str) -> ServerId {
        ServerId::new(id).unwrap()
    }

    fn running(config: &Config) -> Vec<RunningServer> {
        config
            .servers
            .iter()
            .map(|s| RunningServer {
                id: s.id.clone(),
                fingerprint: Fingerprint::of(s),
                config: Arc::new(s.clone()),
            })
            .collect()
    }

    /// The plan from `before` (running, its settings in force) to `after`.
    fn plan_between(before: &str, after: &str) -> ReloadPlan {
        let before = config(before);
        let servers = running(&before);
        let now = Running {
            servers: &servers,
            settings: &before.settings,
            initial_listen: before.settings.listen,
        };
        plan(now, &config(after))
    }

    fn actions(plan: &ReloadPlan) -> Vec<(String, Action)> {
        plan.servers
            .iter()
            .map(|s| (s.server.id.to_string(), s.action))
            .collect()
    }

    #[test]
    fn sorts_servers_by_what_changed() {
        let plan = plan_between(
            r#"{"mcpServers":{
                "same":{"command":"a"},
                "tools":{"command":"b"},
                "cmd":{"command":"c"},
                "gone":{"command":"d"}}}"#,
            r#"{"mcpServers":{
                "same":{"command":"a"},
                "tools":{"command":"b","disabledTools":["x"]},
                "cmd":{"command":"c2"},
                "new":{"command":"e"}}}"#,
        );
        assert_eq!(
            actions(&plan),
            vec![
                ("same".into(), Action::Keep),
                ("tools".into(), Action::Update),
                ("cmd".into(), Action::Restart),
                ("new".into(), Action::Start),
            ]
        );
        assert_eq!(plan.stop, vec![id("gone")]);
        assert!(plan.restart_settings.is_empty());
        let result = plan.result("t".into());
        assert_eq!(
            result,
            ReloadResult {
                at: "t".into(),
                added: vec!["new".into()],
                changed: vec!["cmd".into()],
                updated: vec!["tools".into()],
                removed: vec!["gone".into()],
                unchanged: vec!["same".into()],
                errors: vec![],
            }
        );
    }

    #[test]
    fn an_unchanged_config_keeps_everything() {
        let file = r#"{"mcpServers":{"a":{"command":"a","args":["1"]},"b":{"url":"http://127.0.0.1:1/mcp"}}}"#;
        let plan = plan_between(file, file);
        assert_eq!(
            actions(&plan),
            vec![("a".into(), Action::Keep), ("b".into(), Action::Keep)]
        );
        assert!(plan.stop.is_empty());
    }

    #[test]
    fn toggling_enabled_restarts_the_server() {
        let on = r#"{"mcpServers":{"a":{"command":"a"}}}"#;
        let off = r#"{"mcpServers":{"a":{"command":"a","enabled":false}}}"#;
        assert_eq!(
            actions(&plan_between(on, off)),
            vec![("a".into(), Action::Restart)]
        );
        assert_eq!(
            actions(&plan_between(off, on)),
            vec![("a".into(), Action::Restart)]
        );
    }

    #[test]
    fn a_renamed_server_is_one_stop_and_one_start() {
        let plan = plan_between(
            r#"{"mcpServers":{"old":{"command":"a"}}}"#,
            r#"{"mcpServers":{"new":{"command":"a"}}}"#,
        );
        assert_eq!(actions(&plan), vec![("new".into(), Action::Start)]);
        assert_eq!(plan.stop, vec![id("old")]);
    }

    #[test]
    fn a_new_namespace_restarts_and_a_timeout_updates() {
        let plan = plan_between(
            r#"{"mcpServers":{"a":{"command":"a"},"b":{"command":"b"}}}"#,
            r#"{"mcpServers":{"a":{"command":"a","namespace":"x"},"b":{"command":"b","timeouts":{"callSecs":5}}}}"#,
        );
        assert_eq!(
            actions(&plan),
            vec![("a".into(), Action::Restart), ("b".into(), Action::Update)]
        );
    }

    #[test]
    fn an_empty_config_stops_everything() {
        let plan = plan_between(
            r#"{"mcpServers":{"a":{"command":"a"},"b":{"command":"b"}}}"#,
            r#"{"mcpServers":{}}"#,
        );
        assert!(plan.servers.is_empty());
        assert_eq!(plan.stop, vec![id("a"), id("b")]);
    }

    #[test]
    fn changed_settings_need_a_restart() {
        let plan = plan_between(
            r#"{"mcpServers":{},"settings":{"cacheTtlSecs":60}}"#,
            r#"{"mcpServers":{},"settings":{"cacheTtlSecs":61,"maxSessions":7}}"#,
        );
        assert_eq!(plan.restart_settings, vec!["cacheTtlSecs", "maxSessions"]);
        assert_eq!(
            plan.result("t".into()).errors,
            vec![
                "settings.cacheTtlSecs changed; restart Switchboard to apply it".to_string(),
                "settings.maxSessions changed; restart Switchboard to apply it".to_string(),
            ]
        );
    }

    #[test]
    fn listen_is_compared_with_what_the_file_said_at_start() {
        let before = config(r#"{"mcpServers":{},"settings":{"listen":"127.0.0.1:4000"}}"#);
        let mut in_force = before.settings.clone();
        // `--listen` overrode the file's address.
        in_force.listen = "127.0.0.1:5000".parse().unwrap();
        let now = Running {
            servers: &[],
            settings: &in_force,
            initial_listen: before.settings.listen,
        };
        assert!(plan(now, &before).restart_settings.is_empty());
        let moved = config(r#"{"mcpServers":{},"settings":{"listen":"127.0.0.1:4001"}}"#);
        assert_eq!(plan(now, &moved).restart_settings, vec!["listen"]);
    }
}
