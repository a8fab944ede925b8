//! The config file's raw shape and its checks: the top object (`mcpServers`,
//! `settings`, `profiles`), each server definition as written, and how it
//! becomes a [`ServerConfig`] (`${VAR}` references expanded, the transport
//! chosen, every field checked). Only [`load`](crate::load) reads through it.
//!
//! Validation happens while deserializing, so that serde_json attaches the
//! line and column of the offending value to every error. The `settings`
//! object is read by the settings table (`settings.rs`); everything else here.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::expand::{Vars, expand};
use super::settings::{DurationVisitor, FileSettings, TimeUnit};
use super::{ConfigValue, OAuthConfig, ServerConfig, ServerId, ServerTimeouts, TransportConfig};

/// Reads a server's `timeouts.startupSecs` (at least 1); errors name the key.
fn de_server_startup_secs<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_any(DurationVisitor {
        key: "timeouts.startupSecs",
        unit: TimeUnit::Secs,
        min: 1,
    })
}

/// Reads a server's `timeouts.callSecs` (at least 1); errors name the key.
fn de_server_call_secs<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_any(DurationVisitor {
        key: "timeouts.callSecs",
        unit: TimeUnit::Secs,
        min: 1,
    })
}

pub(crate) struct RawFile {
    pub(crate) mcp_servers: ServerList,
    pub(crate) settings: FileSettings,
    pub(crate) profiles: Vec<super::ProfileConfig>,
}

/// Reads the file's top object: `mcpServers` (with `vars` for the
/// references in it), `settings` and `profiles` (checked against
/// `mcpServers` once both are read); other keys are ignored.
pub(crate) struct FileSeed<'a, 'v>(pub(crate) &'a Vars<'v>);

impl<'de> de::DeserializeSeed<'de> for FileSeed<'_, '_> {
    type Value = RawFile;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawFile, D::Error> {
        struct FileVisitor<'a, 'v>(&'a Vars<'v>);
        impl<'de> Visitor<'de> for FileVisitor<'_, '_> {
            type Value = RawFile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object with `mcpServers` (and optionally `settings`)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFile, A::Error> {
                let mut servers: Option<ServerList> = None;
                let mut settings: Option<FileSettings> = None;
                let mut profiles: Option<Vec<super::ProfileConfig>> = None;
                // A repeated key never gets here (`unique.rs`).
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "mcpServers" => servers = Some(map.next_value_seed(ListSeed(self.0))?),
                        "settings" => settings = Some(map.next_value()?),
                        "profiles" => {
                            let value: serde_json::Value = map.next_value()?;
                            profiles = Some(
                                super::profiles::parse_profiles(value)
                                    .map_err(de::Error::custom)?,
                            );
                        }
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                let mcp_servers = servers.unwrap_or_default();
                let profiles = profiles.unwrap_or_default();
                super::profiles::check_servers(&profiles, &mcp_servers.0)
                    .map_err(de::Error::custom)?;
                Ok(RawFile {
                    mcp_servers,
                    settings: settings.unwrap_or_default(),
                    profiles,
                })
            }
        }
        d.deserialize_map(FileVisitor(self.0))
    }
}

/// `mcpServers` in file order, with ids checked (a repeated id was refused
/// before, with every other repeated key: `unique.rs`).
#[derive(Default)]
pub(crate) struct ServerList(pub(crate) Vec<ServerConfig>);

struct ListSeed<'a, 'v>(&'a Vars<'v>);

impl<'de> de::DeserializeSeed<'de> for ListSeed<'_, '_> {
    type Value = ServerList;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ServerList, D::Error> {
        struct ListVisitor<'a, 'v>(&'a Vars<'v>);
        impl<'de> Visitor<'de> for ListVisitor<'_, '_> {
            type Value = ServerList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping server ids to server definitions")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServerList, A::Error> {
                let mut servers: Vec<ServerConfig> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let id = ServerId::new(&key).map_err(de::Error::custom)?;
                    let raw: RawServer = map.next_value()?;
                    let server = raw
                        .into_server(id, self.0)
                        .map_err(|msg| de::Error::custom(format!("server {key:?}: {msg}")))?;
                    servers.push(server);
                }
                Ok(ServerList(servers))
            }
        }
        d.deserialize_map(ListVisitor(self.0))
    }
}

