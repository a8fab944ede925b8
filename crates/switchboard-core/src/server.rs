//! Runs a bound hub (layer 6): composes the HTTP layer over the hub and
//! serves it on the hub's listener until shutdown, in the shape of
//! mini-redis's `server::run(listener, shutdown)`.
//!
//! Everything the HTTP layer needs is built here and passed in, so no module
//! below knows how the whole is put together: the hub's own work (events,
//! config watcher, poller, warm catalog) and the order things close in at
//! shutdown stay with the hub ([`Hub::serve_with`]); the router, the session
//! reaper and the connection limits are added here.

use std::future::Future;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::http::listener::{self, ConnectionLimits};
use crate::hub::{Hub, HubError, HubHandle};

/// Serves `hub` until `shutdown` resolves (or the listener fails), then
/// closes every upstream and waits for the hub's tasks, with deadlines.
///
/// The CLI passes ctrl-c, the desktop app its quit signal, tests a oneshot.
pub async fn run(
    hub: Hub,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HubError> {
    hub.serve_with(serve_http, shutdown).await
}

/// The HTTP layer on the hub's listener: the router, and the reaper that
/// expires idle MCP sessions. `cancel` is the hub's root token: the listener
/// stops when it fires; the reaper gets a child so it stops with it but not
/// the other way round. The reaper joins `tasks` so shutdown waits for it.
fn serve_http(
    hub: HubHandle,
    tcp: TcpListener,
    cancel: CancellationToken,
    tasks: &TaskTracker,
) -> impl Future<Output = std::io::Result<()>> + use<> {
    tasks.spawn(crate::http::session_manager::run_reaper(
        hub.clone(),
        cancel.child_token(),
    ));
    let router = crate::http::router(hub.clone());
    // Limits are read once: settings are fixed for the hub's lifetime.
    let limits = ConnectionLimits::from_settings(hub.settings());
    listener::serve(tcp, router, limits, cancel)
}

impl Hub {
    /// Serves until `shutdown` resolves, then closes everything (see [`run`]).
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError> {
        run(self, shutdown).await
    }
}
