//! Talking to a running hub's control API (`/api/v1`) from the terminal:
//! `status`, `refresh`, `enable`, `disable`, `logs`, `reload`.
//!
//! Every call fails with a sentence that says what to do when no hub runs at
//! the address, instead of a connection error.
//!
//! Credential: `SWITCHBOARD_TOKEN` if set, else the control token the hub
//! keeps in its state directory (`control-token`, found the way the hub
//! finds it: `SWITCHBOARD_CACHE_DIR`, else the OS cache dir). The file's
//! token is only sent to a loopback hub, never to another machine.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_api::{ErrorResponse, HubSnapshot};

/// A running hub, addressed by its base URL (`http://127.0.0.1:8420`).
pub struct Remote {
    base: String,
    http: reqwest::Client,
    /// The bearer token, or why there is none (said when the hub wants one).
    token: Result<String, String>,
}

impl Remote {
    /// `url` may be the base or the `/mcp` endpoint.
    pub fn new(url: &str) -> anyhow::Result<Self> {
        let base = url
            .trim_end_matches('/')
            .trim_end_matches("/mcp")
            .to_string();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .connect_timeout(Duration::from_secs(3))
            .build()?;
        let token = control_token(&base);
        Ok(Self { base, http, token })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn not_running(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "Switchboard is not running at {}. Start it with `switchboard serve` (or the app), \
             or point at it with --url.",
            self.base
        )
    }

    /// `GET /api/v1<path>`, its answer read as `T` (a `switchboard_api` type).
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        self.send(reqwest::Method::GET, path).await
    }

    /// `POST /api/v1<path>` (no body), its answer read as `T`.
    pub async fn post<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        self.send(reqwest::Method::POST, path).await
    }

    /// `POST /api/v1<path>` with a JSON body, its answer read as `T`.
    pub async fn post_json<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> anyhow::Result<T> {
        let request = self
            .http
            .post(format!("{}/api/v1{path}", self.base))
            .json(body);
        self.dispatch(request).await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
    ) -> anyhow::Result<T> {
        let request = self
            .http
            .request(method, format!("{}/api/v1{path}", self.base));
        self.dispatch(request).await
    }

    /// Sends `request` with the control token (when there is one) and reads
    /// the answer as `T`; a refused connection says no hub is running.
    async fn dispatch<T: DeserializeOwned>(
        &self,
        mut request: reqwest::RequestBuilder,
    ) -> anyhow::Result<T> {
        if let Ok(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|err| {
            if err.is_connect() {
                self.not_running()
            } else {
                err.into()
            }
        })?;
        self.body(response).await
    }

    async fn body<T: DeserializeOwned>(&self, response: reqwest::Response) -> anyhow::Result<T> {
        let status = response.status();
        let body: Value = response.json().await.context("reading the hub's answer")?;
        if !status.is_success() {
            // Every refusal carries `error` (see `switchboard_api`).
            let refusal = serde_json::from_value::<ErrorResponse>(body).ok();
            let message = refusal
                .as_ref()
                .map_or("request failed", |r| r.error.as_str());
            if let (reqwest::StatusCode::UNAUTHORIZED, Err(why)) = (status, &self.token) {
                bail!("{message} (HTTP 401); {why}");
            }
            bail!("{message} (HTTP {})", status.as_u16());
        }
        serde_json::from_value(body).context("reading the hub's answer")
    }
}

