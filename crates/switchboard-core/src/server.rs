//! Composition at the top: the hub served by the HTTP layer. The hub itself
//! knows nothing of HTTP; [`Hub::run`] hands it the listener's serving loop
//! (control API, MCP routes, session reaper), built from the hub's handle.

use std::future::Future;

use crate::hub::{Hub, HubError};

impl Hub {
    /// Serves until `shutdown` resolves, then closes everything.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HubError> {
        self.serve_with(
            |hub, listener| {
                hub.spawn(crate::http_sessions::run_reaper(
                    hub.clone(),
                    hub.shutdown_token().child_token(),
                ));
                let router = crate::control::router(hub.clone());
                let limits = crate::listener::ConnectionLimits::from_settings(hub.settings());
                let cancel = hub.shutdown_token().clone();
                crate::listener::serve(listener, router, limits, cancel)
            },
            shutdown,
        )
        .await
    }
}
