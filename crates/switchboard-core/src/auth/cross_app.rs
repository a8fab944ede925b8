//! Cross-app access (SEP-990, enterprise-managed authorization) for a
//! server with `oauth.grant: "crossAppAccess"`: no browser. The hub
//!
//! 1. finds the server's authorization server (protected-resource metadata,
//!    else the 2025-03-26 fallback, as a login does);
//! 2. exchanges the person's ID token from `oauth.identityProvider` at that
//!    IdP's token endpoint for an ID-JAG (RFC 8693 token exchange,
//!    `requested_token_type` `urn:ietf:params:oauth:token-type:id-jag`, the
//!    authorization server's issuer as `audience`, the server's URL as
//!    `resource`);
//! 3. presents the ID-JAG to the authorization server's token endpoint (RFC
//!    7523 JWT bearer grant), authenticated as `oauth.clientId` with
//!    `oauth.clientSecret` (`client_secret_basic`, or `_post` when that is
//!    all the server takes);
//!
//! and stores the token like a login's. rmcp's `enterprise` module makes both
//! requests and checks the ID-JAG's bindings (resource, client); the
//! authorization server verifies its signature. The ID token and every token
//! on the way are secrets: they never reach a log or an error message.

use std::sync::Arc;

use oauth2::ClientSecret;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaError, EmaExchangeRequest,
};
use rmcp::transport::auth::{AuthorizationManager, CredentialStore, StoredCredentials};

use super::AuthError;
use super::tokens::{Credentials, ServerAuth};
use crate::config::{IdentityProvider, OAuthConfig, ServerId};

/// The secrets of a cross-app access, read from the config or the keyring.
pub(crate) struct Secrets {
    /// The hub's secret at the server's authorization server.
    pub(crate) client_secret: Option<String>,
    /// The hub's secret at the IdP.
    pub(crate) idp_secret: Option<String>,
    pub(crate) id_token: String,
}

fn other(id: &ServerId, message: String) -> AuthError {
    AuthError::Other {
        server: id.clone(),
        message,
    }
}

/// An exchange failure in words (rmcp names the stage by its type's name).
fn failed(id: &ServerId, err: &EmaError) -> AuthError {
    let text = err
        .to_string()
        .replace(
            "ResourceAuthorizationServer",
            "the server's authorization server",
        )
        .replace("IdentityProvider", "the identity provider");
    other(id, format!("cross-app access failed: {text}"))
}

/// How the hub authenticates at the server's authorization server: Basic
/// unless the metadata lists only `client_secret_post`; none without a secret.
fn resource_authentication(
    secret: Option<String>,
    methods: Option<&serde_json::Value>,
) -> EmaClientAuthentication {
    let Some(secret) = secret else {
        return EmaClientAuthentication::None;
    };
    let listed = |m: &str| {
        methods
            .and_then(|v| v.as_array())
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(m)))
    };
    if methods.is_some() && !listed("client_secret_basic") && listed("client_secret_post") {
        EmaClientAuthentication::ClientSecretPost(ClientSecret::new(secret))
    } else {
        EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(secret))
    }
}

/// Runs the exchange for the server at `url` and stores the token.
pub(crate) async fn obtain(
    id: &ServerId,
    server: Arc<ServerAuth>,
    url: &str,
    oauth: &OAuthConfig,
    client_id: &str,
    idp: &IdentityProvider,
    secrets: Secrets,
) -> Result<(), AuthError> {
    let manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| super::login::classify(id, e))?;
    let metadata = super::legacy::resolve(&manager, url, None)
        .await
        .map_err(|e| super::login::classify(id, e))?;
    let issuer = metadata.issuer.clone().ok_or_else(|| {
        other(
            id,
            "the authorization server's metadata names no issuer, which cross-app access needs"
                .into(),
        )
    })?;
    let resource_as = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, client_id)
        .with_client_authentication(resource_authentication(
            secrets.client_secret,
            metadata
                .additional_fields
                .get("token_endpoint_auth_methods_supported"),
        ));
    let idp_server = EmaAuthorizationServer::new(&idp.issuer, &idp.token_endpoint, &idp.client_id)
        .with_client_authentication(match secrets.idp_secret {
            Some(secret) => EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(secret)),
            None => EmaClientAuthentication::None,
        });
    let http = rmcp::transport::auth::default_oauth_http_client()
        .map_err(|e| super::login::classify(id, e))?;
    let token =
        EmaExchangeRequest::new_with_id_token(idp_server, resource_as, url, &secrets.id_token)
            .with_scopes(oauth.scopes.iter().cloned())
            .exchange(&http, &http)
            .await
            .map_err(|e| failed(id, &e))?;
    let mut response = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "bearer",
    });
    if let Some(expires) = token.expires_in {
        response["expires_in"] = expires.as_secs().into();
    }
    let mut scopes: Vec<String> = token.scopes.into_iter().collect();
    scopes.sort();
    if !scopes.is_empty() {
        response["scope"] = scopes.join(" ").into();
    }
    let token_response = response;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .ok();
    let stored: StoredCredentials = serde_json::from_value(serde_json::json!({
        "client_id": client_id,
        "token_response": token_response,
        "granted_scopes": scopes,
        "token_received_at": now,
        "issuer": metadata.issuer,
    }))
    .map_err(|e| other(id, format!("cannot keep the token: {e}")))?;
    Credentials(server)
        .save(stored)
        .await
        .map_err(|e| super::login::classify(id, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_unless_the_server_takes_only_post_and_none_without_a_secret() {
        let kind = |a: EmaClientAuthentication| format!("{a:?}");
        let secret = || Some("s".to_string());
        assert_eq!(
            kind(resource_authentication(secret(), None)),
            "ClientSecretBasic { .. }"
        );
        let post = serde_json::json!(["client_secret_post"]);
        assert_eq!(
            kind(resource_authentication(secret(), Some(&post))),
            "ClientSecretPost { .. }"
        );
        let both = serde_json::json!(["client_secret_post", "client_secret_basic"]);
        assert_eq!(
            kind(resource_authentication(secret(), Some(&both))),
            "ClientSecretBasic { .. }"
        );
        assert_eq!(kind(resource_authentication(None, Some(&both))), "None");
    }
}
