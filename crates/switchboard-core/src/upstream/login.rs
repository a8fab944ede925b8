//! What OAuth does to a remote server's lifecycle: a missing or refused
//! token puts it in `AuthRequired`, a login lets the next need reconnect.
//! The tokens themselves live in `crate::auth`.

use super::{ServerState, Upstream, UpstreamError};
use crate::resilience::Breaker;
use crate::util::redact;

impl Upstream {
    /// Why this server needs a login, for error messages: the last problem
    /// with its tokens, else what to run.
    pub(super) fn auth_reason(&self) -> String {
        let status = self.auth.server(&self.id).status();
        match status.problem {
            Some(problem) => format!("{problem} (`switchboard login {}`)", self.id),
            None => format!("log in with `switchboard login {}`", self.id),
        }
    }

    /// A stored token could not be put to use (keyring or authorization server trouble).
    pub(super) fn auth_setup_error(&self, url: &str, err: crate::auth::AuthError) -> UpstreamError {
        UpstreamError::Connect {
            server: self.id.clone(),
            url: redact::url(url),
            message: format!("cannot use the stored OAuth token: {err}"),
        }
    }

    /// The tokens of connection `generation` stopped working (a refresh was
    /// refused): close it and wait for a login.
    pub(super) async fn auth_lost(&self, generation: u64, reason: String) {
        let conn = {
            let mut slot = self.conn.lock().await;
            match slot.as_ref() {
                Some(c) if c.generation == generation => slot.take(),
                _ => None,
            }
        };
        if let Some(conn) = conn {
            conn.stop.cancel();
        }
        self.set_auth_required(reason);
    }

    /// Puts the server in `authRequired` with `reason` (after a logout, a
    /// refused refresh, or a 401 on a running connection).
    pub(crate) fn set_auth_required(&self, reason: String) {
        let err = UpstreamError::AuthRequired {
            server: self.id.clone(),
            reason,
        };
        tracing::warn!(server = %self.id, error = %err, "authorization required");
        self.note("warn", err.to_string());
        self.record_failure(&err, Some(ServerState::AuthRequired));
        self.update(|s| s.pid = None);
    }

    /// A login succeeded: drop the connection made without (or with the old)
    /// token, so the next need connects with the new one.
    pub(crate) async fn after_login(&self) {
        self.close().await;
        self.update(|s| {
            s.breaker = Breaker::default();
            s.last_error = None;
            if s.state == ServerState::AuthRequired {
                s.state = if self.is_enabled() {
                    ServerState::Idle
                } else {
                    ServerState::Disabled
                };
            }
        });
    }
}
