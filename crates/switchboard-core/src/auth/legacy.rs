//! Authorization-server discovery with the 2025-03-26 fallback.
//!
//! rmcp resolves the metadata the current way: protected-resource metadata
//! (RFC 9728), then RFC 8414 / OIDC documents whose `issuer` must be the URL
//! they were fetched from. Servers of the 2025-03-26 revision publish no
//! protected-resource metadata; that revision makes the MCP server's origin
//! the authorization base URL and reads `/.well-known/oauth-authorization-server`
//! there, without binding the document's `issuer` to it (many such servers
//! mount their authorization server under a path, `https://h/oauth`, and
//! say so in `issuer`). rmcp refuses those documents with an issuer
//! mismatch; [`resolve`] then takes the root document itself, but only when
//! the server is a 2025-03-26 one (no protected-resource metadata, none
//! named in the challenge) and the document's `issuer` is on the server's
//! own origin. Anything else keeps rmcp's error.

use std::time::Duration;

use reqwest::{StatusCode, Url};
use rmcp::transport::auth::{
    AuthError as RmcpAuthError, AuthorizationManager, AuthorizationMetadata,
};

/// How long one discovery request of the fallback may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata document read.
const MAX_DOCUMENT: usize = 256 * 1024;

/// The authorization server's metadata for the MCP server at `url` (see the
/// module docs), starting from the last `WWW-Authenticate` challenge.
pub(crate) async fn resolve(
    manager: &AuthorizationManager,
    url: &str,
    challenge: Option<&str>,
) -> Result<AuthorizationMetadata, RmcpAuthError> {
    match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => Ok(resolution.metadata),
        Err(err @ RmcpAuthError::AuthorizationServerMismatch { .. }) => {
            match fallback(url, challenge).await {
                Some(metadata) => {
                    tracing::info!(
                        issuer = metadata.issuer.as_deref().unwrap_or_default(),
                        "no protected-resource metadata: using the 2025-03-26 authorization-server metadata at the server's origin"
                    );
                    Ok(metadata)
                }
                None => Err(err),
            }
        }
        Err(err) => Err(err),
    }
}

/// The root metadata document of a 2025-03-26 server, or `None` when the
/// server is not one or the document does not qualify.
async fn fallback(url: &str, challenge: Option<&str>) -> Option<AuthorizationMetadata> {
    if challenge.is_some_and(|c| c.contains("resource_metadata")) {
        return None;
    }
    let server = Url::parse(url).ok()?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(FETCH_TIMEOUT)
        .build()
        .ok()?;
    for path in resource_metadata_paths(&server) {
        let mut probe = server.clone();
        probe.set_path(&path);
        probe.set_query(None);
        match http.get(probe).send().await {
            Ok(response) if response.status() == StatusCode::OK => return None,
            Ok(_) => {}
            // Cannot tell whether it publishes any: do not relax the check.
            Err(_) => return None,
        }
    }
    let mut document = server.clone();
    document.set_path("/.well-known/oauth-authorization-server");
    document.set_query(None);
    let response = http.get(document).send().await.ok()?;
    if response.status() != StatusCode::OK {
        return None;
    }
    let body = response.bytes().await.ok()?;
    if body.len() > MAX_DOCUMENT {
        return None;
    }
    let metadata: AuthorizationMetadata = serde_json::from_slice(&body).ok()?;
    same_origin(&server, metadata.issuer.as_deref()?).then_some(metadata)
}

/// Where a server would publish its protected-resource metadata (RFC 9728
/// path insertion, then the root).
fn resource_metadata_paths(server: &Url) -> Vec<String> {
    let root = "/.well-known/oauth-protected-resource";
    let path = server.path().trim_end_matches('/');
    if path.is_empty() {
        vec![root.to_string()]
    } else {
        vec![format!("{root}{path}"), root.to_string()]
    }
}

/// Whether `issuer` is a URL on `server`'s scheme, host and port.
fn same_origin(server: &Url, issuer: &str) -> bool {
    Url::parse(issuer).is_ok_and(|issuer| issuer.origin() == server.origin())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_is_looked_for_with_and_without_the_path() {
        let url = Url::parse("http://127.0.0.1:9/mcp/").unwrap();
        assert_eq!(
            resource_metadata_paths(&url),
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let root = Url::parse("http://127.0.0.1:9").unwrap();
        assert_eq!(
            resource_metadata_paths(&root),
            ["/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn only_an_issuer_on_the_servers_own_origin_qualifies() {
        let server = Url::parse("http://localhost:8080/mcp").unwrap();
        assert!(same_origin(&server, "http://localhost:8080/oauth"));
        assert!(!same_origin(&server, "http://localhost:8081/oauth"));
        assert!(!same_origin(&server, "https://localhost:8080/oauth"));
        assert!(!same_origin(&server, "http://evil.example/oauth"));
        assert!(!same_origin(&server, "not a url"));
    }
}
