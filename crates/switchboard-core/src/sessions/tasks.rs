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
//! Both task revisions share the table: the 2026-07-28 extension and
//! 2025-11-25's experimental tasks ([`Origin::experimental`]); an entry also
//! keeps who made it ([`Origin`]), so a status a server reports by
//! notification is logged and told to the task's own client, and what the
//! server last said of its timing (`ttl`, `pollInterval`), which rmcp's
//! reading of a 2025-11-25 `tasks/get` answer drops.
//!
//! Only the gateway and the hub's event loop change the table; the lock is a
//! std `Mutex` held for map operations only, never across an `.await`.

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

/// Where a task was made, for the activity log and the task's notifications.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    /// The pass-through route's server (`None` for `/mcp` and profiles).
    pub(crate) route: Option<ServerId>,
    pub(crate) client: Option<Arc<str>>,
    /// The HTTP session that made it (its notifications go there).
    pub(crate) session: Option<Arc<str>>,
    /// Made by a 2025-11-25 client (experimental tasks), not a 2026-07-28 one.
    pub(crate) experimental: bool,
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
    origin: Origin,
    /// The task's `ttlMs` and `pollIntervalMs` as the server last gave them.
    timing: (Option<u64>, Option<u64>),
}

/// What a `tasks/*` request needs to reach the task's server.
pub(crate) struct Found {
    pub(crate) upstream: Arc<Upstream>,
    pub(crate) upstream_id: String,
    /// The task's `ttlMs` and `pollIntervalMs` as the server last gave them.
    pub(crate) timing: (Option<u64>, Option<u64>),
    /// A 2025-11-25 task (else SEP-2663's).
    pub(crate) experimental: bool,
}

/// A status change the activity log should show.
pub(crate) struct Changed {
    pub(crate) server: ServerId,
    pub(crate) status: TaskStatus,
    /// Since the task was made.
    pub(crate) age: Duration,
    /// The hub's id of the task.
    pub(crate) id: String,
    pub(crate) tool: String,
    pub(crate) origin: Origin,
}

