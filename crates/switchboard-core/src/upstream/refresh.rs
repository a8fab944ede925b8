//! Listing one server (tools, prompts, resources, templates), single-flight:
//! concurrent refreshes share one listing, a failure keeps the last listing
//! (marked stale), and each new listing is compared with the last one to
//! record what changed. [`Lister`] owns the order of listings and the pins
//! every listing passes through; the listing itself (a request to the
//! running server, with retries) is the upstream's (`request.rs`), and what
//! it found goes into the status cell.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use serde::Serialize;

use super::UpstreamError;
use super::status::{ListChange, StatusCell, timestamp};
use crate::config::ServerId;
use crate::listing::{Capabilities, RefreshTrigger};
use crate::pins::Pins;

pub(super) type ListOutcome = Result<Arc<Capabilities>, UpstreamError>;

/// The listings of one upstream: single-flight, numbered, and passed
/// through the hub's tool pins.
pub(super) struct Lister {
    server: ServerId,
    /// The last listing attempt, numbered by the order listings started in;
    /// held for the whole listing, so listings never overlap.
    last: tokio::sync::Mutex<Option<(u64, ListOutcome)>>,
    /// The number of the last listing started.
    seq: AtomicU64,
    /// The number of the listing under way, 0 when none is.
    now: AtomicU64,
    /// The hub's tool pins: every listing passes through them.
    pins: Arc<Pins>,
}

impl Lister {
    pub(super) fn new(server: ServerId, pins: Arc<Pins>) -> Self {
        Self {
            server,
            last: tokio::sync::Mutex::new(None),
            seq: AtomicU64::new(0),
            now: AtomicU64::new(0),
            pins,
        }
    }

    /// Lists with `list` (given the listing's number), coalesced with
    /// concurrent refreshes: if a listing started after this call was made,
    /// its outcome is the answer. The outcome goes into `status`; a failure
    /// keeps the last listing and marks it stale.
    pub(super) async fn refresh<F, Fut>(
        &self,
        trigger: RefreshTrigger,
        status: &StatusCell,
        list: F,
    ) -> ListOutcome
    where
        F: FnOnce(u64) -> Fut,
        Fut: Future<Output = ListOutcome>,
    {
        // A change notification needs a listing that starts after it; any other
        // trigger only needs a recent one, so a listing already under way will do.
        let asked_at = match (trigger, self.now.load(Ordering::SeqCst)) {
            (RefreshTrigger::Notification, _) | (_, 0) => self.seq.load(Ordering::SeqCst),
            (_, running) => running - 1,
        };
        let mut last = self.last.lock().await;
        if let Some((seq, outcome)) = last.as_ref()
            && *seq > asked_at
        {
            return outcome.clone();
        }
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        self.now.store(seq, Ordering::SeqCst);
        if !matches!(trigger, RefreshTrigger::Poll) {
            status.touch();
        }
        let outcome = list(seq).await;
        // What may be served: the listing without the tools its pins hold.
        let outcome = match outcome {
            Ok(raw) => {
                let caps = self.pins.apply(self.server.as_str(), raw.clone(), true);
                status.listed(caps.clone(), Some(raw));
                Ok(caps)
            }
            Err(err) => {
                status.listing_failed(trigger, &err);
                Err(err)
            }
        };
        *last = Some((seq, outcome.clone()));
        self.now.store(0, Ordering::SeqCst);
        outcome
    }

    /// Starts a rebuilt upstream with its predecessor's lists (marked stale),
    /// so a reload does not make its tools vanish until it is listed again.
    /// `raw` is the listing as the server sent it: the pins decide again
    /// what of it is served.
    pub(super) fn carry(&self, status: &StatusCell, raw: Arc<Capabilities>) {
        let caps = self.pins.apply(self.server.as_str(), raw.clone(), false);
        status.update(|s| {
            s.raw_listing = Some(raw);
            s.listing = Some(caps);
            s.stale = true;
        });
    }

    /// Marks a listing from a previous run as known but unconfirmed.
    pub(super) fn warm(&self, status: &StatusCell, caps: Capabilities) {
        let raw = Arc::new(caps);
        let caps = self.pins.apply(self.server.as_str(), raw.clone(), false);
        status.update(|s| {
            s.listing = Some(caps);
            s.raw_listing = Some(raw);
            s.unverified = true;
        });
    }

