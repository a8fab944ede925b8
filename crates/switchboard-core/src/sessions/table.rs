//! The table of every downstream MCP session the HTTP routes hold, across
//! routes: each session's use ([`Usage`], two atomics touched by rmcp's path
//! and by the HTTP fast path), and the hub's [`Session`] it belongs to once
//! initialized. The rules it keeps (idle expiry, the `maxSessions` cap) and
//! the rmcp session manager in front of it are in `http::session_manager`.
//! Invariant: every session rmcp holds is in the table from `create_session`
//! until `close_session`, so the table's size is the number of sessions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};

use super::Session;
use crate::upstream::UpstreamEvent;

/// Why the hub's session manager refused an operation.
#[derive(Debug, thiserror::Error)]
pub enum HttpSessionError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("too many sessions: all {max} are in use; end one or raise maxSessions")]
    Full { max: usize },
}

/// The id of the session an `initialize` request is creating, put in the
/// request's extensions so the gateway learns it before the client does.
#[derive(Debug, Clone)]
pub struct HttpSessionKey(pub SessionId);

/// A session's use: when it was last used, and what of it is open now.
#[derive(Debug)]
pub struct Usage {
    /// Milliseconds since the table's epoch.
    last_used: AtomicU64,
    /// Requests being answered and response streams open.
    open: AtomicU32,
    epoch: Instant,
}

