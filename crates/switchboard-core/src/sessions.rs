//! The downstream MCP sessions connected to the hub, so that a change in the
//! merged catalog can be announced to the clients that need to hear it.
//!
//! Each session remembers which version of each merged list it was last
//! served. A change is announced to a session only if it has listed that kind
//! before and what it saw differs from the new version; so the client whose
//! own first list started the servers is not told to list again, while a
//! client served a list before late servers arrived is. A session notified
//! but not yet re-listed is `behind` (the UI can warn that such a client shows
//! stale tools). Sessions register from the gateway's `initialize`; a session
//! closed by the HTTP session table (DELETE, expiry, eviction; see
//! `http::session_manager`) is marked closed at once and leaves every view of the set,
//! and closed ones are dropped whenever the set is walked. Notifications are
//! sent from spawned tasks so a slow client never holds up the hub.
//! 2026-07-28 clients have no session: their `subscriptions/listen` streams
//! get the same news through `listen::Listeners`.

// Logging is deprecated for protocol 2026-07-28 (SEP-2577); sessions on
// 2025-11-25 and earlier use it.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::SystemTime;

use rmcp::service::{Peer, RoleServer};

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ResourceUpdatedNotificationParam,
};

use crate::catalog::{CatalogDiff, CatalogVersions};
use crate::config::ServerId;
use crate::snapshot::timestamp;

mod choice;
mod evictions;
pub(crate) mod listen;
pub(crate) mod table;
pub(crate) mod tasks;

pub use table::{HttpSessionError, HttpSessionKey, SessionTable, Usage, UseGuard};

/// Which servers a session sees: every enabled one (the merged endpoint,
/// `/mcp`), exactly one (its pass-through route, `/servers/<id>/mcp`), or a
/// profile's (`/profiles/<name>/mcp`: merged, over the profile's servers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Merged,
    Server(ServerId),
    Profile(Arc<str>),
}

impl Scope {
    /// Whether `server`'s news concerns sessions of this scope. A profile's
    /// servers are known to [`Sessions`] ([`Sessions::covers`]), not here:
    /// for a profile this says no.
    pub fn covers(&self, server: &ServerId) -> bool {
        match self {
            Self::Merged => true,
            Self::Server(id) => id == server,
            Self::Profile(_) => false,
        }
    }

    /// Whether sessions of this scope see merged lists (`<server>__<name>`
    /// names from a catalog): `/mcp` and the profiles.
    pub fn is_merged(&self) -> bool {
        matches!(self, Self::Merged | Self::Profile(_))
    }
}

pub use crate::events::ListKind;

/// One downstream session.
pub struct Session {
    /// The route it came in on (fixed: the fast path and the session
    /// managers go by it).
    scope: Scope,
    /// The profile its roots chose, and whether its roots are awaited.
    roots: choice::RootsChoice,
    peer: OnceLock<Peer<RoleServer>>,
    /// The `Mcp-Session-Id` the HTTP transport gave this session.
    http_id: OnceLock<Arc<str>>,
    /// The client's `clientInfo.name`, for the activity log.
    client_name: OnceLock<Arc<str>>,
    /// `tools/call` requests the HTTP fast path is running for this session,
    /// by the JSON text of their id, so `notifications/cancelled` reaches them.
    fast_calls: Mutex<HashMap<String, tokio_util::sync::CancellationToken>>,
    state: Mutex<SessionState>,
    /// Its use as the HTTP session table counts it (set at `initialize`).
    usage: OnceLock<Arc<Usage>>,
    /// Set when the HTTP session table closed it.
    closed: AtomicBool,
}

#[derive(Default, Clone)]
struct SessionState {
    /// The level set with `logging/setLevel`; messages below it are not sent.
    log_level: Option<LoggingLevel>,
    /// Subscribed resource URIs and the server each belongs to.
    subscriptions: HashMap<String, ServerId>,
    client: Option<String>,
    /// The version of each list this session was last served.
    seen: [Option<u64>; 3],
    /// Lists it was told changed and has not listed since.
    behind: [bool; 3],
    last_listed_at: Option<SystemTime>,
    notified_at: Option<SystemTime>,
}

/// RFC 5424 severity, low to high.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Whether a session that asked for protocol `requested` in `initialize`
/// may get priming events: the hub answers a known version with itself and
/// anything else with 2025-11-25, so only the three known versions before
/// 2025-11-25 rule them out.
fn priming_allowed(requested: &str) -> bool {
    !matches!(requested, "2024-11-05" | "2025-03-26" | "2025-06-18")
}

