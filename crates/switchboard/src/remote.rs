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
use serde_json::Value;

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

    pub async fn get(&self, path: &str) -> anyhow::Result<Value> {
        self.send(reqwest::Method::GET, path).await
    }

    pub async fn post(&self, path: &str) -> anyhow::Result<Value> {
        self.send(reqwest::Method::POST, path).await
    }

    async fn send(&self, method: reqwest::Method, path: &str) -> anyhow::Result<Value> {
        let mut request = self
            .http
            .request(method, format!("{}/api/v1{path}", self.base));
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

    async fn body(&self, response: reqwest::Response) -> anyhow::Result<Value> {
        let status = response.status();
        let body: Value = response.json().await.context("reading the hub's answer")?;
        if !status.is_success() {
            let message = body["error"].as_str().unwrap_or("request failed");
            if let (reqwest::StatusCode::UNAUTHORIZED, Err(why)) = (status, &self.token) {
                bail!("{message} (HTTP 401); {why}");
            }
            bail!("{message} (HTTP {})", status.as_u16());
        }
        Ok(body)
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
pub fn render_status(snapshot: &Value) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Switchboard {} at {}",
        snapshot["version"].as_str().unwrap_or("?"),
        snapshot["endpoint"].as_str().unwrap_or("?")
    );
    if let Some(err) = snapshot["configError"].as_object() {
        // `path:line:column` for an error in the file; just the path for a
        // file that is missing, empty or not a regular file.
        let position = match (
            err.get("line").and_then(Value::as_u64),
            err.get("column").and_then(Value::as_u64),
        ) {
            (Some(line), Some(column)) => format!(":{line}:{column}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "CONFIG ERROR (the last good config keeps running): {}{position}: {}",
            err.get("path").and_then(Value::as_str).unwrap_or("?"),
            err.get("message").and_then(Value::as_str).unwrap_or("?"),
        );
    }
    let servers = snapshot["servers"].as_array().cloned().unwrap_or_default();
    if servers.is_empty() {
        let _ = writeln!(
            out,
            "No servers configured ({}).",
            snapshot["configPath"].as_str().unwrap_or("no config file")
        );
        return out;
    }
    let rows: Vec<[String; 7]> = servers
        .iter()
        .map(|s| {
            let listed = match s["listedAt"].as_str() {
                Some(at) => {
                    let mut text = format!("{} ago", age(at));
                    if let Some(trigger) = s["refreshTrigger"].as_str() {
                        let _ = write!(text, " ({trigger})");
                    }
                    if s["stale"].as_bool() == Some(true) {
                        text.push_str(", stale");
                    }
                    if s["unverified"].as_bool() == Some(true) {
                        text.push_str(", unverified");
                    }
                    text
                }
                None => "never".into(),
            };
            [
                s["id"].as_str().unwrap_or("?").to_string(),
                s["transport"].as_str().unwrap_or("?").to_string(),
                s["state"].as_str().unwrap_or("?").to_string(),
                s["health"].as_str().unwrap_or("-").to_string(),
                format!(
                    "{}/{}/{}",
                    s["toolCount"].as_u64().unwrap_or(0),
                    s["promptCount"].as_u64().unwrap_or(0),
                    s["resourceCount"].as_u64().unwrap_or(0)
                ),
                listed,
                s["lastError"].as_str().unwrap_or("").to_string(),
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
    let totals = &snapshot["totals"];
    let _ = writeln!(
        out,
        "{} servers, {} tools, {} prompts, {} resources",
        totals["servers"].as_u64().unwrap_or(0),
        totals["tools"].as_u64().unwrap_or(0),
        totals["prompts"].as_u64().unwrap_or(0),
        totals["resources"].as_u64().unwrap_or(0)
    );
    out
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
    use serde_json::json;

    #[test]
    fn status_table_lists_servers_and_totals() {
        let snapshot = json!({
            "version": "0.1.0",
            "endpoint": "http://127.0.0.1:8420/mcp",
            "servers": [
                {"id": "fs", "transport": "stdio", "state": "ready", "health": "healthy",
                 "toolCount": 14, "promptCount": 0, "resourceCount": 2,
                 "listedAt": null, "lastError": null},
                {"id": "broken", "transport": "stdio", "state": "failed", "health": "down",
                 "toolCount": 0, "promptCount": 0, "resourceCount": 0,
                 "listedAt": null, "lastError": "server 'broken' exited"}
            ],
            "totals": {"servers": 2, "tools": 14, "prompts": 0, "resources": 2}
        });
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
        assert_eq!(lines[4], "2 servers, 14 tools, 0 prompts, 2 resources");
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
