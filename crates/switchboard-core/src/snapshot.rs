//! `HubSnapshot`: a plain, serializable value of everything the CLI, the UI
//! and the tray show. It is rebuilt by the hub whenever an upstream reports a
//! change and published on a `watch` channel; readers never touch live state.
//! Field names are camelCase in JSON (`GET /api/v1/status`). The types are
//! the wire types of `switchboard-api`; this module re-exports them and turns
//! the core's errors into their wire form.
//!
//! A snapshot never carries a secret: no URL, header or env value of a server
//! is in it, and the text fields that can quote one (`lastError`,
//! `stderrTail`, `auth.message`, `configError`) are redacted by the builder
//! (`crate::util::redact`), on top of the redaction where that text is made.
//! A server's stderr is private besides: [`open_view`] is the snapshot an
//! unauthenticated read gets, without `stderrTail`.

use std::time::SystemTime;

/// The snapshot and its parts are wire types (`switchboard-api`); the hub
/// builds them in `build_snapshot`.
pub use switchboard_api::{BreakerSnapshot, HubSnapshot, ServerSnapshot, Totals};

/// `snapshot` as an open read sees it (`GET /api/v1/status` and `/events`
/// without the control token or the dashboard's session): without the
/// private fields, which are a server's own output like `/logs` (each
/// server's `stderrTail`).
pub fn open_view(snapshot: &HubSnapshot) -> HubSnapshot {
    let mut open = snapshot.clone();
    for server in &mut open.servers {
        server.stderr_tail = None;
    }
    open
}

/// The wire form of a failed login or logout (the control API's `detail`).
impl From<&crate::auth::AuthError> for switchboard_api::AuthErrorDetail {
    fn from(err: &crate::auth::AuthError) -> Self {
        use crate::auth::AuthError as E;
        let id = |s: &crate::config::ServerId| s.to_string();
        match err {
            E::UnknownServer { server } => Self::UnknownServer {
                server: server.clone(),
            },
            E::NotRemote { server } => Self::NotRemote { server: id(server) },
            E::Callback { port, message } => Self::Callback {
                port: *port,
                message: message.clone(),
            },
            E::Discovery { server, message } => Self::Discovery {
                server: id(server),
                message: message.clone(),
            },
            E::Registration { server, message } => Self::Registration {
                server: id(server),
                message: message.clone(),
            },
            E::Denied {
                server,
                error,
                description,
            } => Self::Denied {
                server: id(server),
                error: error.clone(),
                description: description.clone(),
            },
            E::StateMismatch { server } => Self::StateMismatch { server: id(server) },
            E::TokenExchange { server, message } => Self::TokenExchange {
                server: id(server),
                message: message.clone(),
            },
            E::TimedOut { server, after } => Self::TimedOut {
                server: id(server),
                after: switchboard_api::WireDuration {
                    secs: after.as_secs(),
                    nanos: after.subsec_nanos(),
                },
            },
            E::Cancelled { server } => Self::Cancelled { server: id(server) },
            E::Other { server, message } => Self::Other {
                server: id(server),
                message: message.clone(),
            },
            E::MissingSecret { name } => Self::MissingSecret { name: name.clone() },
            E::Store(store) => Self::Store {
                message: store.to_string(),
            },
        }
    }
}

/// RFC 3339 with milliseconds, UTC.
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
