//! `switchboard-conformance-auth`: the client under test for the official MCP
//! conformance suite's `auth/*` client scenarios (`conformance client
//! --command ...`), with Switchboard's own OAuth client doing the work.
//!
//! The suite starts an authorization server and a protected MCP server per
//! scenario and runs this binary with the server's URL as the last argument
//! (the scenario in `MCP_CONFORMANCE_SCENARIO`, extra inputs such as a
//! pre-registered client in `MCP_CONFORMANCE_CONTEXT`). The binary starts an
//! in-process Switchboard hub (`switchboard_core::Hub`, the engine
//! `switchboard serve` runs; tokens in memory) with that URL as its only
//! upstream `target`, then plays the person at the keyboard:
//! 1. `HubHandle::refresh`: the upstream gets `401` and its challenge, the
//!    server goes to `authRequired`;
//! 2. `HubHandle::login`: the hub discovers, registers (or uses the
//!    configured `oauth.clientId`/`clientSecret`), and hands back the
//!    authorization URL with its loopback callback already listening;
//! 3. the "browser": a plain HTTP GET of that URL that follows redirects; the
//!    suite's authorization server approves at once and redirects to the
//!    hub's callback, which exchanges the code (PKCE) for tokens;
//! 4. a downstream rmcp client on the hub's `/mcp` lists the tools and calls
//!    each one; a call refused for want of authorization (a scope step-up)
//!    makes the driver log in once more, as a person would, and call again.
//!
//! For the client-credentials scenarios the server is configured with
//! `"grant": "clientCredentials"` and the suite's client: the hub gets its
//! token itself when it connects, and step 1 already succeeds; when the
//! context gives a private key instead of a secret (`private_key_pem`,
//! `signing_algorithm`), it is the server's `oauth.signingKey`. For
//! cross-app access (the context names an enterprise IdP, `idp_issuer`,
//! `idp_token_endpoint`, `idp_client_id`, and the person's `idp_id_token`)
//! it is `"grant": "crossAppAccess"` with that `identityProvider`: again no
//! login.
//!
//! ```text
//! switchboard-conformance-auth [--scenario NAME] URL
//! ```
//!
//! Exits 0 when every call succeeded; otherwise non-zero with the reason on
//! stderr. Logs go to stderr (`RUST_LOG`, default `warn`).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use switchboard_core::{Config, Hub, HubHandle, HubOptions, RefreshTrigger, ServerId, config};
use tracing_subscriber::EnvFilter;

/// The id of the suite's server in the hub's config.
const TARGET: &str = "target";
/// How long the whole scenario may take (the suite kills the client at 30 s).
const SCENARIO_DEADLINE: Duration = Duration::from_secs(25);
/// How long one login may take, browser redirect and code exchange included.
const LOGIN_DEADLINE: Duration = Duration::from_secs(10);
/// How long the hub gets to close its upstream at the end.
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);
/// Logins the driver does at most (the first one and one step-up).
const MAX_LOGINS: usize = 2;
/// How long a failed call's server state is watched for `authRequired`.
const STATE_WAIT: Duration = Duration::from_secs(5);

struct Args {
    scenario: String,
    url: String,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").ok();
    let mut url = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(args.next().context("--scenario needs a value")?),
            "-h" | "--help" => bail!("usage: switchboard-conformance-auth [--scenario NAME] URL"),
            _ if arg.starts_with('-') => bail!("unknown option {arg:?}"),
            _ => url = Some(arg),
        }
    }
    Ok(Args {
        scenario: scenario
            .context("no scenario: set MCP_CONFORMANCE_SCENARIO or pass --scenario")?,
        url: url.context("no server URL given")?,
    })
}

