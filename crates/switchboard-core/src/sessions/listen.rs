//! `subscriptions/listen` streams of 2026-07-28 clients (which have no
//! session): each open stream is registered here with its scope and the
//! resource URIs it asked about, and the hub's list-change and
//! resource-update fan-out reaches it through [`Listeners`]. rmcp's
//! `SubscriptionSink` applies the stream's accepted filter and tags every
//! notification with the subscription's id; sends run on spawned tasks so a
//! slow client never holds up the hub. A stream leaves the set when its
//! [`ListenerGuard`] drops (the stream ended or was cancelled).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::service::SubscriptionSink;

use super::Scope;
use crate::config::ServerId;

struct Listener {
    key: u64,
    scope: Scope,
    sink: SubscriptionSink,
    /// Resource URIs the stream subscribed to, with the server of each.
    resources: Vec<(String, ServerId)>,
}

/// The open `subscriptions/listen` streams.
#[derive(Default)]
pub struct Listeners {
    next: AtomicU64,
    list: Arc<Mutex<Vec<Listener>>>,
    /// The list versions last announced for each server, so that a
    /// pass-through stream hears only the kinds of list that changed.
    announced: Mutex<HashMap<ServerId, [u64; 3]>>,
}

/// Keeps a stream registered; dropping it unregisters the stream.
pub struct ListenerGuard {
    key: u64,
    list: Arc<Mutex<Vec<Listener>>>,
}

impl Drop for ListenerGuard {
    fn drop(&mut self) {
        if let Ok(mut list) = self.list.lock() {
            list.retain(|l| l.key != self.key);
        }
    }
}

/// Which list-changed notifications to send: tools, prompts, resources.
pub type Changed = [bool; 3];

impl Listeners {
    /// Registers a stream until the returned guard drops.
    pub fn add(
        &self,
        scope: Scope,
        sink: SubscriptionSink,
        resources: Vec<(String, ServerId)>,
    ) -> ListenerGuard {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut list) = self.list.lock() {
            list.push(Listener {
                key,
                scope,
                sink,
                resources,
            });
        }
        ListenerGuard {
            key,
            list: self.list.clone(),
        }
    }

    fn sinks(&self, wanted: impl Fn(&Listener) -> bool) -> Vec<SubscriptionSink> {
        match self.list.lock() {
            Ok(list) => list
                .iter()
                .filter(|l| wanted(l))
                .map(|l| l.sink.clone())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The streams `wanted` picks, each with what `wanted` says about it.
    fn sinks_with<T>(&self, wanted: impl Fn(&Listener) -> Option<T>) -> Vec<(SubscriptionSink, T)> {
        match self.list.lock() {
            Ok(list) => list
                .iter()
                .filter_map(|l| wanted(l).map(|t| (l.sink.clone(), t)))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Sends the list-changed notifications in `changed` to the streams of
    /// sessions in `scope` (the sink drops the kinds a stream did not accept).
    pub fn list_changed(
        &self,
        scope: &Scope,
        changed: Changed,
        tasks: &tokio_util::task::TaskTracker,
    ) {
        if !changed.iter().any(|c| *c) {
            return;
        }
        for sink in self.sinks(|l| l.scope == *scope) {
            tasks.spawn(async move {
                if changed[0] {
                    let _ = sink.notify_tool_list_changed().await;
                }
                if changed[1] {
                    let _ = sink.notify_prompt_list_changed().await;
                }
                if changed[2] {
                    let _ = sink.notify_resource_list_changed().await;
                }
            });
        }
    }

    /// Announces a server's new list versions to its pass-through streams:
    /// the kinds whose version moved since the last announcement (every kind
    /// the first time).
    pub fn server_lists_changed(
        &self,
        server: &ServerId,
        versions: [u64; 3],
        tasks: &tokio_util::task::TaskTracker,
    ) {
        let before = match self.announced.lock() {
            Ok(mut announced) => announced.insert(server.clone(), versions),
            Err(_) => None,
        };
        let changed = match before {
            Some(before) => [0, 1, 2].map(|i| before[i] != versions[i]),
            None => [true; 3],
        };
        self.list_changed(&Scope::Server(server.clone()), changed, tasks);
    }

    /// Sends `notifications/resources/updated` to the streams that asked
    /// about `uri` of `server`.
    pub fn resource_updated(&self, server: &ServerId, uri: &str, covers: impl Fn(&Scope) -> bool) {
        let exposed = crate::catalog::ui_uri::exposed(server, uri);
        for (sink, seen_as) in self.sinks_with(|l| {
            // A merged stream knows a `ui://` URI by its exposed form.
            let seen_as = match (&l.scope, &exposed) {
                (Scope::Server(_), _) | (_, None) => uri,
                (_, Some(exposed)) => exposed.as_str(),
            };
            (covers(&l.scope)
                && l.resources
                    .iter()
                    .any(|(u, s)| u.as_str() == seen_as && s == server))
            .then(|| seen_as.to_owned())
        }) {
            let uri = seen_as;
            tokio::spawn(async move {
                let _ = sink.notify_resource_updated(uri).await;
            });
        }
    }
}
