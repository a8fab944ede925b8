//! Switchboard's desktop app: the hub runs in-process; a tray icon shows its
//! health and a menu to switch servers; the window shows the dashboard that
//! the hub itself serves (the same page a browser gets), so the app adds no
//! second UI and no IPC.
//!
//! Lifecycle: one instance (a second launch focuses the window); closing the
//! window leaves the app in the tray; Quit, SIGTERM or SIGINT stop the hub
//! (every upstream closed, no child process left) and then exit.
//! `--hidden` starts in the tray only (used by "Start at login").
//! The window opens the dashboard through a one-time sign-in link from the
//! in-process hub, so its page may change servers (the tray calls the hub
//! directly); the CLI finds the hub's control token in the state directory.

mod hub;
mod notify;
mod tray;
mod tray_model;

use tauri::webview::NewWindowResponse;
use tauri::{AppHandle, Manager, RunEvent, Runtime, WebviewUrl, WebviewWindowBuilder, WindowEvent};
use tauri_plugin_autostart::MacosLauncher;

use crate::hub::RunningHub;

const WINDOW: &str = "main";

/// What the app holds for its whole life (managed state).
pub struct AppState {
    /// The running hub, or `None` when it could not start.
    pub hub: Option<RunningHub>,
    /// Why the hub could not start, in words.
    pub hub_error: Option<String>,
}

fn main() -> std::process::ExitCode {
    // The hidden helper modes (see switchboard_core::guard): `switchboard-app
    // __guard <pgid>`, the process guard of one stdio server, and
    // `switchboard-app __count-tokens`, the token counter; no window, no tray.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = switchboard_core::guard::run_if_guard(&args) {
        return code;
    }
    if let Ok(exe) = std::env::current_exe() {
        switchboard_core::guard::install(exe);
    }
    // `RUST_LOG` overrides the default (the hub's own INFO lines, others' warnings).
    let default_filter = format!(
        "{},switchboard_app=info",
        switchboard_core::DEFAULT_LOG_FILTER
    );
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => {
            let mut filter = tracing_subscriber::EnvFilter::try_new(directives)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&default_filter));
            // rmcp logs OAuth authorization codes at debug level: never below info there.
            if let Ok(directive) = "rmcp::transport::auth=info".parse() {
                filter = filter.add_directive(directive);
            }
            filter
        }
        _ => tracing_subscriber::EnvFilter::new(&default_filter),
    };
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    // rmcp's ERROR lines dump Rust types; the hub says the same in words.
    let names_rmcp = std::env::var("RUST_LOG").is_ok_and(|v| v.contains("rmcp"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .finish()
        .with(tracing_subscriber::filter::filter_fn(move |meta| {
            !switchboard_core::hidden_log_event(meta.target(), *meta.level(), names_rmcp)
        }))
        .init();
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("switchboard-app: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let hidden = std::env::args().skip(1).any(|a| a == "--hidden");
    // Before anything starts: a SIGTERM that comes while the hub starts (or
    // right after it answers) waits in these until the app can quit
    // cleanly; installed later, it killed the app outright (exit 143).
    let signals = tauri::async_runtime::block_on(async { QuitSignals::install() });
    let app = tauri::Builder::default()
        // First, so that a second launch hands over before anything starts.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            tracing::info!("launched again: showing the dashboard");
            show_dashboard(app);
        }))
        .plugin(tauri_plugin_autostart::init(
            MacosLauncher::LaunchAgent,
            Some(vec!["--hidden"]),
        ))
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            let handle = app.handle().clone();
            let state = match tauri::async_runtime::block_on(hub::start()) {
                Ok(hub) => AppState {
                    hub: Some(hub),
                    hub_error: None,
                },
                Err(err) => {
                    let why = hub::explain_start_error(&err);
                    tracing::error!("the hub could not start: {why}");
                    AppState {
                        hub: None,
                        hub_error: Some(why),
                    }
                }
            };
            let follow = state.hub.as_ref().map(|h| h.handle.clone());
            app.manage(state);
            // Without a tray host (a bare X server, some desktops) the app still runs.
            if let Err(err) = tray::create(&handle) {
                tracing::warn!(error = %err, "no tray icon");
            }
            if let Some(hub) = follow {
                notify::follow(hub.clone());
                tray::follow(handle.clone(), hub);
            }
            stop_on_signals(handle.clone(), signals);
            if !hidden {
                show_dashboard(&handle);
            }
            Ok(())
        })
        .build(tauri::generate_context!())?;
    app.run(|app, event| match event {
        // The last window closed: stay in the tray. Quit passes an exit code.
        RunEvent::ExitRequested {
            code: None, api, ..
        } => api.prevent_exit(),
        // Said in the log, so a window that does not close can be told
        // from a close that never arrived.
        RunEvent::WindowEvent {
            label,
            event: WindowEvent::CloseRequested { .. },
            ..
        } => tracing::info!(window = %label, "window close requested"),
        RunEvent::WindowEvent {
            label,
            event: WindowEvent::Destroyed,
            ..
        } => tracing::info!(window = %label, "window closed; still running in the tray"),
        RunEvent::Exit => {
            if let Some(hub) = app.state::<AppState>().hub.as_ref() {
                hub.stop_blocking();
            }
        }
        _ => {}
    });
    Ok(())
}

