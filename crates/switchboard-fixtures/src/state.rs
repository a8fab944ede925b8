//! The state one fixture process shares between all its sessions.
//!
//! [`FixtureState`] owns the live [`Spec`] (changed only by
//! [`FixtureState::apply`], from the control-file poller), the
//! [`PeerRegistry`] and the [`RequestCounter`]. Handlers read the catalog
//! under a short std lock and clone what they need; nothing holds a lock
//! across an `.await`.

use std::sync::{PoisonError, RwLock};

use crate::{
    counter::RequestCounter,
    peers::PeerRegistry,
    spec::{ControlUpdate, ListChanges, Spec},
};

/// Shared by every session (wrap it in an `Arc`).
#[derive(Debug)]
pub struct FixtureState {
    /// The catalog currently served.
    spec: RwLock<Spec>,
    /// Sessions to notify when the catalog changes.
    pub peers: PeerRegistry,
    /// Answered requests, for `--counter-file`.
    pub counter: RequestCounter,
}

impl FixtureState {
    pub fn new(spec: Spec, counter: RequestCounter) -> Self {
        Self {
            spec: RwLock::new(spec),
            peers: PeerRegistry::default(),
            counter,
        }
    }

    /// Runs `read` on the current catalog.
    pub fn read<T>(&self, read: impl FnOnce(&Spec) -> T) -> T {
        read(&self.spec.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Replaces the lists present in `update`, unless the result would be
    /// invalid (duplicate names), in which case the catalog is left unchanged.
    pub fn apply(&self, update: ControlUpdate) -> anyhow::Result<ListChanges> {
        let mut spec = self.spec.write().unwrap_or_else(PoisonError::into_inner);
        let mut next = spec.clone();
        let changes = next.apply(update);
        next.validate()?;
        *spec = next;
        Ok(changes)
    }
}
