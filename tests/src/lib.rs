//! Helpers for the end-to-end tests: find the built binaries, run a real
//! `switchboard serve` with a temporary config, run fixture servers, and
//! connect real rmcp clients that record the notifications they receive.
//!
//! The binaries are built by the tests themselves: the first test that needs
//! one runs cargo (through escargot) once per test process, into the target
//! directory this test binary was built into, so a plain `cargo test` works on
//! a fresh clone and never builds anything twice. `$SWITCHBOARD_BIN_DIR`
//! points at binaries built elsewhere (an older build, say): they are used as
//! they are, nothing is built.

#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod engine;
mod events;
mod http_fixtures;
mod oauth;
pub mod prelude;
pub mod raw;
mod testhub;

pub use events::{Snapshots, is, wait_snapshot};
pub use http_fixtures::{HttpFixture, RegistryFixture};
pub use oauth::{AuthFixture, FIXTURE_SECRET_PREFIXES, assert_no_secrets, browse, redirect_target};
pub use testhub::TestHub;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
pub use switchboard_api::{
    self as api, Health, HubSnapshot, RefreshTrigger, ServerSnapshot, ServerState,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long anything in a test may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The packages whose binaries the tests run.
const BIN_PACKAGES: [&str; 2] = ["switchboard", "switchboard-fixtures"];

/// The folder with the built `switchboard` and fixture binaries: the profile
/// folder of this test binary's target directory after one `cargo build` of
/// `BIN_PACKAGES` per test process, or `$SWITCHBOARD_BIN_DIR` if that is
/// another folder.
pub fn bin_dir() -> PathBuf {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match DIR.get_or_init(find_or_build_bins) {
        Ok(dir) => dir.clone(),
        Err(err) => panic!("{err}"),
    }
}

/// A memory figure of a process in KiB from `/proc/<pid>/status`, e.g.
/// `VmRSS` or `RssAnon`.
pub fn proc_status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let prefix = format!("{field}:");
    status
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// `<target>/<profile>`: this test binary is `<target>/<profile>/deps/<name>`.
fn own_profile_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding the test binary: {e}"))?;
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("{} is not in a target directory", exe.display()))
}

fn find_or_build_bins() -> Result<PathBuf, String> {
    let profile_dir = own_profile_dir()?;
    if let Some(dir) = std::env::var_os("SWITCHBOARD_BIN_DIR").map(PathBuf::from) {
        let same = |a: &Path, b: &Path| {
            a.canonicalize()
                .ok()
                .is_some_and(|a| b.canonicalize().ok() == Some(a))
        };
        if !same(&dir, &profile_dir) {
            return Ok(dir);
        }
    }
    let target_dir = profile_dir
        .parent()
        .ok_or_else(|| format!("{} has no parent", profile_dir.display()))?;
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut build = escargot::CargoBuild::new()
        .manifest_path(&manifest)
        .target_dir(target_dir)
        .current_release();
    for package in BIN_PACKAGES {
        build = build.arg("--package").arg(package);
    }
    let messages = build
        .arg("--bins")
        .exec()
        .map_err(|e| format!("running cargo build: {e}"))?;
    for message in messages {
        message.map_err(|e| format!("cargo build of {BIN_PACKAGES:?} failed: {e}"))?;
    }
    Ok(profile_dir)
}

pub fn bin(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(
        path.exists(),
        "{} not found (SWITCHBOARD_BIN_DIR names a folder without it?)",
        path.display()
    );
    path
}

/// A stdio server entry running the fixture with `args`.
pub fn stdio_fixture(args: &[&str]) -> Value {
    json!({"command": bin("switchboard-fixture").to_string_lossy(), "args": args})
}

/// Polls `check` every 25 ms until it returns `Some`, failing after [`DEADLINE`].
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = tokio::time::Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Whether a process with `pid` exists and is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the field after the parenthesized command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

