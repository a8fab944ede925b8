//! One server's OAuth state: its credentials (cached in memory, persisted in
//! the [`TokenStore`]), the last `WWW-Authenticate` challenge, the login in
//! progress and what went wrong last — everything the snapshot says about
//! the server's authorization, and nothing that reveals a token.
//!
//! [`Credentials`] and [`AuthStates`] adapt it to rmcp's `CredentialStore`
//! and `StateStore`, so rmcp's `AuthorizationManager` reads and writes the
//! same cache whichever manager (login, connection, refresher) does it.
//!
//! Concurrency: `cache` is a tokio mutex held across the keyring call that
//! fills or writes it, so keyring writes of one server are serialized (a
//! logout can't be undone by a refresh finishing after it). `status` is a std
//! mutex for short reads and writes only. `refresh` is the guard rmcp holds
//! across load → token request → save of a refresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::TokenResponse;
use rmcp::transport::auth::{
    AuthError as RmcpAuthError, CredentialRefreshGuard, CredentialStore, StateStore,
    StoredAuthorizationState, StoredCredentials,
};
use tokio_util::sync::CancellationToken;

use super::store::{self, TokenStore};
use crate::config::ServerId;
use crate::events::UpstreamEvent;

/// How long an authorization request (PKCE verifier, state) stays usable.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// What the snapshot shows about a server's authorization.
#[derive(Debug, Clone, Default)]
pub(crate) struct Status {
    /// Credentials are stored; `None` until they were first looked up.
    pub logged_in: Option<bool>,
    /// The server answered with an OAuth challenge (401 + `WWW-Authenticate`).
    pub challenged: bool,
    /// A login waits for the browser; cancelled when another starts.
    pub login: Option<CancellationToken>,
    /// The last login failure, or why the stored tokens stopped working.
    pub problem: Option<String>,
    /// Why the tokens could not be written to the keyring, if they could not.
    pub save_error: Option<String>,
}

/// One server's OAuth state (see the module docs).
pub(crate) struct ServerAuth {
    pub server: ServerId,
    store: Arc<dyn TokenStore>,
    account: String,
    /// `None` until loaded from the keyring; then the stored credentials, if any.
    cache: tokio::sync::Mutex<Option<Option<StoredCredentials>>>,
    status: Mutex<Status>,
    /// The last `WWW-Authenticate` challenge, to seed discovery at login.
    challenge: Mutex<Option<String>>,
    refresh: Arc<tokio::sync::Mutex<()>>,
    states: Mutex<HashMap<String, StoredAuthorizationState>>,
    /// Tells the hub to republish the snapshot.
    events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
}

impl ServerAuth {
    pub(crate) fn new(
        server: ServerId,
        store: Arc<dyn TokenStore>,
        events: tokio::sync::mpsc::UnboundedSender<UpstreamEvent>,
    ) -> Self {
        Self {
            account: store::oauth_account(server.as_str()),
            server,
            store,
            cache: tokio::sync::Mutex::new(None),
            status: Mutex::new(Status::default()),
            challenge: Mutex::new(None),
            refresh: Arc::new(tokio::sync::Mutex::new(())),
            states: Mutex::new(HashMap::new()),
            events,
        }
    }

