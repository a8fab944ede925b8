//! What a session of `/mcp` is served when its roots chose a profile
//! (`profiles.<name>.roots`, see `gateway::roots`), and the wait of its list
//! requests while the client's roots are being asked for.
//!
//! Owned by one [`Session`](super::Session): the gateway writes it when roots
//! arrive or change; every scope read goes through [`RootsChoice::served`].
//! Invariant: `has_chosen` is true exactly when `chosen` holds a scope, so a
//! session with no choice never takes the lock (one atomic load).

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::Scope;

#[derive(Default)]
pub(super) struct RootsChoice {
    /// The profile the roots chose; `None`: the route's scope.
    chosen: RwLock<Option<Scope>>,
    /// Whether `chosen` is set, read before the lock.
    has_chosen: AtomicBool,
    /// Set while the hub is asking the client for its roots.
    pending: AtomicBool,
    /// Woken when the roots are settled.
    settled: tokio::sync::Notify,
    /// The client's root folders as last settled (its `roots/list` answer or
    /// the bridge's working directory): what project files are consulted for.
    folders: RwLock<Vec<PathBuf>>,
    /// Whether `folders` is not empty, read before the lock.
    has_folders: AtomicBool,
}

impl RootsChoice {
    /// The chosen profile's scope, else `route`.
    pub(super) fn served<'a>(&'a self, route: &'a Scope) -> Cow<'a, Scope> {
        if !self.has_chosen.load(Ordering::Acquire) {
            return Cow::Borrowed(route);
        }
        let chosen = self.chosen.read().unwrap_or_else(|e| e.into_inner());
        Cow::Owned(chosen.clone().unwrap_or_else(|| route.clone()))
    }

    /// Chooses `profile` (`None`: the route's scope); whether it changed.
    pub(super) fn choose(&self, profile: Option<Arc<str>>) -> bool {
        let next = profile.map(Scope::Profile);
        let mut chosen = self.chosen.write().unwrap_or_else(|e| e.into_inner());
        if *chosen == next {
            return false;
        }
        self.has_chosen.store(next.is_some(), Ordering::Release);
        *chosen = next;
        true
    }

    /// Marks the roots as asked for, or settled (waking the waiters).
    pub(super) fn set_pending(&self, pending: bool) {
        self.pending.store(pending, Ordering::Release);
        if !pending {
            self.settled.notify_waiters();
        }
    }

    /// Waits, at most `limit`, while the roots are pending; at once when not.
    pub(super) async fn settled(&self, limit: Duration) {
        if !self.pending.load(Ordering::Acquire) {
            return;
        }
        let wait = async {
            loop {
                let woken = self.settled.notified();
                tokio::pin!(woken);
                woken.as_mut().enable();
                if !self.pending.load(Ordering::Acquire) {
                    return;
                }
                woken.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
    }
}

impl super::Session {
    /// Records the client's root folders (its roots were settled).
    pub(crate) fn set_root_folders(&self, folders: Vec<PathBuf>) {
        let mut current = self
            .roots
            .folders
            .write()
            .unwrap_or_else(|e| e.into_inner());
        self.roots
            .has_folders
            .store(!folders.is_empty(), Ordering::Release);
        *current = folders;
    }

    /// The client's root folders; empty (one atomic load) when none is known.
    pub(crate) fn root_folders(&self) -> Vec<PathBuf> {
        if !self.roots.has_folders.load(Ordering::Acquire) {
            return Vec::new();
        }
        let folders = self.roots.folders.read().unwrap_or_else(|e| e.into_inner());
        folders.clone()
    }
}

impl super::Sessions {
    /// Chooses again, with `choose`, for every live session of `/mcp` whose
    /// root folders are known, and tells those whose set changed.
    pub(crate) fn rechoose(
        &self,
        choose: impl Fn(&[PathBuf]) -> Option<Arc<str>>,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        for session in self.live() {
            if *session.scope() != Scope::Merged {
                continue;
            }
            let folders = session.root_folders();
            if folders.is_empty() {
                continue;
            }
            if session.choose(choose(&folders)) {
                self.switched(&session, tasks);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[tokio::test]
    async fn roots_choose_what_a_merged_session_is_served() {
        let route = Scope::Merged;
        let roots = RootsChoice::default();
        assert_eq!(*roots.served(&route), Scope::Merged);
        assert!(roots.choose(Some(Arc::from("acme"))));
        assert!(
            !roots.choose(Some(Arc::from("acme"))),
            "the same choice is no change"
        );
        assert_eq!(*roots.served(&route), Scope::Profile(Arc::from("acme")));
        assert!(roots.choose(None));
        assert_eq!(*roots.served(&route), Scope::Merged);
        // Settled roots: no wait. Pending roots: a wait, ended by the answer.
        roots.settled(Duration::from_secs(60)).await;
        let roots = Arc::new(roots);
        roots.set_pending(true);
        let waiter = tokio::spawn({
            let roots = roots.clone();
            async move { roots.settled(Duration::from_secs(60)).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        roots.set_pending(false);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
    }

    #[test]
    fn a_session_keeps_its_route_when_its_roots_choose() {
        let session = super::super::Session::new(Scope::Merged);
        assert!(session.choose(Some(Arc::from("acme"))));
        assert_eq!(session.scope(), &Scope::Merged);
        assert_eq!(*session.served(), Scope::Profile(Arc::from("acme")));
    }
}