/// The token to send to the hub at `base` (see the module docs).
pub fn control_token(base: &str) -> Result<String, String> {
    if let Some(token) = std::env::var("SWITCHBOARD_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(token.trim().to_string());
    }
    let authority = base
        .split_once("://")
        .map_or(base, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    if !switchboard_core::is_loopback_authority(authority) {
        return Err(format!(
            "{base} is not on this computer: set SWITCHBOARD_TOKEN to its control token"
        ));
    }
    let path = switchboard_core::token_path(&switchboard_core::state_dir());
    switchboard_core::read_token(&path).map_err(|err| err.to_string())
}

/// The status snapshot as a table people can read.
pub fn render_status(snapshot: &HubSnapshot) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Switchboard {} at {}",
        snapshot.version, snapshot.endpoint
    );
    if let Some(err) = &snapshot.config_error {
        use switchboard_api::ConfigError;
        // `path:line:column` for an error in the file; just the path for a
        // file that is missing, empty or not a regular file.
        let position = match err {
            ConfigError::Invalid { line, column, .. } => format!(":{line}:{column}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "CONFIG ERROR (the last good config keeps running): {}{position}: {}",
            err.path().unwrap_or("?"),
            err.message(),
        );
    }
    if snapshot.servers.is_empty() {
        let _ = writeln!(
            out,
            "No servers configured ({}).",
            snapshot.config_path.as_deref().unwrap_or("no config file")
        );
        return out;
    }
    let rows: Vec<[String; 7]> = snapshot
        .servers
        .iter()
        .map(|s| {
            let listed = match &s.listed_at {
                Some(at) => {
                    let mut text = format!("{} ago", age(at));
                    if let Some(trigger) = s.refresh_trigger {
                        let _ = write!(text, " ({trigger})");
                    }
                    if s.stale {
                        text.push_str(", stale");
                    }
                    if s.unverified {
                        text.push_str(", unverified");
                    }
                    text
                }
                None => "never".into(),
            };
            [
                s.id.clone(),
                s.transport.clone(),
                s.state.to_string(),
                s.health.to_string(),
                format!("{}/{}/{}", s.tool_count, s.prompt_count, s.resource_count),
                listed,
                s.last_error.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let header = [
        "SERVER",
        "TRANSPORT",
        "STATE",
        "HEALTH",
        "T/P/R",
        "LISTED",
        "LAST ERROR",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:<width$}  ", width = widths[i]);
            }
        }
        text.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(&header));
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        let _ = writeln!(out, "{}", line(&cells));
    }
    let totals = &snapshot.totals;
    // `tools` is what clients get, Switchboard's own built-ins included.
    let builtin = match totals.builtin_tools {
        0 => String::new(),
        n => format!(" ({n} built-in)"),
    };
    let _ = writeln!(
        out,
        "{} servers, {} tools{builtin}, {} prompts, {} resources",
        totals.servers, totals.tools, totals.prompts, totals.resources
    );
    for endpoint in &snapshot.endpoints {
        let _ = writeln!(out, "{}", endpoint_line(endpoint));
    }
    out
}

/// One endpoint of the status: `/mcp` or a profile's, with what a client of
/// it gets (never a profile's token, which the snapshot does not carry).
pub fn endpoint_line(endpoint: &switchboard_api::EndpointSnapshot) -> String {
    let mode = match endpoint.tool_mode {
        switchboard_api::ToolMode::All => "all tools",
        switchboard_api::ToolMode::Search => "search mode",
        switchboard_api::ToolMode::Code => "code mode",
    };
    // Right after a start or a change the hub is still counting: a number
    // then would be too low (it used to say "0 tokens").
    let tokens = if endpoint.tokens_counted {
        format!("{} tokens", endpoint.tool_tokens)
    } else {
        "tokens counting".to_string()
    };
    let mut line = format!(
        "endpoint {}: {mode}, {} tools, {tokens}",
        endpoint.path, endpoint.tools
    );
    if let Some(profile) = &endpoint.profile {
        let servers = if profile.servers.is_empty() {
            "no servers".to_string()
        } else {
            format!("servers {}", profile.servers.join(", "))
        };
        let token = if profile.has_token {
            "needs its token"
        } else {
            "no token"
        };
        match &profile.project {
            // A project file's profile, served on `/mcp` by the client's roots.
            Some(folder) => {
                let _ = write!(
                    line,
                    " (project {folder}: {servers}; for clients whose roots name it)"
                );
            }
            None => {
                let _ = write!(line, " (profile {}: {servers}; {token})", profile.name);
            }
        }
    }
    line
}

/// How long ago an RFC 3339 time was, in words ("3 min").
pub fn age(rfc3339: &str) -> String {
    let Ok(at) = humantime::parse_rfc3339(rfc3339) else {
        return rfc3339.to_string();
    };
    let since = SystemTime::now().duration_since(at).unwrap_or_default();
    switchboard_core::humanize_coarse(since)
}

