//! In-process hubs for the engine tests (`tests/tests/suite/engine_*.rs`) and
//! for every suite where a process is not the point: the real
//! `switchboard_core::Hub`, bound and run inside the test process with a
//! config file in a temp dir, driven through its `HubHandle` or, through
//! [`crate::TestHub`], over HTTP like the process hub. The upstreams are real
//! fixture processes.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use switchboard_core::ServerSnapshot;
use switchboard_core::{Hub, HubError, HubHandle, HubOptions, config};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::DEADLINE;

/// `config` with exact tool lists (no built-in tools) and tokens in memory,
/// unless it says otherwise.
fn with_test_settings(mut config: Value) -> Value {
    if let Some(root) = config.as_object_mut() {
        let settings = root.entry("settings").or_insert_with(|| json!({}));
        if let Some(settings) = settings.as_object_mut() {
            settings.entry("builtinTools").or_insert(json!(false));
            settings.entry("tokenStore").or_insert(json!("memory"));
        }
    }
    config
}

/// A hub running inside the test process.
pub struct Engine {
    pub handle: HubHandle,
    /// The merged endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    /// `http://127.0.0.1:<port>`, the control API's base.
    pub base: String,
    /// The state directory (`<dir>/cache`) of a hub started with
    /// [`Engine::serve`]: control token, warm catalog, pins, activity log.
    pub state_dir: PathBuf,
    pub dir: tempfile::TempDir,
    pub config_path: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), HubError>>>,
}

impl Engine {
    /// Writes `config` (a config file's JSON, see `with_test_settings`) to a
    /// temp file and runs a hub on a free loopback port with it: no file
    /// watcher (tests reload explicitly), no warm catalog, the control token
    /// and the activity log in memory.
    pub async fn start(config: Value) -> Result<Self> {
        Self::start_with(config, false).await
    }

    /// Like [`Engine::start`], set up as `switchboard serve` sets up its hub:
    /// the config file watched, the control token, warm catalog, pins and
    /// activity log in files of the state directory. What a suite moved from
    /// the process hub runs on.
    pub async fn serve(config: Value) -> Result<Self> {
        Self::start_with(config, true).await
    }

    async fn start_with(config: Value, like_serve: bool) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let config_path = dir.path().join("config.json");
        std::fs::write(
            &config_path,
            serde_json::to_vec_pretty(&with_test_settings(config))?,
        )?;
        let parsed = config::load(config::Source::start(&config_path))?;
        let state_dir = dir.path().join("cache");
        let in_state = |name: &str| like_serve.then(|| state_dir.join(name));
        let options = HubOptions {
            config_path: Some(config_path.clone()),
            listen: Some("127.0.0.1:0".parse()?),
            watch_config: like_serve,
            warm_catalog: in_state("catalog.json"),
            control_token: in_state("control-token"),
            activity_log: in_state("activity.jsonl"),
        };
        let hub = Hub::bind(parsed, options).await?;
        let handle = hub.handle();
        let url = hub.endpoint().to_string();
        let base = url.trim_end_matches("/mcp").to_string();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(hub.run(async move {
            let _ = stopped.await;
        }));
        Ok(Self {
            handle,
            url,
            base,
            state_dir,
            dir,
            config_path,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// Replaces the config file (write, then rename, as editors do), with the
    /// same test settings as at start.
    pub fn save_config(&self, config: &Value) {
        let tmp = self.dir.path().join(".config.json.tmp");
        let config = with_test_settings(config.clone());
        std::fs::write(&tmp, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
        std::fs::rename(&tmp, &self.config_path).unwrap();
    }

    /// Server `id` in the hub's current snapshot.
    pub fn server(&self, id: &str) -> ServerSnapshot {
        let snapshot = self.handle.snapshot();
        snapshot
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .unwrap_or_else(|| panic!("no server {id} in the snapshot"))
    }

    /// Stops the hub as the binary does on SIGTERM and waits for it to finish
    /// (its servers are shut down by then).
    pub async fn stop(mut self) -> Result<()> {
        self.stop_running().await
    }

    /// [`Engine::stop`] in place, for [`crate::TestHub::shutdown`].
    pub(crate) async fn stop_running(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.take().context("stopped already")?;
        tokio::time::timeout(DEADLINE, task)
            .await
            .context("the hub did not stop in time")???;
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A test that fails before `stop` still ends its hub; the runtime's
        // end drops the hub's tasks and with them its servers' processes.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
