//! `switchboard-auth-fixture`: a fake OAuth 2.1 authorization server and an
//! MCP server it protects, in one loopback process, for Switchboard's OAuth
//! tests.
//!
//! - [`server`]: the authorization server — RFC 9728 protected-resource
//!   metadata, RFC 8414 authorization-server metadata, dynamic client
//!   registration (RFC 7591), an authorization endpoint that approves at once
//!   (redirects to the client with `code` and `state`, or with
//!   `error=access_denied` under `--deny-consent`), PKCE S256 verification,
//!   and a token endpoint issuing short-lived access tokens
//!   (`--token-lifetime-secs`) and rotating refresh tokens;
//! - [`mcp`]: the fixture's own MCP server ([`crate::server::FixtureServer`])
//!   at `/mcp` (the legacy SSE transport at `/sse` with `--sse`), behind a
//!   bearer check that answers
//!   `401` + `WWW-Authenticate: Bearer resource_metadata="…"` without a valid token;
//! - test hooks under `/test/`: `GET /test/stats` (counts of what happened),
//!   `POST /test/revoke` (every token and refresh token stops working),
//!   `POST /test/expire` (access tokens expire now; refresh tokens still work).
//!
//! Like the other fixtures it prints `listening on http://<addr>/mcp` (`/sse`)
//! to stdout once bound and nothing else.

pub mod assertion;
pub mod mcp;
pub mod server;

use std::io::Write as _;
use std::sync::Arc;

use anyhow::Context as _;
use axum::serve::ListenerExt as _;
use clap::Parser;

/// A fake authorization server plus a protected MCP server.
#[derive(Debug, Clone, Parser)]
#[command(name = "switchboard-auth-fixture", version)]
pub struct Args {
    /// Listen here (loopback only), e.g. 127.0.0.1:0.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub http: String,
    /// Echo tools the MCP server offers (comma-separated).
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        default_value = "echo"
    )]
    pub tools: Vec<String>,
    /// Lifetime of access tokens, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    pub token_lifetime_secs: u64,
    /// A pre-registered client, `ID` or `ID:SECRET` (repeatable).
    #[arg(long = "client", value_name = "ID[:SECRET]")]
    pub clients: Vec<String>,
    /// Offer no dynamic client registration endpoint.
    #[arg(long)]
    pub no_registration: bool,
    /// The person refuses consent: redirect with `error=access_denied`.
    #[arg(long)]
    pub deny_consent: bool,
    /// Serve metadata that is not metadata: protected-resource metadata
    /// without `resource` or authorization servers, and authorization-server
    /// metadata that is not valid JSON.
    #[arg(long)]
    pub malformed_metadata: bool,
    /// Name this authorization server in the protected-resource metadata
    /// instead of our own (e.g. one that is not running).
    #[arg(long, value_name = "URL")]
    pub authorization_server: Option<String>,
    /// Protect a legacy HTTP+SSE server (`/sse`, `/messages`) instead of
    /// Streamable HTTP at `/mcp`; the protected resource is then `<issuer>/sse`.
    #[arg(long)]
    pub sse: bool,
    /// Behave as a 2025-03-26 server: no protected-resource metadata, a
    /// challenge that names none, and authorization-server metadata at the
    /// root whose `issuer` is `<origin>/oauth` (endpoints stay at the root).
    #[arg(long)]
    pub legacy_metadata: bool,
    /// A machine client that authenticates with a JWT signed by its private
    /// key (`private_key_jwt`): `ID=PUBLIC_KEY.pem` (repeatable); it may use
    /// the client-credentials grant.
    #[arg(long = "jwt-client", value_name = "ID=PEM")]
    pub jwt_clients: Vec<String>,
}

impl Args {
    /// The protected MCP endpoint's path.
    pub fn mcp_path(&self) -> &'static str {
        if self.sse { "/sse" } else { "/mcp" }
    }
}

/// Binds, announces the address and serves until killed.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(&args.http)
        .await
        .with_context(|| format!("binding {}", args.http))?;
    let addr = listener.local_addr().context("reading the bound address")?;
    anyhow::ensure!(
        addr.ip().is_loopback(),
        "the auth fixture listens on loopback only"
    );
    let issuer = format!("http://{addr}");
    let state = Arc::new(server::AuthServer::new(&issuer, &args)?);
    let router = server::router(state.clone()).merge(mcp::router(state, &args)?);
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {error}");
        }
    });
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on {issuer}{}", args.mcp_path())
            .and_then(|()| stdout.flush())
            .context("announcing the address on stdout")?;
    }
    axum::serve(listener, router)
        .await
        .context("the HTTP server failed")
}
