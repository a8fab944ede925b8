//! The control API's MCP Registry routes (see `docs/registry.md`):
//! - `GET /registry?search=Q`: the registry's servers matching `Q` (name,
//!   version, description, transports, whether installed, the values an
//!   install asks for); a registry that is down or answers garbage is `502`
//!   with the reason, a cached answer is served marked `staleSince`;
//! - `POST /registry/install` `{"name", "version"?, "id"?, "env"?,
//!   "headers"?}` → `{"id"}`: fetched, checked, locked and added; the new
//!   server is vetted (tools held with change `new server`) before it gets
//!   its secrets. Like every state-changing control route it needs the
//!   control token (or the dashboard's session).
//!
//! Bodies carry secret values: they are never logged, and errors name keys,
//! never values.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::hub::{HubHandle, RegistryInstallError};
use crate::mcp_registry::RegistryError;
use crate::mcp_registry::install::InstallError;

/// `GET /api/v1/registry?search=Q`.
pub(super) async fn search(State(hub): State<HubHandle>, RawQuery(query): RawQuery) -> Response {
    let search = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("search="))
        .map(decode)
        .unwrap_or_default();
    match hub.registry_search(&search).await {
        Ok(answer) => Json(answer).into_response(),
        Err(err) => error(registry_status(&err), err.to_string()),
    }
}

/// `POST /api/v1/registry/install`.
pub(super) async fn install(State(hub): State<HubHandle>, body: Bytes) -> Response {
    let request: api::RegistryInstallRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(_) => {
            return error(
                StatusCode::BAD_REQUEST,
                "the body must be {\"name\": \"<registry name>\", \"version\"?, \"id\"?, \"env\"?: {...}, \"headers\"?: {...}}".into(),
            );
        }
    };
    match hub.registry_install(request).await {
        Ok(id) => Json(api::RegistryInstallResponse { id }).into_response(),
        Err(err) => {
            let code = match &err {
                RegistryInstallError::NoConfigFile => StatusCode::CONFLICT,
                RegistryInstallError::Install(InstallError::Registry(e)) => registry_status(e),
                RegistryInstallError::Install(InstallError::Exists(_)) => {
                    StatusCode::UNPROCESSABLE_ENTITY
                }
                RegistryInstallError::Install(
                    InstallError::Plan(_) | InstallError::InvalidId(_) | InstallError::Edit(_),
                ) => StatusCode::BAD_REQUEST,
                RegistryInstallError::Install(_) => StatusCode::BAD_GATEWAY,
            };
            tracing::warn!(error = %err, "install from the registry failed");
            error(code, err.to_string())
        }
    }
}

fn registry_status(err: &RegistryError) -> StatusCode {
    match err {
        RegistryError::NotFound { .. } => StatusCode::NOT_FOUND,
        RegistryError::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::BAD_GATEWAY,
    }
}

fn error(code: StatusCode, error: String) -> Response {
    (code, Json(api::ErrorResponse { error })).into_response()
}

/// A query value: `+` is a space, `%XX` a byte.
fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && value.is_char_boundary(i + 1)
                && value.is_char_boundary(i + 3) =>
            {
                match u8::from_str_radix(&value[i + 1..i + 3], 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
