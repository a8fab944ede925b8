//! The warm catalog: the listings of the last run, kept in a file so that a
//! restarted hub serves its tools at once (marked unverified until a server
//! is used), written after catalog changes (debounced) and at shutdown.

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
                    u.capabilities()?,
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
