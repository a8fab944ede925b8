//! What one upstream announced and the hub has not acted on yet, kept so that
//! a server sending notifications in a flood costs the hub a fixed amount of
//! memory, not an amount per notification.
//!
//! The rmcp client handler (`upstream/client.rs`) records each notification here
//! and tells the hub (an [`UpstreamEvent`](super::UpstreamEvent)) only when
//! nothing is pending yet; the hub then runs one task that drains what is
//! pending until nothing is left:
//! - **list changes**: one bit per list kind plus an `ACTIVE` bit, in one
//!   atomic. A burst of `list_changed` costs a refresh under way plus at most
//!   one more, never a task or a queued event per notification.
//! - **resource updates**: the latest `resources/updated` per URI that is
//!   subscribed at this server (others are dropped at once), so the set is
//!   bounded by the subscriptions; the drain forwards each URI's update and
//!   waits [`UPDATE_SPACING`] before the next round, so a URI reaches clients
//!   at most ~10 times a second and its last update is never lost.
//! - **log messages** are not coalesced (each is different) but limited:
//!   [`LOG_BURST`] per second per server are forwarded, the rest dropped and
//!   counted, and clients get one message saying how many were dropped.
//!
//! Progress is bounded where it is forwarded (see `upstream/client.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ResourceUpdatedNotificationParam;

use super::ListKind;
use crate::limiter::Limiter;

/// Set while a hub task owns the pending list changes.
const ACTIVE: u8 = 0x80;
/// The bits of the list kinds.
const KINDS: u8 = 0b111;
/// The least time between two rounds of forwarded resource updates.
pub const UPDATE_SPACING: Duration = Duration::from_millis(100);
/// Log messages of one server forwarded per [`LOG_INTERVAL`]; the rest are
/// dropped and counted.
pub(crate) const LOG_BURST: u32 = 100;
pub(crate) const LOG_INTERVAL: Duration = Duration::from_secs(1);

fn bit(kind: ListKind) -> u8 {
    match kind {
        ListKind::Tools => 1,
        ListKind::Prompts => 2,
        ListKind::Resources => 4,
    }
}

/// The list kinds in a set of pending bits.
pub fn kinds(bits: u8) -> Vec<ListKind> {
    [ListKind::Tools, ListKind::Prompts, ListKind::Resources]
        .into_iter()
        .filter(|k| bits & bit(*k) != 0)
        .collect()
}

#[derive(Debug, Default)]
struct Updates {
    /// The latest update per URI not forwarded yet.
    pending: HashMap<String, ResourceUpdatedNotificationParam>,
    /// A hub task is draining `pending`.
    active: bool,
}

/// One upstream's pending notifications (see the module docs).
#[derive(Debug)]
pub struct Inbound {
    lists: AtomicU8,
    updates: Mutex<Updates>,
    /// Resource URIs subscribed at this server, shared with the upstream.
    subscriptions: Arc<Mutex<HashMap<String, usize>>>,
    logs: Limiter,
}

impl Inbound {
    pub(crate) fn new(subscriptions: Arc<Mutex<HashMap<String, usize>>>) -> Self {
        Self {
            lists: AtomicU8::new(0),
            updates: Mutex::new(Updates::default()),
            subscriptions,
            logs: Limiter::new(LOG_BURST, LOG_INTERVAL),
        }
    }

    /// Records that the server said `kind` changed. True when no task owns
    /// the pending changes: the caller must have the hub start one.
    pub(crate) fn list_changed(&self, kind: ListKind) -> bool {
        self.lists.fetch_or(bit(kind) | ACTIVE, Ordering::AcqRel) & ACTIVE == 0
    }