#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a server definition (an object with `command` or `url`)"
)]
struct RawServer {
    /// Accepted for compatibility with other clients' files: stdio, http,
    /// streamable-http, streamableHttp or sse.
    #[serde(rename = "type")]
    kind: Option<String>,
    /// `sse` (the legacy HTTP+SSE transport), `streamable-http` or `http`
    /// with `url`; `stdio` with `command`.
    transport: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, ConfigValue>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, ConfigValue>,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    disabled_tools: BTreeSet<String>,
    #[serde(default)]
    tool_overrides: BTreeMap<String, super::overrides::RawToolOverride>,
    namespace: Option<String>,
    #[serde(default)]
    timeouts: RawTimeouts,
    oauth: Option<RawOAuth>,
    #[serde(default)]
    sandbox: super::ServerSandbox,
    confirm_calls: Option<super::ConfirmCalls>,
    #[serde(default)]
    confirm_tools: Vec<String>,
    #[serde(default)]
    allow_tools: Vec<String>,
    result_secrets: Option<super::ResultSecrets>,
    /// Free text shown in the UI; not used otherwise.
    #[allow(dead_code)]
    description: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Default, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an object of timeouts (`timeouts`)"
)]
struct RawTimeouts {
    #[serde(default, deserialize_with = "de_server_startup_secs")]
    startup_secs: Option<Duration>,
    #[serde(default, deserialize_with = "de_server_call_secs")]
    call_secs: Option<Duration>,
}

#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an object of OAuth settings (`oauth`)"
)]
struct RawOAuth {
    client_id: Option<String>,
    client_secret: Option<ConfigValue>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default, deserialize_with = "de_redirect_port")]
    redirect_port: Option<u16>,
    client_metadata_url: Option<String>,
    #[serde(default)]
    grant: super::model::OAuthGrant,
    signing_key: Option<ConfigValue>,
    signing_algorithm: Option<super::model::SigningAlgorithm>,
    identity_provider: Option<super::model::IdentityProvider>,
}

/// `oauth.redirectPort`: a port number, or `null` (pick a free one).
fn de_redirect_port<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    struct PortVisitor;
    impl<'de> Visitor<'de> for PortVisitor {
        type Value = Option<u16>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("`oauth.redirectPort`: a port number from 0 to 65535")
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
            u16::try_from(value)
                .map(Some)
                .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(value), &self))
        }
        fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
            Err(E::invalid_value(de::Unexpected::Signed(value), &self))
        }
    }
    d.deserialize_any(PortVisitor)
}

