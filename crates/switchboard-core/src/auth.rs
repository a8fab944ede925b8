//! OAuth 2.1 for remote upstreams and secrets from the OS keyring.
//!
//! The hub owns one [`Auth`]: the [`TokenStore`] chosen at start-up
//! ([`store::open`]) and one [`tokens::ServerAuth`] per server id, which holds
//! that server's credentials (cached; persisted under `oauth:<id>`), its last
//! `WWW-Authenticate` challenge, the login waiting for the browser and what
//! went wrong last. The upstream reads it to connect ([`Auth::authorized_client`]),
//! the hub drives logins ([`login`]) and logouts, the snapshot shows it
//! ([`Auth::snapshot`]).
//!
//! The flow is rmcp's (`auth` feature): a 401 with a `WWW-Authenticate`
//! challenge puts the server in `authRequired`; a login runs protected-resource
//! metadata discovery (RFC 9728), authorization-server metadata (RFC 8414 /
//! OIDC), client registration (the configured `oauth.clientId`, else dynamic
//! registration), PKCE S256, and receives the code on a loopback listener.
//! Connections send the token through rmcp's `AuthClient`, which refreshes it
//! when it is about to expire and once after a 401; [`keep_fresh`] also
//! refreshes it ahead of expiry while a connection is up, so a hub running for
//! days never presents an expired token.
//!
//! Never leak: tokens live only in the store and in rmcp's types (whose
//! `Debug` redacts them); no log line, snapshot field, API answer or error
//! message here contains one.

pub mod chunked;
mod cross_app;
mod legacy;
pub mod login;
mod machine;
pub mod store;
pub(crate) mod tokens;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rmcp::transport::auth::{
    AuthClient, AuthError as RmcpAuthError, AuthorizationManager, OAuthClientConfig,
};

pub use crate::config::{TokenStoreChoice, check_secret_name};
pub use login::LoginStarted;
pub use store::{KeyringKind, OpenedStore, StoreError, TokenStore};

use crate::config::{ConfigValue, OAuthConfig, ServerId};
use crate::events::UpstreamEvent;
use tokens::{AuthStates, Credentials, ServerAuth};

/// Why a login, a logout or a secret lookup failed. Each names what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AuthError {
    #[error("no server with id '{server}'")]
    UnknownServer { server: String },
    #[error(
        "server '{server}' is not a remote server; only servers with a `url` log in with OAuth"
    )]
    NotRemote { server: ServerId },
    #[error("cannot listen for the OAuth callback on 127.0.0.1:{port}: {message}")]
    Callback { port: u16, message: String },
    #[error("server '{server}': OAuth discovery failed: {message}")]
    Discovery { server: ServerId, message: String },
    #[error("server '{server}': OAuth client registration failed: {message}")]
    Registration { server: ServerId, message: String },
    #[error("server '{server}': the authorization server denied access ({error}{})",
        .description.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Denied {
        server: ServerId,
        error: String,
        description: Option<String>,
    },
    #[error(
        "server '{server}': the OAuth callback's state does not match this login (a stale or forged redirect); login aborted"
    )]
    StateMismatch { server: ServerId },
    #[error("server '{server}': exchanging the authorization code failed: {message}")]
    TokenExchange { server: ServerId, message: String },
    #[error("server '{server}': the login was not completed within {} min", .after.as_secs() / 60)]
    TimedOut { server: ServerId, after: Duration },
    #[error("server '{server}': the login was cancelled")]
    Cancelled { server: ServerId },
    #[error("server '{server}': {message}")]
    Other { server: ServerId, message: String },
    #[error("secret '{name}' is not in the keyring; store it with `switchboard secret set {name}`")]
    MissingSecret { name: String },
    #[error("{0}")]
    Store(#[from] StoreError),
}

impl serde::Serialize for StoreError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// What the snapshot says about one remote server's authorization (a wire type).
pub use switchboard_api::AuthSnapshot;

/// The hub's OAuth and secret state (see the module docs).
pub struct Auth {
    opened: OpenedStore,
    servers: Mutex<HashMap<ServerId, Arc<ServerAuth>>>,
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
}

impl Auth {
    pub(crate) fn new(
        opened: OpenedStore,
        events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    ) -> Self {
        Self {
            opened,
            servers: Mutex::new(HashMap::new()),
            events,
        }
    }

    pub fn keyring(&self) -> KeyringKind {
        self.opened.kind()
    }

