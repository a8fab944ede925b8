//! The MCP Registry client (layer 1): the registry's generic API
//! (`GET /v0.1/servers?search=&limit=&cursor=`,
//! `GET /v0.1/servers/<name>/versions[/<version>|/latest]`, with the `/v0`
//! paths as fallback when a registry has no `/v0.1`), parsed into
//! [`document::ServerDocument`]s, and the install flow that writes what
//! `switchboard add` adds (`install`), the staged update (`update`), the
//! lockfile (`lock`) and the package fetch with its digest check (`fetch`).
//!
//! Every request has a deadline ([`REQUEST_TIMEOUT`]) and a size limit, so a
//! registry that hangs or answers garbage is a [`RegistryError`] naming the
//! registry, never a hang. Answers are cached on disk under the state
//! directory (`registry/`): a fresh answer ([`CACHE_FRESH`]) is served
//! without asking, and when the registry is down an older one is served
//! marked stale (the registry promises no uptime). The client is given its
//! HTTP client; it owns nothing else.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub mod document;
pub mod fetch;
pub mod install;
pub mod lock;
pub mod update;

pub use document::ServerDocument;

/// How long one registry request may take, connect to last byte.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(8);
/// How long a cached answer is used without asking the registry again.
pub const CACHE_FRESH: Duration = Duration::from_secs(300);
/// The largest answer read.
const MAX_ANSWER: usize = 8 * 1024 * 1024;

/// Why the registry gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("the MCP Registry at {registry} cannot be reached: {message}")]
    Unreachable { registry: String, message: String },
    #[error("the MCP Registry at {registry} did not answer within {} s", .after.as_secs())]
    Timeout { registry: String, after: Duration },
    #[error("the MCP Registry at {registry} answered HTTP {status} for {path}")]
    Status {
        registry: String,
        path: String,
        status: u16,
    },
    #[error(
        "the MCP Registry at {registry} answered something that is not a registry answer for {path}: {message}"
    )]
    Garbage {
        registry: String,
        path: String,
        message: String,
    },
    #[error("the MCP Registry at {registry} has no server named {name}{}", .version.as_deref().map(|v| format!(" at version {v}")).unwrap_or_default())]
    NotFound {
        registry: String,
        name: String,
        version: Option<String>,
    },
}

/// One server in an answer: its document and the registry's `_meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerEntry {
    pub server: ServerDocument,
    #[serde(
        rename = "_meta",
        default,
        skip_serializing_if = "serde_json::Value::is_null"
    )]
    pub meta: serde_json::Value,
}

impl ServerEntry {
    /// Whether the registry marks this version its latest (true when it says nothing).
    pub fn is_latest(&self) -> bool {
        self.meta
            .get("io.modelcontextprotocol.registry/official")
            .and_then(|m| m.get("isLatest"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(true)
    }
}

/// `{"servers": [...], "metadata": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerList {
    pub servers: Vec<ServerEntry>,
    #[serde(default)]
    pub metadata: ListMetadata,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMetadata {
    #[serde(default)]
    pub next_cursor: Option<String>,
    #[serde(default)]
    pub count: Option<u64>,
}

/// An answer and, when the registry could not be asked, when it was cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer<T> {
    pub value: T,
    pub stale_since: Option<SystemTime>,
}

/// A client of one registry.
#[derive(Clone)]
pub struct RegistryClient {
    /// The registry's base URL, without a trailing slash.
    base: String,
    http: reqwest::Client,
    /// Where answers are cached (`None`: no cache).
    cache: Option<PathBuf>,
    /// Ask the registry even when a fresh answer is cached (`outdated`,
    /// `update`); the cache then only stands in when the registry is down.
    revalidate: bool,
}

#[derive(Serialize, Deserialize)]
struct Cached {
    fetched_at: SystemTime,
    body: serde_json::Value,
}

impl RegistryClient {
    /// A client of the registry at `base` (`settings.registryUrl`), caching
    /// in `cache`.
    pub fn new(base: &str, http: reqwest::Client, cache: Option<PathBuf>) -> Self {
        Self {
            base: base.trim_end_matches('/').to_string(),
            http,
            cache,
            revalidate: false,
        }
    }

    /// The same client, asking the registry even when a fresh answer is
    /// cached (for questions about what is newest).
    pub fn revalidating(mut self) -> Self {
        self.revalidate = true;
        self
    }