/// A status as the protocol spells it.
pub(crate) fn status_name(status: TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

impl Changed {
    /// The activity entry of this change: one per status a task reaches,
    /// under the name of the tool that made it.
    pub(crate) fn record(self, error: Option<String>) -> crate::activity::CallRecord {
        use switchboard_api::ActivityOutcome;
        let outcome = match self.status {
            TaskStatus::Failed => ActivityOutcome::Error,
            TaskStatus::Cancelled => ActivityOutcome::Cancelled,
            _ => ActivityOutcome::Ok,
        };
        let failed = self.status == TaskStatus::Failed;
        crate::activity::CallRecord {
            at: std::time::SystemTime::now(),
            duration: self.age,
            method: crate::activity::Method::Task,
            name: self.tool,
            served: crate::activity::Served::Server(self.server),
            caller: crate::activity::Caller {
                route: self.origin.route,
                client: self.origin.client,
                session: self.origin.session,
                run: None,
            },
            argument_bytes: 0,
            arguments: None,
            approval: None,
            ended: crate::activity::CallOutcome {
                outcome,
                error: error.or_else(|| failed.then(|| "the task failed".to_string())),
                result_bytes: 0,
                result_secrets: Vec::new(),
                task: Some(switchboard_api::ActivityTask {
                    id: self.id,
                    status: status_name(self.status),
                }),
            },
        }
    }
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
                origin: Origin::default(),
                timing: (ttl_ms, None),
            },
        );
        id
    }

    /// Notes where task `id` was made and the timing its server gave.
    pub(crate) fn annotate(&self, id: &str, origin: Origin, poll_interval_ms: Option<u64>) {
        if let Some(e) = self.lock().get_mut(id) {
            e.origin = origin;
            e.timing.1 = poll_interval_ms;
        }
    }

    /// Notes the timing a server gave for `id` in an answer that had it.
    pub(crate) fn note_timing(&self, id: &str, timing: (Option<u64>, Option<u64>)) {
        if let Some(e) = self.lock().get_mut(id) {
            e.timing = (timing.0.or(e.timing.0), timing.1.or(e.timing.1));
        }
    }

    /// The hub's id of `server`'s task `upstream_id`, and where it was made.
    pub(crate) fn by_upstream(
        &self,
        server: &ServerId,
        upstream_id: &str,
    ) -> Option<(String, Origin)> {
        let now = Instant::now();
        self.lock()
            .iter()
            .find(|(_, e)| &e.server == server && e.upstream_id == upstream_id && e.expires > now)
            .map(|(id, e)| (id.clone(), e.origin.clone()))
    }

    /// The tasks of `owner` not yet forgotten: hub id, server, server's id.
    pub(crate) fn owned(&self, owner: &Owner) -> Vec<(String, Arc<Upstream>, String)> {
        let now = Instant::now();
        let mut tasks: Vec<_> = self
            .lock()
            .iter()
            .filter(|(_, e)| &e.owner == owner && e.expires > now)
            .map(|(id, e)| {
                (
                    e.created,
                    id.clone(),
                    e.upstream.clone(),
                    e.upstream_id.clone(),
                )
            })
            .collect();
        tasks.sort_by_key(|t| t.0);
        tasks
            .into_iter()
            .map(|(_, id, u, up)| (id, u, up))
            .collect()
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
                timing: e.timing,
                experimental: e.origin.experimental,
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
            id: id.to_string(),
            tool: e.tool.clone(),
            origin: e.origin.clone(),
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
        assert_eq!(found.upstream_id, "up-7");
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

    #[tokio::test]
    async fn a_servers_id_leads_to_its_hub_id_and_owner_lists_only_their_own() {
        let upstream = crate::upstream::unstartable_for_tests();
        let table = TaskTable::default();
        let alice = owner("/mcp", "s-alice");
        let bob = owner("/mcp", "s-bob");
        let first = table.adopt(&upstream, alice.clone(), "up-1".into(), "t", Some(60_000));
        let second = table.adopt(&upstream, alice.clone(), "up-2".into(), "t", None);
        let theirs = table.adopt(&upstream, bob.clone(), "up-3".into(), "t", None);
        let origin = Origin {
            session: Some("s-alice".into()),
            experimental: true,
            ..Origin::default()
        };
        table.annotate(&first, origin, Some(500));
        let (id, found) = table.by_upstream(&upstream.id, "up-1").unwrap();
        assert_eq!(id, first);
        assert!(found.experimental);
        assert_eq!(found.session.as_deref(), Some("s-alice"));
        assert!(
            table
                .by_upstream(&ServerId::new("other").unwrap(), "up-1")
                .is_none()
        );
        assert!(table.by_upstream(&upstream.id, "up-9").is_none());
        let listed: Vec<_> = table
            .owned(&alice)
            .into_iter()
            .map(|(id, _, up)| (id, up))
            .collect();
        assert_eq!(
            listed,
            [
                (first.clone(), "up-1".to_string()),
                (second, "up-2".to_string())
            ]
        );
        assert_eq!(table.owned(&bob).len(), 1, "{theirs}");
        // Timing: given at creation, kept when a later answer lacks it.
        assert_eq!(
            table.find(&first, &alice).unwrap().timing,
            (Some(60_000), Some(500))
        );
        table.note_timing(&first, (None, Some(250)));
        assert_eq!(
            table.find(&first, &alice).unwrap().timing,
            (Some(60_000), Some(250))
        );
        // A status change carries what the log needs.
        let changed = table.observe(&first, TaskStatus::Completed).unwrap();
        let record = changed.record(None);
        assert_eq!(record.caller.session.as_deref(), Some("s-alice"));
        assert_eq!(record.ended.task.unwrap().status, "completed");
    }
}
