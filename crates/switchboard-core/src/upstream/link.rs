//! The connection slot of one upstream: the live [`Connection`] if there is
//! one, the number of the last connection made (so a late report from an
//! old connection's monitor or token refresher is told apart from the
//! current one), and whether the server is started with the legacy
//! `initialize` (see `version.rs`).
//!
//! The slot is a tokio mutex: `Upstream::connection` holds it across the
//! start, so concurrent first uses start one process. Everything else holds
//! it only to look at or take the connection. Each connection has a
//! [`Monitor`] task that closes and reaps it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use rmcp::service::{ClientInitializeError, ClientLifecycleMode, Peer, RoleClient, RunningService};
use tokio_util::sync::CancellationToken;

use super::Upstream;
use super::client::UpstreamClient;
use super::process::guard::Guard;
use super::process::{Signal, kill_process_group, signal_process_group};
use super::stdio::StdioHealth;
use super::version;
use crate::config::ServerId;

/// How long a closing stdio server gets after stdin is closed, and again after SIGTERM.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long closing a connection may take in all.
pub(super) const CLOSE_TIMEOUT: Duration = Duration::from_secs(6);

/// A live connection to the server.
pub(super) struct Connection {
    pub(super) peer: Peer<RoleClient>,
    pub(super) pid: Option<u32>,
    /// Cancelling it closes the connection; the monitor task then reaps it.
    pub(super) stop: CancellationToken,
    /// Completes (sender dropped) when the connection is fully closed.
    pub(super) closed: tokio::sync::watch::Receiver<()>,
    /// Which connection of this upstream it is ([`Link::next_generation`]).
    pub(super) generation: u64,
    /// What the pipes of a stdio server noticed (none for HTTP).
    pub(super) stdio: Option<Arc<StdioHealth>>,
}

/// The connection slot of one upstream.
#[derive(Default)]
pub(super) struct Link {
    /// The live connection; held while connecting.
    slot: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// The generation of the last connection made.
    generation: AtomicU64,
    /// Set when the server answered `server/discover` without 2026-07-28:
    /// it is started with the legacy `initialize` from then on.
    legacy_only: AtomicBool,
}

impl Link {
    /// The slot, locked (held across a start by `Upstream::connection`).
    pub(super) async fn lock(&self) -> tokio::sync::MutexGuard<'_, Option<Arc<Connection>>> {
        self.slot.lock().await
    }

    /// The number of a new connection.
    pub(super) fn next_generation(&self) -> u64 {
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Takes the connection out if it is still connection `generation`
    /// (a report about an older one changes nothing).
    pub(super) async fn take_if(&self, generation: u64) -> Option<Arc<Connection>> {
        let mut slot = self.slot.lock().await;
        match slot.as_ref() {
            Some(c) if c.generation == generation => slot.take(),
            _ => None,
        }
    }

    /// Closes the connection, if any, and waits until its monitor has closed
    /// and reaped everything; true if there was one.
    pub(super) async fn close(&self) -> bool {
        let conn = self.slot.lock().await.take();
        let Some(conn) = conn else {
            return false;
        };
        conn.stop.cancel();
        let mut closed = conn.closed.clone();
        // The sender is dropped once the monitor has closed and reaped everything.
        let _ = tokio::time::timeout(CLOSE_TIMEOUT + Duration::from_secs(2), async {
            while closed.changed().await.is_ok() {}
        })
        .await;
        true
    }

    /// Whether the server is known to want the legacy `initialize`.
    pub(super) fn is_legacy(&self) -> bool {
        self.legacy_only.load(Ordering::SeqCst)
    }

    /// How the next connection starts: 2026-07-28 discovery with fallback,
    /// or straight to `initialize` for a server known to want it.
    pub(super) fn lifecycle(&self) -> ClientLifecycleMode {
        if self.is_legacy() {
            ClientLifecycleMode::Initialize
        } else {
            version::auto()
        }
    }

    /// Remembers a server that answered discovery without a version in
    /// common but with legacy ones (see `version.rs`).
    pub(super) fn note_version_refusal(&self, server: &ServerId, err: &ClientInitializeError) {
        if version::wants_initialize(err) && !self.legacy_only.swap(true, Ordering::SeqCst) {
            tracing::info!(
                server = %server,
                "server does not speak 2026-07-28; starting it with initialize"
            );
        }
    }
}

