//! Driving an OAuth login or logout of a remote server: the browser URL
//! handed back at once, the callback awaited as a hub task, the server
//! reconnected and re-listed with its new tokens; failures recorded on the
//! server (state, message) and in the snapshot.

use super::HubHandle;
use crate::listing::RefreshTrigger;
use crate::upstream::Upstream;

impl HubHandle {
    /// Starts an OAuth login of remote server `id` and returns the URL to
    /// open in a browser. The loopback callback listener is already bound;
    /// when the browser comes back the tokens are stored and the server
    /// reconnects with them. A login already waiting for `id` is cancelled.
    pub async fn login(
        &self,
        id: &str,
    ) -> Result<crate::auth::LoginStarted, crate::auth::AuthError> {
        use crate::auth::AuthError;
        let upstream = self.upstream(id).ok_or_else(|| AuthError::UnknownServer {
            server: id.to_string(),
        })?;
        let config = upstream.config();
        let crate::config::TransportConfig::Http { url, .. } = &config.transport else {
            return Err(AuthError::NotRemote {
                server: upstream.id.clone(),
            });
        };
        let auth = self.inner.auth.clone();
        let server_auth = auth.server(&upstream.id);
        server_auth.cancel_login();
        let oauth = config.oauth.as_ref();
        let client_secret = match oauth.and_then(|o| o.client_secret.as_ref()) {
            Some(value) => Some(auth.resolve(value).await?),
            None => None,
        };
        let (started, pending) =
            match crate::auth::login::begin(server_auth.clone(), url, oauth, client_secret).await {
                Ok(started) => started,
                Err(err) => {
                    login_failed(&upstream, &server_auth, &err);
                    self.publish_snapshot();
                    return Err(err);
                }
            };
        let cancel = self.inner.cancel.child_token();
        server_auth.update(|s| {
            s.login = Some(cancel.clone());
            s.problem = None;
        });
        let hub = self.clone();
        self.inner.tasks.spawn(async move {
            let finished = pending.finish(cancel.clone()).await;
            // Still ours unless a newer login cancelled it (and took the slot).
            if !cancel.is_cancelled() {
                server_auth.update(|s| s.login = None);
            }
            match finished {
                Ok(()) => {
                    upstream.after_login().await;
                    if let Err(err) = hub.refresh(&upstream.id, RefreshTrigger::Manual).await {
                        tracing::warn!(server = %upstream.id, error = %err, "listing after login failed");
                    }
                }
                // A newer login replaced this one: it reports for itself.
                Err(crate::auth::AuthError::Cancelled { .. }) => {}
                Err(err) => login_failed(&upstream, &server_auth, &err),
            }
            hub.publish_snapshot();
        });
        // The answer's reader sees `loginPending` at once.
        self.publish_snapshot();
        Ok(started)
    }

    /// Forgets server `id`'s tokens and client registration (deletes its
    /// keyring entry) and puts it in `authRequired`.
    pub async fn logout(&self, id: &str) -> Result<(), crate::auth::AuthError> {
        use crate::auth::AuthError;
        let upstream = self.upstream(id).ok_or_else(|| AuthError::UnknownServer {
            server: id.to_string(),
        })?;
        if !matches!(
            upstream.config().transport,
            crate::config::TransportConfig::Http { .. }
        ) {
            return Err(AuthError::NotRemote {
                server: upstream.id.clone(),
            });
        }
        let server_auth = self.inner.auth.server(&upstream.id);
        server_auth.cancel_login();
        server_auth.clear().await?;
        server_auth.update(|s| {
            s.problem = Some("logged out".into());
            s.challenged = true;
        });
        upstream.close().await;
        upstream.set_auth_required(format!("logged out; log in with `switchboard login {id}`"));
        tracing::info!(server = %upstream.id, "logged out");
        self.publish_snapshot();
        Ok(())
    }
}

/// Records a failed login on the server (snapshot message, state, log).
fn login_failed(
    upstream: &Upstream,
    server_auth: &crate::auth::tokens::ServerAuth,
    err: &crate::auth::AuthError,
) {
    tracing::warn!(server = %upstream.id, error = %err, "login failed");
    let text = err.to_string();
    let prefix = format!("server '{}': ", upstream.id);
    let detail = text.strip_prefix(&prefix).unwrap_or(&text);
    server_auth.update(|s| s.problem = Some(format!("login failed: {detail}")));
    upstream.set_auth_required(format!("login failed: {detail}"));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use crate::auth::AuthError;
    use crate::config::{self, ServerId};
    use crate::hub::{Hub, HubOptions};

    #[tokio::test]
    async fn only_a_configured_remote_server_logs_in_or_out() {
        let mut config = config::load(config::Source::text(
            r#"{"mcpServers":{"local":{"command":"switchboard-test-no-such-command"}}}"#,
            Path::new("t.json"),
        ))
        .unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let hub = Hub::bind(config, HubOptions::default()).await.unwrap();
        let handle = hub.handle();
        let unknown = AuthError::UnknownServer {
            server: "nobody".into(),
        };
        let not_remote = AuthError::NotRemote {
            server: ServerId::new("local").unwrap(),
        };
        assert_eq!(handle.login("nobody").await.err(), Some(unknown.clone()));
        assert_eq!(handle.login("local").await.err(), Some(not_remote.clone()));
        assert_eq!(handle.logout("nobody").await.err(), Some(unknown));
        assert_eq!(handle.logout("local").await.err(), Some(not_remote));
        handle.shutdown();
    }
}
