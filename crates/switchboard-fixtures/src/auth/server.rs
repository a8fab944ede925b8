//! The fake authorization server: metadata, registration, authorization,
//! tokens, and the test hooks. All state is in one [`AuthServer`] behind a
//! std mutex held only for short, non-async sections.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Args;

/// How long an authorization code may wait for its exchange.
const CODE_LIFETIME: Duration = Duration::from_secs(120);

/// What the authorization server has done so far (`GET /test/stats`).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub registrations: u64,
    pub authorizations: u64,
    pub code_grants: u64,
    pub refresh_grants: u64,
    pub rejected_refreshes: u64,
    pub rejected_codes: u64,
    pub client_credentials_grants: u64,
    pub unauthorized: u64,
    pub authorized_mcp_requests: u64,
}

struct Client {
    redirect_uris: Vec<String>,
    secret: Option<String>,
}

struct CodeGrant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scope: Option<String>,
    issued: Instant,
}

#[derive(Default)]
struct Inner {
    clients: HashMap<String, Client>,
    codes: HashMap<String, CodeGrant>,
    /// Access token → when it expires.
    access: HashMap<String, Instant>,
    /// Refresh token → client id.
    refresh: HashMap<String, String>,
    stats: Stats,
}

/// The authorization server's state, shared with the MCP bearer check.
pub struct AuthServer {
    pub issuer: String,
    /// The protected resource: `<issuer>/mcp` (`<issuer>/sse` with `--sse`).
    pub resource: String,
    lifetime: Duration,
    registration: bool,
    deny_consent: bool,
    malformed_metadata: bool,
    /// `--legacy-metadata`: a 2025-03-26 server (see `Args`).
    pub legacy_metadata: bool,
    jwt_clients: super::assertion::JwtClients,
    authorization_server: String,
    inner: Mutex<Inner>,
    counter: AtomicU64,
}

impl AuthServer {
    pub fn new(issuer: &str, args: &Args) -> anyhow::Result<Self> {
        let mut inner = Inner::default();
        for client in &args.clients {
            let (id, secret) = match client.split_once(':') {
                Some((id, secret)) => (id.to_string(), Some(secret.to_string())),
                None => (client.clone(), None),
            };
            anyhow::ensure!(!id.is_empty(), "--client needs an id");
            // Pre-registered clients may use any loopback redirect URI (RFC 8252 §7.3).
            inner.clients.insert(
                id,
                Client {
                    redirect_uris: Vec::new(),
                    secret,
                },
            );
        }
        Ok(Self {
            issuer: issuer.to_string(),
            resource: format!("{issuer}{}", args.mcp_path()),
            lifetime: Duration::from_secs(args.token_lifetime_secs.max(1)),
            registration: !args.no_registration,
            deny_consent: args.deny_consent,
            malformed_metadata: args.malformed_metadata,
            legacy_metadata: args.legacy_metadata,
            jwt_clients: super::assertion::JwtClients::load(&args.jwt_clients)?,
            authorization_server: args
                .authorization_server
                .clone()
                .unwrap_or_else(|| issuer.to_string()),
            inner: Mutex::new(inner),
            counter: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh unguessable-enough value for a test fixture.
    fn random(&self, prefix: &str) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let digest = Sha256::digest(format!("{prefix}{n}{nanos}{}", std::process::id()));
        format!(
            "{prefix}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&digest[..24])
        )
    }

    /// The URL of the protected-resource metadata, for the `WWW-Authenticate` challenge.
    pub fn resource_metadata_url(&self) -> String {
        format!(
            "{}/.well-known/oauth-protected-resource{}",
            self.issuer,
            self.resource.trim_start_matches(&self.issuer)
        )
    }

    /// Whether `token` is a live access token (counts the request either way).
    pub fn check_bearer(&self, token: Option<&str>) -> bool {
        let mut inner = self.lock();
        let ok = token
            .and_then(|t| inner.access.get(t))
            .is_some_and(|expires| *expires > Instant::now());
        if ok {
            inner.stats.authorized_mcp_requests += 1;
        } else {
            inner.stats.unauthorized += 1;
        }
        ok
    }

    fn issue_tokens(&self, inner: &mut Inner, client_id: &str, scope: Option<String>) -> Value {
        let access = self.random("fixture-access-");
        let refresh = self.random("fixture-refresh-");
        inner
            .access
            .insert(access.clone(), Instant::now() + self.lifetime);
        inner.refresh.insert(refresh.clone(), client_id.to_string());
        let mut body = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.lifetime.as_secs(),
            "refresh_token": refresh,
        });
        if let Some(scope) = scope {
            body["scope"] = json!(scope);
        }
        body
    }
}

pub fn router(state: Arc<AuthServer>) -> Router {
    Router::new()
        .route(
            "/.well-known/oauth-protected-resource",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/sse",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/test/stats", get(stats))
        .route("/test/revoke", post(revoke))
        .route("/test/expire", post(expire))
        .with_state(state)
}