/// A running `switchboard serve`.
pub struct Hub {
    pub child: Child,
    pub url: String,
    pub base: String,
    pub dir: tempfile::TempDir,
    pub config_path: PathBuf,
    pub log_path: PathBuf,
    /// The hub's state directory (`SWITCHBOARD_CACHE_DIR`): warm catalog, control token.
    pub state_dir: PathBuf,
}

impl Hub {
    /// Writes `config` to a temp file and starts the hub on a free port.
    pub async fn start(config: Value) -> Result<Self> {
        Self::start_with_env(config, &[]).await
    }

    pub async fn start_with_env(config: Value, env: &[(&str, &str)]) -> Result<Self> {
        Self::start_with_args(config, env, &[]).await
    }

    /// Like [`Hub::start_with_env`], with more `serve` arguments.
    pub async fn start_with_args(
        config: Value,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Result<Self> {
        Self::start_inner(config, env, args, false).await
    }

    /// Starts the hub with only `env` (and the hub's own test settings) in its
    /// environment, as `env -i` would: the minimal start of a desktop app.
    pub async fn start_with_only_env(config: Value, env: &[(&str, &str)]) -> Result<Self> {
        Self::start_inner(config, env, &[], true).await
    }

    async fn start_inner(
        config: Value,
        env: &[(&str, &str)],
        args: &[&str],
        clear_env: bool,
    ) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let config_path = dir.path().join("config.json");
        std::fs::write(&config_path, serde_json::to_vec_pretty(&config)?)?;
        let log_path = dir.path().join("hub.log");
        let log = std::fs::File::create(&log_path)?;
        let state_dir = env
            .iter()
            .find(|(k, _)| *k == "SWITCHBOARD_CACHE_DIR")
            .map_or_else(|| dir.path().join("cache"), |(_, v)| PathBuf::from(v));
        let mut cmd = Command::new(bin("switchboard"));
        if clear_env {
            cmd.env_clear();
        }
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--config"])
            .arg(&config_path)
            .args(args)
            .env("RUST_LOG", "info,switchboard_core=debug")
            // Each hub keeps its warm catalog in its own folder.
            .env("SWITCHBOARD_CACHE_DIR", dir.path().join("cache"))
            // Tests assert exact tool lists; `builtin.rs` has its own test.
            .env("SWITCHBOARD_BUILTIN_TOOLS", "0")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .kill_on_drop(true);
        let mut child = cmd.spawn().context("spawning switchboard")?;
        let stdout = child.stdout.take().context("stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(DEADLINE, lines.next_line())
            .await
            .context("hub did not start in time")??;
        let Some(line) = line else {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            bail!("hub exited before listening; log:\n{log}");
        };
        let url = line
            .strip_prefix("Switchboard listening on ")
            .with_context(|| format!("unexpected first line {line:?}"))?
            .to_string();
        let base = url.trim_end_matches("/mcp").to_string();
        // Keep draining stdout so the hub never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self {
            child,
            url,
            base,
            dir,
            config_path,
            log_path,
            state_dir,
        })
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The control token this hub keeps in its state directory.
    fn control_token(&self) -> String {
        let path = self.state_dir.join("control-token");
        std::fs::read_to_string(&path)
            .unwrap_or_else(|err| panic!("reading {}: {err}", path.display()))
            .trim()
            .to_string()
    }

    /// The `switchboard` CLI, finding this hub's control token the way a
    /// person's shell does (the same state directory).
    pub fn cli(&self) -> Command {
        let mut cmd = Command::new(bin("switchboard"));
        cmd.env("SWITCHBOARD_CACHE_DIR", &self.state_dir)
            .env_remove("SWITCHBOARD_TOKEN")
            .kill_on_drop(true);
        cmd
    }

    /// Sends SIGTERM and waits for the hub to exit, returning its exit code.
    pub async fn terminate(&mut self) -> Option<i32> {
        if let Some(pid) = self.child.id() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let status = tokio::time::timeout(DEADLINE, self.child.wait())
            .await
            .expect("hub did not exit after SIGTERM")
            .expect("wait");
        status.code()
    }
}