    /// A client with its own HTTP client and the state directory's cache.
    pub fn with_defaults(base: &str) -> Self {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(REQUEST_TIMEOUT)
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Self::new(
            base,
            http,
            Some(crate::persist::state_dir().join("registry")),
        )
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// Servers matching `query` (the registry's latest versions), one page.
    pub async fn search(
        &self,
        query: &str,
        limit: u32,
    ) -> Result<Answer<ServerList>, RegistryError> {
        let q = format!(
            "servers?search={}&limit={limit}&version=latest",
            encode(query)
        );
        let answer = self.get(&q, None).await?;
        let mut list: ServerList = parse(&self.base, &q, answer.value)?;
        // A registry that ignores `version=latest` lists every version.
        list.servers.retain(ServerEntry::is_latest);
        Ok(Answer {
            value: list,
            stale_since: answer.stale_since,
        })
    }

    /// Server `name` at `version` (`None`: its latest version).
    pub async fn server(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<Answer<ServerEntry>, RegistryError> {
        let path = format!(
            "servers/{}/versions/{}",
            encode(name),
            encode(version.unwrap_or("latest"))
        );
        let not_found = || RegistryError::NotFound {
            registry: self.base.clone(),
            name: name.to_string(),
            version: version.map(str::to_string),
        };
        let answer = self.get(&path, Some(&not_found)).await?;
        let entry: ServerEntry = parse(&self.base, &path, answer.value)?;
        if entry.server.name != name {
            return Err(RegistryError::Garbage {
                registry: self.base.clone(),
                path,
                message: format!("it names the server {:?}", entry.server.name),
            });
        }
        Ok(Answer {
            value: entry,
            stale_since: answer.stale_since,
        })
    }

    /// `GET <base>/v0.1/<path>`, else `/v0/<path>` when there is no `/v0.1`;
    /// cached (see the module docs).
    async fn get(
        &self,
        path: &str,
        not_found: Option<&(dyn Fn() -> RegistryError + Sync)>,
    ) -> Result<Answer<serde_json::Value>, RegistryError> {
        let key = format!("{}/{path}", self.base);
        let cached = self.cached(&key);
        if let Some(c) = &cached
            && !self.revalidate
            && c.fetched_at.elapsed().is_ok_and(|age| age < CACHE_FRESH)
        {
            return Ok(Answer {
                value: c.body.clone(),
                stale_since: None,
            });
        }
        let mut result = self.fetch(&format!("v0.1/{path}")).await;
        if matches!(result, Err(RegistryError::Status { status: 404, .. })) {
            result = self.fetch(&format!("v0/{path}")).await;
        }
        match result {
            Ok(body) => {
                self.store(&key, &body);
                Ok(Answer {
                    value: body,
                    stale_since: None,
                })
            }
            Err(RegistryError::Status { status: 404, .. }) if not_found.is_some() => Err(not_found
                .map(|f| f())
                .unwrap_or_else(|| unreachable_404(&self.base))),
            Err(err @ (RegistryError::Unreachable { .. } | RegistryError::Timeout { .. })) => {
                match cached {
                    Some(c) => {
                        tracing::warn!(error = %err, "serving the registry's cached answer");
                        Ok(Answer {
                            value: c.body,
                            stale_since: Some(c.fetched_at),
                        })
                    }
                    None => Err(err),
                }
            }
            Err(err) => Err(err),
        }
    }

    async fn fetch(&self, path: &str) -> Result<serde_json::Value, RegistryError> {
        let url = format!("{}/{path}", self.base);
        let shown = path.split('?').next().unwrap_or(path).to_string();
        let failed = |err: reqwest::Error| {
            if err.is_timeout() {
                RegistryError::Timeout {
                    registry: self.base.clone(),
                    after: REQUEST_TIMEOUT,
                }
            } else {
                RegistryError::Unreachable {
                    registry: self.base.clone(),
                    message: crate::util::error_chain(&err),
                }
            }
        };
        let request = self
            .http
            .get(&url)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(REQUEST_TIMEOUT)
            .send();
        let mut response = tokio::time::timeout(REQUEST_TIMEOUT, request)
            .await
            .map_err(|_| RegistryError::Timeout {
                registry: self.base.clone(),
                after: REQUEST_TIMEOUT,
            })?
            .map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            return Err(RegistryError::Status {
                registry: self.base.clone(),
                path: shown,
                status: status.as_u16(),
            });
        }
        let read = async {
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(failed)? {
                body.extend_from_slice(&chunk);
                if body.len() > MAX_ANSWER {
                    return Err(RegistryError::Garbage {
                        registry: self.base.clone(),
                        path: shown.clone(),
                        message: format!("the answer is larger than {} MiB", MAX_ANSWER >> 20),
                    });
                }
            }
            Ok(body)
        };
        let body = tokio::time::timeout(REQUEST_TIMEOUT, read)
            .await
            .map_err(|_| RegistryError::Timeout {
                registry: self.base.clone(),
                after: REQUEST_TIMEOUT,
            })??;
        serde_json::from_slice(&body).map_err(|err| RegistryError::Garbage {
            registry: self.base.clone(),
            path: shown,
            message: format!("not JSON ({err})"),
        })
    }

    fn cache_file(&self, key: &str) -> Option<PathBuf> {
        let digest = Sha256::digest(key.as_bytes());
        let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        Some(self.cache.as_ref()?.join(format!("{name}.json")))
    }

    fn cached(&self, key: &str) -> Option<Cached> {
        let bytes = std::fs::read(self.cache_file(key)?).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn store(&self, key: &str, body: &serde_json::Value) {
        let Some(path) = self.cache_file(key) else {
            return;
        };
        let cached = Cached {
            fetched_at: SystemTime::now(),
            body: body.clone(),
        };
        let written = path
            .parent()
            .map_or(Ok(()), crate::util::files::own_dir)
            .and_then(|()| {
                let bytes = serde_json::to_vec(&cached).unwrap_or_default();
                crate::util::files::write_atomic(
                    &path,
                    &bytes,
                    crate::util::files::FileMode::Private,
                )
                .map(|_| ())
            });
        if let Err(err) = written {
            tracing::debug!(%err, "cannot cache the registry's answer");
        }
    }
}

fn unreachable_404(registry: &str) -> RegistryError {
    RegistryError::Status {
        registry: registry.to_string(),
        path: String::new(),
        status: 404,
    }
}

fn parse<T: serde::de::DeserializeOwned>(
    registry: &str,
    path: &str,
    body: serde_json::Value,
) -> Result<T, RegistryError> {
    serde_json::from_value(body).map_err(|err| RegistryError::Garbage {
        registry: registry.to_string(),
        path: path.split('?').next().unwrap_or(path).to_string(),
        message: err.to_string(),
    })
}

/// Percent-encodes a path segment or query value (a registry name's `/` too).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
