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
    // The totals count what clients get: the built-ins served beside the catalog.
    hub.set_builtin_tool_count(crate::builtin::served_count(hub.settings()));
    // Counted here because only this layer knows both the hub and its
    // built-in tools (a constant for the hub's lifetime); in the background,
    // as the counter (a helper process, see `hub::tokens`) takes a moment.
    let counting = hub.clone();
    tasks.spawn(async move {
        // The built-in tools (when served) and search mode's two (listed
        // whenever an endpoint is in search mode), in one helper run.
        let builtin = if counting.settings().builtin_tools {
            crate::builtin::tools()
        } else {
            Vec::new()
        };
        let split = builtin.len();
        let mut tools = builtin;
        tools.extend(crate::builtin::search::tools());
        // Code mode's tool last.
        tools.push(crate::codemode::tool());
        let count = tokio::task::spawn_blocking(move || crate::hub::count_each_tool(&tools));
        if let Ok(mut counts) = count.await {
            let code = counts.pop().unwrap_or(0);
            let (builtin, search) = counts.split_at(split.min(counts.len()));
            if split > 0 {
                counting.set_builtin_tool_tokens(builtin.iter().sum());
            }
            counting.set_search_tool_tokens(search.iter().sum());
            counting.set_code_tool_tokens(code);
        }
        counting.set_fixed_tools_counted();
    });
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
