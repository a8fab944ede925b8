//! The connected client sessions, for broadcasting `list_changed` notifications.
//!
//! Every session registers its `Peer<RoleServer>` when it answers `initialize`
//! (stdio has one session, Streamable HTTP one per `mcp-session-id`); a
//! 2026-07-28 client, which has no session, registers each
//! `subscriptions/listen` stream it opens instead (closed ones are dropped
//! when a send finds them closed). Peers whose
//! transport has closed are dropped whenever the registry is touched. The lock is
//! never held across an `.await`: broadcasting works on a snapshot.

use std::sync::{Mutex, PoisonError};

use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};

use crate::spec::ListChanges;

/// The live client sessions.
#[derive(Debug, Default)]
pub struct PeerRegistry {
    peers: Mutex<Vec<Peer<RoleServer>>>,
    listeners: Mutex<Vec<SubscriptionSink>>,
}

impl PeerRegistry {
    /// Adds a session's peer.
    pub fn register(&self, peer: Peer<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|peer| !peer.is_transport_closed());
        peers.push(peer);
    }

    /// Adds a 2026-07-28 client's `subscriptions/listen` stream.
    pub fn register_listener(&self, sink: SubscriptionSink) {
        let mut listeners = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listeners.push(sink);
    }

    /// Drops a listen stream that ended.
    pub fn remove_listener(&self, sink: &SubscriptionSink) {
        let mut listeners = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|l| l.id() != sink.id());
    }

    /// The open listen streams.
    pub fn listeners(&self) -> Vec<SubscriptionSink> {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The peers whose transport is still open.
    pub fn live(&self) -> Vec<Peer<RoleServer>> {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|peer| !peer.is_transport_closed());
        peers.clone()
    }

    /// Sends the `list_changed` notifications matching `changes` to every live
    /// session. Failures (a session closing meanwhile) are logged and skipped.
    pub async fn notify(&self, changes: ListChanges) {
        let peers = self.live();
        tracing::debug!(
            sessions = peers.len(),
            ?changes,
            "sending list_changed notifications"
        );
        for peer in peers {
            if changes.tools
                && let Err(error) = peer.notify_tool_list_changed().await
            {
                tracing::warn!("cannot send tools/list_changed: {error}");
            }
            if changes.prompts
                && let Err(error) = peer.notify_prompt_list_changed().await
            {
                tracing::warn!("cannot send prompts/list_changed: {error}");
            }
            if changes.resources
                && let Err(error) = peer.notify_resource_list_changed().await
            {
                tracing::warn!("cannot send resources/list_changed: {error}");
            }
        }
        // A stream that did not accept a kind refuses it: nothing to report.
        for sink in self.listeners() {
            if changes.tools {
                let _ = sink.notify_tool_list_changed().await;
            }
            if changes.prompts {
                let _ = sink.notify_prompt_list_changed().await;
            }
            if changes.resources {
                let _ = sink.notify_resource_list_changed().await;
            }
        }
    }
}
