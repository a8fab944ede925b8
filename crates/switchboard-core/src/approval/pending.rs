//! The calls waiting for approval, one table per hub. A call is added when
//! it starts to wait ([`Pending::add`], which gives its [`Ticket`]) and
//! leaves when it is decided ([`Pending::decide`]: the first decision wins,
//! a later one is [`NotPending`]) or when its ticket is dropped (the call
//! timed out, was cancelled, or its client went away). The lock is a std
//! mutex held only to insert, remove or copy entries, never across an
//! `.await`; a watch channel counts changes so that listeners (`--follow`,
//! the tray) see when the list changed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime};

use serde_json::Value;
use switchboard_api::PendingCall;
use tokio::sync::{oneshot, watch};

use crate::config::ServerId;

/// Who made a decision (the activity log's `approval.by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    /// The control API with the control token (the CLI, scripts).
    Api,
    /// The dashboard (its session cookie).
    Dashboard,
    /// The calling client, answering an elicitation.
    Elicitation,
    /// The desktop app (tray, notification).
    App,
}

impl Decider {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Dashboard => "dashboard",
            Self::Elicitation => "elicitation",
            Self::App => "app",
        }
    }
}

/// A person's answer to one waiting call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allow: bool,
    /// Allow, and add the tool to its server's `allowTools`.
    pub always: bool,
    pub by: Decider,
}

/// No call with this id is waiting (decided already, timed out, or never was).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no call '{0}' is waiting for approval (it was decided already, timed out, or never was)")]
pub struct NotPending(pub String);

struct Waiting {
    call: PendingCall,
    server: ServerId,
    answer: oneshot::Sender<Decision>,
}

#[derive(Default)]
struct Table {
    next: u64,
    calls: BTreeMap<u64, Waiting>,
}

/// The hub's table of waiting calls (see the module docs).
pub struct Pending {
    table: Mutex<Table>,
    /// Counts additions and removals.
    changed: watch::Sender<u64>,
}

impl Default for Pending {
    fn default() -> Self {
        Self {
            table: Mutex::default(),
            changed: watch::channel(0).0,
        }
    }
}

/// One waiting call's place in the table: its decision arrives on it, and
/// dropping it takes the call out of the table.
pub struct Ticket {
    key: u64,
    id: String,
    pending: Arc<Pending>,
    answer: Option<oneshot::Receiver<Decision>>,
    since: Instant,
}

impl Ticket {
    /// The id deciders name the call by.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// When the call started to wait.
    pub fn since(&self) -> Instant {
        self.since
    }

    /// The decision, once one is made; `None` if the table let go of the
    /// call without one (never while the ticket lives) or it was taken.
    pub async fn decision(&mut self) -> Option<Decision> {
        match self.answer.as_mut() {
            Some(answer) => {
                let decision = answer.await.ok();
                self.answer = None;
                decision
            }
            None => std::future::pending().await,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.pending.remove(self.key);
    }
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Adds a waiting call of `tool` (its name at `server`); `arguments`
    /// must be redacted already.
    pub fn add(
        self: &Arc<Self>,
        server: &ServerId,
        tool: &str,
        arguments: Value,
        client: Option<String>,
    ) -> Ticket {
        let (tx, rx) = oneshot::channel();
        let (key, id) = {
            let mut table = self.lock();
            table.next += 1;
            let key = table.next;
            let id = key.to_string();
            let call = PendingCall {
                id: id.clone(),
                server: server.to_string(),
                tool: tool.to_string(),
                arguments,
                client,
                since: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            };
            table.calls.insert(
                key,
                Waiting {
                    call,
                    server: server.clone(),
                    answer: tx,
                },
            );
            (key, id)
        };
        self.bump();
        Ticket {
            key,
            id,
            pending: self.clone(),
            answer: Some(rx),
            since: Instant::now(),
        }
    }

    /// Decides call `id`: the call goes on or is denied, and leaves the
    /// table. Returns what was decided about and which server it is for.
    pub fn decide(
        &self,
        id: &str,
        decision: Decision,
    ) -> Result<(PendingCall, ServerId), NotPending> {
        let key = id.parse::<u64>().map_err(|_| NotPending(id.to_string()))?;
        let waiting = self
            .lock()
            .calls
            .remove(&key)
            .ok_or_else(|| NotPending(id.to_string()))?;
        self.bump();
        // The call may have ended in between (its ticket then finds nothing).
        let _ = waiting.answer.send(decision);
        Ok((waiting.call, waiting.server))
    }

    /// The calls waiting, oldest first.
    pub fn list(&self) -> Vec<PendingCall> {
        self.lock().calls.values().map(|w| w.call.clone()).collect()
    }

    /// How many calls are waiting.
    pub fn len(&self) -> usize {
        self.lock().calls.len()
    }

    /// Whether no call is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Changes of the table (a counter that moves on every change).
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn remove(&self, key: u64) {
        if self.lock().calls.remove(&key).is_some() {
            self.bump();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(by: Decider) -> Decision {
        Decision {
            allow: true,
            always: false,
            by,
        }
    }

    #[tokio::test]
    async fn the_first_decision_wins_and_a_dropped_ticket_leaves_the_table() {
        let pending = Arc::new(Pending::default());
        let server = ServerId::new("files").unwrap();
        let mut ticket = pending.add(&server, "delete", serde_json::json!({"path": "/x"}), None);
        let other = pending.add(&server, "move", serde_json::json!({}), Some("cli".into()));
        assert_eq!(
            pending
                .list()
                .iter()
                .map(|c| c.tool.as_str())
                .collect::<Vec<_>>(),
            ["delete", "move"]
        );
        let id = ticket.id().to_string();
        let (call, at) = pending.decide(&id, allow(Decider::Elicitation)).unwrap();
        assert_eq!((call.tool.as_str(), at.as_str()), ("delete", "files"));
        assert_eq!(
            pending.decide(&id, allow(Decider::Api)),
            Err(NotPending(id.clone()))
        );
        assert_eq!(ticket.decision().await, Some(allow(Decider::Elicitation)));
        drop(other);
        assert!(pending.is_empty());
        assert!(pending.decide("nope", allow(Decider::Api)).is_err());
    }
}