/// The Client ID Metadata Document URL the suite expects a client to use
/// when the authorization server supports them (`auth/basic-cimd`); with
/// servers that do not, the hub registers dynamically as without it.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The server's `oauth` block: the client metadata URL, and a pre-registered
/// client when the suite's context names one (`client_id`, `client_secret`);
/// for the client-credentials scenarios (SEP-1046) that client uses
/// `"grant": "clientCredentials"`, a machine client with no login (with
/// `signingKey` when the context gives a private key).
fn oauth_block(scenario: &str) -> anyhow::Result<Value> {
    let mut oauth = json!({"clientMetadataUrl": CLIENT_METADATA_URL});
    let Ok(text) = std::env::var("MCP_CONFORMANCE_CONTEXT") else {
        return Ok(oauth);
    };
    let context: Value =
        serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON")?;
    if let Some(client_id) = context.get("client_id").and_then(Value::as_str) {
        oauth["clientId"] = json!(client_id);
        if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
            oauth["clientSecret"] = json!(secret);
            if let Some(idp) = identity_provider(&context) {
                oauth["grant"] = json!("crossAppAccess");
                oauth["identityProvider"] = idp;
            } else if scenario.starts_with("auth/client-credentials") {
                oauth["grant"] = json!("clientCredentials");
            }
        } else if let Some(key) = context.get("private_key_pem").and_then(Value::as_str) {
            // `private_key_jwt` (SEP-1046): the hub signs its client assertion.
            oauth["grant"] = json!("clientCredentials");
            oauth["signingKey"] = json!(key);
            if let Some(alg) = context.get("signing_algorithm").and_then(Value::as_str) {
                oauth["signingAlgorithm"] = json!(alg);
            }
        }
    }
    Ok(oauth)
}

/// Cross-app access (SEP-990): the context's enterprise IdP and the
/// person's ID token from it become `oauth.identityProvider`.
fn identity_provider(context: &Value) -> Option<Value> {
    let text = |key: &str| context.get(key).and_then(Value::as_str);
    Some(json!({
        "issuer": text("idp_issuer")?,
        "tokenEndpoint": text("idp_token_endpoint")?,
        "clientId": text("idp_client_id")?,
        "idToken": text("idp_id_token")?,
    }))
}

fn hub_config(url: &str, scenario: &str) -> anyhow::Result<Config> {
    let server = json!({
        "url": url,
        "namespace": "",
        "timeouts": {"startupSecs": 10, "callSecs": 20},
        "oauth": oauth_block(scenario)?,
    });
    let text = json!({
        "mcpServers": {TARGET: server},
        "settings": {"listen": "127.0.0.1:0", "tokenStore": "memory", "builtinTools": false},
    })
    .to_string();
    config::load(config::Source::text(&text, Path::new("<conformance-auth>")))
        .map_err(|e| anyhow!("config: {e}"))
}

/// One login, the way a person does it: the hub's URL opened in a "browser"
/// that follows the authorization server's redirect back to the hub, then
/// the hub's login task finishing (the server leaves `authRequired`).
async fn login(hub: &HubHandle, browser: &reqwest::Client) -> anyhow::Result<()> {
    let started = hub
        .login(TARGET)
        .await
        .map_err(|e| anyhow!("the hub could not start the login: {e}"))?;
    tracing::info!(url = %started.authorization_url, "opening the authorization URL");
    let page = browser
        .get(&started.authorization_url)
        .send()
        .await
        .context("the authorization request failed")?;
    let status = page.status();
    let text = page.text().await.unwrap_or_default();
    tracing::info!(%status, %text, "the callback page");
    if !status.is_success() || !text.contains("You are logged in") {
        bail!("the login did not complete (HTTP {status}): {text}");
    }
    let mut snapshots = hub.subscribe();
    let done = async {
        loop {
            let pending = {
                let snapshot = snapshots.borrow_and_update();
                snapshot
                    .servers
                    .iter()
                    .find(|s| s.id == TARGET)
                    .and_then(|s| s.auth.as_ref())
                    .is_some_and(|a| a.login_pending)
            };
            if !pending {
                return Ok::<_, anyhow::Error>(());
            }
            snapshots
                .changed()
                .await
                .context("the hub stopped during the login")?;
        }
    };
    tokio::time::timeout(LOGIN_DEADLINE, done)
        .await
        .context("the hub's login task did not finish")??;
    Ok(())
}

