//! What OAuth does to a remote server's lifecycle: a missing or refused
//! token puts it in `AuthRequired`, a login lets the next need reconnect.
//! The tokens themselves live in `crate::auth`; the connection a lost
//! authorization closes is the upstream's (`connect.rs`).

use super::status::StatusCell;
use super::{ServerState, UpstreamError};
use crate::config::ServerId;
use crate::resilience::Breaker;
use crate::util::redact;

/// Why `server` needs a login, for error messages: the last problem with
/// its tokens, else what to run.
pub(super) fn reason(auth: &crate::auth::Auth, server: &ServerId) -> String {
    let status = auth.server(server).status();
    match status.problem {
        Some(problem) => format!("{problem} (`switchboard login {server}`)"),
        None => format!("log in with `switchboard login {server}`"),
    }
}

/// A stored token could not be put to use (keyring or authorization server trouble).
pub(super) fn setup_error(
    server: &ServerId,
    url: &str,
    err: crate::auth::AuthError,
) -> UpstreamError {
    UpstreamError::Connect {
        server: server.clone(),
        url: redact::url(url),
        message: format!("cannot use the stored OAuth token: {err}"),
    }
}

impl StatusCell {
    /// Puts the server in `authRequired` with `reason` (after a logout, a
    /// refused refresh, or a 401 on a running connection).
    pub(super) fn set_auth_required(&self, server: &ServerId, reason: String) {
        let err = UpstreamError::AuthRequired {
            server: server.clone(),
            reason,
        };
        tracing::warn!(server = %server, error = %err, "authorization required");
        self.note("warn", err.to_string());
        self.record_failure(&err, Some(ServerState::AuthRequired));
        self.update(|s| s.pid = None);
    }

    /// A login succeeded (its old connection already closed): the breaker
    /// and the error are reset, so the next need connects with the new token.
    pub(super) fn logged_in(&self, enabled: bool) {
        self.update(|s| {
            s.breaker = Breaker::default();
            s.last_error = None;
            if s.state == ServerState::AuthRequired {
                s.state = if enabled {
                    ServerState::Idle
                } else {
                    ServerState::Disabled
                };
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::resilience::BreakerState;

    #[test]
    fn a_lost_authorization_is_shown_until_a_login_resets_the_breaker() {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let server = ServerId::new("remote").unwrap();
        let cell = StatusCell::new(server.clone(), ServerState::Ready, tx);
        cell.set_auth_required(&server, "the token was revoked".into());
        let view = cell.view(true);
        assert_eq!(view.state, ServerState::AuthRequired);
        assert!(
            view.last_error
                .as_deref()
                .is_some_and(|e| e.contains("the token was revoked")),
            "{:?}",
            view.last_error
        );
        assert_eq!(cell.log_lines().last().unwrap().level, "warn");
        cell.logged_in(true);
        let view = cell.view(true);
        assert_eq!(view.state, ServerState::Idle);
        assert_eq!(view.breaker, BreakerState::Closed);
        assert_eq!(view.last_error, None);
        cell.set_auth_required(&server, "again".into());
        cell.logged_in(false);
        assert_eq!(cell.view(false).state, ServerState::Disabled);
    }
}
