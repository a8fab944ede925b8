//! The resources sessions watch on one server, and what the server sends on
//! its own: a count of sessions per subscribed URI (the server is asked once
//! per URI, however many sessions want it), the signal that wakes a
//! 2026-07-28 connection's listener (`listen.rs`) to ask again with the new
//! set, and the [`Inbound`] queue that coalesces notifications before they
//! reach the hub (it reads the same URIs, so an update of a resource nobody
//! watches is dropped there).
//!
//! The URI table is a std mutex held only to count; the request to the
//! server is made by the caller after the count said it is needed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Inbound;

/// Subscriptions and notifications of one upstream.
pub(super) struct Subscriptions {
    /// Resource URIs subscribed upstream, with how many sessions want each;
    /// shared with `inbound`.
    uris: Arc<Mutex<HashMap<String, usize>>>,
    /// Poked when `uris` changes, for a 2026-07-28 server's listener.
    changed: Arc<tokio::sync::Notify>,
    /// Notifications from the server waiting for the hub, coalesced.
    inbound: Arc<Inbound>,
}

impl Default for Subscriptions {
    fn default() -> Self {
        let uris = Arc::new(Mutex::new(HashMap::new()));
        Self {
            inbound: Arc::new(Inbound::new(uris.clone())),
            uris,
            changed: Arc::new(tokio::sync::Notify::new()),
        }
    }
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // Plain counts: a panic elsewhere mid-update leaves them usable.
        self.uris.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one more session on `uri`; true if it is the first (the
    /// server must be asked).
    pub(super) fn add(&self, uri: &str) -> bool {
        let mut uris = self.lock();
        let count = uris.entry(uri.to_string()).or_default();
        *count += 1;
        *count == 1
    }

    /// Forgets `uri` altogether (the server refused the subscription).
    pub(super) fn forget(&self, uri: &str) {
        self.lock().remove(uri);
    }

    /// Counts one session less on `uri`; true if it was the last (the
    /// server must be told).
    pub(super) fn remove(&self, uri: &str) -> bool {
        let mut uris = self.lock();
        match uris.get_mut(uri) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                uris.remove(uri);
                true
            }
            None => false,
        }
    }

    /// The subscribed URIs, sorted.
    pub(super) fn uris(&self) -> Vec<String> {
        let mut uris: Vec<String> = self.lock().keys().cloned().collect();
        uris.sort();
        uris
    }

    /// The signal a listener waits on for a new set of URIs.
    pub(super) fn changed(&self) -> Arc<tokio::sync::Notify> {
        self.changed.clone()
    }

    /// Wakes the listeners waiting on [`Self::changed`].
    pub(super) fn poke(&self) {
        self.changed.notify_waiters();
    }

    pub(super) fn inbound(&self) -> Arc<Inbound> {
        self.inbound.clone()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_server_is_asked_for_the_first_session_and_told_after_the_last() {
        let subs = Subscriptions::default();
        assert!(subs.add("file:///b"));
        assert!(!subs.add("file:///b"), "a second session");
        assert!(subs.add("file:///a"));
        assert_eq!(subs.uris(), ["file:///a", "file:///b"]);
        assert!(!subs.remove("file:///b"), "one session is left");
        assert!(subs.remove("file:///b"));
        assert!(!subs.remove("file:///b"), "not subscribed any more");
        subs.forget("file:///a");
        assert!(subs.uris().is_empty());
    }

    #[tokio::test]
    async fn a_poke_wakes_a_waiting_listener() {
        let subs = Subscriptions::default();
        let changed = subs.changed();
        let notified = changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        subs.poke();
        tokio::time::timeout(std::time::Duration::from_secs(5), notified)
            .await
            .expect("woken");
    }
}