    /// For the task that owns the pending list changes: takes them (as bits,
    /// see [`kinds`]). `None` means nothing was pending and the task no
    /// longer owns them: it must stop (the next change starts a new one).
    pub(crate) fn take_list_changes(&self) -> Option<u8> {
        let mut current = self.lists.load(Ordering::Acquire);
        loop {
            let (next, taken) = if current & KINDS == 0 {
                (0, None)
            } else {
                (ACTIVE, Some(current & KINDS))
            };
            match self.lists.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return taken,
                Err(actual) => current = actual,
            }
        }
    }

    /// Records a resource update. True when no task is draining updates: the
    /// caller must have the hub start one. Updates of URIs nobody subscribed
    /// to at this server are dropped.
    pub(crate) fn resource_updated(&self, update: ResourceUpdatedNotificationParam) -> bool {
        let subscribed = self
            .subscriptions
            .lock()
            .map(|subs| subs.contains_key(&update.uri))
            .unwrap_or(false);
        if !subscribed {
            return false;
        }
        let mut updates = self.updates.lock().unwrap_or_else(|e| e.into_inner());
        updates.pending.insert(update.uri.clone(), update);
        !std::mem::replace(&mut updates.active, true)
    }

    /// For the task draining updates: takes the pending ones. Empty means
    /// nothing was pending and the task no longer drains: it must stop.
    pub(crate) fn take_resource_updates(&self) -> Vec<ResourceUpdatedNotificationParam> {
        let mut updates = self.updates.lock().unwrap_or_else(|e| e.into_inner());
        if updates.pending.is_empty() {
            updates.active = false;
            return Vec::new();
        }
        updates.pending.drain().map(|(_, update)| update).collect()
    }

    /// Whether one more log message of this server may be forwarded now.
    pub(crate) fn admit_log(&self) -> crate::limiter::Verdict {
        self.logs.check()
    }

    /// Log messages dropped and not reported yet (resets the count).
    pub(crate) fn take_dropped_logs(&self) -> u64 {
        self.logs.take_dropped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inbound(subscribed: &[&str]) -> Inbound {
        let subs = subscribed.iter().map(|uri| (uri.to_string(), 1)).collect();
        Inbound::new(Arc::new(Mutex::new(subs)))
    }

    #[test]
    fn a_burst_of_list_changes_starts_one_task_and_one_more_round() {
        let inbound = inbound(&[]);
        assert!(
            inbound.list_changed(ListKind::Tools),
            "the first starts a task"
        );
        for _ in 0..100_000 {
            assert!(!inbound.list_changed(ListKind::Tools));
        }
        assert!(!inbound.list_changed(ListKind::Prompts));
        // The task takes everything pending at once, both kinds.
        assert_eq!(
            kinds(inbound.take_list_changes().unwrap()),
            [ListKind::Tools, ListKind::Prompts]
        );
        // Changes while it refreshes make exactly one more round.
        assert!(!inbound.list_changed(ListKind::Resources));
        assert!(!inbound.list_changed(ListKind::Resources));
        assert_eq!(
            kinds(inbound.take_list_changes().unwrap()),
            [ListKind::Resources]
        );
        // Nothing left: the task stops, and the next change starts a new one.
        assert_eq!(inbound.take_list_changes(), None);
        assert!(inbound.list_changed(ListKind::Tools));
    }

    #[test]
    fn resource_updates_keep_the_latest_per_subscribed_uri() {
        let inbound = inbound(&["file:///a"]);
        assert!(!inbound.resource_updated(ResourceUpdatedNotificationParam::new("file:///b")));
        assert!(inbound.resource_updated(ResourceUpdatedNotificationParam::new("file:///a")));
        for _ in 0..1000 {
            assert!(!inbound.resource_updated(ResourceUpdatedNotificationParam::new("file:///a")));
            assert!(!inbound.resource_updated(ResourceUpdatedNotificationParam::new("file:///b")));
        }
        let round: Vec<_> = inbound
            .take_resource_updates()
            .into_iter()
            .map(|u| u.uri)
            .collect();
        assert_eq!(round, ["file:///a"]);
        assert!(inbound.take_resource_updates().is_empty());
        assert!(inbound.resource_updated(ResourceUpdatedNotificationParam::new("file:///a")));
    }
}
