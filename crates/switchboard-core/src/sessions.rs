//! The downstream MCP sessions connected to the hub, so that a change in the
//! merged catalog can be announced to the clients that need to hear it.
//!
//! Each session remembers which version of each merged list it was last
//! served. A change is announced to a session only if it has listed that kind
//! before and what it saw differs from the new version; so the client whose
//! own first list started the servers is not told to list again, while a
//! client served a list before late servers arrived is. A session notified
//! but not yet re-listed is `behind` (the UI can warn that such a client shows
//! stale tools). Sessions register from the gateway's `initialize`; closed
//! ones are dropped whenever the set is walked. Notifications are sent from
//! spawned tasks so a slow client never holds up the hub.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use rmcp::service::{Peer, RoleServer};
use serde::Serialize;

use crate::catalog::{CatalogDiff, CatalogVersions};
use crate::snapshot::timestamp;

/// Which merged list a session listed or is told about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

/// One downstream session.
#[derive(Default)]
pub struct Session {
    peer: OnceLock<Peer<RoleServer>>,
    state: Mutex<SessionState>,
}

#[derive(Default, Clone)]
struct SessionState {
    client: Option<String>,
    /// The version of each list this session was last served.
    seen: [Option<u64>; 3],
    /// Lists it was told changed and has not listed since.
    behind: [bool; 3],
    last_listed_at: Option<SystemTime>,
    notified_at: Option<SystemTime>,
}

fn index(kind: ListKind) -> usize {
    match kind {
        ListKind::Tools => 0,
        ListKind::Prompts => 1,
        ListKind::Resources => 2,
    }
}

impl Session {
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

    fn is_live(&self) -> bool {
        self.peer.get().is_some_and(|p| !p.is_transport_closed())
    }
}

/// A session as shown in the snapshot.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    pub client: Option<String>,
    pub last_listed_at: Option<String>,
    pub notified_at: Option<String>,
    /// Told that tools (or prompts/resources) changed, and has not listed since.
    pub behind: bool,
}

#[derive(Default)]
pub struct Sessions {
    sessions: Mutex<Vec<Arc<Session>>>,
}

impl Sessions {
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
        match self.sessions.lock() {
            Ok(mut sessions) => {
                sessions.retain(|s| s.is_live());
                sessions.clone()
            }
            Err(_) => Vec::new(),
        }
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

    /// Tells each session about the lists in `diff` that differ from what it
    /// last saw (see the module docs).
    pub fn announce(
        &self,
        diff: CatalogDiff,
        versions: CatalogVersions,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        if !diff.any() {
            return;
        }
        for session in self.live() {
            let Some(peer) = session.peer.get().cloned() else {
                continue;
            };
            let mut notify = [false; 3];
            {
                let mut state = session.lock();
                for (kind, changed, version) in [
                    (ListKind::Tools, diff.tools, versions.tools),
                    (ListKind::Prompts, diff.prompts, versions.prompts),
                    (ListKind::Resources, diff.resources, versions.resources),
                ] {
                    let i = index(kind);
                    if changed && state.seen[i].is_some_and(|seen| seen != version) {
                        notify[i] = true;
                        state.behind[i] = true;
                    }
                }
                if notify.iter().any(|n| *n) {
                    state.notified_at = Some(SystemTime::now());
                }
            }
            if !notify.iter().any(|n| *n) {
                continue;
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
    }
}
