//! The hub's HTTP listener: accepts connections and serves each with hyper's
//! HTTP/1, within bounds a misbehaving or leaking client cannot push the hub
//! past.
//!
//! - **Header timeout** (`headerTimeoutSecs`): a connection must deliver a
//!   complete request head within this long after it connects or after its
//!   previous response ends, else it is closed. This ends connections that
//!   send half a request line and stall, and idle keep-alive connections
//!   (hyper runs one timer for both); it never runs while a request is being
//!   answered, so long calls and event streams are not cut.
//! - **Connection limit** (`maxConnections`, by default three quarters of the
//!   process's open-file limit): each connection holds a permit. At the limit,
//!   a new connection closes the oldest connection that has not sent a
//!   complete request yet (a stalled one) and takes its place; if there is
//!   none, the new connection is refused (closed at once). So stalled
//!   connections can neither exhaust file descriptors nor lock others out.
//! - TCP_NODELAY on every connection (see `docs/performance.md`).
//!
//! Shutdown: when `shutdown` fires the listener closes, idle connections
//! close at once and the others when their response ends; [`serve`] returns
//! when every connection is gone (the caller bounds the wait).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The bounds on client connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections open at once.
    pub max: usize,
    /// See the module docs.
    pub header_timeout: Duration,
}

/// File descriptors kept free of client connections: stdio servers' pipes,
/// upstream sockets, config and state files.
fn reserved(open_file_limit: u64) -> u64 {
    (open_file_limit / 4).max(32)
}

impl ConnectionLimits {
    /// The limits from the settings: `maxConnections` of zero means three
    /// quarters of the open-file limit, and a larger setting is lowered to it.
    pub fn from_settings(settings: &crate::config::Settings) -> Self {
        let ceiling = open_file_limit()
            .map(|limit| {
                usize::try_from(limit.saturating_sub(reserved(limit))).unwrap_or(usize::MAX)
            })
            .map(|c| c.max(1));
        let max = match (settings.max_connections, ceiling) {
            (0, Some(ceiling)) => ceiling,
            (0, None) => 1024,
            (wanted, Some(ceiling)) if wanted > ceiling => {
                tracing::warn!(
                    max_connections = wanted,
                    allowed = ceiling,
                    "maxConnections is above what the open-file limit allows; using the lower value"
                );
                ceiling
            }
            (wanted, _) => wanted,
        };
        Self {
            max,
            header_timeout: settings.header_timeout,
        }
    }
}

/// The soft limit on open files of this process, where there is one.
fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, getrlimit};
        getrlimit(Resource::RLIMIT_NOFILE)
            .ok()
            .map(|(soft, _hard)| soft)
            .filter(|soft| *soft != nix::sys::resource::RLIM_INFINITY)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// One open connection, as the limit sees it.
struct Conn {
    /// Closes the connection when the limit needs its place.
    close: CancellationToken,
    /// No complete request head has arrived yet.
    waiting: AtomicBool,
}

/// The open connections, oldest first (by accept order).
#[derive(Default)]
struct Conns {
    open: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
}

impl Conns {
    fn add(&self, conn: Arc<Conn>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, conn);
        id
    }

    fn remove(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }

    /// Closes the oldest connection still waiting for its first request;
    /// false if there is none.
    fn close_oldest_waiting(&self) -> bool {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = open
            .values()
            .find(|c| c.waiting.load(Ordering::Relaxed) && !c.close.is_cancelled());
        match oldest {
            Some(conn) => {
                conn.close.cancel();
                true
            }
            None => false,
        }
    }
}

/// How long a new connection waits for the place of a connection the limit
/// closed for it.
const TAKEOVER_WAIT: Duration = Duration::from_secs(2);

/// Serves `router` on `listener` until `shutdown` fires (see the module docs).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max.max(1)));
    let conns = Arc::new(Conns::default());
    let tasks = TaskTracker::new();
    let mut refused: u64 = 0;
    tracing::debug!(
        max_connections = limits.max,
        header_timeout = ?limits.header_timeout,
        "listening"
    );
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(err) => {
                if !is_connection_error(&err) {
                    // Out of file descriptors, most likely: let some close.
                    tracing::warn!(%err, "accepting a connection failed");
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(250)) => {}
                        () = shutdown.cancelled() => break,
                    }
                }
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) if conns.close_oldest_waiting() => {
                // Its task ends within a moment and hands its permit over.
                match tokio::time::timeout(TAKEOVER_WAIT, permits.clone().acquire_owned()).await {
                    Ok(Ok(permit)) => permit,
                    _ => continue,
                }
            }
            Err(_) => {
                refused += 1;
                // One line per power of two, not one per refusal.
                if refused.is_power_of_two() {
                    tracing::warn!(
                        max_connections = limits.max,
                        refused,
                        "connection limit reached: refusing connections"
                    );
                }
                drop(stream);
                continue;
            }
        };
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(%err, "TCP_NODELAY not set");
        }
        let conn = Arc::new(Conn {
            close: shutdown.child_token(),
            waiting: AtomicBool::new(true),
        });
        let id = conns.add(conn.clone());
        let conns = conns.clone();
        let router = router.clone();
        let header_timeout = limits.header_timeout;
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            let _permit = permit;
            let seen = conn.clone();
            let service = hyper::service::service_fn(
                move |request: axum::extract::Request<hyper::body::Incoming>| {
                    seen.waiting.store(false, Ordering::Relaxed);
                    let mut router = router.clone();
                    async move { tower_service::Service::call(&mut router, request).await }
                },
            );
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(err) = result {
                        tracing::trace!(%err, "connection ended");
                    }
                }
                () = conn.close.cancelled() => {
                    if shutdown.is_cancelled() && !conn.waiting.load(Ordering::Relaxed) {
                        // Shutdown: idle connections close now, others after
                        // their answer.
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.await;
                    }
                    // Else it never sent a complete request (closed for a new
                    // connection, or at shutdown): dropped as it is.
                }
            }
            conns.remove(id);
        });
    }
    drop(listener);
    tasks.close();
    tasks.wait().await;
    Ok(())
}

/// Errors of one connection that do not concern the listener.
fn is_connection_error(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_default_limit_stays_below_the_open_file_limit() {
        let limits = ConnectionLimits::from_settings(&crate::config::Settings::default());
        if let Some(open_files) = open_file_limit() {
            assert!(
                (limits.max as u64) < open_files,
                "{limits:?} vs {open_files}"
            );
        }
        assert!(limits.max >= 1);
        let mut settings = crate::config::Settings {
            max_connections: usize::MAX,
            ..Default::default()
        };
        let capped = ConnectionLimits::from_settings(&settings);
        assert_eq!(capped.max, limits.max);
        settings.max_connections = 7;
        assert_eq!(ConnectionLimits::from_settings(&settings).max, 7);
    }

    #[test]
    fn only_connections_waiting_for_a_request_are_closed_for_new_ones() {
        let conns = Conns::default();
        let busy = Arc::new(Conn {
            close: CancellationToken::new(),
            waiting: AtomicBool::new(false),
        });
        let stalled = Arc::new(Conn {
            close: CancellationToken::new(),
            waiting: AtomicBool::new(true),
        });
        conns.add(busy.clone());
        conns.add(stalled.clone());
        assert!(conns.close_oldest_waiting());
        assert!(stalled.close.is_cancelled());
        assert!(!busy.close.is_cancelled());
        // Already closing: not chosen again.
        assert!(!conns.close_oldest_waiting());
    }
}
