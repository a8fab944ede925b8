//! The downstream MCP sessions connected to the hub, so that a change in the
//! merged catalog can be announced to every one of them.
//!
//! Sessions register from the gateway's `initialize`; closed ones are dropped
//! whenever the set is walked. Notifications are sent from spawned tasks so a
//! slow client never holds up the hub.

use std::sync::Mutex;

use rmcp::service::{Peer, RoleServer};

use crate::catalog::CatalogDiff;

#[derive(Default)]
pub struct Sessions {
    peers: Mutex<Vec<Peer<RoleServer>>>,
}

impl Sessions {
    pub fn add(&self, peer: Peer<RoleServer>) {
        if let Ok(mut peers) = self.peers.lock() {
            peers.retain(|p| !p.is_transport_closed());
            peers.push(peer);
        }
    }

    /// Live sessions right now.
    pub fn live(&self) -> Vec<Peer<RoleServer>> {
        match self.peers.lock() {
            Ok(mut peers) => {
                peers.retain(|p| !p.is_transport_closed());
                peers.clone()
            }
            Err(_) => Vec::new(),
        }
    }

    pub fn count(&self) -> usize {
        self.live().len()
    }

    /// Sends the `list_changed` notifications `diff` calls for to every session.
    pub fn announce(&self, diff: CatalogDiff, tasks: &tokio_util::task::TaskTracker) {
        if !diff.any() {
            return;
        }
        for peer in self.live() {
            tasks.spawn(async move {
                if diff.tools {
                    let _ = peer.notify_tool_list_changed().await;
                }
                if diff.prompts {
                    let _ = peer.notify_prompt_list_changed().await;
                }
                if diff.resources {
                    let _ = peer.notify_resource_list_changed().await;
                }
            });
        }
    }
}
