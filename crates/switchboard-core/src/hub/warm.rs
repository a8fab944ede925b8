//! The warm catalog: the listings of the last run, kept in a file so that a
//! restarted hub serves its tools at once (marked unverified until a server
//! is used), written after catalog changes (debounced) and at shutdown.
//! What is kept is each listing as the server sent it, held tools included:
//! the pins of the next run apply to it in that run's `toolPinning` mode, so
//! a tool held under `hold` is served at once after a restart in `warn` or
//! `off`, and withheld again under `hold`.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use super::HubHandle;

/// Writes the warm catalog after changes (debounced) and once more at shutdown.
pub(super) async fn save_warm_catalog(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    loop {
        let stop = tokio::select! {
            () = hub.inner.catalog_changed.notified() => false,
            () = cancel.cancelled() => true,
        };
        if !stop {
            tokio::select! {
                () = tokio::time::sleep(crate::persist::SAVE_DEBOUNCE) => {}
                () = cancel.cancelled() => {}
            }
        }
        let upstreams = hub.inner.registry.all();
        let listings: Vec<_> = upstreams
            .iter()
            .filter_map(|u| {
                Some((
                    u.id.to_string(),
                    u.fingerprint().to_string(),
                    u.raw_capabilities()?,
                ))
            })
            .collect();
        let entries = listings
            .iter()
            .map(|(id, fp, caps)| (id.clone(), fp.clone(), caps.as_ref()));
        if let Err(err) = crate::persist::save(&path, entries) {
            tracing::warn!(path = %path.display(), %err, "cannot save the warm catalog");
        }
        if stop {
            break;
        }
    }
}

impl HubHandle {
    /// Serves the listings a previous run saved for servers whose config is
    /// unchanged, marked unverified.
    pub(super) fn load_warm_catalog(&self) {
        let Some(path) = &self.inner.warm_catalog else {
            return;
        };
        let mut saved = crate::persist::load(path);
        let mut loaded = 0;
        for upstream in self.inner.registry.enabled() {
            if let Some((fingerprint, caps)) = saved.remove(upstream.id.as_str())
                && fingerprint == upstream.fingerprint().to_string()
            {
                upstream.set_warm_listing(caps);
                loaded += 1;
            }
        }
        if loaded > 0 {
            tracing::info!(servers = loaded, path = %path.display(), "warm catalog loaded");
            self.rebuild_catalog();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;
    use rmcp::model::Tool;
    use tokio_util::sync::CancellationToken;

    use crate::config;
    use crate::fingerprint::Fingerprint;
    use crate::hub::{Hub, HubOptions};
    use crate::listing::{Capabilities, RefreshTrigger};

    #[tokio::test]
    async fn a_saved_listing_is_served_for_an_unchanged_server_only_and_saved_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.json");
        let mut config = config::load(config::Source::text(
            r#"{"mcpServers":{
                "same":{"command":"switchboard-test-no-such-command"},
                "changed":{"command":"switchboard-test-no-such-command"}}}"#,
            Path::new("t.json"),
        ))
        .unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
        let tool: Tool = serde_json::from_value(
            serde_json::json!({"name": "t", "inputSchema": {"type": "object"}}),
        )
        .unwrap();
        caps.tools = vec![tool];
        let same = Fingerprint::of(&config.servers[0]).to_string();
        crate::persist::save(
            &path,
            [
                ("same".to_string(), same, &caps),
                ("changed".to_string(), "0".repeat(16), &caps),
            ]
            .into_iter(),
        )
        .unwrap();
        let hub = Hub::bind(
            config,
            HubOptions {
                warm_catalog: Some(path.clone()),
                ..HubOptions::default()
            },
        )
        .await
        .unwrap();
        let handle = hub.handle();
        let warm = handle.upstream("same").unwrap();
        assert!(warm.is_unverified());
        assert!(warm.capabilities().is_some());
        assert!(handle.upstream("changed").unwrap().capabilities().is_none());
        let names: Vec<String> = handle
            .catalog()
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, vec!["same__t".to_string()]);

        // The writer saves once more when it stops: only what is listed.
        std::fs::remove_file(&path).unwrap();
        let cancel = CancellationToken::new();
        let writer = tokio::spawn(super::save_warm_catalog(
            handle.clone(),
            path.clone(),
            cancel.clone(),
        ));
        cancel.cancel();
        writer.await.unwrap();
        let saved = crate::persist::load(&path);
        assert_eq!(saved.keys().collect::<Vec<_>>(), vec!["same"]);
        handle.shutdown();
    }
}
