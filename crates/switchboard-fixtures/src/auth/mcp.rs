//! The protected MCP endpoint: the crate's [`FixtureServer`] over Streamable
//! HTTP at `/mcp` (or the legacy SSE transport at `/sse` with `--sse`),
//! behind a bearer-token check against the [`AuthServer`].

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};

use super::Args;
use super::server::AuthServer;
use crate::counter::RequestCounter;
use crate::server::FixtureServer;
use crate::spec::{Spec, ToolSpec};
use crate::state::FixtureState;

pub fn router(auth: Arc<AuthServer>, args: &Args) -> anyhow::Result<axum::Router> {
    let spec = Spec {
        tools: args
            .tools
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .map(ToolSpec::echo)
            .collect(),
        ..Spec::default()
    };
    spec.validate()?;
    let state = Arc::new(FixtureState::new(spec, RequestCounter::new(None)));
    let server = FixtureServer::new("auth-fixture", state);
    let router = if args.sse {
        crate::sse::router(server, crate::sse::SseOptions::default())
    } else {
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        axum::Router::new().nest_service("/mcp", service)
    };
    Ok(router.layer(middleware::from_fn_with_state(auth, require_bearer)))
}

/// Lets a request through only with a live access token; otherwise answers
/// 401 with the RFC 9728 challenge pointing at the resource metadata.
async fn require_bearer(
    State(auth): State<Arc<AuthServer>>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    if auth.check_bearer(presented.as_deref()) {
        return next.run(request).await;
    }
    let mut challenge = if auth.legacy_metadata {
        "Bearer scope=\"mcp\"".to_string()
    } else {
        format!(
            "Bearer resource_metadata=\"{}\", scope=\"mcp\"",
            auth.resource_metadata_url()
        )
    };
    if presented.is_some() {
        challenge.push_str(", error=\"invalid_token\"");
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        "a valid bearer token is required",
    )
        .into_response()
}