fn index(kind: ListKind) -> usize {
    match kind {
        ListKind::Tools => 0,
        ListKind::Prompts => 1,
        ListKind::Resources => 2,
    }
}

impl Session {
    pub fn new(scope: Scope) -> Self {
        Self {
            scope,
            roots: choice::RootsChoice::default(),
            peer: OnceLock::new(),
            http_id: OnceLock::new(),
            client_name: OnceLock::new(),
            fast_calls: Mutex::new(HashMap::new()),
            state: Mutex::new(SessionState::default()),
            usage: OnceLock::new(),
            closed: AtomicBool::new(false),
        }
    }

    pub(crate) fn set_usage(&self, usage: Arc<Usage>) {
        let _ = self.usage.set(usage);
    }

    /// Counts a request of this session as open until the guard drops (the
    /// fast path's way to keep a session it answers from expiring).
    pub(crate) fn begin_use(&self) -> Option<UseGuard> {
        self.usage.get().map(|usage| usage.begin())
    }

    pub(crate) fn mark_closed(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }

    /// The route this session came in on.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The servers this session sees now: its route's, or the profile its
    /// roots chose.
    pub fn served(&self) -> std::borrow::Cow<'_, Scope> {
        self.roots.served(&self.scope)
    }

    /// Serves `profile` (or, with `None`, the route's scope) from now on;
    /// whether that changed what the session sees.
    pub(crate) fn choose(&self, profile: Option<Arc<str>>) -> bool {
        self.roots.choose(profile)
    }

    /// Marks the roots as being asked for (list requests wait) or settled.
    pub(crate) fn set_roots_pending(&self, pending: bool) {
        self.roots.set_pending(pending);
    }

    /// Waits, at most `limit`, while the roots are being asked for.
    pub(crate) async fn roots_settled(&self, limit: std::time::Duration) {
        self.roots.settled(limit).await;
    }

    pub fn set_log_level(&self, level: LoggingLevel) {
        self.lock().log_level = Some(level);
    }

    pub fn subscribe(&self, uri: &str, server: ServerId) {
        self.lock().subscriptions.insert(uri.to_string(), server);
    }

    /// Forgets a subscription, returning the server it was with.
    pub fn unsubscribe(&self, uri: &str) -> Option<ServerId> {
        self.lock().subscriptions.remove(uri)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that the session was served `version` of a list.
    pub fn listed(&self, kind: ListKind, version: u64) {
        let mut state = self.lock();
        state.seen[index(kind)] = Some(version);
        state.behind[index(kind)] = false;
        state.last_listed_at = Some(SystemTime::now());
    }

    /// The `Mcp-Session-Id` of the session, once known.
    pub(crate) fn http_id(&self) -> Option<&Arc<str>> {
        self.http_id.get()
    }

    /// Remembers the client's name (its first `initialize` wins).
    pub(crate) fn set_client_name(&self, name: &str) {
        let _ = self.client_name.set(Arc::from(name));
    }

    /// The client's `clientInfo.name`, once it has initialized.
    pub(crate) fn client_name(&self) -> Option<&Arc<str>> {
        self.client_name.get()
    }

    /// The client's side of the session, once it has initialized.
    pub(crate) fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.get()
    }

    /// Whether the version this session negotiated lets its event streams
    /// start with a priming event (an event with an id and `retry:` but
    /// empty data, SEP-1699): 2025-11-25 and later. Older clients parse
    /// every event's data as JSON and fail on an empty one (Gemini CLI's
    /// SDK: "Unexpected end of JSON input"), so they never get one; nor does
    /// a session whose `initialize` is not known yet.
    pub(crate) fn allows_priming(&self) -> bool {
        self.peer()
            .and_then(|peer| peer.peer_info())
            .is_some_and(|info| priming_allowed(info.protocol_version.as_str()))
    }

    /// Registers a fast-path call; it stays cancellable until the guard drops.
    pub(crate) fn start_fast_call(
        self: &Arc<Self>,
        id: String,
        cancel: tokio_util::sync::CancellationToken,
    ) -> FastCallGuard {
        if let Ok(mut calls) = self.fast_calls.lock() {
            calls.insert(id.clone(), cancel);
        }
        FastCallGuard {
            session: self.clone(),
            id,
        }
    }

    /// Cancels the fast-path call with this id, if one is running.
    pub(crate) fn cancel_fast_call(&self, id: &str) -> bool {
        let token = self.fast_calls.lock().ok().and_then(|c| c.get(id).cloned());
        token.map(|t| t.cancel()).is_some()
    }

    pub(crate) fn is_live(&self) -> bool {
        !self.closed.load(Ordering::Relaxed)
            && self.peer.get().is_some_and(|p| !p.is_transport_closed())
    }
}

