//! Which transport a server entry with `url` asks for: its `transport` key
//! (`streamable-http`, `http`, `sse`) and the `type` key other clients write
//! (`"type": "sse"` in Claude Code's files). The loader (`load.rs`) calls it;
//! the result is the `sse` flag of the HTTP transport. Also the checks of a
//! remote server's `url` and `headers` ([`check_remote`]), and of its
//! `oauth.clientMetadataUrl` ([`check_client_metadata_url`]).

/// Whether a server with `url` uses the legacy HTTP+SSE transport, from its
/// `type` (other clients' key) and `transport`; they must agree when both are set.
pub(super) fn remote_is_sse(kind: Option<&str>, transport: Option<&str>) -> Result<bool, String> {
    fn parse(key: &str, value: Option<&str>) -> Result<Option<bool>, String> {
        match value {
            None => Ok(None),
            Some("sse") => Ok(Some(true)),
            Some("http" | "streamable-http" | "streamableHttp") => Ok(Some(false)),
            Some("stdio") => Err(format!("has `url` but `{key}` is \"stdio\"")),
            Some(other) => Err(format!(
                "unknown `{key}` {other:?}; a server with `url` takes \"streamable-http\" \
                 (or \"http\") or \"sse\" (the legacy HTTP+SSE transport)"
            )),
        }
    }
    match (parse("type", kind)?, parse("transport", transport)?) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "`type` {:?} and `transport` {:?} disagree; keep one",
            kind.unwrap_or_default(),
            transport.unwrap_or_default()
        )),
        (a, b) => Ok(b.or(a).unwrap_or(false)),
    }
}

/// Checks a remote server's `url` (http or https) and `headers` (valid
/// names; literal values an HTTP header can carry: a keyring value is
/// checked when it is read, at connect). Messages quote no header value.
pub(super) fn check_remote(
    url: &str,
    headers: &std::collections::BTreeMap<String, super::ConfigValue>,
) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|err| {
        let shown = switchboard_util::redact::url(url);
        format!("`url` {shown:?} is not a valid URL: {err}")
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        let shown = switchboard_util::redact::url(url);
        return Err(format!(
            "`url` {shown:?} must start with http:// or https://"
        ));
    }
    for (name, value) in headers {
        if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!("header name {name:?} is not a valid HTTP header"));
        }
        if let super::ConfigValue::Literal(text) = value
            && http::HeaderValue::from_str(text).is_err()
        {
            return Err(format!(
                "the value of header {name:?} has characters an HTTP header cannot carry (control characters or line breaks)"
            ));
        }
    }
    Ok(())
}

/// `oauth.signingKey` / `signingAlgorithm`: a machine client authenticates
/// with exactly one of its secret and its signing key.
pub(super) fn check_signing_key(
    grant: super::model::OAuthGrant,
    client_secret: &Option<super::ConfigValue>,
    signing_key: &Option<super::ConfigValue>,
    signing_algorithm: Option<super::model::SigningAlgorithm>,
) -> Result<(), String> {
    let machine = grant == super::model::OAuthGrant::ClientCredentials;
    if signing_algorithm.is_some() && signing_key.is_none() {
        return Err("`oauth.signingAlgorithm` needs `oauth.signingKey`".into());
    }
    match (machine, client_secret.is_some(), signing_key.is_some()) {
        (false, _, true) => {
            Err("`oauth.signingKey` applies only to `oauth.grant: \"clientCredentials\"`".into())
        }
        (true, true, true) => Err(
            "`oauth.grant: \"clientCredentials\"` authenticates with either \
             `oauth.clientSecret` or `oauth.signingKey`, not both"
                .into(),
        ),
        (true, false, false) => Err(
            "`oauth.grant: \"clientCredentials\"` needs `oauth.clientId` and \
             `oauth.clientSecret` (or `oauth.signingKey`)"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// `oauth.identityProvider` goes with `oauth.grant: "crossAppAccess"`, which
/// needs it and the client at the server's authorization server.
pub(super) fn check_cross_app(
    grant: super::model::OAuthGrant,
    client_id: &Option<String>,
    identity_provider: Option<&super::model::IdentityProvider>,
) -> Result<(), String> {
    let cross_app = grant == super::model::OAuthGrant::CrossAppAccess;
    match (cross_app, identity_provider) {
        (false, Some(_)) => {
            Err("`oauth.identityProvider` applies only to `oauth.grant: \"crossAppAccess\"`".into())
        }
        (true, None) => Err(
            "`oauth.grant: \"crossAppAccess\"` needs `oauth.identityProvider` \
             (issuer, tokenEndpoint, clientId, idToken)"
                .into(),
        ),
        (true, Some(_)) if client_id.is_none() => Err(
            "`oauth.grant: \"crossAppAccess\"` needs `oauth.clientId` (the client at the \
             server's authorization server)"
                .into(),
        ),
        (true, Some(idp)) if idp.issuer.trim().is_empty() || idp.client_id.trim().is_empty() => {
            Err("`oauth.identityProvider` needs a non-empty `issuer` and `clientId`".into())
        }
        _ => Ok(()),
    }
}

/// `oauth.clientMetadataUrl`: an `https` URL with a path (the client id a
/// Client ID Metadata Document is published under).
fn check_client_metadata_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("`oauth.clientMetadataUrl` {url:?} is not a URL: {e}"))?;
    if parsed.scheme() != "https" || parsed.path().trim_matches('/').is_empty() {
        return Err(format!(
            "`oauth.clientMetadataUrl` {url:?} must be an https URL with a path \
             (where the client's metadata document is published)"
        ));
    }
    Ok(())
}

/// The `oauth` checks beyond the shapes: a secret needs its client id, the
/// client metadata URL, and the client-credentials grant's client.
pub(super) fn check_oauth(
    client_metadata_url: &Option<String>,
    grant: super::model::OAuthGrant,
    client_id: &Option<String>,
    client_secret: &Option<super::ConfigValue>,
) -> Result<(), String> {
    if client_secret.is_some() && client_id.is_none() {
        return Err("`oauth.clientSecret` needs `oauth.clientId`".into());
    }
    if client_id.as_deref().is_some_and(|id| id.trim().is_empty()) {
        return Err("`oauth.clientId` is empty".into());
    }
    if let Some(url) = client_metadata_url {
        check_client_metadata_url(url)?;
    }
    if grant == super::model::OAuthGrant::ClientCredentials && client_id.is_none() {
        return Err(
            "`oauth.grant: \"clientCredentials\"` needs `oauth.clientId` and \
                    `oauth.clientSecret` (or `oauth.signingKey`)"
                .into(),
        );
    }
    Ok(())
}
