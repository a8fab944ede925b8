//! The set of configured upstreams, keyed by server id, in config order.
//!
//! The registry is the only place upstreams are added or removed. Reads take a
//! short std `RwLock` and clone the `Arc`s out; no lock is held across an
//! `.await`, so one slow server never blocks access to the others.

use std::sync::{Arc, RwLock};

use crate::config::ServerId;
use crate::upstream::Upstream;

#[derive(Default)]
pub struct Registry {
    upstreams: RwLock<Vec<Arc<Upstream>>>,
}

impl Registry {
    pub fn all(&self) -> Vec<Arc<Upstream>> {
        self.upstreams.read().map(|u| u.clone()).unwrap_or_default()
    }

    pub fn enabled(&self) -> Vec<Arc<Upstream>> {
        self.all().into_iter().filter(|u| u.is_enabled()).collect()
    }

    pub fn get(&self, id: &str) -> Option<Arc<Upstream>> {
        self.upstreams
            .read()
            .ok()?
            .iter()
            .find(|u| u.id.as_str() == id)
            .cloned()
    }

    /// Replaces the whole set, returning what was there before.
    pub fn replace(&self, upstreams: Vec<Arc<Upstream>>) -> Vec<Arc<Upstream>> {
        match self.upstreams.write() {
            Ok(mut current) => std::mem::replace(&mut *current, upstreams),
            Err(poisoned) => std::mem::replace(&mut *poisoned.into_inner(), upstreams),
        }
    }

    #[allow(dead_code)] // Unused since the lib.rs facade (#16): the owner removes or uses it.
    pub fn ids(&self) -> Vec<ServerId> {
        self.all().iter().map(|u| u.id.clone()).collect()
    }
}
