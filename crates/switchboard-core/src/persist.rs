//! The warm catalog: the last known listing of every server, kept on disk
//! across restarts so clients see tools right after start-up, before any
//! server process runs.
//!
//! The file is `catalog.json` in the state directory (`SWITCHBOARD_CACHE_DIR`,
//! else `<OS cache dir>/switchboard`). Each entry carries the server's config
//! fingerprint; an entry is used only while the fingerprint still matches, so
//! an edited server never shows a stale catalog. Loaded listings are marked
//! unverified until the server is started and listed for real. Writes are
//! atomic and debounced ([`crate::util::files::write_atomic`]); the file is `0600`
//! and the state directory `0700` on Unix (tools' descriptions can carry
//! whatever a server puts there). A missing or unreadable file only means a
//! cold start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use serde::{Deserialize, Serialize};

use crate::listing::{Capabilities, RefreshTrigger};

/// The on-disk format version; a file with another version is ignored.
const VERSION: u32 = 1;
/// How long catalog changes are collected before one write.
pub(crate) const SAVE_DEBOUNCE: Duration = Duration::from_millis(500);

/// The state directory: `SWITCHBOARD_CACHE_DIR` or the OS cache dir.
pub fn state_dir() -> PathBuf {
    std::env::var_os("SWITCHBOARD_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("switchboard")
        })
}

#[derive(Serialize, Deserialize)]
struct File {
    version: u32,
    servers: BTreeMap<String, Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    fingerprint: String,
    listed_at: SystemTime,
    server_name: String,
    server_version: String,
    protocol_version: String,
    #[serde(default)]
    tools: Vec<Tool>,
    #[serde(default)]
    prompts: Vec<Prompt>,
    #[serde(default)]
    resources: Vec<Resource>,
    #[serde(default)]
    resource_templates: Vec<ResourceTemplate>,
}

/// Listings saved by a previous run, by server id, with their fingerprints.
pub(crate) fn load(path: &Path) -> BTreeMap<String, (String, Capabilities)> {
    let Ok(bytes) = std::fs::read(path) else {
        return BTreeMap::new();
    };
    let file: File = match serde_json::from_slice(&bytes) {
        Ok(file) => file,
        Err(err) => {
            tracing::warn!(path = %path.display(), %err, "ignoring unreadable warm catalog");
            return BTreeMap::new();
        }
    };
    if file.version != VERSION {
        return BTreeMap::new();
    }
    file.servers
        .into_iter()
        .map(|(id, e)| {
            let mut caps = Capabilities::empty(RefreshTrigger::Startup);
            caps.tools = e.tools;
            caps.prompts = e.prompts;
            caps.resources = e.resources;
            caps.resource_templates = e.resource_templates;
            caps.server_name = e.server_name;
            caps.server_version = e.server_version;
            caps.protocol_version = e.protocol_version;
            caps.listed_at = e.listed_at;
            caps.hashes = caps.compute_hashes();
            caps.drop_duplicates();
            (id, (e.fingerprint, caps))
        })
        .collect()
}

/// Writes the listings (`id → (fingerprint, capabilities)`) atomically.
pub(crate) fn save<'a>(
    path: &Path,
    servers: impl Iterator<Item = (String, String, &'a Capabilities)>,
) -> std::io::Result<()> {
    let file = File {
        version: VERSION,
        servers: servers
            .map(|(id, fingerprint, c)| {
                (
                    id,
                    Entry {
                        fingerprint,
                        listed_at: c.listed_at,
                        server_name: c.server_name.clone(),
                        server_version: c.server_version.clone(),
                        protocol_version: c.protocol_version.clone(),
                        tools: c.tools.clone(),
                        prompts: c.prompts.clone(),
                        resources: c.resources.clone(),
                        resource_templates: c.resource_templates.clone(),
                    },
                )
            })
            .collect(),
    };
    if let Some(dir) = path.parent() {
        crate::util::files::own_dir(dir)?;
    }
    let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
    crate::util::files::write_atomic(path, &bytes, crate::util::files::FileMode::Private)
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_listings_with_fingerprints() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.json");
        let mut caps = Capabilities::empty(RefreshTrigger::Poll);
        caps.tools = vec![
            serde_json::from_value(json!({"name": "x", "inputSchema": {"type": "object"}}))
                .unwrap(),
        ];
        caps.server_name = "srv".into();
        caps.hashes = caps.compute_hashes();
        save(
            &path,
            [("a".to_string(), "f1".to_string(), &caps)].into_iter(),
        )
        .unwrap();
        let loaded = load(&path);
        let (fingerprint, back) = &loaded["a"];
        assert_eq!(fingerprint, "f1");
        assert_eq!(back.tools, caps.tools);
        assert_eq!(back.hashes, caps.hashes);
        assert_eq!(back.trigger, RefreshTrigger::Startup);
        assert!(load(&dir.path().join("missing.json")).is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(load(&path).is_empty());
    }
}
