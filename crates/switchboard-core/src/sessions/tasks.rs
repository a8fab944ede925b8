//! Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663) that
//! clients started through the hub: the one table that maps the task ids
//! clients see to the server that runs each task and that server's own id.
//!
//! A server's task id never reaches a client: the gateway swaps it for a hub
//! id of 128 random bits (`sbt-<hex>`) when a `tools/call` is answered with a
//! task, and every `tasks/*` request is looked up here by that id *and* its
//! owner (the route plus the session, see [`Owner`]). An id of another
//! server, another route or another session is the same error as an id never
//! made ([`TaskError::Unknown`]), so nothing tells a client whether a foreign
//! task exists. Each entry holds a [`TaskHold`] on its server until the task
//! is seen to end (terminal status, cancel) or its time is up, so idle
//! shutdown never stops a server with a task in flight.
//!
//! Only the gateway changes the table; the lock is a std `Mutex` held for
//! map operations only, never across an `.await`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::TaskStatus;

use crate::config::ServerId;
use crate::upstream::{TaskHold, Upstream};

/// Prefix of the task ids the hub hands out.
pub(crate) const ID_PREFIX: &str = "sbt-";
/// At most this many tasks are kept; the oldest ended (else oldest) goes.
const MAX_TASKS: usize = 4096;
/// How long an entry lives when its server gave no `ttlMs` (and the most it
/// lives whatever the server said).
const DEFAULT_TTL: Duration = Duration::from_secs(60 * 60);
const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// Who may name a task: the route it was made on and the client behind it.
/// A session that began with `initialize` is its `Mcp-Session-Id` (kept over
/// a reconnect that resumes the session); a stateless 2026-07-28 client is
/// its route and its `clientInfo.name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Owner(Arc<str>);

impl Owner {
    pub(crate) fn new(route: &str, session: Option<&str>, client: Option<&str>) -> Self {
        let who = match (session, client) {
            (Some(session), _) => format!("session {session}"),
            (None, Some(client)) => format!("client {client}"),
            (None, None) => "anonymous".to_string(),
        };
        Self(format!("{route} {who}").into())
    }
}

/// Why a task id was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum TaskError {
    /// Not a task of this client: never made, of another server, route or
    /// session, or forgotten.
    #[error("unknown task '{0}'")]
    Unknown(String),
}

/// One task as the hub knows it.
struct Entry {
    owner: Owner,
    /// The server's own id for it.
    upstream_id: String,
    /// The tool name the client called, for the activity log.
    tool: String,
    status: TaskStatus,
    /// Keeps the server awake until the task ends; `None` once it has.
    hold: Option<TaskHold>,
    server: ServerId,
    /// The server that runs it (kept after it ended, for late `tasks/get`).
    upstream: Arc<Upstream>,
    created: Instant,
    expires: Instant,
}

/// What a `tasks/*` request needs to reach the task's server.
pub(crate) struct Found {
    pub(crate) upstream: Arc<Upstream>,
    pub(crate) upstream_id: String,
    pub(crate) tool: String,
}

/// A status change the activity log should show.
pub(crate) struct Changed {
    pub(crate) server: ServerId,
    pub(crate) status: TaskStatus,
    /// Since the task was made.
    pub(crate) age: Duration,
}

/// The hub's tasks (see the module docs).
#[derive(Default)]
pub(crate) struct TaskTable {
    tasks: Mutex<HashMap<String, Entry>>,
}

