//! Reloads the config file each time [`ConfigWatch`] says it changed (the
//! watch itself, with its debounce and its filter of events that cannot mean
//! new content, is in `switchboard-config/src/watch.rs`).

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use super::HubHandle;
use crate::config::ConfigWatch;

/// Reloads the config file on change until `cancel` fires.
pub(crate) async fn watch_config(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    let Some(mut watch) = ConfigWatch::start(&path) else {
        return;
    };
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            changed = watch.changed() => if !changed { break },
        }
        match hub.reload_from_file().await {
            Ok(result) => tracing::debug!(?result, "reloaded after file change"),
            Err(err) => tracing::debug!(%err, "reload after file change refused"),
        }
    }
}