async fn resource_metadata(State(s): State<Arc<AuthServer>>) -> Response {
    if s.legacy_metadata {
        return oauth_error(StatusCode::NOT_FOUND, "not_found", "no resource metadata");
    }
    if s.malformed_metadata {
        // JSON, but not a protected-resource metadata document (no `resource`,
        // no authorization server).
        return Json(json!({"documentation": "https://example.invalid/docs"})).into_response();
    }
    Json(json!({
        "resource": s.resource,
        "authorization_servers": [s.authorization_server],
        "scopes_supported": ["mcp"],
        "bearer_methods_supported": ["header"],
    }))
    .into_response()
}

async fn server_metadata(State(s): State<Arc<AuthServer>>) -> Response {
    if s.malformed_metadata {
        return (
            [(header::CONTENT_TYPE, "application/json")],
            "{\"issuer\": \"truncated",
        )
            .into_response();
    }
    let issuer = if s.legacy_metadata {
        format!("{}/oauth", s.issuer)
    } else {
        s.issuer.clone()
    };
    let mut body = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{}/authorize", s.issuer),
        "token_endpoint": format!("{}/token", s.issuer),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256", "ES384", "RS256", "RS384", "RS512"],
        "scopes_supported": ["mcp"],
    });
    if s.registration {
        body["registration_endpoint"] = json!(format!("{}/register", s.issuer));
    }
    Json(body).into_response()
}

#[derive(Deserialize)]
struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    #[serde(default)]
    client_name: Option<String>,
}

async fn register(State(s): State<Arc<AuthServer>>, Json(req): Json<Registration>) -> Response {
    if !s.registration {
        return oauth_error(StatusCode::NOT_FOUND, "invalid_request", "no registration");
    }
    if req.redirect_uris.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris is empty",
        );
    }
    let client_id = s.random("client-");
    let mut inner = s.lock();
    inner.stats.registrations += 1;
    inner.clients.insert(
        client_id.clone(),
        Client {
            redirect_uris: req.redirect_uris.clone(),
            secret: None,
        },
    );
    (
        StatusCode::CREATED,
        Json(json!({
            "client_id": client_id,
            "client_name": req.client_name,
            "redirect_uris": req.redirect_uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        })),
    )
        .into_response()
}

async fn authorize(
    State(s): State<Arc<AuthServer>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let param = |k: &str| q.get(k).cloned().unwrap_or_default();
    let (client_id, redirect_uri, state) =
        (param("client_id"), param("redirect_uri"), param("state"));
    {
        let inner = s.lock();
        let Some(client) = inner.clients.get(&client_id) else {
            return (StatusCode::BAD_REQUEST, "unknown client_id").into_response();
        };
        let loopback = redirect_uri.starts_with("http://127.0.0.1:")
            || redirect_uri.starts_with("http://localhost:");
        let registered = client.redirect_uris.contains(&redirect_uri)
            || (client.redirect_uris.is_empty() && loopback);
        if !registered {
            return (StatusCode::BAD_REQUEST, "redirect_uri is not registered").into_response();
        }
    }
    let mut target = match reqwest_free_url(&redirect_uri) {
        Some(url) => url,
        None => return (StatusCode::BAD_REQUEST, "bad redirect_uri").into_response(),
    };
    if s.deny_consent {
        target.push_str(&format!(
            "error=access_denied&error_description={}&state={}",
            encode("The user denied the request"),
            encode(&state)
        ));
        return Redirect::to(&target).into_response();
    }
    if param("response_type") != "code" || param("code_challenge_method") != "S256" {
        return (
            StatusCode::BAD_REQUEST,
            "need response_type=code and PKCE S256",
        )
            .into_response();
    }
    let challenge = param("code_challenge");
    if challenge.is_empty() {
        return (StatusCode::BAD_REQUEST, "missing code_challenge").into_response();
    }
    let code = s.random("fixture-code-");
    {
        let mut inner = s.lock();
        inner.stats.authorizations += 1;
        inner.codes.insert(
            code.clone(),
            CodeGrant {
                client_id,
                redirect_uri,
                challenge,
                scope: q.get("scope").cloned(),
                issued: Instant::now(),
            },
        );
    }
    target.push_str(&format!("code={}&state={}", encode(&code), encode(&state)));
    Redirect::to(&target).into_response()
}

