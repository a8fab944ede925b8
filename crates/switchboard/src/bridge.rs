//! `switchboard stdio`: speaks MCP on stdin/stdout and forwards every message,
//! both ways, to a running hub's Streamable HTTP endpoint.
//!
//! It is a message pump between two rmcp transports, not an MCP client and
//! server: requests, responses, notifications and server-to-client requests
//! (sampling, elicitation, roots) pass through unchanged, so the bridge never
//! needs to know a method. Stdout carries only protocol; diagnostics go to
//! stderr. When no hub answers at the URL, the bridge says so on stderr and
//! exits non-zero: it does not start a hub of its own, so that every client
//! shares the one hub the tray app or `switchboard serve` runs. Started by a
//! hub as one of its own servers (`SWITCHBOARD_VIA` set), it refuses to
//! connect back to that same hub.
//!
//! Its requests name its working directory in `X-Switchboard-Cwd`: the hub
//! serves a client that declares no roots of its own the profile whose
//! `roots` hold that folder (see the core's `gateway::roots`).

use std::time::Duration;

use anyhow::{Context, bail};
use rmcp::RoleServer;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport, Transport};

/// The hub's base URL from an MCP endpoint URL: `/mcp` or a profile's
/// `/profiles/<name>/mcp` taken off.
fn hub_base(url: &str) -> &str {
    let base = url.strip_suffix("/mcp").unwrap_or(url);
    base.split_once("/profiles/").map_or(base, |(hub, _)| hub)
}

/// Forwards stdin/stdout to the hub at `url` until either side closes.
pub async fn run(url: &str) -> anyhow::Result<()> {
    let base = hub_base(url);
    // Needed only by a hub that listens beyond loopback (see `remote`).
    let token = crate::remote::control_token(base).ok();
    check_hub(url, token.as_deref()).await?;
    let mut down = IntoTransport::<RoleServer, _, _>::into_transport(rmcp::transport::stdio());
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    if let Some(cwd) = cwd_header() {
        config = config.custom_headers(std::collections::HashMap::from([cwd]));
    }
    let mut up = StreamableHttpClientTransport::from_config(config);
    loop {
        tokio::select! {
            from_client = down.receive() => match from_client {
                Some(message) => up.send(message).await.context("forwarding to the hub")?,
                None => break,
            },
            from_hub = up.receive() => match from_hub {
                Some(message) => down.send(message).await.context("writing to stdout")?,
                None => {
                    tracing::warn!("the hub closed the session");
                    break;
                }
            },
        }
    }
    let _ = up.close().await;
    let _ = down.close().await;
    Ok(())
}

/// The `X-Switchboard-Cwd` header with the working directory; none when
/// it is unknown or not valid header text (a path that is not ASCII).
fn cwd_header() -> Option<(reqwest::header::HeaderName, reqwest::header::HeaderValue)> {
    let cwd = std::env::current_dir().ok()?;
    let value = reqwest::header::HeaderValue::from_str(cwd.to_str()?).ok()?;
    Some((
        reqwest::header::HeaderName::from_static("x-switchboard-cwd"),
        value,
    ))
}

/// A warning when nothing answers at the hub's `/mcp` URL `url` (used by
/// `connect`, which writes the entry anyway); `None` when something does.
pub async fn no_hub_warning(url: &str) -> Option<String> {
    let base = hub_base(url);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .ok()?;
    match client.get(format!("{base}/api/v1/status")).send().await {
        Ok(_) => None,
        Err(_) => Some(format!(
            "no Switchboard is running at {base} yet; the client will reach it once \
             `switchboard serve` (or the Switchboard app) runs there"
        )),
    }
}

/// Fails with a clear message when nothing answers at the hub's address.
async fn check_hub(url: &str, token: Option<&str>) -> anyhow::Result<()> {
    let base = url.strip_suffix("/mcp").unwrap_or(url);
    let status = format!("{base}/api/v1/status");
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()?;
    let mut request = client.get(&status);
    // Started by a hub as one of its servers: say which hub, so that a
    // bridge back to that same hub is refused instead of looping.
    if let Ok(via) = std::env::var(switchboard_core::VIA_ENV) {
        request = request.header(switchboard_core::VIA_HEADER, via);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    match request.send().await {
        Ok(response) if response.status().is_success() => Ok(()),
        Ok(response) if response.status() == reqwest::StatusCode::LOOP_DETECTED => bail!(
            "{base} is the Switchboard that started this bridge as one of its servers; \
             a hub cannot serve itself"
        ),
        Ok(response) => bail!(
            "{base} answered {} instead of Switchboard's status; is another program using that port?",
            response.status()
        ),
        Err(_) => bail!(
            "Switchboard is not running at {base}. Start it with `switchboard serve` \
             (or the Switchboard app), or pass --url."
        ),
    }
}