/// Shows the dashboard window, creating it if it was closed.
pub fn show_dashboard<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(WINDOW) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
        return;
    }
    let state = app.state::<AppState>();
    let url = match (&state.hub, &state.hub_error) {
        // Signed in: the page may change servers (see `access` in the core).
        (Some(hub), _) => match hub
            .handle
            .sign_in_url()
            .map_err(|err| err.to_string())
            .and_then(|link| link.parse::<tauri::Url>().map_err(|err| err.to_string()))
        {
            Ok(url) => WebviewUrl::External(url),
            Err(err) => {
                tracing::error!(error = %err, url = %hub.dashboard_url, "no dashboard URL");
                return;
            }
        },
        // The copy of the page bundled in the app, told why there is no hub.
        (None, error) => WebviewUrl::App(
            format!(
                "index.html?hubError={}",
                percent_encode(error.as_deref().unwrap_or("unknown error"))
            )
            .into(),
        ),
    };
    let dashboard = state.hub.as_ref().map(|h| h.dashboard_url.clone());
    let for_links = app.clone();
    let for_popups = app.clone();
    let built = WebviewWindowBuilder::new(app, WINDOW, url)
        .title("Switchboard")
        .inner_size(1180.0, 760.0)
        .min_inner_size(720.0, 480.0)
        // The page stays on the dashboard; any other page (an OAuth login, a
        // link) opens in the person's browser instead of inside the app.
        .on_navigation(move |url| {
            let inside = is_dashboard(url, dashboard.as_deref());
            if !inside {
                open_in_browser(&for_links, url);
            }
            inside
        })
        .on_new_window(move |url, _features| {
            open_in_browser(&for_popups, &url);
            NewWindowResponse::Deny
        })
        .on_document_title_changed(|window, title| {
            let _ = window.set_title(&title);
        })
        .build();
    if let Err(err) = built {
        tracing::error!(error = %err, "cannot open the dashboard window");
    }
}

/// Whether `url` is the dashboard (the hub's origin) or the app's own copy of it.
fn is_dashboard(url: &tauri::Url, dashboard: Option<&str>) -> bool {
    if url.scheme() == "tauri" || url.host_str() == Some("tauri.localhost") {
        return true;
    }
    let Some(dashboard) = dashboard.and_then(|d| tauri::Url::parse(d).ok()) else {
        return false;
    };
    url.origin() == dashboard.origin()
}

fn open_in_browser<R: Runtime>(app: &AppHandle<R>, url: &tauri::Url) {
    use tauri_plugin_opener::OpenerExt as _;
    if !matches!(url.scheme(), "http" | "https") {
        tracing::warn!(%url, "not opening a link that is not http(s)");
        return;
    }
    if let Err(err) = app.opener().open_url(url.as_str(), None::<&str>) {
        tracing::warn!(%url, error = %err, "cannot open the browser");
    }
}

/// The signals that quit the app, watched from the start of `run` (see
/// there) so none of them is missed.
struct QuitSignals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl QuitSignals {
    /// Installs the handlers; call inside the async runtime.
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let watch = |kind: SignalKind, name: &str| match signal(kind) {
                Ok(signal) => Some(signal),
                Err(err) => {
                    tracing::warn!(error = %err, "cannot watch {name}");
                    None
                }
            };
            Self {
                term: watch(SignalKind::terminate(), "SIGTERM"),
                interrupt: watch(SignalKind::interrupt(), "SIGINT"),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Resolves at the first quit signal (never, if none could be watched).
    async fn received(self) {
        #[cfg(unix)]
        {
            async fn next(signal: Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(mut signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = next(self.term) => {}
                () = next(self.interrupt) => {}
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Quits cleanly (hub stopped, children closed) on SIGTERM and SIGINT.
fn stop_on_signals<R: Runtime>(app: AppHandle<R>, signals: QuitSignals) {
    tauri::async_runtime::spawn(async move {
        signals.received().await;
        tracing::info!("signal received; quitting");
        app.exit(0);
    });
}

/// Percent-encodes a query parameter value (RFC 3986 unreserved kept).
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_dashboard_stays_in_the_window() {
        let hub = Some("http://127.0.0.1:8420/");
        let url = |s: &str| tauri::Url::parse(s).unwrap();
        assert!(is_dashboard(&url("http://127.0.0.1:8420/"), hub));
        assert!(is_dashboard(
            &url("http://127.0.0.1:8420/api/v1/status"),
            hub
        ));
        assert!(is_dashboard(&url("tauri://localhost/index.html"), None));
        assert!(!is_dashboard(&url("http://127.0.0.1:9999/"), hub));
        assert!(!is_dashboard(
            &url("https://auth.example.com/authorize?x=1"),
            hub
        ));
        assert!(!is_dashboard(&url("http://127.0.0.1:8420/"), None));
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            percent_encode("cannot listen on 127.0.0.1:8420: in use"),
            "cannot%20listen%20on%20127.0.0.1%3A8420%3A%20in%20use"
        );
        assert_eq!(percent_encode("é&="), "%C3%A9%26%3D");
    }
}
