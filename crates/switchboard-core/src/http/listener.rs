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
//! - **Body deadline** (the same time): every request body, whatever its
//!   framing (any `Content-Length`, chunked) and route, must end within
//!   `headerTimeoutSecs` of its head; reading it later fails, and the answer
//!   is HTTP 408 with `Connection: close` (`conns::TimedBody`).
//! - **Connection limit** (`maxConnections`, by default three quarters of the
//!   process's open-file limit): each connection holds a permit. At the limit,
//!   a new connection closes the oldest connection the client holds up (no
//!   complete head yet, idle after an answer, or a body still arriving) and
//!   takes its place; if there is none, the new connection is refused (closed
//!   at once). So stalled connections can neither exhaust file descriptors
//!   nor lock others out.
//! - **Stream limit** (half of `maxConnections`): an answer that is an event
//!   stream (`/api/v1/events`, an MCP GET stream, an MCP answer sent as
//!   events) beyond it closes the oldest open stream, so streams never hold
//!   the places plain requests need. SSE clients reconnect on their own.
//! - TCP_NODELAY on every connection (see `docs/performance.md`).
//!
//! Shutdown: when `shutdown` fires the listener closes, idle connections
//! close at once and the others when their response ends; [`serve`] returns
//! when every connection is gone (the caller bounds the wait).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::{Body as _, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::limiter::Limiter;

mod conns;

use conns::{BodyError, Conn, Conns, Phase, TimedBody, Tracked};

/// The bounds on client connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections open at once.
    pub max: usize,
    /// See the module docs.
    pub header_timeout: Duration,
    /// Most event streams open at once (half of `max`, at least one).
    pub streams: usize,
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
            streams: stream_cap(max),
        }
    }
}

/// Most event streams for a connection limit of `max`: half of it, so that
/// streams never take the places plain requests need.
fn stream_cap(max: usize) -> usize {
    (max / 2).max(1)
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

/// How long a new connection waits for the place of a connection the limit
/// closed for it.
const TAKEOVER_WAIT: Duration = Duration::from_secs(2);

/// One connection's service: what each exchange on it needs.
#[derive(Clone)]
struct Exchange {
    conn: Arc<Conn>,
    /// The connection's key in `conns`.
    id: u64,
    conns: Arc<Conns>,
    router: Router,
    limits: ConnectionLimits,
}

/// The stream limit closed streams (a few lines per minute, not one per stream).
static STREAMS_CLOSED: Limiter = Limiter::new(3, Duration::from_secs(60));

impl Exchange {
    /// Answers one request: its body gets a deadline, a missed deadline
    /// becomes HTTP 408, and an event stream counts against the stream limit.
    async fn serve(self, request: axum::http::Request<Incoming>) -> Result<Response, Infallible> {
        let exchange = self.conn.begin(!request.body().is_end_stream());
        let timeout = self.limits.header_timeout;
        let conn = self.conn.clone();
        let request =
            request.map(|body| axum::body::Body::new(TimedBody::new(body, timeout, conn)));
        let mut router = self.router;
        let response = tower_service::Service::call(&mut router, request).await?;
        let response = if self.conn.body_timed_out() {
            body_timed_out(timeout)
        } else {
            response
        };
        if is_event_stream(&response) {
            let closed = self.conns.start_stream(self.id, self.limits.streams);
            if closed > 0 {
                crate::limited!(
                    STREAMS_CLOSED,
                    warn,
                    "event stream limit reached",
                    max_streams = self.limits.streams,
                    "event stream limit reached: closed the oldest stream for a new one"
                );
            }
        } else {
            self.conn.answering();
        }
        let conn = self.conn;
        Ok(response.map(|body| axum::body::Body::new(Tracked::new(body, conn, exchange))))
    }
}

/// Whether `response` is an event stream (`/api/v1/events`, an MCP GET
/// stream, an MCP answer sent as events).
fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

/// HTTP 408 for a request whose body missed its deadline; the connection closes.
fn body_timed_out(after: Duration) -> Response {
    let mut response = (
        StatusCode::REQUEST_TIMEOUT,
        BodyError::TimedOut { after }.to_string(),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

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
            Err(_) if conns.close_oldest_stalled() => {
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
        let conn = Arc::new(Conn::new(shutdown.child_token()));
        let id = conns.add(conn.clone());
        let exchange = Exchange {
            conn: conn.clone(),
            id,
            conns: conns.clone(),
            router: router.clone(),
            limits,
        };
        let conns = conns.clone();
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            let _permit = permit;
            let service =
                hyper::service::service_fn(move |request| exchange.clone().serve(request));
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(err) = result {
                        tracing::trace!(%err, "connection ended");
                    }
                }
                () = conn.close.cancelled() => {
                    if shutdown.is_cancelled() && conn.phase() != Phase::Head {
                        // Shutdown: idle connections close now, others after
                        // their answer.
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.await;
                    }
                    // Else closed for another connection or at shutdown while
                    // idle: dropped as it is.
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
}
