//! The hub inside the app: loaded and bound at launch, served on Tauri's
//! async runtime, stopped (every upstream closed, no child left) on quit.
//!
//! Owns the one [`HubHandle`] the tray and the window use. A config file
//! that does not parse does not stop the app: the hub starts with no servers
//! and reports the file's error (file, line, column) in its snapshot until
//! the file is fixed, which the config watcher picks up by itself.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use switchboard_core::config::{self, OrEmpty, Source, default_config_path, process_env};
use switchboard_core::{Hub, HubError, HubHandle, HubOptions};
use tauri::async_runtime::JoinHandle;
use tokio::sync::oneshot;

/// How long quitting waits for the hub to close its upstreams.
const STOP_DEADLINE: Duration = Duration::from_secs(20);

/// Where the config comes from: `SWITCHBOARD_CONFIG`, else the default path.
pub fn config_path() -> PathBuf {
    std::env::var_os("SWITCHBOARD_CONFIG")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(default_config_path)
}

/// Why the hub could not start, in words, with what to do about a busy port.
pub fn explain_start_error(err: &anyhow::Error) -> String {
    match err.downcast_ref::<HubError>() {
        // HubError's message already includes its cause; `{:#}` would repeat it.
        Some(bind @ HubError::Bind { .. }) => format!(
            "{bind}. Is another Switchboard (or `switchboard serve`) already running? \
             Quit it, or choose another address with settings.listen in the config file \
             or SWITCHBOARD_LISTEN."
        ),
        Some(other) => other.to_string(),
        None => format!("{err:#}"),
    }
}

/// A running hub and the task serving it.
pub struct RunningHub {
    pub handle: HubHandle,
    /// `http://127.0.0.1:<port>/`: the dashboard.
    pub dashboard_url: String,
    /// Resolves the shutdown future given to [`Hub::run`].
    stop: Mutex<Option<oneshot::Sender<()>>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

/// Loads the config, binds the listener and starts serving on Tauri's runtime.
pub async fn start() -> anyhow::Result<RunningHub> {
    let path = config_path();
    let OrEmpty { config, refused } =
        config::load(Source::start(&path).overrides(&process_env).or_empty())?;
    let broken = refused.is_some();
    if let Some(err) = refused {
        tracing::warn!(error = %err, "config file refused; starting with no servers until it is fixed");
    }
    tracing::info!(config = %path.display(), servers = config.servers.len(), "starting the hub");
    let hub = Hub::bind(
        config,
        HubOptions {
            config_path: Some(path),
            listen: None,
            watch_config: true,
            // The same warm catalog as `switchboard serve`: lists are known before servers start.
            warm_catalog: Some(switchboard_core::state_dir().join("catalog.json")),
            // The same activity log as `switchboard serve`.
            activity_log: Some(switchboard_core::state_dir().join("activity.jsonl")),
            // The same token file as `switchboard serve`: the CLI reads it to talk to this hub.
            control_token: Some(switchboard_core::token_path(&switchboard_core::state_dir())),
        },
    )
    .await?;
    let handle = hub.handle();
    // The dashboard's first run offers what `switchboard import` would add.
    handle.set_import_source(std::sync::Arc::new(
        switchboard_clients::import_offer::ClientsImport {
            endpoint: Some(hub.endpoint().to_string()),
            bases: None,
        },
    ));
    let addr = hub.local_addr();
    let dashboard_url = format!("http://{addr}/");
    tracing::info!(endpoint = %hub.endpoint(), "hub listening");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tauri::async_runtime::spawn(async move {
        let shutdown = async move {
            // A dropped sender (the app going away) also means stop.
            let _ = stopped.await;
        };
        if let Err(err) = hub.run(shutdown).await {
            tracing::error!(error = %err, "the hub stopped with an error");
        }
    });
    if broken {
        // Puts the file's error into the snapshot, where the tray and the page show it.
        let reload = handle.clone();
        tauri::async_runtime::spawn(async move {
            let _ = reload.reload_from_file().await;
        });
    }
    Ok(RunningHub {
        handle,
        dashboard_url,
        stop: Mutex::new(Some(stop)),
        task: Mutex::new(Some(task)),
    })
}

impl RunningHub {
    /// Asks the hub to stop and waits (bounded) until it has closed everything.
    pub fn stop_blocking(&self) {
        if let Some(stop) = self.stop.lock().ok().and_then(|mut s| s.take()) {
            let _ = stop.send(());
        }
        let task = self.task.lock().ok().and_then(|mut t| t.take());
        if let Some(task) = task {
            let done = tauri::async_runtime::block_on(async {
                tokio::time::timeout(STOP_DEADLINE, task).await
            });
            match done {
                Ok(_) => tracing::info!("hub stopped"),
                Err(_) => tracing::warn!("the hub did not stop within {STOP_DEADLINE:?}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_port_is_explained_once_with_a_way_out() {
        let err = anyhow::Error::from(HubError::Bind {
            addr: ([127, 0, 0, 1], 8420).into(),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
        });
        let why = explain_start_error(&err);
        assert!(
            why.starts_with(
                "cannot listen on 127.0.0.1:8420: address in use. Is another Switchboard"
            ),
            "{why}"
        );
        assert_eq!(why.matches("address in use").count(), 1, "{why}");
        assert!(why.contains("SWITCHBOARD_LISTEN"), "{why}");
    }
}
