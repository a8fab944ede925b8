//! Runs a bound hub (layer 6): composes the HTTP layer over the hub and
//! serves it on the hub's listener until shutdown. The hub's own work and the
//! order things close in stay with the hub (`Hub::serve_with`); the router,
//! the session reaper and the connection limits are added here, so the hub
//! does not depend on the HTTP layer.

use std::future::Future;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::hub::{Hub, HubError, HubHandle};

/// The HTTP layer on the hub's listener: the router, and the reaper that
/// expires idle MCP sessions (a child of the hub's token, joined to its
/// tasks so shutdown waits for it).
fn serve_http(
    hub: HubHandle,
    tcp: TcpListener,
    cancel: CancellationToken,
    tasks: &TaskTracker,
) -> impl Future<Output = std::io::Result<()>> + use<> {
    tasks.spawn(crate::http_sessions::run_reaper(
        hub.clone(),
        cancel.child_token(),
    ));
    let router = crate::control::router(hub.clone());
    let limits = crate::listener::ConnectionLimits::from_settings(hub.settings());
    crate::listener::serve(tcp, router, limits, cancel)
}

impl Hub {
    /// Serves until `shutdown` resolves, then closes everything.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError> {
        self.serve_with(serve_http, shutdown).await
    }
}