/// Server `id` of `snapshot`; panics (failing the test) if there is none.
pub fn server<'a>(snapshot: &'a HubSnapshot, id: &str) -> &'a ServerSnapshot {
    snapshot
        .servers
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no server {id} in {snapshot:?}"))
}

/// Server `s`'s login status; fails the test if it has none (not remote).
pub fn auth(s: &ServerSnapshot) -> &api::AuthSnapshot {
    s.auth
        .as_ref()
        .unwrap_or_else(|| panic!("server {} has no login status: {s:?}", s.id))
}

/// Server `s`'s last error; fails the test if it has none.
pub fn last_error(s: &ServerSnapshot) -> &str {
    s.last_error
        .as_deref()
        .unwrap_or_else(|| panic!("server {} has no last error: {s:?}", s.id))
}

/// Server `s`'s login message (`auth.message`); fails the test if none.
pub fn auth_message(s: &ServerSnapshot) -> &str {
    auth(s)
        .message
        .as_deref()
        .unwrap_or_else(|| panic!("server {} has no login message: {s:?}", s.id))
}

/// How long a dropped [`Hub`] gets to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A test that ends without [`Hub::terminate`] still stops its hub the way a
/// person's system does: SIGTERM, a bounded wait, then SIGKILL. An exit (not
/// a kill) lets the hub stop its servers itself and, in a coverage build,
/// write its profile.
impl Drop for Hub {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return; // exited already (or cannot be asked)
        }
        if let Some(pid) = self.child.id() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let start = std::time::Instant::now();
        while start.elapsed() < STOP_GRACE {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.start_kill();
    }
}

/// Counts of notifications a test client received. Each count that grows
/// wakes [`Received::wait_until`], so a test waits on the notification
/// itself, not on a poll.
#[derive(Clone, Default)]
pub struct Received {
    pub tool_list_changed: Arc<AtomicUsize>,
    pub prompt_list_changed: Arc<AtomicUsize>,
    pub resource_list_changed: Arc<AtomicUsize>,
    pub progress: Arc<std::sync::Mutex<Vec<f64>>>,
    changed: Arc<tokio::sync::Notify>,
}

impl Received {
    pub fn tools_changed(&self) -> usize {
        self.tool_list_changed.load(Ordering::SeqCst)
    }

    /// Counts one more `counter` notification and wakes the waiters.
    fn count(&self, counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    /// Waits until `done` holds for what was received, failing the test
    /// after [`DEADLINE`]: woken by each notification, not polled.
    pub async fn wait_until(&self, what: &str, done: impl Fn(&Self) -> bool) {
        let wait = async {
            loop {
                // Registered before the check, so a notification between the
                // check and the wait still wakes it.
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if done(self) {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(DEADLINE, wait).await.is_err() {
            panic!("timed out waiting for {what}");
        }
    }

    /// Waits until at least `n` `tools/list_changed` arrived.
    pub async fn wait_tools_changed(&self, n: usize) {
        self.wait_until(&format!("{n} tools/list_changed"), |r| {
            r.tools_changed() >= n
        })
        .await;
    }
}

/// An rmcp client handler that records what it receives.
#[derive(Clone, Default)]
pub struct Recorder {
    pub received: Received,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("switchboard-e2e", "0"),
        )
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.received.count(&self.received.tool_list_changed);
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.received.count(&self.received.prompt_list_changed);
    }

    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.received.count(&self.received.resource_list_changed);
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.received.progress.lock().unwrap().push(params.progress);
        self.received.changed.notify_waiters();
    }
}

/// A connected rmcp client and what it has received.
pub struct Client {
    pub service: RunningService<RoleClient, Recorder>,
    pub received: Received,
}

impl Client {
    pub async fn connect(url: &str) -> Self {
        Self::try_connect(url).await.expect("client connects")
    }

