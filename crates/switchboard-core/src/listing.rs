//! What one upstream offers, as last listed, and the fresh-cache over it.
//!
//! [`Capabilities`] is a plain value: the server's tools, prompts, resources
//! and templates with a content hash per list. The [`FreshCache`] (moka, with
//! a TTL and a maximum entry count) only answers "is this server's listing
//! still fresh?"; the last known listing itself lives in the upstream and is
//! never dropped by a failed refresh or by cache expiry, which is what allows
//! stale-while-revalidate.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::ServerId;

/// What caused a listing (a wire type).
pub use switchboard_api::RefreshTrigger;

/// Content hashes of each list, to tell which lists changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListHashes {
    pub tools: u64,
    pub prompts: u64,
    pub resources: u64,
}

/// One server's capabilities as last listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    pub resources: Vec<Resource>,
    pub resource_templates: Vec<ResourceTemplate>,
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    pub instructions: Option<String>,
    pub hashes: ListHashes,
    pub listed_at: SystemTime,
    pub trigger: RefreshTrigger,
    /// Sentences for the status about this listing (a name listed twice).
    pub notes: Vec<String>,
}

impl Capabilities {
    /// The tools as a server's pass-through sessions see them: all but the
    /// `disabled` ones (its `disabledTools`).
    pub fn visible_tools(&self, disabled: &BTreeSet<String>) -> Vec<Tool> {
        self.tools
            .iter()
            .filter(|t| !disabled.contains(t.name.as_ref()))
            .cloned()
            .collect()
    }

    /// The list versions a pass-through session compares (tools, prompts,
    /// resources; see `Session::listed`), `disabled` tools left out.
    pub fn pass_through_versions(&self, disabled: &BTreeSet<String>) -> [u64; 3] {
        [
            canonical_hash(&self.visible_tools(disabled)),
            canonical_hash(&self.prompts),
            canonical_hash(&(&self.resources, &self.resource_templates)),
        ]
    }

    pub fn empty(trigger: RefreshTrigger) -> Self {
        Self {
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            server_name: String::new(),
            server_version: String::new(),
            protocol_version: String::new(),
            instructions: None,
            hashes: ListHashes::default(),
            listed_at: SystemTime::now(),
            trigger,
            notes: Vec::new(),
        }
    }

    /// Keeps the first tool and the first prompt of each name, the same
    /// whatever comes after it, and notes each name listed more than once:
    /// a name stands for one definition everywhere (pins, catalog, calls).
    pub fn drop_duplicates(&mut self) {
        let mut notes = Vec::new();
        dedupe(&mut self.tools, |t| t.name.to_string(), "tool", &mut notes);
        dedupe(&mut self.prompts, |p| p.name.clone(), "prompt", &mut notes);
        if !notes.is_empty() {
            self.notes = notes;
            self.hashes = self.compute_hashes();
        }
    }

    /// Lists everything the server advertises, following cursors.
    pub async fn list(
        peer: &Peer<RoleClient>,
        trigger: RefreshTrigger,
    ) -> Result<Self, ServiceError> {
        let info = peer.peer_info();
        let advertised = info.as_ref().map(|i| &i.capabilities);
        let has_tools = advertised.is_none_or(|c| c.tools.is_some());
        let has_prompts = advertised.is_none_or(|c| c.prompts.is_some());
        let has_resources = advertised.is_none_or(|c| c.resources.is_some());

        let tools = if has_tools {
            peer.list_all_tools().await?
        } else {
            Vec::new()
        };
        let prompts = if has_prompts {
            peer.list_all_prompts().await?
        } else {
            Vec::new()
        };
        let (resources, resource_templates) = if has_resources {
            (
                peer.list_all_resources().await?,
                peer.list_all_resource_templates().await?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let implementation = info.as_ref().and_then(|i| i.server_info.as_ref());
        let mut caps = Self {
            tools,
            prompts,
            resources,
            resource_templates,
            server_name: implementation.map(|i| i.name.clone()).unwrap_or_default(),
            server_version: implementation
                .map(|i| i.version.clone())
                .unwrap_or_default(),
            protocol_version: info
                .as_ref()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default(),
            instructions: info.as_ref().and_then(|i| i.instructions.clone()),
            hashes: ListHashes::default(),
            listed_at: SystemTime::now(),
            trigger,
            notes: Vec::new(),
        };
        caps.hashes = caps.compute_hashes();
        caps.drop_duplicates();
        Ok(caps)
    }

    /// Hashes each list over a canonical JSON form (object keys sorted), so a
    /// re-list with identical content hashes the same whatever the key order.
    pub fn compute_hashes(&self) -> ListHashes {
        ListHashes {
            tools: canonical_hash(&self.tools),
            prompts: canonical_hash(&self.prompts),
            resources: canonical_hash(&(&self.resources, &self.resource_templates)),
        }
    }
}

/// A 64-bit content hash of `value`'s canonical JSON.
pub fn canonical_hash<T: Serialize>(value: &T) -> u64 {
    let json = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    let mut hasher = Sha256::new();
    write_canonical(&json, &mut hasher);
    let digest = hasher.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

fn write_canonical(value: &serde_json::Value, out: &mut Sha256) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.update(b"{");
            for key in keys {
                out.update(serde_json::to_string(key).unwrap_or_default().as_bytes());
                out.update(b":");
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
                out.update(b",");
            }
            out.update(b"}");
        }
        Value::Array(items) => {
            out.update(b"[");
            for item in items {
                write_canonical(item, out);
                out.update(b",");
            }
            out.update(b"]");
        }
        other => out.update(other.to_string().as_bytes()),
    }
}