impl TaskTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a task `upstream` made for `owner`, returns the id the
    /// client gets.
    pub(crate) fn adopt(
        &self,
        upstream: &Arc<Upstream>,
        owner: Owner,
        upstream_id: String,
        tool: &str,
        ttl_ms: Option<u64>,
    ) -> String {
        let id = format!("{ID_PREFIX}{}", crate::upstream::new_random_id());
        let ttl = ttl_ms
            .map_or(DEFAULT_TTL, Duration::from_millis)
            .min(MAX_TTL);
        let now = Instant::now();
        let mut tasks = self.lock();
        tasks.retain(|_, e| e.expires > now);
        if tasks.len() >= MAX_TASKS {
            let oldest = tasks
                .iter()
                .min_by_key(|(_, e)| (e.hold.is_some(), e.expires))
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                tasks.remove(&oldest);
            }
        }
        tasks.insert(
            id.clone(),
            Entry {
                owner,
                upstream_id,
                tool: tool.to_string(),
                status: TaskStatus::Working,
                hold: Some(TaskHold::new(upstream)),
                server: upstream.id.clone(),
                upstream: upstream.clone(),
                created: now,
                expires: now + ttl,
            },
        );
        id
    }

    /// The task `id` of `owner`.
    pub(crate) fn find(&self, id: &str, owner: &Owner) -> Result<Found, TaskError> {
        let now = Instant::now();
        let mut tasks = self.lock();
        match tasks.get(id) {
            Some(e) if e.expires <= now => {
                tasks.remove(id);
                Err(TaskError::Unknown(id.to_string()))
            }
            Some(e) if &e.owner == owner => Ok(Found {
                upstream: e.upstream.clone(),
                upstream_id: e.upstream_id.clone(),
                tool: e.tool.clone(),
            }),
            _ => Err(TaskError::Unknown(id.to_string())),
        }
    }

    /// Notes the status the server reported for `id`; a change is returned
    /// (for the log), and a terminal one lets the server sleep again.
    pub(crate) fn observe(&self, id: &str, status: TaskStatus) -> Option<Changed> {
        let mut tasks = self.lock();
        let e = tasks.get_mut(id)?;
        if e.status == status {
            return None;
        }
        e.status = status;
        if status.is_terminal() {
            e.hold = None;
        }
        Some(Changed {
            server: e.server.clone(),
            status,
            age: e.created.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn owner(route: &str, session: &str) -> Owner {
        Owner::new(route, Some(session), None)
    }

    #[tokio::test]
    async fn a_task_is_found_only_by_its_owner_and_a_foreign_id_looks_unmade() {
        let upstream = crate::upstream::unstartable_for_tests();
        let table = TaskTable::default();
        let alice = owner("/mcp", "s-alice");
        let id = table.adopt(&upstream, alice.clone(), "up-7".into(), "ghost__slow", None);
        assert!(id.starts_with(ID_PREFIX) && !id.contains("up-7"), "{id}");
        let again = table.adopt(&upstream, alice.clone(), "up-8".into(), "ghost__slow", None);
        assert_ne!(id, again);

        let found = table.find(&id, &alice).unwrap();
        assert_eq!(
            (found.upstream_id.as_str(), found.tool.as_str()),
            ("up-7", "ghost__slow")
        );
        assert_eq!(found.upstream.id, upstream.id);
        // Another session, another route, the same client name over stateless
        // requests, or the server's own id: all the same error as no task.
        for stranger in [
            owner("/mcp", "s-bob"),
            owner("/p/work/mcp", "s-alice"),
            Owner::new("/mcp", None, Some("s-alice")),
        ] {
            assert_eq!(
                table.find(&id, &stranger).err(),
                Some(TaskError::Unknown(id.clone()))
            );
        }
        assert_eq!(
            table.find("up-7", &alice).err(),
            Some(TaskError::Unknown("up-7".into()))
        );
        assert_eq!(upstream.tasks_in_flight(), 2);
    }

    #[tokio::test]
    async fn an_expired_task_is_forgotten_and_releases_its_server() {
        let upstream = crate::upstream::unstartable_for_tests();
        let table = TaskTable::default();
        let alice = owner("/mcp", "s-alice");
        // `ttlMs: 0`: expired as soon as it is made.
        let gone = table.adopt(&upstream, alice.clone(), "up-1".into(), "t", Some(0));
        assert_eq!(upstream.tasks_in_flight(), 1);
        assert_eq!(
            table.find(&gone, &alice).err(),
            Some(TaskError::Unknown(gone.clone()))
        );
        assert_eq!(
            upstream.tasks_in_flight(),
            0,
            "the hold went with the entry"
        );
        // A huge ttl is capped, not overflowed; the task is there.
        let long = table.adopt(&upstream, alice.clone(), "up-2".into(), "t", Some(u64::MAX));
        assert!(table.find(&long, &alice).is_ok());
        // Adopting sweeps expired entries too.
        let brief = table.adopt(&upstream, alice.clone(), "up-3".into(), "t", Some(0));
        assert_eq!(upstream.tasks_in_flight(), 2);
        table.adopt(&upstream, alice.clone(), "up-4".into(), "t", None);
        assert_eq!(upstream.tasks_in_flight(), 2, "{brief} was swept");
    }

    #[tokio::test]
    async fn a_final_status_ends_the_hold_once_and_the_task_stays_readable() {
        let upstream = crate::upstream::unstartable_for_tests();
        let table = TaskTable::default();
        let alice = owner("/mcp", "s-alice");
        let id = table.adopt(&upstream, alice.clone(), "up-1".into(), "t", None);
        assert!(
            table.observe(&id, TaskStatus::Working).is_none(),
            "no change"
        );
        let asked = table.observe(&id, TaskStatus::InputRequired).unwrap();
        assert_eq!(
            (asked.server.as_str(), asked.status),
            ("ghost", TaskStatus::InputRequired)
        );
        assert_eq!(
            upstream.tasks_in_flight(),
            1,
            "input required is not an end"
        );
        let done = table.observe(&id, TaskStatus::Completed).unwrap();
        assert_eq!(done.status, TaskStatus::Completed);
        assert_eq!(upstream.tasks_in_flight(), 0);
        assert!(table.observe(&id, TaskStatus::Completed).is_none());
        assert_eq!(upstream.tasks_in_flight(), 0, "released once");
        // A late `tasks/get` (or `tasks/result`) still reaches the server.
        assert_eq!(table.find(&id, &alice).unwrap().upstream_id, "up-1");
        assert!(table.observe("sbt-none", TaskStatus::Failed).is_none());
        for end in [TaskStatus::Failed, TaskStatus::Cancelled] {
            let other = table.adopt(&upstream, alice.clone(), "up-x".into(), "t", None);
            assert_eq!(upstream.tasks_in_flight(), 1);
            assert!(table.observe(&other, end).is_some());
            assert_eq!(upstream.tasks_in_flight(), 0, "{end:?} ends the hold");
        }
    }
}
