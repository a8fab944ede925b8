//! The configuration's data model: [`Config`], its servers ([`ServerConfig`],
//! [`ServerId`], [`TransportConfig`], [`OAuthConfig`], [`ServerTimeouts`]) and
//! values that may live in the OS keyring ([`ConfigValue`]).
//!
//! These are plain values, built only by the loader (`load.rs`), which checks
//! the invariants listed in the `config` module docs; nothing here reads a
//! file or the environment.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::Settings;

/// The address the hub listens on when nothing else is configured.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8420";
/// Longest server id accepted, so that `<id>__<tool>` leaves room for the tool name.
pub const MAX_SERVER_ID_LEN: usize = 40;

/// A configured server's id: the key under `mcpServers`, used as the tool prefix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ServerId(Arc<str>);

impl ServerId {
    /// Checks `id` against the id rules (`[A-Za-z0-9_-]`, 1 to 40 characters).
    pub fn new(id: &str) -> Result<Self, String> {
        if id.is_empty() {
            return Err("server id must not be empty".into());
        }
        if id.len() > MAX_SERVER_ID_LEN {
            return Err(format!(
                "server id {id:?} is longer than {MAX_SERVER_ID_LEN} characters"
            ));
        }
        if let Some(bad) = id
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(format!(
                "server id {id:?} contains {bad:?}; only letters, digits, '_' and '-' are allowed"
            ));
        }
        Ok(Self(Arc::from(id)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The whole configuration: servers in file order plus settings, and the
/// profiles (by name; see `profiles.rs`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub servers: Vec<ServerConfig>,
    pub settings: Settings,
    pub profiles: Vec<super::ProfileConfig>,
}

/// One upstream server as configured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    pub id: ServerId,
    pub transport: TransportConfig,
    pub enabled: bool,
    /// Upstream tool names hidden from clients.
    pub disabled_tools: BTreeSet<String>,
    /// Per tool (its name on the server): the name, description and
    /// argument defaults clients see instead (`toolOverrides`).
    pub tool_overrides: BTreeMap<String, super::ToolOverride>,
    /// The prefix for this server's tool and prompt names; `None` means the id.
    /// An empty string exposes names unprefixed when nothing collides.
    pub namespace: Option<String>,
    pub timeouts: ServerTimeouts,
    /// OAuth settings of a remote server (`oauth`); `None` means discovery and
    /// dynamic client registration with default scopes.
    pub oauth: Option<OAuthConfig>,
    /// The server's `sandbox` key (stdio servers; see the engine's `sandbox` module).
    pub sandbox: super::ServerSandbox,
    /// `confirmCalls`, `confirmTools`, `allowTools` (see the engine's `approval` module).
    /// Not part of the fingerprint: a change applies without a restart.
    #[serde(skip_serializing_if = "super::ServerApproval::is_default")]
    pub approval: super::ServerApproval,
    /// `resultSecrets`: overrides `settings.resultSecrets` for this server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_secrets: Option<super::ResultSecrets>,
    /// The values the loader put in for `${VAR}` references: secrets, kept
    /// to mask them wherever they could show ([`ServerConfig::secret_values`]).
    /// Not serialized: the fields above already hold them (so a changed
    /// value changes the server's fingerprint).
    #[serde(skip)]
    pub expanded: Vec<String>,
}

/// A per-server `oauth` object: how Switchboard identifies itself to the
/// server's authorization server. Everything is optional: without it a login
/// discovers the authorization server and registers a client dynamically.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthConfig {
    /// A client id registered with the authorization server out of band
    /// (skips dynamic client registration).
    pub client_id: Option<String>,
    /// The secret of a confidential pre-registered client, as text or as
    /// `{"keyring": "<name>"}` (read from the OS keyring).
    pub client_secret: Option<ConfigValue>,
    /// Scopes to ask for; empty means what the server advertises.
    pub scopes: Vec<String>,
    /// A fixed port for the loopback redirect URI
    /// (`http://127.0.0.1:<port>/oauth/callback`); `None` picks a free one.
    pub redirect_port: Option<u16>,
    /// The `https` URL of a Client ID Metadata Document describing this
    /// client: used as the client id with authorization servers that
    /// advertise `client_id_metadata_document_supported` (else dynamic
    /// registration, as without it).
    pub client_metadata_url: Option<String>,
    /// How tokens are obtained: a person's login (the default) or, for a
    /// machine client, the client-credentials grant with `client_id` and
    /// `client_secret` (no browser; the hub asks for a token when it needs one).
    pub grant: OAuthGrant,
    /// The client's private key (PEM, RSA or EC), as text or as
    /// `{"keyring": "<name>"}`: with the client-credentials grant the hub
    /// authenticates with a signed JWT assertion (`private_key_jwt`,
    /// RFC 7523) instead of `client_secret`.
    pub signing_key: Option<ConfigValue>,
    /// How the assertion is signed; `None` means RS256.
    pub signing_algorithm: Option<SigningAlgorithm>,
    /// With `grant: "crossAppAccess"`: the enterprise identity provider whose
    /// ID token the hub exchanges for an authorization grant (ID-JAG) to the
    /// server's authorization server.
    pub identity_provider: Option<IdentityProvider>,
}

