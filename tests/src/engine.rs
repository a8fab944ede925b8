//! In-process hubs for the engine tests (`tests/tests/suite/engine_*.rs`): the
//! real `switchboard_core::Hub`, bound and run inside the test process with a
//! config file in a temp dir, driven through its `HubHandle` and reached over
//! HTTP by real rmcp clients. The upstreams are real fixture processes.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use switchboard_core::ServerSnapshot;
use switchboard_core::{Hub, HubError, HubHandle, HubOptions, config};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{Client, DEADLINE, eventually};

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
    pub dir: tempfile::TempDir,
    pub config_path: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), HubError>>>,
}

impl Engine {
    /// Writes `config` (a config file's JSON, see [`with_test_settings`]) to a
    /// temp file and runs a hub on a free loopback port with it.
    pub async fn start(config: Value) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let config_path = dir.path().join("config.json");
        std::fs::write(
            &config_path,
            serde_json::to_vec_pretty(&with_test_settings(config))?,
        )?;
        let parsed = config::load(config::Source::start(&config_path))?;
        // No file watcher (tests reload explicitly), no warm catalog, the
        // control token in memory.
        let options = HubOptions {
            config_path: Some(config_path.clone()),
            listen: Some("127.0.0.1:0".parse()?),
            ..HubOptions::default()
        };
        let hub = Hub::bind(parsed, options).await?;
        let handle = hub.handle();
        let url = hub.endpoint().to_string();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(hub.run(async move {
            let _ = stopped.await;
        }));
        Ok(Self {
            handle,
            url,
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

    /// Waits until server `id`'s snapshot satisfies `pred`, returning it.
    pub async fn wait_server(
        &self,
        id: &str,
        what: &str,
        pred: impl Fn(&ServerSnapshot) -> bool,
    ) -> ServerSnapshot {
        eventually(what, || async {
            let server = self.server(id);
            pred(&server).then_some(server)
        })
        .await
    }

    /// The process id of server `id` once it runs.
    pub async fn pid(&self, id: &str) -> u32 {
        self.wait_server(id, &format!("{id} running"), |s| s.pid.is_some())
            .await
            .pid
            .unwrap_or_default()
    }

    /// Connects a real rmcp client to the merged endpoint.
    pub async fn client(&self) -> Client {
        Client::connect(&self.url).await
    }

    /// Stops the hub as the binary does on SIGTERM and waits for it to finish
    /// (its servers are shut down by then).
    pub async fn stop(mut self) -> Result<()> {
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
