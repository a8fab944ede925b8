//! The commands that talk to a running hub's control API: `status`,
//! `refresh`, `enable`/`disable`, `tool enable|disable`, `reload`, `logs`,
//! `activity`, `dashboard`, `login`, `logout`. Each reads the hub's answer as its `switchboard_api` type and
//! prints it for people; failures come back as errors from [`Remote`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use switchboard::remote::{self, Remote};
use switchboard_api::{
    ActivityResponse, ApproveTool, DashboardLink, HubSnapshot, LoginResponse, LogoutResponse,
    LogsResponse, RefreshAllResponse, RefreshResult, ReloadResponse, ReloadResult, ReviewedTool,
};

use crate::print;

/// `status`: the snapshot as a table, or as JSON with `--json`.
pub async fn status(remote: &Remote, json: bool) -> anyhow::Result<ExitCode> {
    let snapshot: HubSnapshot = remote.get("/status").await?;
    if json {
        print(&serde_json::to_string_pretty(&snapshot)?)?;
    } else {
        print(remote::render_status(&snapshot).trim_end())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `approve <server> [<tool>...]`: shows the held and changed definitions
/// (of the named tools, or all of the server's), then approves exactly those
/// with their hashes, so a definition that changed again in between is not
/// approved (the hub answers 409). Named tools without a definition to show
/// (new tools) go by name, as do the server's new tools when none is named.
pub async fn approve(remote: &Remote, id: &str, tools: &[String]) -> anyhow::Result<ExitCode> {
    let held: switchboard_api::HeldResponse = remote.get(&format!("/servers/{id}/held")).await?;
    let shown: Vec<&switchboard_api::HeldDefinition> = held
        .tools
        .iter()
        .filter(|t| tools.is_empty() || tools.contains(&t.name))
        .collect();
    for definition in &shown {
        print(&describe_held(id, definition))?;
    }
    let mut request: Vec<ApproveTool> = shown
        .iter()
        .map(|t| {
            ApproveTool::Reviewed(ReviewedTool {
                name: t.name.clone(),
                hash: Some(t.hash.clone()).filter(|h| !h.is_empty()),
            })
        })
        .collect();
    let by_name: Vec<String> = if tools.is_empty() {
        let snapshot: HubSnapshot = remote.get("/status").await?;
        snapshot
            .servers
            .into_iter()
            .filter(|s| s.id == id)
            .flat_map(|s| s.new_tools)
            .collect()
    } else {
        tools.to_vec()
    };
    for name in by_name {
        if !request.iter().any(|t| t.name() == name) {
            request.push(ApproveTool::Name(name));
        }
    }
    let request = switchboard_api::ApproveRequest {
        tools: Some(request),
    };
    let answer: switchboard_api::ApproveResponse = remote
        .post_json(&format!("/servers/{id}/approve"), &request)
        .await?;
    if let Some(headers) = answer.headers.as_ref().filter(|h| !h.is_empty()) {
        print(&format!(
            "{id}: allowed to connect with its headers ({}) while vetted; its tools are held \
             for review once listed (`switchboard approve {id}` again)",
            headers.join(", ")
        ))?;
    } else if answer.approved.is_empty() {
        print(&format!("{id}: nothing to approve"))?;
    } else {
        print(&format!("{id}: approved {}", answer.approved.join(", ")))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A held or changed tool for review: what changed, then each top-level
/// field that differs, as approved (`-`) and as listed now (`+`).
fn describe_held(id: &str, held: &switchboard_api::HeldDefinition) -> String {
    let mut out = format!(
        "{id}: {} ({} changed since {}{})",
        held.name,
        held.change,
        held.since,
        if held.held { ", held" } else { "" }
    );
    let empty = serde_json::Map::new();
    let approved = held.approved.as_object().unwrap_or(&empty);
    let current = held.current.as_object().unwrap_or(&empty);
    let keys: std::collections::BTreeSet<&String> = approved.keys().chain(current.keys()).collect();
    for key in keys {
        let (old, new) = (approved.get(key), current.get(key));
        if old == new {
            continue;
        }
        if let Some(old) = old {
            out.push_str(&format!("\n  - {key}: {old}"));
        }
        if let Some(new) = new {
            out.push_str(&format!("\n  + {key}: {new}"));
        }
    }
    out
}

/// `refresh [<id>]`: re-lists one server or all; fails if any failed.
pub async fn refresh(remote: &Remote, id: Option<&str>) -> anyhow::Result<ExitCode> {
    let results = match id {
        Some(id) => vec![
            remote
                .post::<RefreshResult>(&format!("/servers/{id}/refresh"))
                .await?,
        ],
        None => remote.post::<RefreshAllResponse>("/refresh").await?.servers,
    };
    let mut failed = false;
    for r in &results {
        if r.ok {
            print(&format!("{}: refreshed", r.id))?;
        } else {
            failed = true;
            print(&format!(
                "{}: {}",
                r.id,
                r.error.as_deref().unwrap_or("failed")
            ))?;
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `reload`: re-reads the config file and says what changed.
pub async fn reload(remote: &Remote) -> anyhow::Result<ExitCode> {
    let answer: ReloadResponse = remote.post("/reload").await?;
    print(&describe_reload(
        &answer.into_result().map_err(anyhow::Error::msg)?,
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `dashboard`: prints a one-time sign-in link and opens it.
pub async fn dashboard(remote: &Remote, no_browser: bool) -> anyhow::Result<ExitCode> {
    let answer: DashboardLink = remote.post("/dashboard").await?;
    let url = answer.url.context("the hub sent no sign-in link")?;
    print(&url)?;
    std::io::stdout().flush()?;
    if !no_browser && open_browser(&url) {
        tracing::info!("opened the browser");
    }
    Ok(ExitCode::SUCCESS)
}

/// `logout <id>`: deletes the server's tokens.
pub async fn logout(remote: &Remote, id: &str) -> anyhow::Result<ExitCode> {
    let _: LogoutResponse = remote.post(&format!("/servers/{id}/logout")).await?;
    print(&format!("{id}: logged out (tokens deleted)"))?;
    Ok(ExitCode::SUCCESS)
}

/// Starts a login on the hub, hands the URL to the browser (or the person),
/// and waits until the hub has the tokens or the login failed.
pub async fn login(remote: &Remote, id: &str, no_browser: bool) -> anyhow::Result<ExitCode> {
    let started: LoginResponse = remote.post(&format!("/servers/{id}/login")).await?;
    let url = started.authorization_url;
    print(&format!("To log in to '{id}', open this URL in a browser:"))?;
    print(&url)?;
    std::io::stdout().flush()?;
    if !no_browser && open_browser(&url) {
        tracing::info!("opened the browser");
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(11 * 60);
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let status: HubSnapshot = remote.get("/status").await?;
        let server = status.servers.into_iter().find(|s| s.id == id);
        let last_error = server.as_ref().and_then(|s| s.last_error.clone());
        let auth = server.and_then(|s| s.auth);
        if auth.as_ref().is_some_and(|a| a.login_pending) {
            if tokio::time::Instant::now() > deadline {
                anyhow::bail!("the login of '{id}' did not complete in time");
            }
            continue;
        }
        let message = auth
            .as_ref()
            .and_then(|a| a.message.clone())
            .unwrap_or_default();
        let logged_in = auth.as_ref().is_some_and(|a| a.logged_in);
        if message.starts_with("login failed") || !logged_in {
            let why = if message.is_empty() {
                last_error.unwrap_or_else(|| "the login did not complete".into())
            } else {
                message
            };
            let _ = writeln!(std::io::stderr(), "switchboard: {why}");
            return Ok(ExitCode::FAILURE);
        }
        print(&format!("{id}: logged in"))?;
        if !auth.is_some_and(|a| a.keyring.persists()) {
            let _ = writeln!(
                std::io::stderr(),
                "note: {}",
                if message.is_empty() {
                    "no OS keyring is available; the tokens are kept in memory only"
                } else {
                    &message
                }
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
}

/// Opens `url` in the desktop's browser; false when there is no desktop
/// session (headless: the printed URL is the way).
fn open_browser(url: &str) -> bool {
    #[cfg(target_os = "macos")]
    let opener: Option<(&str, Vec<&str>)> = Some(("open", vec![url]));
    #[cfg(windows)]
    let opener: Option<(&str, Vec<&str>)> = Some(("cmd", vec!["/C", "start", "", url]));
    #[cfg(all(unix, not(target_os = "macos")))]
    let opener: Option<(&str, Vec<&str>)> = (std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some())
    .then(|| ("xdg-open", vec![url]));
    let Some((program, args)) = opener else {
        return false;
    };
    std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}

/// `enable <id>` / `disable <id>`: edits the config file through the hub.
pub async fn toggle(remote: &Remote, id: &str, enable: bool) -> anyhow::Result<ExitCode> {
    let verb = if enable { "enable" } else { "disable" };
    let answer: ReloadResponse = remote.post(&format!("/servers/{id}/{verb}")).await?;
    print(&format!("{id}: {verb}d"))?;
    let reload = answer
        .into_result()
        .map(|r| describe_reload(&r))
        .unwrap_or_default();
    if !reload.is_empty() {
        print(&reload)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `tool enable|disable <id> <tool>`: edits the server's `disabledTools`
/// through the hub.
pub async fn toggle_tool(
    remote: &Remote,
    id: &str,
    tool: &str,
    enable: bool,
) -> anyhow::Result<ExitCode> {
    let verb = if enable { "enable" } else { "disable" };
    let path = format!("/servers/{id}/tools/{}/{verb}", path_segment(tool));
    let answer: ReloadResponse = remote.post(&path).await?;
    print(&format!("{id}: tool '{tool}' {verb}d"))?;
    let reload = answer
        .into_result()
        .map(|r| describe_reload(&r))
        .unwrap_or_default();
    if !reload.is_empty() {
        print(&reload)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `text` percent-encoded as one URL path segment.
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// What a reload did, one line per kind of change, then its notes.
fn describe_reload(reload: &ReloadResult) -> String {
    let mut parts = Vec::new();
    for (key, ids) in [
        ("added", &reload.added),
        ("changed", &reload.changed),
        ("updated", &reload.updated),
        ("removed", &reload.removed),
    ] {
        if !ids.is_empty() {
            parts.push(format!("{key}: {}", ids.join(", ")));
        }
    }
    if parts.is_empty() {
        parts.push("nothing changed".into());
    }
    for err in &reload.errors {
        parts.push(format!("note: {err}"));
    }
    parts.join("\n")
}

/// `logs <id> [--follow]`: the hub's lines about the server, then its stderr.
pub async fn logs(remote: &Remote, id: &str, follow: bool) -> anyhow::Result<ExitCode> {
    let path = format!("/servers/{id}/logs");
    let lines = |answer: LogsResponse| -> Vec<String> {
        let mut lines: Vec<String> = answer
            .events
            .into_iter()
            .map(|e| format!("[{} {}] {}", e.at, e.level, e.message))
            .collect();
        lines.extend(answer.stderr.into_iter().map(|l| format!("stderr: {l}")));
        lines
    };
    let mut seen = lines(remote.get(&path).await?);
    for line in &seen {
        print(line)?;
    }
    if seen.is_empty() {
        // On stderr, so that output piped elsewhere stays the log lines alone.
        eprintln!("switchboard: no log lines yet for server '{id}'");
    }
    if !follow {
        return Ok(ExitCode::SUCCESS);
    }
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let next = lines(remote.get(&path).await?);
        for line in remote::new_lines(&seen, &next) {
            print(line)?;
        }
        seen = next;
    }
}

/// `activity`: the newest `limit` calls as a table (or JSON); with `follow`,
/// then every new call as it is recorded (polling `?after=<seq>` each second).
pub async fn activity(
    remote: &Remote,
    json: bool,
    follow: bool,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    let answer: ActivityResponse = remote.get(&format!("/activity?limit={limit}")).await?;
    let mut last = answer.calls.first().map_or(0, |c| c.seq);
    if json && !follow {
        print(&serde_json::to_string_pretty(&answer)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if json {
        for call in answer.calls.iter().rev() {
            print(&serde_json::to_string(call)?)?;
        }
    } else {
        for line in switchboard::activity::render(&answer.calls, true) {
            print(&line)?;
        }
    }
    if !follow {
        return Ok(ExitCode::SUCCESS);
    }
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let next: ActivityResponse = remote
            .get(&format!("/activity?limit=1000&after={last}"))
            .await?;
        if let Some(newest) = next.calls.first() {
            last = newest.seq;
        }
        if json {
            for call in next.calls.iter().rev() {
                print(&serde_json::to_string(call)?)?;
            }
        } else {
            for line in switchboard::activity::render(&next.calls, false) {
                print(&line)?;
            }
        }
    }
}