impl Usage {
    pub(crate) fn new(epoch: Instant) -> Self {
        let usage = Self {
            last_used: AtomicU64::new(0),
            open: AtomicU32::new(0),
            epoch,
        };
        usage.touch();
        usage
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Records a use now.
    pub fn touch(&self) {
        self.last_used.store(self.now_ms(), Ordering::Relaxed);
    }

    /// Marks one request or stream open until the guard drops.
    pub fn begin(self: &Arc<Self>) -> UseGuard {
        self.open.fetch_add(1, Ordering::Relaxed);
        self.touch();
        UseGuard(self.clone())
    }

    /// How long since the last use, if nothing is open.
    fn idle_for(&self) -> Option<Duration> {
        (self.open.load(Ordering::Relaxed) == 0).then(|| {
            Duration::from_millis(
                self.now_ms()
                    .saturating_sub(self.last_used.load(Ordering::Relaxed)),
            )
        })
    }
}

/// Keeps a session in use; its drop counts as a use.
#[derive(Debug)]
pub struct UseGuard(Arc<Usage>);

impl Drop for UseGuard {
    fn drop(&mut self) {
        self.0.touch();
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

pub(crate) struct Entry {
    /// The rmcp manager holding the session (one per route).
    pub(crate) manager: Arc<LocalSessionManager>,
    pub(crate) usage: Arc<Usage>,
    /// The hub's side of the session, once it has initialized.
    pub(crate) session: Weak<Session>,
}

/// Every MCP session of the hub, across routes (see the module docs).
pub struct SessionTable {
    entries: Mutex<HashMap<SessionId, Entry>>,
    pub(crate) max: usize,
    pub(crate) idle: Option<Duration>,
    pub(crate) epoch: Instant,
    /// Tells the hub to republish its snapshot after a close it did not ask for.
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    /// Sessions closed for the limit, logged a summary per interval.
    evictions: Arc<super::evictions::Evictions>,
}

impl SessionTable {
    pub fn new(
        max: usize,
        idle: Duration,
        events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    ) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            max: max.max(1),
            idle: (!idle.is_zero()).then_some(idle),
            epoch: Instant::now(),
            events,
            evictions: Arc::new(super::evictions::Evictions::new()),
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many sessions exist (initialized or not).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether a new session can be made: below the cap, or some session is
    /// idle and can be closed for it.
    pub fn has_room(&self) -> bool {
        let entries = self.lock();
        entries.len() < self.max || entries.values().any(|e| e.usage.idle_for().is_some())
    }

    /// Links the hub's session to its table entry (at `initialize`).
    pub(crate) fn attach(&self, id: &str, session: &Arc<Session>) {
        let mut entries = self.lock();
        if let Some(entry) = entries.get_mut(id) {
            entry.session = Arc::downgrade(session);
            session.set_usage(entry.usage.clone());
        }
    }

    /// Whether session `id` may get priming events (see
    /// [`Session::allows_priming`]); `false` while its `initialize` is unknown.
    pub(crate) fn allows_priming(&self, id: &SessionId) -> bool {
        let session = self.lock().get(id).and_then(|e| e.session.upgrade());
        session.is_some_and(|s| s.allows_priming())
    }

    pub(crate) fn usage(&self, id: &SessionId) -> Option<Arc<Usage>> {
        self.lock().get(id).map(|e| e.usage.clone())
    }

    /// Forgets a session and marks the hub's side closed. True if it was known.
    pub(crate) fn forget(&self, id: &SessionId) -> bool {
        let entry = self.lock().remove(id);
        match entry {
            Some(entry) => {
                if let Some(session) = entry.session.upgrade() {
                    session.mark_closed();
                }
                true
            }
            None => false,
        }
    }

    /// Closes a session the table chose (expired or evicted).
    pub(crate) async fn close(&self, id: &SessionId, manager: &LocalSessionManager) {
        self.forget(id);
        if let Err(err) = manager.close_session(id).await {
            tracing::debug!(session = %id, %err, "closing a session");
        }
    }

    /// Takes the least recently used idle sessions out until there is room
    /// for one more; `Err` if every session is busy.
    pub(crate) fn make_room(
        &self,
    ) -> Result<Vec<(SessionId, Arc<LocalSessionManager>)>, HttpSessionError> {
        let mut entries = self.lock();
        let mut victims = Vec::new();
        let mut longest_idle = Duration::ZERO;
        while entries.len() >= self.max {
            let oldest = entries
                .iter()
                .filter_map(|(id, e)| Some((e.usage.idle_for()?, id)))
                .max_by_key(|(idle, _)| *idle)
                .map(|(idle, id)| (idle, id.clone()));
            let Some((idle, id)) = oldest else {
                return Err(HttpSessionError::Full { max: self.max });
            };
            longest_idle = longest_idle.max(idle);
            if let Some(entry) = entries.remove(&id) {
                if let Some(session) = entry.session.upgrade() {
                    session.mark_closed();
                }
                victims.push((id, entry.manager));
            }
        }
        drop(entries);
        if !victims.is_empty() {
            self.evictions.record(victims.len(), longest_idle, self.max);
        }
        Ok(victims)
    }

    /// The sessions whose hub side `wanted` picks, taken out of the table
    /// (and marked closed) for the caller to close.
    pub(crate) fn take_matching(
        &self,
        wanted: impl Fn(&Session) -> bool,
    ) -> Vec<(SessionId, Arc<LocalSessionManager>)> {
        self.take_where(|e| e.session.upgrade().is_some_and(|s| wanted(&s)))
    }

    /// Sessions idle for longer than the expiry, taken out of the table.
    pub(crate) fn take_expired(&self) -> Vec<(SessionId, Arc<LocalSessionManager>)> {
        let Some(limit) = self.idle else {
            return Vec::new();
        };
        self.take_where(|e| e.usage.idle_for().is_some_and(|idle| idle > limit))
    }

    /// The entries `pick` chooses, taken out of the table, their sessions
    /// marked closed, for the caller to close.
    fn take_where(
        &self,
        pick: impl Fn(&Entry) -> bool,
    ) -> Vec<(SessionId, Arc<LocalSessionManager>)> {
        let mut entries = self.lock();
        let picked: Vec<SessionId> = entries
            .iter()
            .filter(|(_, e)| pick(e))
            .map(|(id, _)| id.clone())
            .collect();
        picked
            .into_iter()
            .filter_map(|id| {
                let entry = entries.remove(&id)?;
                if let Some(session) = entry.session.upgrade() {
                    session.mark_closed();
                }
                Some((id, entry.manager))
            })
            .collect()
    }

    pub(crate) fn changed(&self) {
        let _ = self.events.send(UpstreamEvent::StateChanged);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn table(max: usize, idle: Duration) -> SessionTable {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        SessionTable::new(max, idle, tx)
    }

    fn add(table: &SessionTable, id: &str) -> Arc<Usage> {
        let usage = Arc::new(Usage::new(table.epoch));
        table.lock().insert(
            Arc::from(id),
            Entry {
                manager: Arc::new(LocalSessionManager::default()),
                usage: usage.clone(),
                session: Weak::new(),
            },
        );
        usage
    }

    #[test]
    fn a_session_is_idle_only_with_nothing_open() {
        let usage = Usage::new(Instant::now());
        assert!(usage.idle_for().is_some());
        let usage = Arc::new(usage);
        let first = usage.begin();
        let second = usage.begin();
        assert_eq!(usage.idle_for(), None);
        drop(first);
        assert_eq!(usage.idle_for(), None, "one use is still open");
        drop(second);
        assert!(usage.idle_for().is_some());
    }

    #[test]
    fn room_is_below_the_cap_or_where_a_session_is_idle() {
        let table = table(2, Duration::from_secs(60));
        assert!(table.has_room());
        let a = add(&table, "a");
        let b = add(&table, "b");
        assert!(table.has_room(), "both are idle, so one can go");
        let _busy = (a.begin(), b.begin());
        assert!(!table.has_room());
        assert!(matches!(
            table.make_room(),
            Err(HttpSessionError::Full { max: 2 })
        ));
    }

    #[test]
    fn making_room_takes_the_longest_idle_session() {
        let table = table(2, Duration::from_secs(60));
        add(&table, "old");
        std::thread::sleep(Duration::from_millis(5));
        add(&table, "new");
        let victims: Vec<SessionId> = table
            .make_room()
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(victims, vec![SessionId::from("old")]);
        assert_eq!(table.len(), 1);
        assert!(table.usage(&SessionId::from("new")).is_some());
    }

    #[test]
    fn no_expiry_when_the_idle_limit_is_zero_and_forget_is_once() {
        let table = table(10, Duration::ZERO);
        add(&table, "a");
        assert!(table.take_expired().is_empty());
        let id = SessionId::from("a");
        assert!(table.forget(&id));
        assert!(!table.forget(&id));
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn the_cap_is_at_least_one() {
        let table = table(0, Duration::ZERO);
        assert_eq!(table.max, 1);
        assert!(table.has_room());
        add(&table, "a");
        assert!(table.has_room(), "the idle one can go");
    }
}