/// Forgets a fast-path call when it ends.
pub(crate) struct FastCallGuard {
    session: Arc<Session>,
    id: String,
}

impl Drop for FastCallGuard {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.session.fast_calls.lock() {
            calls.remove(&self.id);
        }
    }
}

/// A session as shown in the snapshot (a wire type).
pub use switchboard_api::SessionSnapshot;

pub struct Sessions {
    sessions: Mutex<Vec<Arc<Session>>>,
    /// Live sessions by their `Mcp-Session-Id`, for the HTTP fast path.
    by_http_id: Mutex<HashMap<Arc<str>, Weak<Session>>>,
    /// Every HTTP session's lifetime and the cap on their number.
    table: Arc<SessionTable>,
    /// Open `subscriptions/listen` streams (2026-07-28 clients).
    listeners: listen::Listeners,
    /// Each profile's servers, set by the hub when profiles change, so news
    /// of a server reaches the profile sessions that see it.
    profile_servers: std::sync::RwLock<HashMap<Arc<str>, Arc<std::collections::HashSet<ServerId>>>>,
    /// Tasks clients started through the hub, by the ids they were given.
    tasks: tasks::TaskTable,
}

impl Sessions {
    pub fn new(table: Arc<SessionTable>) -> Self {
        Self {
            sessions: Mutex::new(Vec::new()),
            by_http_id: Mutex::new(HashMap::new()),
            table,
            listeners: listen::Listeners::default(),
            profile_servers: std::sync::RwLock::default(),
            tasks: tasks::TaskTable::default(),
        }
    }

    /// The tasks clients started through the hub (see `tasks`).
    pub(crate) fn tasks(&self) -> &tasks::TaskTable {
        &self.tasks
    }

    /// Sets every profile's servers (the hub, whenever profiles change).
    pub(crate) fn set_profile_servers(
        &self,
        profiles: HashMap<Arc<str>, Arc<std::collections::HashSet<ServerId>>>,
    ) {
        if let Ok(mut current) = self.profile_servers.write() {
            *current = profiles;
        }
    }

    /// Whether `server`'s news concerns sessions of `scope`.
    pub fn covers(&self, scope: &Scope, server: &ServerId) -> bool {
        match scope {
            Scope::Profile(name) => self
                .profile_servers
                .read()
                .ok()
                .and_then(|p| p.get(name).map(|servers| servers.contains(server)))
                .unwrap_or(false),
            other => other.covers(server),
        }
    }

    /// Closes every HTTP session of `scope` (a profile removed by a reload):
    /// they leave the table at once, and rmcp ends their streams.
    pub(crate) fn close_scope(&self, scope: &Scope, tasks: &tokio_util::task::TaskTracker) {
        // Sessions of `/mcp` whose roots chose it go back to the whole hub.
        for session in self.live() {
            if session.scope != *scope && *session.served() == *scope && session.choose(None) {
                self.switched(&session, tasks);
            }
        }
        let closed = self.table.take_matching(|s| s.scope() == scope);
        if closed.is_empty() {
            return;
        }
        tracing::info!(
            sessions = closed.len(),
            ?scope,
            "closing the sessions of a removed profile"
        );
        let table = self.table.clone();
        tasks.spawn(async move {
            for (id, manager) in closed {
                table.close(&id, &manager).await;
            }
            table.changed();
        });
    }

    /// The HTTP session table every MCP route's session manager shares.
    pub fn table(&self) -> &Arc<SessionTable> {
        &self.table
    }

    /// The open `subscriptions/listen` streams.
    pub(crate) fn listeners(&self) -> &listen::Listeners {
        &self.listeners
    }

