//! `switchboard`: run the hub headless and control it from a terminal.
//!
//! stdout carries only what a command is for (the one "listening" line of
//! `serve`, tables and JSON of status commands, protocol for `stdio`); logs
//! go to stderr via `tracing` (`RUST_LOG`; unset or empty: the hub's own INFO
//! lines and other crates' warnings for `serve`, `warn` for the client
//! commands), coloured only when stderr is a terminal.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use switchboard::clients::{self, Bases, Client, ConnectRequest, ImportRequest, ImportSource};
use switchboard::remote::Remote;
use switchboard_core::config::{self, ConfigError, Source, process_env};

mod commands;
mod pending;
mod registry_cmd;
mod secret;

use secret::{SecretAction, secret};
use switchboard_core::{Config, Hub, HubOptions};

#[derive(Parser)]
#[command(
    name = "switchboard",
    version,
    about = "One local MCP endpoint for all your MCP servers",
    long_about = "Switchboard merges the MCP servers you use (local stdio servers and remote \
                  Streamable HTTP servers) behind one MCP endpoint on localhost."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the hub headless: merge the configured servers behind one MCP endpoint.
    Serve(ServeArgs),
    /// Speak MCP on stdin/stdout and forward it to a running hub (for stdio-only clients).
    Stdio(HubAddress),
    /// Show every server's state, health and staleness.
    Status {
        #[command(flatten)]
        hub: HubAddress,
        /// Print the raw status snapshot as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Re-list one server (or all) now.
    Refresh {
        /// The server id; all servers when left out.
        id: Option<String>,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Approve tools held because their definition changed (all of the
    /// server's held, changed and new tools when none is named): shows each
    /// changed definition, then approves exactly what it showed.
    Approve {
        /// The server id.
        id: String,
        /// Tool names as the server lists them.
        tools: Vec<String>,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Enable a server (written to the config file).
    Enable {
        id: String,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Disable a server (written to the config file); it is shut down.
    Disable {
        id: String,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Hide one tool of a server from clients, or show it again (written to
    /// the server's `disabledTools`; the server keeps running).
    Tool {
        /// `enable` or `disable`.
        action: ToolAction,
        /// The server id.
        id: String,
        /// The tool's name as the server lists it (without the `<server>__` prefix).
        tool: String,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Show a server's stderr and the hub's log lines about it.
    Logs {
        id: String,
        /// Keep printing new lines.
        #[arg(long, short)]
        follow: bool,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Show the calls clients made through the hub (tools, prompts, resources).
    Activity {
        /// Print the API's answer (`{"calls": [...]}`, newest first) as JSON;
        /// with --follow, one JSON entry a line.
        #[arg(long)]
        json: bool,
        /// Keep printing new calls.
        #[arg(long, short)]
        follow: bool,
        /// How many recent calls to show (at most 1000).
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// List the calls waiting for approval (`settings.confirmCalls`).
    Pending(pending::PendingArgs),
    /// Allow a waiting call (`--always`: and stop asking for its tool).
    Allow(pending::DecideArgs),
    /// Deny a waiting call: the client gets a result saying the user declined.
    Deny(pending::DecideArgs),
    /// Re-read the config file now.
    Reload(HubAddress),
    /// Open the dashboard in the browser, signed in (so its page may change
    /// servers); prints the one-time link too.
    Dashboard {
        /// Only print the link; do not try to open a browser.
        #[arg(long)]
        no_browser: bool,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// List the AI clients Switchboard knows, and whether each one's config
    /// is on this machine.
    Clients {
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Take over the MCP servers configured in your AI clients.
    Import(ImportArgs),
    /// Point an AI client at Switchboard (writes one `switchboard` entry into its config).
    Connect(ConnectArgs),
    /// Log in to a remote server with OAuth: opens the browser (or prints the URL).
    Login {
        id: String,
        /// Only print the URL; do not try to open a browser.
        #[arg(long)]
        no_browser: bool,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Forget a remote server's OAuth tokens (deletes them from the keyring).
    Logout {
        id: String,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Find servers in the MCP Registry (`settings.registryUrl`).
    Registry {
        #[command(subcommand)]
        action: registry_cmd::RegistryAction,
    },
    /// Add a server from the MCP Registry at an exact version; it is vetted
    /// (no secrets, no network, tools held) until you approve its tools.
    Add(registry_cmd::AddArgs),
    /// Move a server added from the registry to its latest version: fetched
    /// and vetted beside the running version, with the tool diff shown; the
    /// running version keeps serving until you approve the update.
    Update {
        id: String,
        /// Drop the update staged for the server (the running version stays).
        #[arg(long)]
        cancel: bool,
        #[command(flatten)]
        hub: HubAddress,
    },
    /// Keep values such as API keys in the OS keyring instead of the config
    /// file; use them as `"env": {"NAME": {"keyring": "<name>"}}`.
    Secret {
        #[command(subcommand)]
        action: SecretAction,
    },
}

/// What `switchboard tool` does to the tool.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ToolAction {
    Enable,
    Disable,
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Config file (Claude Desktop style JSON). Default: the OS config dir's
    /// switchboard/config.json. A missing file means no servers yet.
    #[arg(long, env = "SWITCHBOARD_CONFIG")]
    config: Option<PathBuf>,
    /// Address to listen on, e.g. 127.0.0.1:8420 (port 0 picks a free port).
    /// Overrides `settings.listen` and SWITCHBOARD_LISTEN.
    #[arg(long)]
    listen: Option<std::net::SocketAddr>,
    /// Allow a listen address other machines can reach (the same as
    /// `settings.allowRemote` / SWITCHBOARD_ALLOW_REMOTE=1). MCP requests then
    /// need the control token.
    #[arg(long)]
    allow_remote: bool,
}

/// Where the running hub is: `--url`, else the config's listen address.
#[derive(clap::Args, Clone)]
struct HubAddress {
    /// The hub's URL, e.g. http://127.0.0.1:8420 (default: from the config's
    /// `settings.listen` / SWITCHBOARD_LISTEN).
    #[arg(long, env = "SWITCHBOARD_URL")]
    url: Option<String>,
    /// The config file to take the listen address from.
    #[arg(long, env = "SWITCHBOARD_CONFIG")]
    config: Option<PathBuf>,
}

impl HubAddress {
    fn base_url(&self) -> anyhow::Result<String> {
        if let Some(url) = &self.url {
            return Ok(url
                .trim_end_matches('/')
                .trim_end_matches("/mcp")
                .to_string());
        }
        let path = self
            .config
            .clone()
            .unwrap_or_else(switchboard_core::config::default_config_path);
        let config = effective_config(&path)?;
        let mut addr = config.settings.listen;
        // A hub on all interfaces (allowRemote) is reached here on loopback.
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        Ok(format!("http://{addr}"))
    }

    fn remote(&self) -> anyhow::Result<Remote> {
        Remote::new(&self.base_url()?)
    }
}

#[derive(clap::Args)]
struct ImportArgs {
    /// Only this client (an id from `switchboard clients`: cursor, zed, cline, ...).
    #[arg(long)]
    from: Option<Client>,
    /// Read this file instead (format detected, or given with --from).
    #[arg(long)]
    path: Option<PathBuf>,
    /// Show what would be imported without changing anything.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
    /// Switchboard's config file to import into.
    #[arg(long, env = "SWITCHBOARD_CONFIG")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ConnectArgs {
    /// The client's id, as `switchboard clients` lists them (cursor, zed, cline, ...).
    client: Client,
    /// Show what would change without writing.
    #[arg(long)]
    dry_run: bool,
    /// Print the config snippet instead of editing the client's file.
    #[arg(long)]
    print: bool,
    /// Also disable (or move out) the client's servers that Switchboard now serves.
    #[arg(long)]
    disable_imported: bool,
    /// Connect a profile (`/profiles/<name>/mcp`, entry `switchboard-<name>`)
    /// instead of the whole hub; its token, if any, is written as an
    /// `Authorization` header.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    #[command(flatten)]
    hub: HubAddress,
}

// A forwarded call is mostly small, short-lived allocations (JSON, frames,
// futures); mimalloc serves them faster than glibc's malloc. Linux only: the
// reason is glibc, and on macOS its C build needs the SDK's CommonCrypto
// headers, which the cross-target check (docs/platforms.md) does not have.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // The hidden helper modes: `switchboard __guard <pgid>`, the process guard of
    // one stdio server, and `switchboard __count-tokens`, the token counter.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = switchboard_core::guard::run_if_guard(&args) {
        return code;
    }
    if let Ok(exe) = std::env::current_exe() {
        switchboard_core::guard::install(exe);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // `{:#}` prints the whole cause chain on one line, without a backtrace.
            let _ = writeln!(std::io::stderr(), "switchboard: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    let default_filter = match cli.command {
        Command::Serve(_) => format!("{},switchboard=info", switchboard_core::DEFAULT_LOG_FILTER),
        _ => "warn".to_string(),
    };
    // `RUST_LOG` overrides the default; unset or empty, the default applies.
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => {
            tracing_subscriber::EnvFilter::try_new(directives)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&default_filter))
                // rmcp logs OAuth authorization codes at debug level: never below info there.
                .add_directive("rmcp::transport::auth=info".parse()?)
        }
        _ => tracing_subscriber::EnvFilter::new(&default_filter),
    };
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    // rmcp's ERROR lines dump Rust types; the hub says the same in words.
    let names_rmcp = std::env::var("RUST_LOG").is_ok_and(|v| v.contains("rmcp"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Every line redacted: no URL token or credential header reaches the log.
        .with_writer(switchboard::log_writer::RedactedStderr)
        // Colours only for a person at a terminal, never into a log file.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .finish()
        .with(tracing_subscriber::filter::filter_fn(move |meta| {
            !switchboard_core::hidden_log_event(meta.target(), *meta.level(), names_rmcp)
        }))
        .init();
    let runtime = match threads()? {
        // One thread: every hop between the downstream session, the gateway and
        // the upstream client is a queue push, not a cross-thread wake-up (about
        // 30% less CPU per forwarded call, measured in docs/benchmarks.md).
        1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        n => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build(),
    }
    .context("starting the async runtime")?;
    runtime.block_on(dispatch(cli.command))
}

/// How many threads run the engine: `SWITCHBOARD_THREADS`, 1 by default.
/// Blocking work (keyring, DNS) has its own pool either way.
fn threads() -> anyhow::Result<usize> {
    match std::env::var("SWITCHBOARD_THREADS") {
        Err(_) => Ok(1),
        Ok(value) => match value.trim().parse::<usize>() {
            Ok(n) if (1..=256).contains(&n) => Ok(n),
            _ => anyhow::bail!("SWITCHBOARD_THREADS must be a number from 1 to 256, not {value:?}"),
        },
    }
}

async fn dispatch(command: Command) -> anyhow::Result<std::process::ExitCode> {
    use std::process::ExitCode;
    match command {
        Command::Serve(args) => serve(args).await.map(|()| ExitCode::SUCCESS),
        Command::Stdio(hub) => {
            let url = format!("{}/mcp", hub.base_url()?);
            switchboard::bridge::run(&url).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Status { hub, json } => commands::status(&hub.remote()?, json).await,
        Command::Refresh { id, hub } => commands::refresh(&hub.remote()?, id.as_deref()).await,
        Command::Approve { id, tools, hub } => registry_cmd::approve(&id, &tools, &hub).await,
        Command::Enable { id, hub } => commands::toggle(&hub.remote()?, &id, true).await,
        Command::Disable { id, hub } => commands::toggle(&hub.remote()?, &id, false).await,
        Command::Tool {
            action,
            id,
            tool,
            hub,
        } => commands::toggle_tool(&hub.remote()?, &id, &tool, action == ToolAction::Enable).await,
        Command::Logs { id, follow, hub } => commands::logs(&hub.remote()?, &id, follow).await,
        Command::Activity {
            json,
            follow,
            limit,
            hub,
        } => commands::activity(&hub.remote()?, json, follow, limit).await,
        Command::Pending(args) => pending::pending(args).await,
        Command::Allow(args) => pending::decide(args, true).await,
        Command::Deny(args) => pending::decide(args, false).await,
        Command::Reload(hub) => commands::reload(&hub.remote()?).await,
        Command::Dashboard { no_browser, hub } => {
            commands::dashboard(&hub.remote()?, no_browser).await
        }
        Command::Clients { json } => list_clients(json),
        Command::Import(args) => import(args),
        Command::Connect(args) => connect(args).await,
        Command::Login {
            id,
            no_browser,
            hub,
        } => commands::login(&hub.remote()?, &id, no_browser).await,
        Command::Logout { id, hub } => commands::logout(&hub.remote()?, &id).await,
        Command::Secret { action } => secret(action).await,
        Command::Registry { action } => registry_cmd::registry(action).await,
        Command::Add(args) => registry_cmd::add(args).await,
        Command::Update { id, cancel, hub } => registry_cmd::update(id, cancel, hub).await,
    }
}

/// One line on stdout.
fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(())
}

fn switchboard_config(config: Option<PathBuf>) -> PathBuf {
    config.unwrap_or_else(switchboard_core::config::default_config_path)
}

fn list_clients(json: bool) -> anyhow::Result<std::process::ExitCode> {
    let found = clients::list(&Bases::from_env()?);
    if json {
        print(&serde_json::to_string_pretty(&found)?)?;
    } else {
        print(clients::Listing(&found).to_string().trim_end())?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn import(args: ImportArgs) -> anyhow::Result<std::process::ExitCode> {
    let bases = Bases::from_env()?;
    let config_path = switchboard_config(args.config);
    let source = match (args.path, args.from) {
        (Some(path), client) => ImportSource::File { path, client },
        (None, Some(client)) => ImportSource::Client(client),
        (None, None) => ImportSource::AllClients,
    };
    let endpoint = HubAddress {
        url: None,
        config: Some(config_path.clone()),
    }
    .base_url()
    .ok()
    .map(|base| format!("{base}/mcp"));
    let plan = clients::import(&ImportRequest {
        source,
        bases,
        config_path: config_path.clone(),
        endpoint,
    })?;
    if args.json {
        print(&serde_json::to_string_pretty(&plan)?)?;
    } else {
        print(plan.to_string().trim_end())?;
    }
    if !args.dry_run {
        let outcome = clients::apply_import(&config_path, &plan)?;
        if !args.json {
            print(outcome.to_string().trim_end())?;
        }
    }
    Ok(if plan.has_problems() {
        std::process::ExitCode::from(2)
    } else {
        std::process::ExitCode::SUCCESS
    })
}

async fn connect(args: ConnectArgs) -> anyhow::Result<std::process::ExitCode> {
    let base = args.hub.base_url()?;
    let exe = std::env::current_exe().context("locating the switchboard binary")?;
    let profile = match &args.profile {
        Some(name) => {
            Some(clients::profile_entry(name, &switchboard_config(args.hub.config.clone())).await?)
        }
        None => None,
    };
    let endpoint = match &profile {
        Some(p) => format!("{base}/profiles/{}/mcp", p.name),
        None => format!("{base}/mcp"),
    };
    if let Some(p) = &profile
        && p.token.is_some()
        && !args.client.speaks_http()
    {
        return Err(clients::ClientError::NoHeaders {
            client: args.client,
            profile: p.name.clone(),
        }
        .into());
    }
    if args.print {
        let text = match &profile {
            Some(p) => clients::profile_snippet(args.client, &endpoint, &exe, p),
            None => clients::snippet(args.client, &endpoint, &exe),
        };
        print(text.trim_end())?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    let endpoint_for_warning = endpoint.clone();
    let report = clients::connect(&ConnectRequest {
        client: args.client,
        bases: Bases::from_env()?,
        endpoint,
        exe,
        dry_run: args.dry_run,
        disable_imported: args.disable_imported,
        config_path: switchboard_config(args.hub.config),
        profile,
    })?;
    print(report.to_string().trim_end())?;
    // The entry is written either way (the hub may be started later), but
    // the client will not reach anything until a hub runs there.
    if let Some(warning) = switchboard::bridge::no_hub_warning(&endpoint_for_warning).await {
        eprintln!("switchboard: warning: {warning}");
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The config file at `path` with the `SWITCHBOARD_*` overrides applied; a
/// refused file is reported as such, a bad variable by its own message.
fn effective_config(path: &std::path::Path) -> anyhow::Result<Config> {
    config::load(Source::start(path).overrides(&process_env)).map_err(|err| match err {
        ConfigError::Env { .. } => anyhow::Error::new(err),
        err => anyhow::Error::new(err).context("the config file was refused"),
    })
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let path = switchboard_config(args.config);
    let first_run = !path.exists();
    let mut config = effective_config(&path)?;
    if args.allow_remote {
        config.settings.allow_remote = true;
    }
    tracing::info!(
        config = %path.display(),
        servers = config.servers.len(),
        "starting"
    );
    if first_run {
        offer_import(&path);
    }
    let options = HubOptions {
        config_path: Some(path),
        listen: args.listen,
        watch_config: true,
        warm_catalog: Some(switchboard_core::state_dir().join("catalog.json")),
        activity_log: Some(switchboard_core::state_dir().join("activity.jsonl")),
        control_token: Some(switchboard_core::token_path(&switchboard_core::state_dir())),
    };
    let hub = Hub::bind(config, options).await?;
    let endpoint = hub.endpoint().to_string();
    // The dashboard's first run offers what `switchboard import` would add.
    hub.handle().set_import_source(std::sync::Arc::new(
        switchboard::clients::import_offer::ClientsImport {
            endpoint: Some(endpoint.clone()),
            bases: None,
        },
    ));
    // The signals are watched from here on, before the line a supervisor waits for: a
    // SIGTERM sent right after it stops the hub the orderly way (seen in the tests: one sent
    // before `run` first polled the watch killed the hub outright).
    let stop = shutdown_signal();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Switchboard listening on {endpoint}")?;
        out.flush()?;
    }
    hub.run(stop).await?;
    tracing::info!("stopped");
    Ok(())
}

/// On first run (no config file yet), say which servers `switchboard import`
/// would take over from the AI clients on this machine.
fn offer_import(config_path: &std::path::Path) {
    let Ok(bases) = Bases::from_env() else { return };
    let plan = clients::import(&ImportRequest {
        source: ImportSource::AllClients,
        bases,
        config_path: config_path.to_path_buf(),
        endpoint: None,
    });
    if let Ok(plan) = plan
        && !plan.added.is_empty()
    {
        let names: Vec<&str> = plan.added.iter().map(|a| a.id.as_str()).collect();
        tracing::info!(
            "no config yet; your AI clients have {} MCP servers ({}). \
             Run `switchboard import` to serve them all from here.",
            names.len(),
            names.join(", ")
        );
    }
}

/// Watches SIGINT (ctrl-c) and SIGTERM from the call on (not from the first poll, as
/// `tokio::signal::ctrl_c` would), and resolves on the first of them (never, if neither
/// could be watched). The app's `QuitSignals` (src-tauri) does the same for the window.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        async fn next(signal: Option<Signal>) {
            match signal {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        let watch = |kind: SignalKind, name: &str| match signal(kind) {
            Ok(signal) => Some(signal),
            Err(err) => {
                tracing::warn!(%err, "cannot watch {name}; it does not stop the hub");
                None
            }
        };
        let term = watch(SignalKind::terminate(), "SIGTERM");
        let int = watch(SignalKind::interrupt(), "SIGINT");
        async move {
            tokio::select! {
                () = next(term) => {}
                () = next(int) => {}
            }
        }
    }
    #[cfg(windows)]
    {
        let ctrl_c = tokio::signal::windows::ctrl_c();
        async move {
            match ctrl_c {
                Ok(mut ctrl_c) => {
                    ctrl_c.recv().await;
                }
                Err(err) => {
                    tracing::warn!(%err, "cannot watch ctrl-c; the hub stops only when killed");
                    std::future::pending::<()>().await;
                }
            }
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
