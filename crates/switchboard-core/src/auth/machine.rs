//! The client-credentials grant (SEP-1046) of a machine client: the hub asks
//! the authorization server for a token itself, with no person and no
//! browser, authenticating with `oauth.clientSecret` (`client_secret_basic`
//! or `_post`, as rmcp picks from the metadata) or with `oauth.signingKey`, a
//! private key that signs a JWT client assertion (`private_key_jwt`,
//! RFC 7523). The token is stored like a login's.
//!
//! rmcp's client-credentials future is not `Send` once its JWT support is
//! compiled in (it keeps a form serializer across an `.await`), so
//! [`obtain`] runs it on a blocking thread of its own with the runtime's
//! handle; the hub's own futures stay `Send`.

use rmcp::transport::auth::{
    AuthError as RmcpAuthError, AuthorizationManager, ClientCredentialsConfig, JwtSigningAlgorithm,
};

use super::AuthError;
use super::tokens::{Credentials, ServerAuth};
use crate::config::{OAuthConfig, ServerId, SigningAlgorithm};
use std::sync::Arc;

/// How the machine client proves who it is, resolved from the config
/// (keyring values read).
pub(crate) enum ClientProof {
    Secret(String),
    SigningKey {
        pem: String,
        algorithm: SigningAlgorithm,
    },
}

/// The `ClientCredentialsConfig` rmcp takes for `proof`.
fn rmcp_config(
    client_id: &str,
    proof: ClientProof,
    oauth: &OAuthConfig,
    url: &str,
) -> ClientCredentialsConfig {
    match proof {
        ClientProof::Secret(client_secret) => ClientCredentialsConfig::ClientSecret {
            client_id: client_id.to_string(),
            client_secret,
            scopes: oauth.scopes.clone(),
            resource: Some(url.to_string()),
        },
        ClientProof::SigningKey { pem, algorithm } => ClientCredentialsConfig::PrivateKeyJwt {
            client_id: client_id.to_string(),
            signing_key: pem.into_bytes(),
            signing_algorithm: jws_algorithm(algorithm),
            token_endpoint_audience: None,
            scopes: oauth.scopes.clone(),
            resource: Some(url.to_string()),
        },
    }
}

fn jws_algorithm(algorithm: SigningAlgorithm) -> JwtSigningAlgorithm {
    match algorithm {
        SigningAlgorithm::RS256 => JwtSigningAlgorithm::RS256,
        SigningAlgorithm::RS384 => JwtSigningAlgorithm::RS384,
        SigningAlgorithm::RS512 => JwtSigningAlgorithm::RS512,
        SigningAlgorithm::ES256 => JwtSigningAlgorithm::ES256,
        SigningAlgorithm::ES384 => JwtSigningAlgorithm::ES384,
    }
}

/// Discovery (with the 2025-03-26 fallback), then the token request; the
/// token lands in `server`'s credential store.
pub(crate) async fn obtain(
    id: &ServerId,
    server: Arc<ServerAuth>,
    url: &str,
    oauth: &OAuthConfig,
    client_id: &str,
    proof: ClientProof,
) -> Result<(), AuthError> {
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| super::login::classify(id, e))?;
    manager.set_credential_store(Credentials(server));
    let metadata = super::legacy::resolve(&manager, url, None)
        .await
        .map_err(|e| super::login::classify(id, e))?;
    manager.set_metadata(metadata);
    let config = rmcp_config(client_id, proof, oauth, url);
    manager
        .validate_client_credentials_metadata(&config)
        .and_then(|()| manager.configure_client_credentials(&config))
        .map_err(|e| super::login::classify(id, e))?;
    let handle = tokio::runtime::Handle::current();
    let outcome = tokio::task::spawn_blocking(move || {
        handle.block_on(async move { manager.exchange_client_credentials(&config).await })
    })
    .await
    .unwrap_or_else(|e| Err(RmcpAuthError::InternalError(e.to_string())));
    outcome.map(|_| ()).map_err(|e| match e {
        RmcpAuthError::JwtSigningError(_) => AuthError::Other {
            server: id.clone(),
            message: "`oauth.signingKey` is not a PEM private key (RSA or EC) usable with \
                      `oauth.signingAlgorithm`"
                .into(),
        },
        other => super::login::classify(id, other),
    })
}