/// The task that watches one connection until it ends: it notices a
/// connection that died (and tells the upstream), a stop asked for, or a
/// stuck stdin, then closes what is left and reaps the process group.
pub(super) struct Monitor {
    pub(super) service: RunningService<RoleClient, UpstreamClient>,
    pub(super) pid: Option<u32>,
    pub(super) health: Option<Arc<StdioHealth>>,
    /// Ends the server's process group if the hub dies without closing it.
    pub(super) guard: Option<Guard>,
    /// A sandboxed server's private temp folder: it goes with the process group.
    pub(super) private_tmp: Option<tempfile::TempDir>,
    pub(super) stop: CancellationToken,
    pub(super) generation: u64,
    /// Told of a lost connection or a stuck stdin; weak, so a retired
    /// upstream is not kept alive by its monitor.
    pub(super) upstream: Weak<Upstream>,
    /// Dropped once everything is closed and reaped ([`Connection::closed`]).
    pub(super) closed: tokio::sync::watch::Sender<()>,
}

impl Monitor {
    pub(super) async fn run(self) {
        let Self {
            service,
            pid,
            health,
            guard,
            private_tmp,
            stop,
            generation,
            upstream,
            closed,
        } = self;
        let service_ct = service.cancellation_token();
        let waiting = service.waiting();
        tokio::pin!(waiting);
        let stuck = async {
            match &health {
                Some(health) => health.stuck().await,
                None => std::future::pending().await,
            }
        };
        let died = tokio::select! {
            _ = &mut waiting => true,
            _ = stop.cancelled() => false,
            () = stuck => {
                // Stdin is stuck: the connection is unusable (a message may
                // be half written). Report it, then close it like a stop.
                stop.cancel();
                if let (Some(upstream), Some(health)) = (upstream.upgrade(), &health) {
                    upstream.report_stdin_stuck(health);
                }
                false
            }
        };
        if !died {
            // Cancelling the service makes its loop close the transport (stdin
            // closed, or the HTTP session deleted). A server that does not exit
            // on its own gets SIGTERM, then SIGKILL, as the whole group.
            service_ct.cancel();
            let escalate = async {
                if let Some(pid) = pid {
                    tokio::time::sleep(CLOSE_GRACE).await;
                    signal_process_group(pid, Signal::Term);
                    tokio::time::sleep(CLOSE_GRACE).await;
                    signal_process_group(pid, Signal::Kill);
                }
                std::future::pending::<()>().await;
            };
            let closing = async {
                tokio::select! {
                    _ = &mut waiting => {}
                    () = escalate => {}
                }
            };
            if tokio::time::timeout(CLOSE_TIMEOUT, closing).await.is_err() {
                tracing::warn!("upstream did not close within {CLOSE_TIMEOUT:?}");
            }
        }
        if let Some(pid) = pid {
            kill_process_group(pid);
        }
        if let Some(guard) = guard {
            guard.stop().await;
        }
        // The private temp folder goes with the server's process group.
        drop(private_tmp);
        if died && let Some(upstream) = upstream.upgrade() {
            upstream.on_connection_lost(generation).await;
        }
        drop(closed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use rmcp::model::ProtocolVersion;

    #[test]
    fn a_refused_discovery_makes_later_starts_use_initialize() {
        let link = Link::default();
        let server = ServerId::new("s").unwrap();
        assert!(matches!(link.lifecycle(), ClientLifecycleMode::Auto { .. }));
        link.note_version_refusal(&server, &ClientInitializeError::Cancelled);
        assert!(!link.is_legacy(), "not a version refusal");
        link.note_version_refusal(
            &server,
            &ClientInitializeError::NoCompatibleProtocolVersion {
                client_supported: vec![ProtocolVersion::V_2026_07_28],
                server_supported: vec![ProtocolVersion::V_2025_06_18],
            },
        );
        assert!(link.is_legacy());
        assert!(matches!(link.lifecycle(), ClientLifecycleMode::Initialize));
    }

    #[tokio::test]
    async fn connections_are_numbered_and_an_empty_slot_has_nothing_to_close() {
        let link = Link::default();
        assert_eq!(link.next_generation(), 1);
        assert_eq!(link.next_generation(), 2);
        assert!(link.take_if(2).await.is_none());
        assert!(!link.close().await);
        assert!(link.lock().await.is_none());
    }
}