    /// The store secrets are kept in (the registry install writes there).
    pub(crate) fn secret_store(&self) -> std::sync::Arc<dyn TokenStore> {
        self.opened.store.clone()
    }

    /// Why tokens are not kept in the OS keyring, when they are not.
    pub fn keyring_note(&self) -> Option<&str> {
        self.opened.note.as_deref()
    }

    pub(crate) fn server(&self, id: &ServerId) -> Arc<ServerAuth> {
        let mut servers = self.servers.lock().unwrap_or_else(|e| e.into_inner());
        servers
            .entry(id.clone())
            .or_insert_with(|| {
                Arc::new(ServerAuth::new(
                    id.clone(),
                    self.opened.store.clone(),
                    self.events.clone(),
                ))
            })
            .clone()
    }

    /// The value of a config field: literal, or read from the keyring.
    pub async fn resolve(&self, value: &ConfigValue) -> Result<String, AuthError> {
        match value {
            ConfigValue::Literal(text) => Ok(text.clone()),
            ConfigValue::Keyring(name) => {
                let account = store::secret_account(name);
                let value = store::call(&self.opened.store, move |s| s.get(&account))
                    .await?
                    .ok_or_else(|| AuthError::MissingSecret { name: name.clone() })?;
                // A keyring value is a secret whatever its shape: mask it in every output.
                crate::util::redact::remember([value.as_str()]);
                Ok(value)
            }
        }
    }

    /// The snapshot entry of a remote server.
    pub fn snapshot(&self, id: &ServerId, oauth: Option<&OAuthConfig>) -> AuthSnapshot {
        let status = self.server(id).status();
        let logged_in = status.logged_in.unwrap_or(false);
        let required = status.challenged || oauth.is_some() || logged_in;
        let login_pending = status.login.is_some();
        let message = if login_pending {
            Some("waiting for the login to be completed in the browser".to_string())
        } else if let Some(problem) = status.problem {
            Some(format!("{problem} (`switchboard login {id}`)"))
        } else if let Some(save_error) = status.save_error {
            Some(save_error)
        } else if required && !logged_in && status.logged_in.is_some() {
            Some(format!(
                "not logged in; log in with `switchboard login {id}`"
            ))
        } else if required && !self.keyring().persists() {
            self.opened.note.clone()
        } else {
            None
        };
        AuthSnapshot {
            required,
            logged_in,
            keyring: self.keyring(),
            login_pending,
            message,
        }
    }

    /// Reads every listed server's stored credentials once, so the snapshot
    /// knows who is logged in before anything connects.
    pub(crate) async fn preload(&self, ids: Vec<ServerId>) {
        for id in ids {
            if let Err(err) = self.server(&id).load().await {
                tracing::warn!(server = %id, error = %err, "cannot read stored credentials");
            }
        }
    }

    /// Gets a token with the client-credentials grant (SEP-1046) for the
    /// configured client and stores it like a login's ([`machine`]): with
    /// `oauth.clientSecret`, or with a JWT assertion signed by
    /// `oauth.signingKey`, for the server's URL as the resource.
    async fn client_credentials(
        &self,
        id: &ServerId,
        url: &str,
        oauth: &OAuthConfig,
    ) -> Result<(), AuthError> {
        let needs = || AuthError::Other {
            server: id.clone(),
            message: "the client-credentials grant needs `oauth.clientId` and \
                      `oauth.clientSecret` (or `oauth.signingKey`)"
                .into(),
        };
        let client_id = oauth.client_id.as_deref().ok_or_else(needs)?;
        let proof = match (&oauth.client_secret, &oauth.signing_key) {
            (Some(secret), _) => machine::ClientProof::Secret(self.resolve(secret).await?),
            (None, Some(key)) => {
                let pem = self.resolve(key).await?;
                // A private key is a secret whatever its source: mask it in every output.
                crate::util::redact::remember([pem.as_str()]);
                machine::ClientProof::SigningKey {
                    pem,
                    algorithm: oauth
                        .signing_algorithm
                        .unwrap_or(crate::config::SigningAlgorithm::RS256),
                }
            }
            (None, None) => return Err(needs()),
        };
        let server = self.server(id);
        if let Err(err) = machine::obtain(id, server.clone(), url, oauth, client_id, proof).await {
            server.update(|s| s.problem = Some(err.to_string()));
            return Err(err);
        }
        server.update(|s| s.problem = None);
        tracing::info!(server = %id, "got a token with the client-credentials grant");
        Ok(())
    }