async fn run_scenario(hub: &HubHandle) -> anyhow::Result<()> {
    let target = ServerId::new(TARGET).map_err(|e| anyhow!(e))?;
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(5))
        .build()?;
    // Without a token the server answers 401: the hub says so.
    match hub.refresh(&target, RefreshTrigger::Manual).await {
        Ok(()) => tracing::info!("the server needs no login"),
        Err(err) => {
            tracing::info!(error = %err, "before the login");
            login(hub, &browser).await?;
        }
    }
    hub.refresh(&target, RefreshTrigger::Manual)
        .await
        .context("the hub could not list the server after the login")?;

    let client = ()
        .serve(StreamableHttpClientTransport::from_uri(
            hub.endpoint().to_string(),
        ))
        .await
        .context("cannot connect to the hub's /mcp")?;
    let outcome = async {
        let tools = client.peer().list_all_tools().await?;
        if tools.is_empty() {
            bail!("the hub lists no tools of the server");
        }
        let mut logins = 1;
        for tool in tools {
            loop {
                let params = CallToolRequestParams::new(tool.name.to_string());
                match client.peer().call_tool(params).await {
                    Ok(result) if result.is_error != Some(true) => {
                        tracing::info!(tool = %tool.name, "call succeeded");
                        break;
                    }
                    Ok(result) => {
                        bail!("{} returned a tool error: {:?}", tool.name, result.content)
                    }
                    Err(err) if logins < MAX_LOGINS && needs_login(hub).await => {
                        tracing::info!(error = %err, "the call needs another login (step-up)");
                        logins += 1;
                        login(hub, &browser).await?;
                    }
                    Err(err) => bail!("calling {} through the hub failed: {err}", tool.name),
                }
            }
        }
        Ok(())
    }
    .await;
    let _ = client.cancel().await;
    outcome
}

/// Whether the hub put the server in `authRequired` (a refused token or scope) after a call
/// failed. The state is published beside the call's answer, not before it, so a busy machine
/// can show the answer first: the snapshot is watched for up to [`STATE_WAIT`].
async fn needs_login(hub: &HubHandle) -> bool {
    let auth_required = || {
        hub.snapshot()
            .servers
            .iter()
            .find(|s| s.id == TARGET)
            .is_some_and(|s| s.state == switchboard_core::ServerState::AuthRequired)
    };
    let deadline = tokio::time::Instant::now() + STATE_WAIT;
    loop {
        if auth_required() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args = parse_args()?;
    tracing::info!(scenario = %args.scenario, url = %args.url, "starting");

    let hub = Hub::bind(
        hub_config(&args.url, &args.scenario)?,
        HubOptions::default(),
    )
    .await?;
    let handle = hub.handle();
    let stop = tokio_util::sync::CancellationToken::new();
    let stopped = stop.clone();
    let running = tokio::spawn(hub.run(async move { stopped.cancelled().await }));

    let outcome = match tokio::time::timeout(SCENARIO_DEADLINE, run_scenario(&handle)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(anyhow!(
            "scenario {} did not finish within {SCENARIO_DEADLINE:?}",
            args.scenario
        )),
    };

    stop.cancel();
    match tokio::time::timeout(SHUTDOWN_DEADLINE, running).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(err))) => tracing::warn!(%err, "hub stopped with an error"),
        Ok(Err(err)) => tracing::warn!(%err, "hub task failed"),
        Err(_) => tracing::warn!("hub did not stop within {SHUTDOWN_DEADLINE:?}"),
    }
    outcome.with_context(|| format!("scenario {}", args.scenario))
}