    /// Registers a session once its client has initialized.
    pub fn add(&self, session: Arc<Session>, peer: Peer<RoleServer>, client: String) {
        let _ = session.peer.set(peer);
        session.lock().client = Some(client);
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.retain(|s| s.is_live());
            sessions.push(session);
        }
    }

    fn live(&self) -> Vec<Arc<Session>> {
        let live = match self.sessions.lock() {
            Ok(mut sessions) => {
                sessions.retain(|s| s.is_live());
                sessions.clone()
            }
            Err(_) => Vec::new(),
        };
        if let Ok(mut by_id) = self.by_http_id.lock() {
            by_id.retain(|_, s| s.upgrade().is_some_and(|s| s.is_live()));
        }
        live
    }

    /// Records the HTTP session id of `session` (once; later calls are no-ops)
    /// and links it to its entry in the HTTP session table.
    pub fn bind_http_id(&self, session: &Arc<Session>, id: &str) {
        if session.http_id.get().is_some() {
            return;
        }
        self.table.attach(id, session);
        let id: Arc<str> = Arc::from(id);
        if session.http_id.set(id.clone()).is_ok()
            && let Ok(mut by_id) = self.by_http_id.lock()
        {
            // Ended sessions also leave whenever the sessions are walked; this
            // keeps a hub that is never walked (no changes, no snapshot) small.
            if by_id.len() >= 64 {
                by_id.retain(|_, s| s.upgrade().is_some_and(|s| s.is_live()));
            }
            by_id.insert(id, Arc::downgrade(session));
        }
    }

    /// The live, initialized session with this `Mcp-Session-Id`, if known.
    pub fn by_http_id(&self, id: &str) -> Option<Arc<Session>> {
        let by_id = self.by_http_id.lock().ok()?;
        by_id.get(id)?.upgrade().filter(|s| s.is_live())
    }

    pub fn snapshot(&self) -> Vec<SessionSnapshot> {
        self.live()
            .iter()
            .map(|s| {
                let state = s.lock().clone();
                SessionSnapshot {
                    client: state.client,
                    last_listed_at: state.last_listed_at.map(timestamp),
                    notified_at: state.notified_at.map(timestamp),
                    behind: state.behind.iter().any(|b| *b),
                }
            })
            .collect()
    }

    /// Sends a server's log message to the sessions that see that server and
    /// whose level admits it. On the merged endpoint the logger names the server.
    pub fn log(&self, server: &ServerId, params: &LoggingMessageNotificationParam) {
        for session in self.live() {
            if !self.covers(&session.served(), server) {
                continue;
            }
            let level = session.lock().log_level;
            if level.is_some_and(|min| severity(params.level) < severity(min)) {
                continue;
            }
            let Some(peer) = session.peer.get().cloned() else {
                continue;
            };
            let mut message = params.clone();
            if session.served().is_merged() {
                message.logger = Some(match &params.logger {
                    Some(logger) => format!("{server}/{logger}"),
                    None => server.to_string(),
                });
            }
            tokio::spawn(async move {
                let _ = peer.notify_logging_message(message).await;
            });
        }
    }

    /// Sends `resources/updated` to the sessions subscribed to the URI.
    pub fn resource_updated(&self, server: &ServerId, params: &ResourceUpdatedNotificationParam) {
        self.listeners
            .resource_updated(server, &params.uri, |scope| self.covers(scope, server));
        // Merged and profile sessions know a `ui://` URI by its exposed form.
        let exposed = crate::catalog::ui_uri::exposed(server, &params.uri);
        for session in self.live() {
            let seen_as = match (session.scope(), &exposed) {
                (Scope::Server(_), _) | (_, None) => &params.uri,
                (_, Some(exposed)) => exposed,
            };
            let subscribed = session
                .lock()
                .subscriptions
                .get(seen_as)
                .is_some_and(|s| s == server);
            if let (true, Some(peer)) = (subscribed, session.peer.get().cloned()) {
                let mut update = params.clone();
                update.uri.clone_from(seen_as);
                tokio::spawn(async move {
                    let _ = peer.notify_resource_updated(update).await;
                });
            }
        }
    }

    /// Tells `session` that the lists it has listed changed: its roots chose
    /// other servers.
    pub(crate) fn switched(&self, session: &Arc<Session>, tasks: &tokio_util::task::TaskTracker) {
        self.notify(session, [u64::MAX; 3], [true; 3], tasks);
    }

    /// Notifies `session` of each list that `changed` and whose new version
    /// differs from the one it last listed.
    fn notify(
        &self,
        session: &Arc<Session>,
        versions: [u64; 3],
        changed: [bool; 3],
        tasks: &tokio_util::task::TaskTracker,
    ) {
        let Some(peer) = session.peer.get().cloned() else {
            return;
        };
        let mut notify = [false; 3];
        {
            let mut state = session.lock();
            for i in 0..3 {
                if changed[i] && state.seen[i].is_some_and(|seen| seen != versions[i]) {
                    notify[i] = true;
                    state.behind[i] = true;
                }
            }
            if notify.iter().any(|n| *n) {
                state.notified_at = Some(SystemTime::now());
            }
        }
        if !notify.iter().any(|n| *n) {
            return;
        }
        tasks.spawn(async move {
            if notify[0] {
                let _ = peer.notify_tool_list_changed().await;
            }
            if notify[1] {
                let _ = peer.notify_prompt_list_changed().await;
            }
            if notify[2] {
                let _ = peer.notify_resource_list_changed().await;
            }
        });
    }

    /// Tells pass-through sessions of `server` that its lists changed, where
    /// they differ from what each session last listed.
    pub fn announce_server(
        &self,
        server: &ServerId,
        versions: [u64; 3],
        tasks: &tokio_util::task::TaskTracker,
    ) {
        self.listeners.server_lists_changed(server, versions, tasks);
        for session in self.live() {
            if session.scope != Scope::Server(server.clone()) {
                continue;
            }
            self.notify(&session, versions, [true; 3], tasks);
        }
    }

    /// Tells each merged session about the lists in `diff` that differ from
    /// what it last saw (see the module docs).
    pub fn announce(
        &self,
        diff: CatalogDiff,
        versions: CatalogVersions,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        self.announce_to(&Scope::Merged, diff, versions, tasks);
    }

    /// [`Sessions::announce`] for the sessions of one merged scope (`/mcp`
    /// or a profile), whose lists have their own versions.
    pub fn announce_to(
        &self,
        scope: &Scope,
        diff: CatalogDiff,
        versions: CatalogVersions,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        if !diff.any() {
            return;
        }
        self.listeners
            .list_changed(scope, [diff.tools, diff.prompts, diff.resources], tasks);
        for session in self.live() {
            if *session.served() != *scope {
                continue;
            }
            self.notify(
                &session,
                [versions.tools, versions.prompts, versions.resources],
                [diff.tools, diff.prompts, diff.resources],
                tasks,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn id(id: &str) -> ServerId {
        ServerId::new(id).unwrap()
    }

    #[test]
    fn the_merged_scope_covers_every_server_a_server_scope_only_its_own() {
        assert!(Scope::Merged.covers(&id("a")));
        assert!(Scope::Server(id("a")).covers(&id("a")));
        assert!(!Scope::Server(id("a")).covers(&id("b")));
    }

    #[test]
    fn priming_events_only_from_2025_11_25_on() {
        for old in ["2024-11-05", "2025-03-26", "2025-06-18"] {
            assert!(!priming_allowed(old), "{old}");
        }
        // Answered with themselves, or (unknown ones) with 2025-11-25.
        for new in ["2025-11-25", "2026-07-28", "2099-01-01", "garbage"] {
            assert!(priming_allowed(new), "{new}");
        }
        // Not initialized yet: no priming.
        assert!(!Session::new(Scope::Merged).allows_priming());
    }

    #[test]
    fn a_session_keeps_its_scope_and_subscriptions() {
        let session = Session::new(Scope::Server(id("a")));
        assert_eq!(session.scope(), &Scope::Server(id("a")));
        session.subscribe("file:///x", id("a"));
        assert_eq!(session.unsubscribe("file:///x"), Some(id("a")));
        assert_eq!(session.unsubscribe("file:///x"), None);
    }

    #[test]
    fn a_fast_call_is_cancellable_until_its_guard_drops() {
        let session = Arc::new(Session::new(Scope::Merged));
        let token = tokio_util::sync::CancellationToken::new();
        let guard = session.start_fast_call("1".into(), token.clone());
        assert!(!session.cancel_fast_call("2"));
        assert!(session.cancel_fast_call("1"));
        assert!(token.is_cancelled());
        drop(guard);
        assert!(!session.cancel_fast_call("1"));
    }

    #[test]
    fn severities_rise_from_debug_to_emergency() {
        let levels = [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ];
        let ranks: Vec<u8> = levels.into_iter().map(severity).collect();
        assert_eq!(ranks, (0..8).collect::<Vec<u8>>());
    }

    #[test]
    fn a_new_session_is_not_live_until_it_has_a_client() {
        let session = Session::new(Scope::Merged);
        assert!(!session.is_live());
        assert!(session.peer().is_none());
    }
}