/// `uri` with `?` or `&` appended, ready for more query parameters.
fn reqwest_free_url(uri: &str) -> Option<String> {
    if !uri.starts_with("http://") && !uri.starts_with("https://") {
        return None;
    }
    Some(if uri.contains('?') {
        format!("{uri}&")
    } else {
        format!("{uri}?")
    })
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[derive(Deserialize)]
struct TokenRequest {
    grant_type: String,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_assertion_type: Option<String>,
    client_assertion: Option<String>,
    scope: Option<String>,
}

/// The `client_assertion_type` of a JWT client assertion (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The client-credentials grant of a `--jwt-client` (its signed assertion).
fn jwt_client_credentials(s: &AuthServer, form: &TokenRequest) -> Response {
    if form.grant_type != "client_credentials"
        || form.client_assertion_type.as_deref() != Some(JWT_BEARER)
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "a JWT client uses the client_credentials grant with a jwt-bearer assertion",
        );
    }
    let audiences = [
        s.issuer.clone(),
        format!("{}/", s.issuer),
        format!("{}/token", s.issuer),
    ];
    let assertion = form.client_assertion.as_deref().unwrap_or_default();
    match s.jwt_clients.verify(assertion, &audiences) {
        Ok(client_id) => {
            let mut inner = s.lock();
            inner.stats.client_credentials_grants += 1;
            let body = s.issue_tokens(&mut inner, &client_id, form.scope.clone());
            (no_store(), Json(body)).into_response()
        }
        Err(why) => oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", &why),
    }
}

/// The client id and secret from HTTP Basic auth or the form.
fn client_auth(headers: &HeaderMap, form: &TokenRequest) -> (Option<String>, Option<String>) {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|pair| {
            pair.split_once(':')
                .map(|(id, secret)| (decode(id), decode(secret)))
        });
    match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (form.client_id.clone(), form.client_secret.clone()),
    }
}

/// Percent-decoding of Basic credentials (RFC 6749 §2.3.1 form-encodes them).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn token(
    State(s): State<Arc<AuthServer>>,
    headers: HeaderMap,
    Form(form): Form<TokenRequest>,
) -> Response {
    if form.client_assertion.is_some() && !s.jwt_clients.is_empty() {
        return jwt_client_credentials(&s, &form);
    }
    let (client_id, client_secret) = client_auth(&headers, &form);
    let Some(client_id) = client_id else {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "no client_id");
    };
    let mut inner = s.lock();
    match inner.clients.get(&client_id) {
        None => return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client"),
        Some(client) => {
            if client.secret.is_some() && client.secret != client_secret {
                return oauth_error(
                    StatusCode::UNAUTHORIZED,
                    "invalid_client",
                    "bad client secret",
                );
            }
        }
    }
    match form.grant_type.as_str() {
        "authorization_code" => {
            let grant = form.code.as_deref().and_then(|c| inner.codes.remove(c));
            let Some(grant) = grant else {
                inner.stats.rejected_codes += 1;
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "unknown or used code",
                );
            };
            let verifier = form.code_verifier.unwrap_or_default();
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(verifier.as_bytes()));
            let valid = grant.client_id == client_id
                && Some(&grant.redirect_uri) == form.redirect_uri.as_ref()
                && grant.issued.elapsed() < CODE_LIFETIME
                && computed == grant.challenge;
            if !valid {
                inner.stats.rejected_codes += 1;
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "code, client, redirect_uri or PKCE verifier does not match",
                );
            }
            inner.stats.code_grants += 1;
            let body = s.issue_tokens(&mut inner, &client_id, grant.scope);
            (no_store(), Json(body)).into_response()
        }
        "refresh_token" => {
            let owner = form
                .refresh_token
                .as_deref()
                .and_then(|t| inner.refresh.remove(t));
            if owner.as_deref() != Some(client_id.as_str()) {
                inner.stats.rejected_refreshes += 1;
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "refresh token is not valid",
                );
            }
            inner.stats.refresh_grants += 1;
            let body = s.issue_tokens(&mut inner, &client_id, Some("mcp".into()));
            (no_store(), Json(body)).into_response()
        }
        "client_credentials"
            if inner
                .clients
                .get(&client_id)
                .is_some_and(|c| c.secret.is_some()) =>
        {
            inner.stats.client_credentials_grants += 1;
            let body = s.issue_tokens(&mut inner, &client_id, form.scope.clone());
            (no_store(), Json(body)).into_response()
        }
        _ => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "unsupported grant_type",
        ),
    }
}

fn no_store() -> [(header::HeaderName, &'static str); 1] {
    [(header::CACHE_CONTROL, "no-store")]
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

async fn stats(State(s): State<Arc<AuthServer>>) -> Response {
    Json(s.lock().stats.clone()).into_response()
}

async fn revoke(State(s): State<Arc<AuthServer>>) -> Response {
    let mut inner = s.lock();
    inner.access.clear();
    inner.refresh.clear();
    Json(json!({"ok": true})).into_response()
}

async fn expire(State(s): State<Arc<AuthServer>>) -> Response {
    let mut inner = s.lock();
    let now = Instant::now();
    for expires in inner.access.values_mut() {
        *expires = now;
    }
    Json(json!({"ok": true})).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_helpers() {
        assert_eq!(encode("a b&c"), "a%20b%26c");
        assert_eq!(decode("a%20b+c"), "a b c");
        assert_eq!(
            reqwest_free_url("http://127.0.0.1:1/cb").as_deref(),
            Some("http://127.0.0.1:1/cb?")
        );
        assert_eq!(reqwest_free_url("javascript:x"), None);
    }
}