/// Which servers' listings are fresh: a moka cache with TTL and a size bound.
/// Values are the listing time, so a cache hit also says how old it is.
#[derive(Clone)]
pub struct FreshCache {
    inner: moka::future::Cache<ServerId, SystemTime>,
    ttl: Duration,
}

/// An entry expires `ttl` after its listing time, not after its insertion: the listing is
/// processed (pinned, scanned, merged) before it is marked fresh, and the snapshot's
/// `ttlExpiresAt` is listing time + TTL. With the insertion's clock a list just after
/// `ttlExpiresAt` could still find the entry and start no refresh.
struct FromListing {
    ttl: Duration,
}

impl FromListing {
    fn left(&self, listed_at: &SystemTime) -> Option<Duration> {
        let age = SystemTime::now()
            .duration_since(*listed_at)
            .unwrap_or(Duration::ZERO);
        Some(self.ttl.saturating_sub(age))
    }
}

impl moka::Expiry<ServerId, SystemTime> for FromListing {
    fn expire_after_create(
        &self,
        _key: &ServerId,
        listed_at: &SystemTime,
        _created_at: std::time::Instant,
    ) -> Option<Duration> {
        self.left(listed_at)
    }

    fn expire_after_update(
        &self,
        _key: &ServerId,
        listed_at: &SystemTime,
        _updated_at: std::time::Instant,
        _duration_until_expiry: Option<Duration>,
    ) -> Option<Duration> {
        self.left(listed_at)
    }
}

impl FreshCache {
    pub fn new(ttl: Duration, max_entries: u64) -> Self {
        let inner = moka::future::Cache::builder()
            .max_capacity(max_entries.max(1))
            .expire_after(FromListing {
                ttl: ttl.max(Duration::from_millis(1)),
            })
            .build();
        Self { inner, ttl }
    }

    /// Whether `server` was listed within the TTL. Not a cache read (no
    /// maintenance work, no popularity update): every list request asks this
    /// for every server, so it must stay a plain lookup.
    pub fn is_fresh(&self, server: &ServerId) -> bool {
        self.ttl > Duration::ZERO && self.inner.contains_key(server)
    }

    pub async fn mark_fresh(&self, server: &ServerId, listed_at: SystemTime) {
        self.inner.insert(server.clone(), listed_at).await;
    }

    pub async fn invalidate(&self, server: &ServerId) {
        self.inner.invalidate(server).await;
    }
}

/// Removes the later items whose `name` an earlier one has, noting each such
/// name once with how often it was listed.
fn dedupe<T>(items: &mut Vec<T>, name: impl Fn(&T) -> String, kind: &str, notes: &mut Vec<String>) {
    let mut seen: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    items.retain(|item| {
        let count = seen.entry(name(item)).or_default();
        *count += 1;
        *count == 1
    });
    for (name, count) in seen.into_iter().filter(|(_, count)| *count > 1) {
        tracing::debug!(%kind, %name, count, "a name listed more than once; only its first definition is used");
        notes.push(format!(
            "{kind} '{name}' is listed {count} times: only its first definition is used"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hash_ignores_key_order_but_not_content() {
        let a: Vec<Tool> = serde_json::from_value(json!([
            {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
        ]))
        .unwrap();
        let b: Vec<Tool> = serde_json::from_value(json!([
            {"inputSchema": {"properties": {"a": {"type": "string"}}, "type": "object"}, "name": "x"}
        ]))
        .unwrap();
        let c: Vec<Tool> = serde_json::from_value(json!([
            {"name": "x", "description": "new", "inputSchema": {"type": "object"}}
        ]))
        .unwrap();
        assert_eq!(canonical_hash(&a), canonical_hash(&b));
        assert_ne!(canonical_hash(&a), canonical_hash(&c));
    }

    #[tokio::test]
    async fn fresh_cache_expires_and_is_bounded() {
        let cache = FreshCache::new(Duration::from_millis(50), 1);
        let a = ServerId::new("a").unwrap();
        cache.mark_fresh(&a, SystemTime::now()).await;
        assert!(cache.is_fresh(&a));
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(!cache.is_fresh(&a));
        // Expiry counts from the listing time, not from when it was marked.
        let late = FreshCache::new(Duration::from_millis(200), 10);
        late.mark_fresh(&a, SystemTime::now() - Duration::from_millis(150))
            .await;
        assert!(late.is_fresh(&a));
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!late.is_fresh(&a), "expired 200 ms after the listing");
        let zero = FreshCache::new(Duration::ZERO, 10);
        zero.mark_fresh(&a, SystemTime::now()).await;
        assert!(!zero.is_fresh(&a));
    }
}