    /// Connects, or says why the hub refused the session.
    pub async fn try_connect(url: &str) -> Result<Self, String> {
        let recorder = Recorder::default();
        let received = recorder.received.clone();
        let transport = StreamableHttpClientTransport::from_uri(url.to_string());
        let service = recorder.serve(transport).await.map_err(|e| e.to_string())?;
        Ok(Self { service, received })
    }

    /// Connects with `Authorization: Bearer <token>` (a hub with allowRemote).
    pub async fn connect_with_token(url: &str, token: &str) -> Result<Self, String> {
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let recorder = Recorder::default();
        let received = recorder.received.clone();
        let config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
            .auth_header(token.to_string());
        let transport = StreamableHttpClientTransport::from_config(config);
        let service = recorder.serve(transport).await.map_err(|e| e.to_string())?;
        Ok(Self { service, received })
    }

    pub async fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .service
            .peer()
            .list_all_tools()
            .await
            .expect("tools/list")
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        names
    }

    /// Calls a tool and returns its first text content (or the error).
    pub async fn call_text(&self, name: &str, args: Value) -> Result<String, rmcp::ServiceError> {
        let mut params = rmcp::model::CallToolRequestParams::new(name.to_string());
        params.arguments = args.as_object().cloned();
        let result = self.service.peer().call_tool(params).await?;
        Ok(result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default())
    }
}

/// The JSON-RPC error inside a failed call, for assertions.
pub fn rpc_error(err: &rmcp::ServiceError) -> &rmcp::model::ErrorData {
    match err {
        rmcp::ServiceError::McpError(e) => e,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// Replaces a fixture's control file atomically (write, then rename), so the
/// fixture never reads a half-written file.
pub fn write_control(path: &Path, value: Value) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec(&value).unwrap()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Writes a fixture spec with `tools` into `dir`, returning its path.
pub fn spec_file(dir: &Path, tools: Value) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let path = dir.join(format!("spec-{n}.json"));
    std::fs::write(
        &path,
        serde_json::to_vec(&json!({ "tools": tools })).unwrap(),
    )
    .unwrap();
    path.to_string_lossy().to_string()
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The fixture's request counts (from `--counter-file`), zeros if none yet.
pub fn counts(path: &Path) -> Value {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_else(|| json!({"tools/list": 0, "initialize": 0, "tools/call": 0}))
}

/// Every process id in /proc (processes may be gone by the time they are read).
pub fn process_ids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// Processes whose command line contains `tag` (to find a test's own children).
pub fn processes_with(tag: &str) -> Vec<u32> {
    process_ids()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(tag))
                && pid_alive(*pid)
        })
        .collect()
}

/// Starts fixture binary `name` with `args` and waits for its one stdout line
/// `listening on <url>`, returning the child and the URL.
async fn spawn_listening(name: &str, args: &[&str]) -> Result<(Child, String)> {
    let mut child = Command::new(bin(name))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = child.stdout.take().context("stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(DEADLINE, lines.next_line())
        .await??
        .with_context(|| format!("{name} exited before listening"))?;
    let url = line
        .strip_prefix("listening on ")
        .with_context(|| format!("unexpected line {line:?}"))?
        .to_string();
    Ok((child, url))
}

/// The first `snapshot` event of `GET /api/v1/events`, with `token` if given.
pub async fn first_snapshot_event(base: &str, token: Option<&str>) -> String {
    let mut request = reqwest::Client::new().get(format!("{base}/api/v1/events"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let mut response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    let read = async {
        while !text.contains("\n\n") {
            match response.chunk().await.unwrap() {
                Some(chunk) => text.push_str(&String::from_utf8_lossy(&chunk)),
                None => break,
            }
        }
    };
    tokio::time::timeout(DEADLINE, read)
        .await
        .expect("a snapshot event in time");
    assert!(text.contains("event: snapshot"), "{text}");
    text
}
