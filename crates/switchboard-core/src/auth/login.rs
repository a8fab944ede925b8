//! The interactive login of one server: discovery, client registration,
//! PKCE, the authorization URL, and the loopback listener that receives the
//! authorization code.
//!
//! [`begin`] does everything up to the URL, with the callback listener
//! already bound (so the URL handed out points at a port that is listening),
//! and returns a [`PendingLogin`]; [`PendingLogin::finish`] waits for the
//! browser's redirect, checks its `state`, exchanges the code for tokens
//! (saved through the server's credential store) and answers the browser
//! with a page saying how it went.

use crate::util::error_chain;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse};
use rmcp::transport::auth::{
    AuthError as RmcpAuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    OAuthState,
};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::AuthError;
use super::tokens::{AuthStates, Credentials, ServerAuth};
use crate::config::OAuthConfig;

/// How long a login waits for the browser.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// The callback path on the loopback listener.
pub const CALLBACK_PATH: &str = "/oauth/callback";
/// The client name used for dynamic client registration.
const CLIENT_NAME: &str = "Switchboard";

/// What a started login hands to the person.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginStarted {
    /// Open this in a browser.
    pub authorization_url: String,
    /// Where the browser is sent back to (`http://127.0.0.1:<port>/oauth/callback`).
    pub redirect_uri: String,
}

/// A login waiting for the browser.
pub(crate) struct PendingLogin {
    auth: Arc<ServerAuth>,
    state: OAuthState,
    expected_state: String,
    listener: tokio::net::TcpListener,
}

/// Starts a login of the server at `url`: binds the callback listener,
/// discovers the authorization server (seeded by the last challenge),
/// registers a client unless one is configured, and builds the
/// authorization URL (PKCE S256).
pub(crate) async fn begin(
    auth: Arc<ServerAuth>,
    url: &str,
    oauth: Option<&OAuthConfig>,
    client_secret: Option<String>,
) -> Result<(LoginStarted, PendingLogin), AuthError> {
    let server = auth.server.clone();
    let port = oauth.and_then(|o| o.redirect_port).unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| AuthError::Callback {
            port,
            message: e.to_string(),
        })?;
    let port = listener
        .local_addr()
        .map_err(|e| AuthError::Callback {
            port,
            message: e.to_string(),
        })?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");

    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| classify(&server, e))?;
    manager.set_credential_store(Credentials(auth.clone()));
    manager.set_state_store(AuthStates(auth.clone()));
    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name(CLIENT_NAME);
    if let Some(challenge) = auth.challenge() {
        request = request.with_challenge(challenge);
    }
    if let Some(oauth) = oauth {
        if let Some(client_id) = &oauth.client_id {
            request = request.with_preregistered_client(client_id.clone());
        }
        if !oauth.scopes.is_empty() {
            request = request.with_scopes(oauth.scopes.clone());
        }
        if let Some(url) = &oauth.client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
    }
    if let Some(secret) = client_secret {
        request = request.with_client_secret(secret);
    }
    // Discovery as rmcp's `start_authorization` does it, plus the 2025-03-26
    // fallback (`legacy`); then the session (registration, PKCE, the URL).
    let metadata = super::legacy::resolve(&manager, url, auth.challenge().as_deref())
        .await
        .map_err(|e| classify(&server, e))?;
    manager.set_metadata(metadata);
    let state = OAuthState::Session(
        AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| classify(&server, e))?,
    );
    let authorization_url = state
        .get_authorization_url()
        .await
        .map_err(|e| classify(&server, e))?;
    let expected_state = reqwest::Url::parse(&authorization_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or_else(|| AuthError::Other {
            server: server.clone(),
            message: "the authorization URL has no state parameter".into(),
        })?;
    tracing::info!(%server, %redirect_uri, "login started; waiting for the browser");
    Ok((
        LoginStarted {
            authorization_url,
            redirect_uri,
        },
        PendingLogin {
            auth,
            state,
            expected_state,
            listener,
        },
    ))
}

/// One request to the callback path, with a way to answer it.
type Callback = (HashMap<String, String>, oneshot::Sender<Result<(), String>>);

