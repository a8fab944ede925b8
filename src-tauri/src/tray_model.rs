//! What the tray shows, as plain values computed from a [`HubSnapshot`]: the
//! menu model and the icon variant. No Tauri types here, so this is unit-tested
//! without a tray host (tests/ui/tray.test.mjs clicks the real menu in one);
//! `tray.rs` turns the model into a real menu and rebuilds it only when the
//! model changed, so a snapshot that changes nothing the menu shows causes no
//! flicker.

use switchboard_api::{Health, HubSnapshot, ServerSnapshot, ServerState};

/// Menu item ids (a server's is `server:<id>`).
pub const ID_ENDPOINT: &str = "endpoint";
pub const ID_REFRESH_ALL: &str = "refresh-all";
pub const ID_OPEN: &str = "open-dashboard";
/// The "N tools held for approval" line; opens the dashboard too.
pub const ID_HELD: &str = "held-tools";
/// The "N servers unsandboxed" line; opens the dashboard too.
pub const ID_UNSANDBOXED: &str = "unsandboxed";
/// The "N calls waiting for approval" line; opens the dashboard too.
pub const ID_PENDING: &str = "pending-calls";
pub const ID_AUTOSTART: &str = "autostart";
pub const ID_QUIT: &str = "quit";
pub const SERVER_PREFIX: &str = "server:";

/// Which tray icon to show: the overall health of the enabled servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconVariant {
    /// Every enabled server is healthy (or not checked yet).
    Healthy,
    /// Some enabled server is degraded or down, but not all of them are down.
    Degraded,
    /// Every enabled server is down, or the hub itself is not running.
    Down,
    /// No server is enabled (or none is configured).
    AllDisabled,
}

/// One server's menu entry: a check item that enables or disables it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerItem {
    /// The menu item id: `server:<server id>`.
    pub item_id: String,
    /// "github — Running, 41 tools".
    pub label: String,
    pub checked: bool,
}

/// The whole menu, top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuModel {
    /// "Copy http://127.0.0.1:8420/mcp", or why the hub is not running.
    pub endpoint_label: String,
    /// Whether clicking the endpoint line copies it.
    pub endpoint_enabled: bool,
    /// A line in words when the config file is invalid.
    pub config_problem: Option<String>,
    /// "2 tools held for approval — open dashboard" while any tool is held
    /// because its definition changed (see `heldTools` in the snapshot).
    pub held_tools: Option<String>,
    /// "1 server runs unsandboxed — open dashboard" while an enabled stdio
    /// server runs without its sandbox, or without all of it.
    pub unsandboxed: Option<String>,
    /// "2 calls waiting for approval — open dashboard" while calls wait
    /// (`settings.confirmCalls`, `GET /api/v1/pending`).
    pub pending_calls: Option<String>,
    pub servers: Vec<ServerItem>,
    /// "No servers configured" when `servers` is empty.
    pub empty_label: Option<String>,
    pub autostart: bool,
}

/// The state in the words the dashboard uses.
pub fn state_words(state: ServerState) -> &'static str {
    match state {
        ServerState::Disabled => "Disabled",
        ServerState::Idle => "Idle",
        ServerState::Starting => "Starting",
        ServerState::Ready => "Running",
        ServerState::Sleeping => "Sleeping",
        ServerState::Failed => "Failed",
        ServerState::AuthRequired => "Login needed",
    }
}

fn server_label(s: &ServerSnapshot) -> String {
    let state = state_words(s.state);
    if s.enabled && s.listed_at.is_some() {
        let tools = if s.tool_count == 1 { "tool" } else { "tools" };
        format!("{} — {state}, {} {tools}", s.id, s.tool_count)
    } else {
        format!("{} — {state}", s.id)
    }
}

/// The menu for `snapshot` with `waiting` calls waiting for approval;
/// `autostart` is whether start-at-login is on.
pub fn menu_model(snapshot: &HubSnapshot, waiting: usize, autostart: bool) -> MenuModel {
    let servers: Vec<ServerItem> = snapshot
        .servers
        .iter()
        .map(|s| ServerItem {
            item_id: format!("{SERVER_PREFIX}{}", s.id),
            label: server_label(s),
            checked: s.enabled,
        })
        .collect();
    MenuModel {
        endpoint_label: format!("Copy {}", snapshot.endpoint),
        endpoint_enabled: true,
        config_problem: snapshot
            .config_error
            .as_ref()
            .map(|_| "Config file has an error (see dashboard)".to_string()),
        held_tools: held_label(snapshot),
        unsandboxed: unsandboxed_label(snapshot),
        pending_calls: pending_label(waiting),
        empty_label: servers
            .is_empty()
            .then(|| "No servers configured".to_string()),
        servers,
        autostart,
    }
}