    /// Gets a token by cross-app access (SEP-990) and stores it like a
    /// login's ([`cross_app`]): the ID token of `oauth.identityProvider`
    /// exchanged for an ID-JAG, presented to the server's authorization server.
    async fn cross_app_access(
        &self,
        id: &ServerId,
        url: &str,
        oauth: &OAuthConfig,
    ) -> Result<(), AuthError> {
        let (Some(client_id), Some(idp)) = (oauth.client_id.as_deref(), &oauth.identity_provider)
        else {
            return Err(AuthError::Other {
                server: id.clone(),
                message: "cross-app access needs `oauth.clientId` and `oauth.identityProvider`"
                    .into(),
            });
        };
        let client_secret = match &oauth.client_secret {
            Some(secret) => Some(self.resolve(secret).await?),
            None => None,
        };
        let idp_secret = match &idp.client_secret {
            Some(secret) => Some(self.resolve(secret).await?),
            None => None,
        };
        let id_token = self.resolve(&idp.id_token).await?;
        // The ID token is a secret whatever its source: mask it in every output.
        crate::util::redact::remember([id_token.as_str()]);
        let secrets = cross_app::Secrets {
            client_secret,
            idp_secret,
            id_token,
        };
        let server = self.server(id);
        if let Err(err) =
            cross_app::obtain(id, server.clone(), url, oauth, client_id, idp, secrets).await
        {
            server.update(|s| s.problem = Some(err.to_string()));
            return Err(err);
        }
        server.update(|s| s.problem = None);
        tracing::info!(server = %id, "got a token by cross-app access");
        Ok(())
    }