impl RawServer {
    fn into_server(mut self, id: ServerId, vars: &Vars<'_>) -> Result<ServerConfig, String> {
        let expanded = self.expand(vars)?;
        let transport = match (self.command, self.url) {
            (Some(_), Some(_)) => {
                return Err("has both `command` (stdio) and `url` (http); keep one".into());
            }
            (None, None) => {
                return Err("needs `command` (a stdio server) or `url` (a remote server)".into());
            }
            (Some(command), None) => {
                if let Some(kind) = self.kind.as_deref().filter(|k| *k != "stdio") {
                    return Err(format!("has `command` but `type` is {kind:?}"));
                }
                if let Some(t) = self.transport.as_deref().filter(|t| *t != "stdio") {
                    return Err(format!("has `command` but `transport` is {t:?}"));
                }
                if command.trim().is_empty() {
                    return Err("`command` is empty".into());
                }
                TransportConfig::Stdio {
                    command,
                    args: self.args,
                    env: self.env,
                    cwd: self.cwd,
                }
            }
            (None, Some(url)) => {
                let sse = super::transport::remote_is_sse(
                    self.kind.as_deref(),
                    self.transport.as_deref(),
                )?;
                super::transport::check_remote(&url, &self.headers)?;
                TransportConfig::Http {
                    url,
                    headers: self.headers,
                    sse,
                }
            }
        };
        if self.oauth.is_some() && !matches!(transport, TransportConfig::Http { .. }) {
            return Err("`oauth` applies only to remote servers (with `url`)".into());
        }
        let oauth = match self.oauth {
            None => None,
            Some(raw) => {
                super::transport::check_oauth(
                    &raw.client_metadata_url,
                    raw.grant,
                    &raw.client_id,
                    &raw.client_secret,
                )?;
                super::transport::check_signing_key(
                    raw.grant,
                    &raw.client_secret,
                    &raw.signing_key,
                    raw.signing_algorithm,
                )?;
                super::transport::check_cross_app(
                    raw.grant,
                    &raw.client_id,
                    raw.identity_provider.as_ref(),
                )?;
                Some(OAuthConfig {
                    client_id: raw.client_id,
                    client_secret: raw.client_secret,
                    scopes: raw.scopes,
                    redirect_port: raw.redirect_port,
                    client_metadata_url: raw.client_metadata_url,
                    grant: raw.grant,
                    signing_key: raw.signing_key,
                    signing_algorithm: raw.signing_algorithm,
                    identity_provider: raw.identity_provider,
                })
            }
        };
        if let Some(ns) = &self.namespace
            && let Some(bad) = ns
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(format!(
                "`namespace` {ns:?} contains {bad:?}; only letters, digits, '_' and '-' are allowed"
            ));
        }
        Ok(ServerConfig {
            id,
            transport,
            enabled: self.enabled,
            disabled_tools: self.disabled_tools,
            tool_overrides: super::overrides::parse(self.tool_overrides)?,
            namespace: self.namespace,
            timeouts: ServerTimeouts {
                startup: self.timeouts.startup_secs,
                call: self.timeouts.call_secs,
            },
            oauth,
            sandbox: self.sandbox,
            approval: (self.confirm_calls, self.confirm_tools, self.allow_tools).into(),
            result_secrets: self.result_secrets,
            expanded,
        })
    }

    /// Replaces the `${VAR}` references in `command`, `args`, `env`,
    /// `cwd`, `url` and `headers` by their values (see `expand.rs`);
    /// returns the values taken from variables (secrets). An error names
    /// the field and the variable, never a value.
    fn expand(&mut self, vars: &Vars<'_>) -> Result<Vec<String>, String> {
        let mut values = Vec::new();
        let mut one = |field: String, text: &mut String| -> Result<(), String> {
            let done = expand(text, vars).map_err(|err| format!("{field} {err}"))?;
            *text = done.text;
            values.extend(done.values);
            Ok(())
        };
        if let Some(command) = &mut self.command {
            one("command".into(), command)?;
        }
        for (i, arg) in self.args.iter_mut().enumerate() {
            one(format!("args[{i}]"), arg)?;
        }
        for (name, value) in &mut self.env {
            if let ConfigValue::Literal(text) = value {
                one(format!("env.{name}"), text)?;
            }
        }
        if let Some(cwd) = &mut self.cwd {
            let Some(text) = cwd.to_str() else {
                return Err("`cwd` is not Unicode text".into());
            };
            let mut text = text.to_string();
            one("cwd".into(), &mut text)?;
            *cwd = PathBuf::from(text);
        }
        if let Some(url) = &mut self.url {
            one("url".into(), url)?;
        }
        for (name, value) in &mut self.headers {
            if let ConfigValue::Literal(text) = value {
                one(format!("headers.{name}"), text)?;
            }
        }
        for (field, path) in self.sandbox.paths_mut() {
            one(field, path)?;
        }
        Ok(values)
    }
}
