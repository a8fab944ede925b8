//! The legacy HTTP+SSE transport of MCP 2024-11-05, server side (`--http ADDR
//! --sse`): `GET /sse` opens a session whose event stream starts with
//! `event: endpoint` naming `/messages?sessionId=<id>`; each `POST` there
//! (answered `202 Accepted`) feeds the session's [`FixtureServer`], whose
//! messages go out on the stream as `event: message`.
//!
//! Each session is an rmcp service over a pair of channels, so the fixture's
//! tools, progress, list-changed notifications and control file work as on
//! the other transports. Misbehaviours for the hub's tests:
//! `--sse-bearer TOKEN` refuses (401) a `GET` or `POST` without
//! `Authorization: Bearer TOKEN`; `--sse-close-after N` ends each stream after
//! it carried N messages (the session ends with it); `--sse-post-status CODE`
//! answers every `POST` with CODE; `--sse-endpoint URL` announces URL as the
//! endpoint. A session ends when its stream is closed by either side.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use futures::channel::mpsc;
use rmcp::ServiceExt as _;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use tokio_util::sync::CancellationToken;

use crate::server::FixtureServer;

/// The misbehaviours a legacy SSE fixture can be asked for.
#[derive(Debug, Clone, Default)]
pub struct SseOptions {
    /// Refuse requests without `Authorization: Bearer <token>`.
    pub bearer: Option<String>,
    /// End each stream after it carried this many messages.
    pub close_after: Option<u64>,
    /// Answer every `POST` with this status instead (and drop the message).
    pub post_status: Option<u16>,
    /// Announce this endpoint instead of `/messages?sessionId=<id>`.
    pub endpoint: Option<String>,
}

struct Shared {
    server: FixtureServer,
    options: SseOptions,
    sessions: Mutex<HashMap<String, mpsc::UnboundedSender<ClientJsonRpcMessage>>>,
    next: AtomicU64,
}

impl Shared {
    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(token) = &self.options.bearer else {
            return true;
        };
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == format!("Bearer {token}"))
    }
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "a bearer token is required",
    )
        .into_response()
}

/// Removes its session and stops its service when the stream is dropped
/// (the client went away, or `--sse-close-after` ended it).
struct SessionGuard {
    shared: Arc<Shared>,
    id: String,
    stop: CancellationToken,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Ok(mut sessions) = self.shared.sessions.lock() {
            sessions.remove(&self.id);
        }
        tracing::info!(session = %self.id, "legacy SSE session ended");
    }
}

async fn open_stream(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if !shared.authorized(&headers) {
        return unauthorized();
    }
    let id = format!(
        "{}-{}",
        std::process::id(),
        shared.next.fetch_add(1, Ordering::SeqCst)
    );
    let (to_server, from_client) = mpsc::unbounded::<ClientJsonRpcMessage>();
    let (to_client, from_server) = mpsc::unbounded::<ServerJsonRpcMessage>();
    if let Ok(mut sessions) = shared.sessions.lock() {
        sessions.insert(id.clone(), to_server);
    }
    let stop = CancellationToken::new();
    let server = shared.server.clone();
    let service_stop = stop.clone();
    tokio::spawn(async move {
        let running = match server
            .serve_with_ct((to_client, from_client), service_stop)
            .await
        {
            Ok(running) => running,
            Err(error) => {
                tracing::info!("legacy SSE session did not initialize: {error}");
                return;
            }
        };
        let _ = running.waiting().await;
    });

    let guard = SessionGuard {
        shared: shared.clone(),
        id: id.clone(),
        stop,
    };
    let announced = shared
        .options
        .endpoint
        .clone()
        .unwrap_or_else(|| format!("/messages?sessionId={id}"));
    let endpoint =
        format!(": switchboard legacy SSE fixture\n\nevent: endpoint\ndata: {announced}\n\n");
    let limit = shared.options.close_after.unwrap_or(u64::MAX);
    let messages = from_server
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(move |message| {
            let _keep = &guard;
            let json = serde_json::to_string(&message).unwrap_or_default();
            Bytes::from(format!("event: message\ndata: {json}\n\n"))
        });
    let stream = futures::stream::once(async move { Bytes::from(endpoint) })
        .chain(messages)
        .map(Ok::<_, Infallible>);
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn post_message(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !shared.authorized(&headers) {
        return unauthorized();
    }
    if let Some(status) = shared.options.post_status {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (status, "refused on purpose").into_response();
    }
    let Some(id) = query.get("sessionId") else {
        return (StatusCode::BAD_REQUEST, "sessionId is required").into_response();
    };
    let sender = shared
        .sessions
        .lock()
        .ok()
        .and_then(|sessions| sessions.get(id).cloned());
    let Some(sender) = sender else {
        return (StatusCode::NOT_FOUND, "no such session").into_response();
    };
    let message: ClientJsonRpcMessage = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(error) => {
            return (StatusCode::BAD_REQUEST, format!("not JSON-RPC: {error}")).into_response();
        }
    };
    if sender.unbounded_send(message).is_err() {
        return (StatusCode::NOT_FOUND, "the session has ended").into_response();
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

/// The legacy SSE routes (`GET /sse`, `POST /messages`) serving `server`.
pub fn router(server: FixtureServer, options: SseOptions) -> axum::Router {
    let shared = Arc::new(Shared {
        server,
        options,
        sessions: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
    });
    axum::Router::new()
        .route("/sse", axum::routing::get(open_stream))
        .route("/messages", axum::routing::post(post_message))
        .with_state(shared)
}

/// Binds `addr`, prints `listening on http://<addr>/sse` to stdout, and
/// serves legacy SSE sessions until the process is killed.
pub async fn serve(server: FixtureServer, addr: &str, options: SseOptions) -> anyhow::Result<()> {
    let router = router(server, options);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))?;
    let local_addr = listener.local_addr().context("reading the bound address")?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{local_addr}/sse")
        .and_then(|()| stdout.flush())
        .context("announcing the address on stdout")?;
    drop(stdout);
    axum::serve(listener, router)
        .await
        .context("the HTTP server failed")
}