    /// Applies the pins again to the last listing as the server sent it
    /// (after an approval). Returns the listing now served if it changed.
    pub(super) fn reapply(&self, status: &StatusCell) -> Option<Arc<Capabilities>> {
        let raw = status.lock().raw_listing.clone()?;
        let caps = self.pins.apply(self.server.as_str(), raw, false);
        let mut changed = false;
        status.update(|s| {
            changed = s.listing.as_ref().is_none_or(|l| l.hashes != caps.hashes);
            if changed {
                s.listing = Some(caps.clone());
            }
        });
        changed.then_some(caps)
    }

    /// Whether the server's tool `name` is held for approval (cheap while
    /// no tool is).
    pub(super) fn is_held(&self, name: &str) -> bool {
        self.pins.is_held(self.server.as_str(), name)
    }

    /// Whether the server is being vetted with its listing held.
    pub(super) fn holds_server(&self) -> bool {
        self.pins.holds_server(self.server.as_str())
    }
}

/// Names added, removed and modified between two listings; `None` if equal.
pub(super) fn diff_lists(old: &Capabilities, new: &Capabilities) -> Option<ListChange> {
    if old.hashes == new.hashes {
        return None;
    }
    let mut change = ListChange {
        at: timestamp(SystemTime::now()),
        trigger: new.trigger,
        added: Vec::new(),
        removed: Vec::new(),
        modified: Vec::new(),
    };
    fn compare<T: Serialize>(
        change: &mut ListChange,
        prefix: &str,
        old: &[T],
        new: &[T],
        key: impl Fn(&T) -> String,
    ) {
        use std::collections::BTreeMap;
        let index = |items: &[T]| -> BTreeMap<String, u64> {
            items
                .iter()
                .map(|i| (key(i), crate::listing::canonical_hash(i)))
                .collect()
        };
        let (before, after) = (index(old), index(new));
        for (name, hash) in &after {
            match before.get(name) {
                None => change.added.push(format!("{prefix}{name}")),
                Some(h) if h != hash => change.modified.push(format!("{prefix}{name}")),
                Some(_) => {}
            }
        }
        for name in before.keys().filter(|n| !after.contains_key(*n)) {
            change.removed.push(format!("{prefix}{name}"));
        }
    }
    compare(&mut change, "", &old.tools, &new.tools, |t| {
        t.name.to_string()
    });
    compare(&mut change, "prompt:", &old.prompts, &new.prompts, |p| {
        p.name.clone()
    });
    compare(
        &mut change,
        "resource:",
        &old.resources,
        &new.resources,
        |r| r.uri.clone(),
    );
    compare(
        &mut change,
        "template:",
        &old.resource_templates,
        &new.resource_templates,
        |t| t.uri_template.clone(),
    );
    Some(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::ServerState;
    use serde_json::json;
    use std::sync::atomic::AtomicUsize;

    fn cell() -> StatusCell {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        StatusCell::new(ServerId::new("s").unwrap(), ServerState::Idle, tx)
    }

    fn lister(pinning: crate::config::ToolPinning) -> Lister {
        Lister::new(
            ServerId::new("s").unwrap(),
            Arc::new(Pins::open(pinning, None)),
        )
    }

    /// A listing that takes a few turns of the scheduler, counting its runs.
    async fn slow_listing(runs: &AtomicUsize, seq: u64) -> ListOutcome {
        runs.fetch_add(1, Ordering::SeqCst);
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        let mut caps = Capabilities::empty(RefreshTrigger::Manual);
        caps.instructions = Some(format!("listing {seq}"));
        Ok(Arc::new(caps))
    }

    #[tokio::test]
    async fn a_refresh_during_a_listing_shares_it_unless_a_change_was_announced() {
        let (lister, status, runs) = (
            lister(crate::config::ToolPinning::Off),
            cell(),
            AtomicUsize::new(0),
        );
        let list = |seq| slow_listing(&runs, seq);
        let (a, b) = tokio::join!(
            lister.refresh(RefreshTrigger::Manual, &status, list),
            lister.refresh(RefreshTrigger::Poll, &status, list)
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(Arc::ptr_eq(&a.unwrap(), &b.unwrap()));
        let (a, b) = tokio::join!(
            lister.refresh(RefreshTrigger::Manual, &status, list),
            lister.refresh(RefreshTrigger::Notification, &status, list)
        );
        assert_eq!(
            runs.load(Ordering::SeqCst),
            3,
            "the notification lists again"
        );
        assert_eq!(a.unwrap().instructions.as_deref(), Some("listing 2"));
        assert_eq!(b.unwrap().instructions.as_deref(), Some("listing 3"));
        assert_eq!(
            status.listing().unwrap().instructions.as_deref(),
            Some("listing 3")
        );
    }

    #[tokio::test]
    async fn a_failed_listing_keeps_the_last_one_stale_and_says_why() {
        let (lister, status, runs) = (
            lister(crate::config::ToolPinning::Off),
            cell(),
            AtomicUsize::new(0),
        );
        lister
            .refresh(RefreshTrigger::Manual, &status, |seq| {
                slow_listing(&runs, seq)
            })
            .await
            .unwrap();
        let err = lister
            .refresh(RefreshTrigger::Poll, &status, |_| async {
                Err(UpstreamError::Closed {
                    server: ServerId::new("s").unwrap(),
                })
            })
            .await
            .unwrap_err();
        assert_eq!(err.kind(), "closed");
        assert!(status.listing().is_some());
        assert!(status.view(true).stale);
        assert!(
            status
                .log_lines()
                .last()
                .unwrap()
                .message
                .starts_with("listing (poll) failed"),
            "{:?}",
            status.log_lines()
        );
    }

    #[tokio::test]
    async fn held_tools_are_left_out_of_what_is_served_but_kept_raw() {
        let (lister, status) = (lister(crate::config::ToolPinning::Hold), cell());
        let tools = |description: &str| {
            let mut caps = Capabilities::empty(RefreshTrigger::Startup);
            caps.tools = serde_json::from_value(json!([
                {"name": "t", "description": description, "inputSchema": {"type": "object"}}
            ]))
            .unwrap();
            caps.hashes = caps.compute_hashes();
            caps
        };
        lister.warm(&status, tools("one"));
        assert_eq!(
            status.listing().unwrap().tools.len(),
            1,
            "first seen: pinned"
        );
        assert!(status.view(true).unverified);
        lister.carry(&status, Arc::new(tools("two")));
        assert!(lister.is_held("t"));
        assert!(status.listing().unwrap().tools.is_empty());
        assert_eq!(status.raw_listing().unwrap().tools.len(), 1);
        assert!(lister.reapply(&status).is_none(), "nothing changed");
    }

    fn listing(tools: serde_json::Value, prompts: serde_json::Value) -> Capabilities {
        let mut caps = Capabilities::empty(RefreshTrigger::Poll);
        caps.tools = serde_json::from_value(tools).unwrap();
        caps.prompts = serde_json::from_value(prompts).unwrap();
        caps.resources =
            serde_json::from_value(json!([{"uri": "file:///a", "name": "a"}])).unwrap();
        caps.hashes = caps.compute_hashes();
        caps
    }

    #[test]
    fn a_list_change_names_what_was_added_removed_and_modified() {
        let schema = json!({"type": "object"});
        let old = listing(
            json!([
                {"name": "keep", "inputSchema": schema},
                {"name": "edit", "inputSchema": schema},
                {"name": "drop", "inputSchema": schema}
            ]),
            json!([{"name": "p"}]),
        );
        assert_eq!(diff_lists(&old, &old.clone()), None, "equal listings");
        let new = listing(
            json!([
                {"name": "keep", "inputSchema": schema},
                {"name": "edit", "description": "now documented", "inputSchema": schema},
                {"name": "new", "inputSchema": schema}
            ]),
            json!([{"name": "p"}, {"name": "q"}]),
        );
        let change = diff_lists(&old, &new).unwrap();
        assert_eq!(change.trigger, RefreshTrigger::Poll);
        assert_eq!(change.added, ["new", "prompt:q"]);
        assert_eq!(change.removed, ["drop"]);
        assert_eq!(change.modified, ["edit"]);
        assert!(
            humantime::parse_rfc3339(&change.at).is_ok(),
            "{}",
            change.at
        );
    }
}