    /// An HTTP client for the server at `url` that sends its stored token
    /// (and refreshes it), or `None` when no token is stored. Resolves the
    /// authorization server's metadata (needed to refresh).
    pub(crate) async fn authorized_client(
        &self,
        id: &ServerId,
        url: &str,
        oauth: Option<&OAuthConfig>,
        http: reqwest::Client,
    ) -> Result<Option<Authorized>, AuthError> {
        let server = self.server(id);
        let stored = match server.load().await? {
            Some(stored) if stored.token_response.is_some() => stored,
            // A machine client needs no person: it asks for a token itself.
            _ if let Some(oauth) =
                oauth.filter(|o| o.grant == crate::config::OAuthGrant::ClientCredentials) =>
            {
                self.client_credentials(id, url, oauth).await?;
                match server.load().await? {
                    Some(stored) if stored.token_response.is_some() => stored,
                    _ => return Ok(None),
                }
            }
            _ if let Some(oauth) =
                oauth.filter(|o| o.grant == crate::config::OAuthGrant::CrossAppAccess) =>
            {
                self.cross_app_access(id, url, oauth).await?;
                match server.load().await? {
                    Some(stored) if stored.token_response.is_some() => stored,
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let mut manager = AuthorizationManager::new(url)
            .await
            .map_err(|e| login::classify(id, e))?;
        manager.set_credential_store(Credentials(server.clone()));
        manager.set_state_store(AuthStates(server.clone()));
        // Resolved here (not inside rmcp's `initialize_from_store`) for the
        // 2025-03-26 fallback of [`legacy`].
        let metadata = legacy::resolve(&manager, url, None)
            .await
            .map_err(|e| login::classify(id, e))?;
        manager.set_metadata(metadata);
        if !manager
            .initialize_from_store()
            .await
            .map_err(|e| login::classify(id, e))?
        {
            // The authorization server changed; rmcp discarded the tokens.
            server.update(|s| {
                s.problem = Some("the authorization server changed; log in again".into())
            });
            return Ok(None);
        }
        // A confidential pre-registered client authenticates its refreshes.
        if let Some(oauth) = oauth
            && let (Some(client_id), Some(secret)) = (&oauth.client_id, &oauth.client_secret)
            && *client_id == stored.client_id
        {
            let secret = self.resolve(secret).await?;
            manager
                .configure_client(
                    OAuthClientConfig::new(client_id.clone(), url).with_client_secret(secret),
                )
                .map_err(|e| login::classify(id, e))?;
        }
        let client = AuthClient::new(http, manager);
        Ok(Some(Authorized {
            manager: client.auth_manager.clone(),
            client,
            server,
        }))
    }
}

/// A connection's authorized HTTP client and what keeps its token fresh.
pub(crate) struct Authorized {
    pub client: AuthClient<reqwest::Client>,
    manager: Arc<tokio::sync::Mutex<AuthorizationManager>>,
    server: Arc<ServerAuth>,
}

/// What [`keep_fresh`] needs for one connection.
pub(crate) type Refresher = (
    Arc<tokio::sync::Mutex<AuthorizationManager>>,
    Arc<ServerAuth>,
);

impl Authorized {
    /// What [`keep_fresh`] needs for this connection.
    pub(crate) fn refresher(&self) -> Refresher {
        (self.manager.clone(), self.server.clone())
    }
}

/// How long before expiry a token is refreshed: a quarter of its lifetime,
/// at most five minutes.
fn refresh_margin(lifetime: Duration) -> Duration {
    (lifetime / 4).min(Duration::from_secs(300))
}

/// Refreshes a connection's token ahead of its expiry until `stop` fires.
/// Returns why the tokens stopped working if the authorization server refused
/// a refresh (the caller then moves the server to `authRequired`).
pub(crate) async fn keep_fresh(
    manager: Arc<tokio::sync::Mutex<AuthorizationManager>>,
    server: Arc<ServerAuth>,
    stop: tokio_util::sync::CancellationToken,
) -> Option<String> {
    let mut failures: u32 = 0;
    loop {
        let Some((expires_at, lifetime)) = server.expiry().await else {
            // No expiry known: rmcp refreshes after a 401 instead.
            return None;
        };
        let due = expires_at
            .checked_sub(refresh_margin(lifetime))
            .unwrap_or(expires_at);
        let wait = due
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        let wait = if failures > 0 {
            // Retry a failed refresh with backoff, but no later than needed.
            Duration::from_secs(2u64.saturating_pow(failures.min(8)))
                .min(lifetime.max(Duration::from_secs(1)))
        } else {
            wait
        };
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stop.cancelled() => return None,
        }
        // Someone (rmcp on a request) may have refreshed meanwhile.
        if failures == 0
            && let Some((expires_at, lifetime)) = server.expiry().await
            && expires_at
                .checked_sub(refresh_margin(lifetime))
                .is_some_and(|due| due > SystemTime::now())
        {
            continue;
        }
        let refreshed = tokio::select! {
            r = async { manager.lock().await.refresh_token().await } => r,
            () = stop.cancelled() => return None,
        };
        match refreshed {
            Ok(_) => {
                failures = 0;
                tracing::info!(server = %server.server, "access token refreshed ahead of expiry");
            }
            Err(RmcpAuthError::TokenRefreshRejected(_) | RmcpAuthError::AuthorizationRequired) => {
                return Some(server.status().problem.unwrap_or_else(|| {
                    "the stored tokens can no longer be refreshed; log in again".into()
                }));
            }
            Err(err) => {
                failures += 1;
                tracing::warn!(server = %server.server, error = %err, "refreshing the access token failed; will retry");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_margin_is_a_quarter_capped() {
        assert_eq!(
            refresh_margin(Duration::from_secs(2)),
            Duration::from_millis(500)
        );
        assert_eq!(
            refresh_margin(Duration::from_secs(3600)),
            Duration::from_secs(300)
        );
    }

    #[tokio::test]
    async fn snapshot_says_what_to_do() {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let auth = Auth::new(
            OpenedStore::memory(KeyringKind::Unavailable, Some("no keyring".into())),
            tx,
        );
        let id = ServerId::new("gh").unwrap();
        // A remote server that never asked for OAuth shows nothing to do.
        let quiet = auth.snapshot(&id, None);
        assert!(!quiet.required && quiet.message.is_none());
        auth.server(&id)
            .set_challenge(Some("Bearer resource_metadata=\"x\""));
        auth.preload(vec![id.clone()]).await;
        let snap = auth.snapshot(&id, None);
        assert_eq!(
            snap,
            AuthSnapshot {
                required: true,
                logged_in: false,
                keyring: KeyringKind::Unavailable,
                login_pending: false,
                message: Some("not logged in; log in with `switchboard login gh`".into()),
            }
        );
        let err = auth
            .resolve(&ConfigValue::Keyring("API_KEY".into()))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "secret 'API_KEY' is not in the keyring; store it with `switchboard secret set API_KEY`"
        );
    }
}