/// "N tools held for approval — open dashboard", counting every server's
/// `heldTools`; `None` when no tool is held.
fn held_label(snapshot: &HubSnapshot) -> Option<String> {
    let held: usize = snapshot.servers.iter().map(|s| s.held_tools.len()).sum();
    match held {
        0 => None,
        1 => Some("1 tool held for approval — open dashboard".to_string()),
        n => Some(format!("{n} tools held for approval — open dashboard")),
    }
}

/// "N calls waiting for approval — open dashboard"; `None` when none waits.
fn pending_label(waiting: usize) -> Option<String> {
    match waiting {
        0 => None,
        1 => Some("1 call waiting for approval — open dashboard".to_string()),
        n => Some(format!("{n} calls waiting for approval — open dashboard")),
    }
}

/// "N servers run unsandboxed — open dashboard": enabled stdio servers
/// whose sandbox is off or not fully enforced; `None` when there is none.
fn unsandboxed_label(snapshot: &HubSnapshot) -> Option<String> {
    let count = snapshot
        .servers
        .iter()
        .filter(|s| s.enabled && s.sandbox.mechanism != "not applicable")
        .filter(|s| s.sandbox.profile == "off" || !s.sandbox.enforced)
        .count();
    match count {
        0 => None,
        1 => Some("1 server runs unsandboxed — open dashboard".to_string()),
        n => Some(format!("{n} servers run unsandboxed — open dashboard")),
    }
}

/// The menu while the hub could not start: the reason, and the way out.
pub fn failed_menu_model(error: &str, autostart: bool) -> MenuModel {
    MenuModel {
        endpoint_label: format!("Hub not running: {error}"),
        endpoint_enabled: false,
        config_problem: None,
        held_tools: None,
        unsandboxed: None,
        pending_calls: None,
        servers: Vec::new(),
        empty_label: None,
        autostart,
    }
}

/// The server id of a `server:<id>` menu item.
pub fn server_of_item(item_id: &str) -> Option<&str> {
    item_id.strip_prefix(SERVER_PREFIX)
}

/// The tray icon for `snapshot`: the worst health among enabled servers,
/// "down" only when nothing works.
pub fn icon_variant(snapshot: &HubSnapshot) -> IconVariant {
    let enabled: Vec<Health> = snapshot
        .servers
        .iter()
        .filter(|s| s.enabled && s.state != ServerState::Disabled)
        .map(|s| s.health)
        .collect();
    if enabled.is_empty() {
        return IconVariant::AllDisabled;
    }
    let down = enabled.iter().filter(|h| **h == Health::Down).count();
    if down == enabled.len() {
        IconVariant::Down
    } else if down > 0 || enabled.contains(&Health::Degraded) {
        IconVariant::Degraded
    } else {
        IconVariant::Healthy
    }
}

