//! A fake MCP Registry (the generic registry API, `/v0.1` and `/v0`) serving
//! the `server.json` documents of a folder, for the registry tests.
//!
//! Each `*.json` file in `--docs` is one document (one server at one
//! version), read on every request, so a test publishes a new version by
//! writing a file. The text `{REMOTE_BASE}` in a file is replaced by
//! `--remote-base` (where a test's remote MCP server listens). Routes:
//! `GET /v0.1/servers?search=&limit=&cursor=&version=latest`,
//! `GET /v0.1/servers/<name>/versions`, `GET /v0.1/servers/<name>/versions/<v|latest>`
//! (the same under `/v0`), answering as the official registry does
//! (`{"servers": [{"server", "_meta"}], "metadata": {"nextCursor", "count"}}`).
//! `--mode` makes it misbehave: `down` (503 for everything), `garbage` (an
//! HTML page with status 200), `hang` (accepts and never answers), `v0-only`
//! (404 under `/v0.1`). It prints `listening on http://<addr>` first.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

/// How the registry behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    Ok,
    Down,
    Garbage,
    Hang,
    V0Only,
}

#[derive(Debug, clap::Parser)]
#[command(name = "switchboard-registry-fixture")]
pub struct Args {
    /// The folder of server.json documents (default: this crate's `registry/`).
    #[arg(long)]
    pub docs: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "ok")]
    pub mode: Mode,
    /// Replaces `{REMOTE_BASE}` in the documents.
    #[arg(long, default_value = "http://127.0.0.1:9")]
    pub remote_base: String,
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
}

struct Shared {
    docs: PathBuf,
    mode: Mode,
    remote_base: String,
    requests: AtomicU64,
}

/// Serves until killed.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let docs = args
        .docs
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("registry"));
    let shared = Arc::new(Shared {
        docs,
        mode: args.mode,
        remote_base: args.remote_base,
        requests: AtomicU64::new(0),
    });
    let api = || {
        Router::new()
            .route("/servers", get(list))
            .route("/servers/{name}/versions", get(versions))
            .route("/servers/{name}/versions/{version}", get(one))
    };
    let app = Router::new()
        .nest("/v0.1", api())
        .nest("/v0", api())
        .route("/requests", get(requests))
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            misbehave,
        ))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr = listener.local_addr()?;
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on http://{addr}")?;
        out.flush()?;
    }
    axum::serve(listener, app).await?;
    Ok(())
}

async fn misbehave(
    State(shared): State<Arc<Shared>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = request.uri().path().to_string();
    if path != "/requests" {
        shared.requests.fetch_add(1, Ordering::Relaxed);
    }
    match shared.mode {
        Mode::Down => (
            StatusCode::SERVICE_UNAVAILABLE,
            "registry down for maintenance",
        )
            .into_response(),
        Mode::Garbage => (
            StatusCode::OK,
            [("content-type", "text/html")],
            "<html><body>Welcome to nginx!</body></html>",
        )
            .into_response(),
        Mode::Hang => {
            std::future::pending::<()>().await;
            StatusCode::OK.into_response()
        }
        Mode::V0Only if path.starts_with("/v0.1/") => StatusCode::NOT_FOUND.into_response(),
        _ => next.run(request).await,
    }
}

async fn requests(State(shared): State<Arc<Shared>>) -> String {
    shared.requests.load(Ordering::Relaxed).to_string()
}

/// Every document of the folder, sorted by name then version.
fn documents(shared: &Shared) -> Vec<Value> {
    let mut docs = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&shared.docs) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json")
                && let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(doc) = serde_json::from_str::<Value>(
                    &text.replace("{REMOTE_BASE}", &shared.remote_base),
                )
            {
                docs.push(doc);
            }
        }
    }
    docs.sort_by(|a, b| {
        (a["name"].as_str(), version_key(&a["version"]))
            .cmp(&(b["name"].as_str(), version_key(&b["version"])))
    });
    docs
}

fn version_key(version: &Value) -> Vec<u64> {
    version
        .as_str()
        .unwrap_or_default()
        .split(['.', '-'])
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// A document as the registry wraps it, `isLatest` computed.
fn wrap(doc: &Value, all: &[Value]) -> Value {
    let latest = all
        .iter()
        .filter(|d| d["name"] == doc["name"])
        .max_by_key(|d| version_key(&d["version"]))
        .is_some_and(|d| d["version"] == doc["version"]);
    json!({
        "server": doc,
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": "active",
            "publishedAt": "2026-11-01T00:00:00Z",
            "updatedAt": "2026-11-01T00:00:00Z",
            "isLatest": latest,
        }}
    })
}

async fn list(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let all = documents(&shared);
    let search = query
        .get("search")
        .map(|s| s.to_lowercase())
        .unwrap_or_default();
    let latest_only = query.get("version").is_some_and(|v| v == "latest");
    let limit: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let cursor = query.get("cursor").cloned().unwrap_or_default();
    let mut found: Vec<Value> = all
        .iter()
        .filter(|d| {
            d["name"]
                .as_str()
                .is_some_and(|n| n.to_lowercase().contains(&search))
        })
        .map(|d| wrap(d, &all))
        .filter(|e| {
            !latest_only
                || e["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"] == true
        })
        .filter(|e| {
            cursor.is_empty()
                || format!(
                    "{}:{}",
                    e["server"]["name"].as_str().unwrap_or_default(),
                    e["server"]["version"].as_str().unwrap_or_default()
                ) > cursor
        })
        .collect();
    let next = (found.len() > limit).then(|| {
        let last = &found[limit - 1]["server"];
        format!(
            "{}:{}",
            last["name"].as_str().unwrap_or_default(),
            last["version"].as_str().unwrap_or_default()
        )
    });
    found.truncate(limit);
    let count = found.len();
    axum::Json(json!({
        "servers": found,
        "metadata": {"nextCursor": next, "count": count},
    }))
    .into_response()
}

async fn versions(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    let all = documents(&shared);
    let found: Vec<Value> = all
        .iter()
        .filter(|d| d["name"] == name.as_str())
        .map(|d| wrap(d, &all))
        .collect();
    if found.is_empty() {
        return not_found();
    }
    let count = found.len();
    axum::Json(json!({"servers": found, "metadata": {"count": count}})).into_response()
}

async fn one(
    State(shared): State<Arc<Shared>>,
    Path((name, version)): Path<(String, String)>,
) -> Response {
    let all = documents(&shared);
    let wrapped: Vec<Value> = all
        .iter()
        .filter(|d| d["name"] == name.as_str())
        .map(|d| wrap(d, &all))
        .collect();
    let found = wrapped.into_iter().find(|e| {
        if version == "latest" {
            e["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"] == true
        } else {
            e["server"]["version"] == version.as_str()
        }
    });
    match found {
        Some(entry) => axum::Json(entry).into_response(),
        None => not_found(),
    }
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"title": "Not Found", "status": 404, "detail": "Server not found"})),
    )
        .into_response()
}