impl PendingLogin {
    /// Waits for the browser (at most [`LOGIN_TIMEOUT`], or until `cancel`),
    /// then completes the login. The listener is closed when this returns.
    pub(crate) async fn finish(mut self, cancel: CancellationToken) -> Result<(), AuthError> {
        let server = self.auth.server.clone();
        let (tx, mut rx) = mpsc::channel::<Callback>(4);
        let stop = CancellationToken::new();
        let _stop_listener = stop.clone().drop_guard();
        let router = axum::Router::new()
            .route(CALLBACK_PATH, axum::routing::get(callback))
            .with_state(tx);
        let serving = axum::serve(self.listener, router)
            .with_graceful_shutdown(async move { stop.cancelled().await });
        let serve_task = tokio::spawn(async move {
            if let Err(err) = serving.await {
                tracing::debug!(%err, "the OAuth callback listener failed");
            }
        });

        let outcome = tokio::select! {
            received = rx.recv() => match received {
                Some((params, reply)) => {
                    let result = complete(&server, &mut self.state, &self.expected_state, &params).await;
                    let _ = reply.send(result.as_ref().map(|_| ()).map_err(|e| e.to_string()));
                    result
                }
                None => Err(AuthError::Other { server: server.clone(), message: "the callback listener stopped".into() }),
            },
            () = tokio::time::sleep(LOGIN_TIMEOUT) => Err(AuthError::TimedOut { server: server.clone(), after: LOGIN_TIMEOUT }),
            () = cancel.cancelled() => Err(AuthError::Cancelled { server: server.clone() }),
        };
        drop(_stop_listener);
        // Give the page a moment to reach the browser before the listener closes.
        let _ = tokio::time::timeout(Duration::from_secs(2), serve_task).await;
        outcome
    }
}

/// Checks the redirect's parameters and exchanges the code.
async fn complete(
    server: &crate::config::ServerId,
    state: &mut OAuthState,
    expected_state: &str,
    params: &HashMap<String, String>,
) -> Result<(), AuthError> {
    if let Some(error) = params.get("error") {
        return Err(AuthError::Denied {
            server: server.clone(),
            error: error.clone(),
            description: params.get("error_description").cloned(),
        });
    }
    let got_state = params.get("state").map(String::as_str).unwrap_or_default();
    if got_state != expected_state {
        return Err(AuthError::StateMismatch {
            server: server.clone(),
        });
    }
    let Some(code) = params.get("code") else {
        return Err(AuthError::Other {
            server: server.clone(),
            message: "the authorization server sent no code".into(),
        });
    };
    state
        .handle_callback_with_issuer(code, got_state, params.get("iss").map(String::as_str))
        .await
        .map_err(|e| match e {
            RmcpAuthError::CredentialStoreError(message) => AuthError::Other {
                server: server.clone(),
                message,
            },
            other => AuthError::TokenExchange {
                server: server.clone(),
                message: crate::util::redact::text(&other.to_string()),
            },
        })?;
    tracing::info!(%server, "login complete");
    Ok(())
}

async fn callback(
    State(tx): State<mpsc::Sender<Callback>>,
    Query(params): Query<HashMap<String, String>>,
) -> impl IntoResponse {
    let (reply_tx, reply_rx) = oneshot::channel();
    if tx.send((params, reply_tx)).await.is_err() {
        return page("This login is no longer waiting. Start it again from Switchboard.");
    }
    match reply_rx.await {
        Ok(Ok(())) => page("You are logged in. You can close this tab and go back to your work."),
        Ok(Err(message)) => page(&format!("The login failed: {message}")),
        Err(_) => page("The login was interrupted. Start it again from Switchboard."),
    }
}

fn page(message: &str) -> Html<String> {
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Html(format!(
        "<!doctype html><meta charset=\"utf-8\"><title>Switchboard</title>\
         <body style=\"font-family:sans-serif;margin:3em\"><h1>Switchboard</h1><p>{escaped}</p></body>"
    ))
}

/// Turns rmcp's error into one a person can act on, by its typed variant.
pub(crate) fn classify(server: &crate::config::ServerId, err: RmcpAuthError) -> AuthError {
    // rmcp's and reqwest's errors print the URLs they fetched: redact them.
    let message = crate::util::redact::text(&error_chain(&err));
    let server = server.clone();
    match err {
        RmcpAuthError::RegistrationFailed(_) => AuthError::Registration {
            server,
            message: without_repeats(&message),
        },
        RmcpAuthError::DiscoveryRequestFailed { .. }
        | RmcpAuthError::MetadataError(_)
        | RmcpAuthError::ProtectedResourceMetadataInvalid { .. }
        | RmcpAuthError::AuthorizationServersUnavailable { .. }
        | RmcpAuthError::NoAuthorizationSupport
        | RmcpAuthError::PkceUnsupported
        | RmcpAuthError::HttpError(_)
        | RmcpAuthError::UrlError(_)
        | RmcpAuthError::AuthorizationServerMismatch { .. }
        | RmcpAuthError::AuthorizationServerMissingIssuer { .. } => {
            AuthError::Discovery { server, message }
        }
        _ => AuthError::Other { server, message },
    }
}

/// rmcp wraps registration errors twice ("Registration failed: Dynamic
/// registration failed: Registration failed: ..."); keep the innermost words.
fn without_repeats(message: &str) -> String {
    let mut text = message;
    loop {
        let trimmed = text
            .strip_prefix("Registration failed: ")
            .or_else(|| text.strip_prefix("Dynamic registration failed: "));
        match trimmed {
            Some(rest) => text = rest,
            None => return text.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn registration_errors_lose_their_repeated_prefixes() {
        assert_eq!(
            super::without_repeats(
                "Registration failed: Dynamic registration failed: Registration failed: not supported"
            ),
            "not supported"
        );
    }
}