/// `oauth.identityProvider`: the enterprise IdP of cross-app access
/// (SEP-990, RFC 8693 token exchange then an RFC 7523 JWT bearer grant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdentityProvider {
    /// The IdP's issuer identifier.
    pub issuer: String,
    /// The IdP's token endpoint (where the ID token is exchanged).
    pub token_endpoint: String,
    /// The hub's client id at the IdP.
    pub client_id: String,
    /// The hub's secret at the IdP (`client_secret_basic`); none for a
    /// public client.
    pub client_secret: Option<ConfigValue>,
    /// The person's ID token from the IdP's sign-in, usually
    /// `{"keyring": "<name>"}`.
    pub id_token: ConfigValue,
}

/// `oauth.signingAlgorithm`: the JWS algorithm of a `private_key_jwt` assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SigningAlgorithm {
    RS256,
    RS384,
    RS512,
    ES256,
    ES384,
}

/// `oauth.grant`: which OAuth grant gets the server's tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OAuthGrant {
    /// The interactive login: authorization code with PKCE (`switchboard login`).
    #[default]
    AuthorizationCode,
    /// OAuth 2.0 client credentials (SEP-1046): `clientId` + `clientSecret`.
    ClientCredentials,
    /// Cross-app access (SEP-990, enterprise-managed authorization): the
    /// ID token of `identityProvider` is exchanged there for an ID-JAG, which
    /// the server's authorization server takes for a token (`clientId` +
    /// `clientSecret` there). No browser.
    CrossAppAccess,
}

/// A config value given literally or kept in the OS keyring:
/// `"text"` or `{"keyring": "<name>"}` (stored with `switchboard secret set <name>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigValue {
    Literal(String),
    Keyring(String),
}

impl From<&str> for ConfigValue {
    fn from(text: &str) -> Self {
        Self::Literal(text.to_string())
    }
}

impl From<String> for ConfigValue {
    fn from(text: String) -> Self {
        Self::Literal(text)
    }
}

impl Serialize for ConfigValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            // A literal serializes as the plain string it was, so fingerprints of
            // configs without keyring values are what they were before.
            Self::Literal(text) => s.serialize_str(text),
            Self::Keyring(name) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("keyring", name)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for ConfigValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = ConfigValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a string or {"keyring": "<secret name>"}"#)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ConfigValue, E> {
                Ok(ConfigValue::Literal(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ConfigValue, A::Error> {
                let mut name: Option<String> = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "keyring" || name.is_some() {
                        return Err(de::Error::custom(format!(
                            r#"unexpected key {key:?}: a keyring value is {{"keyring": "<secret name>"}}"#
                        )));
                    }
                    name = Some(map.next_value()?);
                }
                let name = name.ok_or_else(|| {
                    de::Error::custom(r#"a keyring value is {"keyring": "<secret name>"}"#)
                })?;
                super::check_secret_name(&name).map_err(de::Error::custom)?;
                Ok(ConfigValue::Keyring(name))
            }
        }
        d.deserialize_any(ValueVisitor)
    }
}

impl ServerConfig {
    /// The prefix its tools and prompts are exposed under.
    pub fn prefix(&self) -> &str {
        self.namespace.as_deref().unwrap_or(self.id.as_str())
    }
}

/// How to reach an upstream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TransportConfig {
    /// A child process speaking MCP over stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Values given as `{"keyring": "<name>"}` are read from the OS keyring
        /// each time the server is started.
        env: BTreeMap<String, ConfigValue>,
        cwd: Option<PathBuf>,
    },
    /// A remote server over Streamable HTTP, or over the legacy HTTP+SSE
    /// transport of MCP 2024-11-05 when `sse` is set (`"transport": "sse"`).
    /// Headers, OAuth, `${VAR}` expansion and redaction apply alike.
    Http {
        url: String,
        /// Values given as `{"keyring": "<name>"}` are read from the OS keyring
        /// each time the server is connected.
        headers: BTreeMap<String, ConfigValue>,
        /// Left out when false, so Streamable HTTP servers keep the
        /// fingerprint they had before the field existed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sse: bool,
    },
}

impl TransportConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { sse: true, .. } => "sse",
            Self::Http { .. } => "http",
        }
    }
}

/// Per-server overrides of the global timeouts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTimeouts {
    pub startup: Option<Duration>,
    pub call: Option<Duration>,
}