/// The tray tooltip: "Switchboard — 3 servers: 2 healthy, 1 down".
pub fn tooltip(snapshot: &HubSnapshot) -> String {
    let count = |h: Health| {
        snapshot
            .servers
            .iter()
            .filter(|s| s.enabled && s.health == h)
            .count()
    };
    let disabled = snapshot.servers.iter().filter(|s| !s.enabled).count();
    let mut parts = Vec::new();
    for (h, word) in [
        (Health::Healthy, "healthy"),
        (Health::Degraded, "degraded"),
        (Health::Down, "down"),
        (Health::Unknown, "not checked yet"),
    ] {
        let n = count(h);
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if disabled > 0 {
        parts.push(format!("{disabled} off"));
    }
    let n = snapshot.servers.len();
    let servers = if n == 1 { "server" } else { "servers" };
    if parts.is_empty() {
        format!("Switchboard — {n} {servers}")
    } else {
        format!("Switchboard — {n} {servers}: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use switchboard_api::ConfigError;

    fn server(id: &str, state: ServerState, health: Health) -> ServerSnapshot {
        let listed = matches!(state, ServerState::Ready | ServerState::Sleeping);
        ServerSnapshot {
            id: id.into(),
            transport: "stdio".into(),
            enabled: state != ServerState::Disabled,
            state,
            tool_count: if listed { 3 } else { 0 },
            listed_at: listed.then(|| "2026-03-01T12:00:00.000Z".into()),
            health,
            sandbox: switchboard_api::SandboxStatus {
                profile: "standard".into(),
                enforced: true,
                mechanism: "mount namespace + Landlock ABI 7".into(),
                ..Default::default()
            },
            ..ServerSnapshot::default()
        }
    }

    fn snapshot(servers: Vec<ServerSnapshot>) -> HubSnapshot {
        HubSnapshot {
            endpoint: "http://127.0.0.1:8420/mcp".into(),
            servers,
            ..HubSnapshot::default()
        }
    }

    #[test]
    fn menu_lists_endpoint_and_servers_with_checks_and_states() {
        let snap = snapshot(vec![
            server("github", ServerState::Ready, Health::Healthy),
            server("notes", ServerState::Idle, Health::Unknown),
            server("slack", ServerState::Disabled, Health::Unknown),
            server("broken", ServerState::Failed, Health::Down),
        ]);
        assert_eq!(
            menu_model(&snap, 0, true),
            MenuModel {
                endpoint_label: "Copy http://127.0.0.1:8420/mcp".into(),
                endpoint_enabled: true,
                config_problem: None,
                held_tools: None,
                unsandboxed: None,
                pending_calls: None,
                servers: vec![
                    ServerItem {
                        item_id: "server:github".into(),
                        label: "github — Running, 3 tools".into(),
                        checked: true,
                    },
                    ServerItem {
                        item_id: "server:notes".into(),
                        label: "notes — Idle".into(),
                        checked: true,
                    },
                    ServerItem {
                        item_id: "server:slack".into(),
                        label: "slack — Disabled".into(),
                        checked: false,
                    },
                    ServerItem {
                        item_id: "server:broken".into(),
                        label: "broken — Failed".into(),
                        checked: true,
                    },
                ],
                empty_label: None,
                autostart: true,
            }
        );
    }

    #[test]
    fn the_model_ignores_what_the_menu_does_not_show() {
        let mut a = snapshot(vec![server("github", ServerState::Ready, Health::Healthy)]);
        let before = menu_model(&a, 0, false);
        // Timestamps, stderr, latency and sessions move all the time: no rebuild.
        a.generated_at = Some("2026-03-01T12:00:05.000Z".into());
        a.servers[0]
            .stderr_tail
            .get_or_insert_with(Vec::new)
            .push("log line".into());
        a.servers[0].latency_ms = Some(12.5);
        a.servers[0].listed_at = Some("2026-03-01T12:05:00.000Z".into());
        assert_eq!(menu_model(&a, 0, false), before);
        // A state change, a toggle or a new tool count does.
        let mut b = a.clone();
        b.servers[0].state = ServerState::Sleeping;
        assert_ne!(menu_model(&b, 0, false), before);
        let mut c = a.clone();
        c.servers[0].tool_count = 4;
        assert_ne!(menu_model(&c, 0, false), before);
        assert_ne!(menu_model(&a, 0, true), before);
    }

    #[test]
    fn empty_config_and_config_errors_are_said_in_words() {
        let mut snap = snapshot(vec![]);
        snap.config_error = Some(ConfigError::Invalid {
            path: "/c.json".into(),
            line: 3,
            column: 7,
            message: "expected `,`".into(),
        });
        let model = menu_model(&snap, 0, false);
        assert_eq!(model.empty_label.as_deref(), Some("No servers configured"));
        assert_eq!(
            model.config_problem.as_deref(),
            Some("Config file has an error (see dashboard)")
        );
        let failed = failed_menu_model("cannot listen on 127.0.0.1:8420: address in use", false);
        assert!(!failed.endpoint_enabled);
        assert_eq!(
            failed.endpoint_label,
            "Hub not running: cannot listen on 127.0.0.1:8420: address in use"
        );
    }

    #[test]
    fn icon_follows_overall_health() {
        use IconVariant::*;
        let ok = || server("a", ServerState::Ready, Health::Healthy);
        let idle = || server("b", ServerState::Idle, Health::Unknown);
        let slow = || server("c", ServerState::Ready, Health::Degraded);
        let dead = || server("d", ServerState::Failed, Health::Down);
        let off = || server("e", ServerState::Disabled, Health::Unknown);
        let cases = [
            (vec![], AllDisabled),
            (vec![off()], AllDisabled),
            (vec![ok(), idle(), off()], Healthy),
            (vec![ok(), slow()], Degraded),
            (vec![ok(), dead()], Degraded),
            (vec![idle(), dead()], Degraded),
            (vec![dead(), off()], Down),
            (vec![dead(), dead()], Down),
        ];
        for (servers, want) in cases {
            let ids: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
            assert_eq!(icon_variant(&snapshot(servers)), want, "{ids:?}");
        }
    }

    #[test]
    fn tooltip_counts_health() {
        let snap = snapshot(vec![
            server("a", ServerState::Ready, Health::Healthy),
            server("b", ServerState::Ready, Health::Healthy),
            server("d", ServerState::Failed, Health::Down),
            server("e", ServerState::Disabled, Health::Unknown),
        ]);
        assert_eq!(
            tooltip(&snap),
            "Switchboard — 4 servers: 2 healthy, 1 down, 1 off"
        );
        assert_eq!(tooltip(&snapshot(vec![])), "Switchboard — 0 servers");
    }

    #[test]
    fn server_items_map_back_to_ids() {
        assert_eq!(server_of_item("server:git-hub_2"), Some("git-hub_2"));
        assert_eq!(server_of_item(ID_QUIT), None);
    }

    #[test]
    fn held_tools_are_counted_over_every_server() {
        let held = |name: &str| switchboard_api::HeldTool {
            name: name.into(),
            change: "description".into(),
            since: "2026-03-01T12:00:00.000Z".into(),
            hash: String::new(),
            findings: Vec::new(),
        };
        let mut github = server("github", ServerState::Ready, Health::Healthy);
        let mut notes = server("notes", ServerState::Ready, Health::Healthy);
        let snap = snapshot(vec![github.clone(), notes.clone()]);
        assert_eq!(menu_model(&snap, 0, false).held_tools, None);
        github.held_tools = vec![held("search")];
        let snap = snapshot(vec![github.clone(), notes.clone()]);
        assert_eq!(
            menu_model(&snap, 0, false).held_tools.as_deref(),
            Some("1 tool held for approval — open dashboard")
        );
        notes.held_tools = vec![held("read"), held("write")];
        // Changed tools of `warn` are listed, not held: not counted.
        notes.changed_tools = vec![held("list")];
        let snap = snapshot(vec![github, notes]);
        assert_eq!(
            menu_model(&snap, 0, false).held_tools.as_deref(),
            Some("3 tools held for approval — open dashboard")
        );
        assert_eq!(failed_menu_model("x", false).held_tools, None);
    }

    #[test]
    fn unsandboxed_stdio_servers_are_counted() {
        let mut off = server("off", ServerState::Ready, Health::Healthy);
        off.sandbox.profile = "off".into();
        off.sandbox.enforced = false;
        let mut partial = server("partial", ServerState::Idle, Health::Unknown);
        partial.sandbox.enforced = false;
        let mut remote = server("remote", ServerState::Ready, Health::Healthy);
        remote.transport = "http".into();
        remote.sandbox = switchboard_api::SandboxStatus {
            profile: "off".into(),
            mechanism: "not applicable".into(),
            ..Default::default()
        };
        let mut disabled = server("disabled", ServerState::Disabled, Health::Unknown);
        disabled.sandbox.profile = "off".into();
        let contained = server("contained", ServerState::Ready, Health::Healthy);
        let snap = snapshot(vec![contained.clone(), remote.clone(), disabled.clone()]);
        assert_eq!(menu_model(&snap, 0, false).unsandboxed, None);
        let snap = snapshot(vec![contained, off, partial, remote, disabled]);
        assert_eq!(
            menu_model(&snap, 0, false).unsandboxed.as_deref(),
            Some("2 servers run unsandboxed — open dashboard")
        );
    }

    #[test]
    fn calls_waiting_for_approval_are_counted() {
        let snap = snapshot(vec![server("files", ServerState::Ready, Health::Healthy)]);
        assert_eq!(menu_model(&snap, 0, false).pending_calls, None);
        assert_eq!(
            menu_model(&snap, 1, false).pending_calls.as_deref(),
            Some("1 call waiting for approval — open dashboard")
        );
        assert_eq!(
            menu_model(&snap, 3, false).pending_calls.as_deref(),
            Some("3 calls waiting for approval — open dashboard")
        );
        // A new count is a new model: the menu is rebuilt.
        assert_ne!(menu_model(&snap, 1, false), menu_model(&snap, 2, false));
        assert_eq!(failed_menu_model("x", false).pending_calls, None);
    }
}