/// The lines of `next` that come after what `previous` ended with (for
/// `logs --follow` over a ring buffer that drops old lines).
pub fn new_lines<'a>(previous: &[String], next: &'a [String]) -> &'a [String] {
    // Find the longest suffix of `previous` that is a prefix of `next`.
    for start in 0..previous.len() {
        let overlap = &previous[start..];
        if next.len() >= overlap.len() && next[..overlap.len()] == *overlap {
            return &next[overlap.len()..];
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_api::{Health, ServerSnapshot, ServerState, Totals};

    fn server(id: &str, state: ServerState, health: Health) -> ServerSnapshot {
        ServerSnapshot {
            id: id.into(),
            transport: "stdio".into(),
            enabled: true,
            state,
            health,
            ..ServerSnapshot::default()
        }
    }

    #[test]
    fn status_table_lists_servers_and_totals() {
        let snapshot = HubSnapshot {
            version: "0.1.0".into(),
            endpoint: "http://127.0.0.1:8420/mcp".into(),
            servers: vec![
                ServerSnapshot {
                    tool_count: 14,
                    resource_count: 2,
                    ..server("fs", ServerState::Ready, Health::Healthy)
                },
                ServerSnapshot {
                    last_error: Some("server 'broken' exited".into()),
                    ..server("broken", ServerState::Failed, Health::Down)
                },
            ],
            totals: Totals {
                servers: 2,
                tools: 17,
                builtin_tools: 3,
                prompts: 0,
                resources: 2,
                tool_tokens: 0,
            },
            endpoints: vec![
                switchboard_api::EndpointSnapshot {
                    path: "/mcp".into(),
                    tool_mode: switchboard_api::ToolMode::All,
                    tools: 17,
                    tool_tokens: 2345,
                    tokens_counted: true,
                    profile: None,
                },
                switchboard_api::EndpointSnapshot {
                    path: "/profiles/work/mcp".into(),
                    tool_mode: switchboard_api::ToolMode::Search,
                    tools: 5,
                    tool_tokens: 900,
                    tokens_counted: false,
                    profile: Some(switchboard_api::EndpointProfile {
                        name: "work".into(),
                        servers: vec!["fs".into()],
                        has_token: true,
                        project: None,
                    }),
                },
                switchboard_api::EndpointSnapshot {
                    path: "/mcp".into(),
                    tool_mode: switchboard_api::ToolMode::All,
                    tools: 2,
                    tool_tokens: 80,
                    tokens_counted: true,
                    profile: Some(switchboard_api::EndpointProfile {
                        name: "project:/w/acme".into(),
                        servers: vec!["fs".into()],
                        has_token: false,
                        project: Some("/w/acme".into()),
                    }),
                },
            ],
            ..HubSnapshot::default()
        };
        let text = render_status(&snapshot);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Switchboard 0.1.0 at http://127.0.0.1:8420/mcp");
        assert!(
            lines[1].starts_with("SERVER  TRANSPORT  STATE   HEALTH   T/P/R"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("fs      stdio      ready   healthy  14/0/2  never"),
            "{}",
            lines[2]
        );
        assert!(lines[3].ends_with("server 'broken' exited"), "{}", lines[3]);
        assert_eq!(
            lines[4],
            "2 servers, 17 tools (3 built-in), 0 prompts, 2 resources"
        );
        assert_eq!(lines[5], "endpoint /mcp: all tools, 17 tools, 2345 tokens");
        assert_eq!(
            lines[6],
            "endpoint /profiles/work/mcp: search mode, 5 tools, tokens counting \
             (profile work: servers fs; needs its token)"
        );
        assert_eq!(
            lines[7],
            "endpoint /mcp: all tools, 2 tools, 80 tokens \
             (project /w/acme: servers fs; for clients whose roots name it)"
        );
    }

    #[test]
    fn follow_prints_only_new_lines() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(new_lines(&s(&["a", "b"]), &s(&["a", "b", "c"])), s(&["c"]));
        // the ring dropped "a"
        assert_eq!(
            new_lines(&s(&["a", "b"]), &s(&["b", "c", "d"])),
            s(&["c", "d"])
        );
        assert_eq!(new_lines(&s(&[]), &s(&["x"])), s(&["x"]));
        assert_eq!(new_lines(&s(&["a"]), &s(&["a"])), s(&[]));
    }
}