    pub(crate) fn status(&self) -> Status {
        self.status
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.status.lock().unwrap_or_else(|e| e.into_inner()));
        let _ = self.events.send(UpstreamEvent::StateChanged);
    }

    pub(crate) fn set_challenge(&self, challenge: Option<&str>) {
        if let Some(challenge) = challenge
            && let Ok(mut slot) = self.challenge.lock()
        {
            *slot = Some(challenge.to_string());
        }
        if !self.status().challenged {
            self.update(|s| s.challenged = true);
        }
    }

    pub(crate) fn challenge(&self) -> Option<String> {
        self.challenge.lock().ok().and_then(|c| c.clone())
    }

    /// The stored credentials, read from the keyring on first use.
    pub(crate) async fn load(&self) -> Result<Option<StoredCredentials>, store::StoreError> {
        let mut cache = self.cache.lock().await;
        if let Some(loaded) = cache.as_ref() {
            return Ok(loaded.clone());
        }
        let account = self.account.clone();
        let text = store::call(&self.store, move |s| s.get(&account)).await?;
        let loaded = text.and_then(|text| {
            match serde_json::from_str::<StoredCredentials>(&text) {
                Ok(credentials) => Some(credentials),
                Err(err) => {
                    // The error names a position, never the content.
                    tracing::warn!(server = %self.server, %err, "ignoring an unreadable keyring entry");
                    None
                }
            }
        });
        let logged_in = loaded.as_ref().is_some_and(has_tokens);
        *cache = Some(loaded.clone());
        drop(cache);
        self.update(|s| s.logged_in = Some(logged_in));
        Ok(loaded)
    }

    /// Whether usable tokens are stored (reads the keyring on first use).
    #[cfg(test)]
    pub(crate) async fn has_tokens(&self) -> Result<bool, store::StoreError> {
        Ok(self.load().await?.as_ref().is_some_and(has_tokens))
    }

    /// When the stored access token expires and how long it lived, if known.
    pub(crate) async fn expiry(&self) -> Option<(SystemTime, Duration)> {
        let cache = self.cache.lock().await;
        let credentials = cache.as_ref()?.as_ref()?;
        let lifetime = credentials.token_response.as_ref()?.expires_in()?;
        // Both numbers come from outside (the keyring, the authorization
        // server): a time past what the clock can hold means unknown, not a panic.
        let received =
            UNIX_EPOCH.checked_add(Duration::from_secs(credentials.token_received_at?))?;
        Some((received.checked_add(lifetime)?, lifetime))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), store::StoreError> {
        let text =
            serde_json::to_string(&credentials).map_err(|e| store::StoreError::Platform {
                kind: self.store.kind(),
                message: format!("cannot encode the credentials: {e}"),
            })?;
        let logged_in = has_tokens(&credentials);
        let mut cache = self.cache.lock().await;
        *cache = Some(Some(credentials));
        let account = self.account.clone();
        let written = store::call(&self.store, move |s| s.set(&account, &text)).await;
        drop(cache);
        let save_error = match written {
            Ok(()) => None,
            Err(err) => {
                tracing::warn!(server = %self.server, error = %err, "cannot write the token to the keyring");
                Some(format!(
                    "the token could not be saved in the keyring ({err}); it is kept in memory \
                     until Switchboard stops"
                ))
            }
        };
        self.update(|s| {
            s.logged_in = Some(logged_in);
            s.save_error = save_error;
            if logged_in {
                s.problem = None;
            }
        });
        Ok(())
    }

    /// Deletes the stored credentials (tokens and client registration).
    pub(crate) async fn clear(&self) -> Result<(), store::StoreError> {
        let mut cache = self.cache.lock().await;
        let account = self.account.clone();
        let deleted = store::call(&self.store, move |s| s.delete(&account)).await;
        if deleted.is_ok() {
            *cache = Some(None);
        }
        drop(cache);
        deleted?;
        self.update(|s| {
            s.logged_in = Some(false);
            s.save_error = None;
        });
        Ok(())
    }

    /// The authorization server refused the refresh token: forget the tokens
    /// and say why.
    async fn refresh_rejected(&self) {
        tracing::warn!(server = %self.server, "the authorization server rejected the refresh token");
        if let Err(err) = self.clear().await {
            tracing::warn!(server = %self.server, error = %err, "cannot delete the rejected credentials");
        }
        self.update(|s| {
            s.problem = Some(
                "the authorization server rejected the refresh token (revoked or expired); \
                 log in again"
                    .into(),
            )
        });
    }

    /// Cancels the login waiting for the browser, if any.
    pub(crate) fn cancel_login(&self) {
        if let Some(login) = self.status().login {
            login.cancel();
        }
    }
}

fn has_tokens(credentials: &StoredCredentials) -> bool {
    credentials.token_response.is_some()
}

fn rmcp_error(err: store::StoreError) -> RmcpAuthError {
    RmcpAuthError::CredentialStoreError(err.to_string())
}

/// rmcp's view of a server's credentials.
#[derive(Clone)]
pub(crate) struct Credentials(pub Arc<ServerAuth>);

#[async_trait::async_trait]
impl CredentialStore for Credentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, RmcpAuthError> {
        self.0.load().await.map_err(rmcp_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), RmcpAuthError> {
        self.0.save(credentials).await.map_err(rmcp_error)
    }

