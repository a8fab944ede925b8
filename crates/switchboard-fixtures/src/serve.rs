//! The two transports a fixture can serve: stdio and Streamable HTTP, shared by
//! both fixture binaries.
//!
//! Stdio serves one session until stdin closes (`--fail-http` makes the HTTP
//! listener answer every request with one status instead). HTTP serves stateful sessions
//! (rmcp `LocalSessionManager`) at `/mcp` until the process is killed, and
//! announces its address with the only line the fixture ever writes to stdout.

use std::{io::Write as _, sync::Arc};

use anyhow::Context as _;
use axum::serve::ListenerExt as _;
use rmcp::{
    ServerHandler, ServiceExt as _,
    service::ServerInitializeError,
    transport::{
        StreamableHttpServerConfig, StreamableHttpService,
        streamable_http_server::session::local::LocalSessionManager,
    },
};
use tokio::net::TcpListener;

use crate::server::FixtureServer;

/// Serves one client over stdin/stdout until it disconnects. A client that
/// closes stdin before completing the handshake is a normal end, not an error.
pub async fn stdio<S: ServerHandler>(server: S) -> anyhow::Result<()> {
    let running = match server
        .serve((
            crate::faults::DeafableStdin(tokio::io::stdin()),
            tokio::io::stdout(),
        ))
        .await
    {
        Ok(running) => running,
        Err(ServerInitializeError::ConnectionClosed(during)) => {
            tracing::info!("stdin closed before the handshake completed ({during})");
            return Ok(());
        }
        Err(error) => return Err(error).context("MCP handshake over stdio failed"),
    };
    let reason = running
        .waiting()
        .await
        .context("the stdio service task failed")?;
    tracing::info!(?reason, "stdio session ended");
    Ok(())
}

/// Binds `addr`, prints `listening on http://<addr>/mcp` to stdout, and serves
/// Streamable HTTP sessions there. With `required` (`NAME: VALUE`), a request
/// without that header and value is answered 401.
pub async fn http(server: FixtureServer, addr: &str, required: Option<&str>) -> anyhow::Result<()> {
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(required) = required {
        let (name, value) = required
            .split_once(':')
            .context("--require-header takes `NAME: VALUE`")?;
        let name = axum::http::HeaderName::from_bytes(name.trim().as_bytes())
            .context("--require-header: the header name")?;
        let value = value.trim().to_string();
        router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let sent = request
                    .headers()
                    .get(&name)
                    .is_some_and(|v| v.as_bytes() == value.as_bytes());
                async move {
                    if sent {
                        next.run(request).await
                    } else {
                        use axum::response::IntoResponse as _;
                        (
                            axum::http::StatusCode::UNAUTHORIZED,
                            "a required header is missing or wrong",
                        )
                            .into_response()
                    }
                }
            },
        ));
    }
    serve_mcp_router(router, addr).await
}

/// Binds `addr` and answers every request (any path) with `status` and a
/// text body quoting the request line (`POST /mcp?token=...`) and each header
/// value in brackets, without the header names: what a careless server's
/// error page does with the credentials it was sent.
pub async fn failing(addr: &str, status: u16) -> anyhow::Result<()> {
    let status = axum::http::StatusCode::from_u16(status).context("--fail-status")?;
    let answer = move |request: axum::extract::Request| async move {
        let values: Vec<String> = request
            .headers()
            .values()
            .map(|v| format!("[{}]", String::from_utf8_lossy(v.as_bytes())))
            .collect();
        let body = format!(
            "refused {} {}; sent {}",
            request.method(),
            request.uri(),
            values.join(" ")
        );
        (
            status,
            [(axum::http::header::CONTENT_TYPE, "text/plain")],
            body,
        )
    };
    let router = axum::Router::new().fallback(answer);
    serve_mcp_router(router, addr).await
}

/// Binds `addr` (TCP_NODELAY on every connection), prints
/// `listening on http://<bound addr>/mcp` to stdout once bound, and serves
/// `router` until the process is killed. `router` is expected to serve MCP at
/// `/mcp`; every fixture binary announces its address this way.
pub async fn serve_mcp_router(router: axum::Router, addr: &str) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))?;
    let local_addr = listener.local_addr().context("reading the bound address")?;
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {error}");
        }
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{local_addr}/mcp")
        .and_then(|()| stdout.flush())
        .context("announcing the address on stdout")?;
    drop(stdout);
    axum::serve(listener, router)
        .await
        .context("the HTTP server failed")
}
