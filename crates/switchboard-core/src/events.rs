//! The one upward flow of the engine: what the lower layers (each upstream,
//! the OAuth store, the HTTP session table) tell the hub, on one unbounded
//! channel the hub drains.
//!
//! It sits at the bottom of the layering so that `upstream`, `auth` and the
//! HTTP layer can all send to the hub without importing it or each other.
//! The event carries only plain values and the per-server [`Inbound`] where
//! a server's notifications wait, coalesced (see [`inbound`]); what the hub
//! does with an event is the hub's business.

use std::sync::Arc;

use crate::config::ServerId;

pub mod inbound;

pub use inbound::Inbound;

/// Which merged list a session listed or is told about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

/// What an upstream (or another lower layer) tells the hub.
#[derive(Debug, Clone)]
pub enum UpstreamEvent {
    /// State, error or pid changed: republish the snapshot.
    StateChanged,
    /// The server announced that a list changed while none was pending:
    /// refresh it until no change is pending (see [`Inbound`]).
    ListChanged(ServerId, Arc<Inbound>),
    /// A server with a warm (unverified) listing was started: list it for real.
    Verify(ServerId),
    /// A log message from the server.
    #[allow(deprecated)] // logging is deprecated only for protocol 2026-07-28
    Log(ServerId, rmcp::model::LoggingMessageNotificationParam),
    /// Subscribed resources changed while no update was pending: forward the
    /// pending updates until none is left (see [`Inbound`]).
    ResourcesUpdated(ServerId, Arc<Inbound>),
    /// A server reported the status of one of its tasks: the hub notes it
    /// (activity log, idle hold) and tells the client that owns the task.
    TaskStatus(ServerId, TaskNotice),
}

/// A task status notification of a server.
#[derive(Debug, Clone)]
pub struct TaskNotice {
    /// The server's id of the task.
    pub upstream_id: String,
    pub status: rmcp::model::TaskStatus,
    /// The notification's parameters as the server sent them.
    pub params: rmcp::model::JsonObject,
    /// Sent as 2025-11-25's `notifications/tasks/status` (else 2026-07-28's
    /// `notifications/tasks`).
    pub experimental: bool,
}

/// The sending end of the hub's event channel.
pub(crate) type EventSender = tokio::sync::mpsc::UnboundedSender<UpstreamEvent>;