    async fn clear(&self) -> Result<(), RmcpAuthError> {
        self.0.clear().await.map_err(rmcp_error)
    }

    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), RmcpAuthError> {
        self.0.refresh_rejected().await;
        Ok(())
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, RmcpAuthError> {
        let guard = self.0.refresh.clone().lock_owned().await;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }
}

/// rmcp's view of a server's authorization requests in flight (memory only:
/// they are useless once the process that started them is gone).
#[derive(Clone)]
pub(crate) struct AuthStates(pub Arc<ServerAuth>);

#[async_trait::async_trait]
impl StateStore for AuthStates {
    async fn save(
        &self,
        csrf_token: &str,
        state: StoredAuthorizationState,
    ) -> Result<(), RmcpAuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut states = self.0.states.lock().unwrap_or_else(|e| e.into_inner());
        states.retain(|_, s| now.saturating_sub(s.created_at) < STATE_TTL.as_secs());
        states.insert(csrf_token.to_string(), state);
        Ok(())
    }

    async fn load(
        &self,
        csrf_token: &str,
    ) -> Result<Option<StoredAuthorizationState>, RmcpAuthError> {
        let states = self.0.states.lock().unwrap_or_else(|e| e.into_inner());
        Ok(states.get(csrf_token).cloned())
    }

    async fn delete(&self, csrf_token: &str) -> Result<(), RmcpAuthError> {
        let mut states = self.0.states.lock().unwrap_or_else(|e| e.into_inner());
        states.remove(csrf_token);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::MemoryTokenStore;

    fn credentials(client: &str, with_token: bool) -> StoredCredentials {
        let token = with_token.then(|| {
            serde_json::from_value(serde_json::json!({
                "access_token": "at-secret",
                "token_type": "Bearer",
                "expires_in": 60,
                "refresh_token": "rt-secret"
            }))
            .unwrap()
        });
        StoredCredentials::new(client.into(), token, vec![], Some(1_000))
    }

    fn server_auth(store: Arc<dyn TokenStore>) -> Arc<ServerAuth> {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        Arc::new(ServerAuth::new(ServerId::new("gh").unwrap(), store, tx))
    }

    #[tokio::test]
    async fn credentials_round_trip_through_the_store_as_json() {
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
        let auth = server_auth(store.clone());
        assert_eq!(auth.status().logged_in, None);
        assert!(!auth.has_tokens().await.unwrap());
        assert_eq!(auth.status().logged_in, Some(false));

        let creds = Credentials(auth.clone());
        CredentialStore::save(&creds, credentials("client-1", true))
            .await
            .unwrap();
        let raw = store.get("oauth:gh").unwrap().unwrap();
        let parsed: StoredCredentials = serde_json::from_str(&raw).unwrap();
        assert_eq!(parsed.client_id, "client-1");
        assert!(auth.has_tokens().await.unwrap());
        let (expires, lifetime) = auth.expiry().await.unwrap();
        assert_eq!(lifetime, Duration::from_secs(60));
        assert_eq!(expires, UNIX_EPOCH + Duration::from_secs(1_060));

        // A second handle (a restarted hub) reads the same entry.
        let again = server_auth(store.clone());
        assert!(again.has_tokens().await.unwrap());

        CredentialStore::clear(&creds).await.unwrap();
        assert_eq!(store.get("oauth:gh").unwrap(), None);
        assert_eq!(auth.status().logged_in, Some(false));
    }

    #[tokio::test]
    async fn a_rejected_refresh_token_forgets_the_tokens_and_says_why() {
        let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
        let auth = server_auth(store.clone());
        let creds = Credentials(auth.clone());
        CredentialStore::save(&creds, credentials("c", true))
            .await
            .unwrap();
        creds
            .on_refresh_token_rejected(&credentials("c", true))
            .await
            .unwrap();
        assert_eq!(store.get("oauth:gh").unwrap(), None);
        let status = auth.status();
        assert_eq!(status.logged_in, Some(false));
        assert!(
            status
                .problem
                .unwrap()
                .contains("rejected the refresh token")
        );
    }

    #[test]
    fn debug_output_hides_tokens() {
        let text = format!("{:?}", credentials("c", true));
        assert!(
            !text.contains("at-secret") && !text.contains("rt-secret"),
            "{text}"
        );
    }
}
