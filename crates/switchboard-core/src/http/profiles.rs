//! The profiles' MCP routes, `/profiles/<name>/mcp` (see `docs/search.md`):
//! the guard in front of them. It runs after the access layer (loopback
//! `Host` and `Origin`) and before the fast path, so no request of a profile
//! is answered — by rmcp or the fast path — unless the profile exists (else
//! 404 naming it) and the request carries its token when it has one (else
//! 401 with `WWW-Authenticate: Bearer`; 503 when a keyring token could not
//! be read). The token check is [`crate::hub::Profile::admit`]: constant
//! time, and the token itself never appears in an answer or a log.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use switchboard_api as api;

use crate::hub::{HubHandle, Refused};

/// The profile a path names: `<name>` of `/profiles/<name>/mcp`; `None` for
/// other paths (`Some("")`-like malformed profile paths give their text).
pub(super) fn profile_of(path: &str) -> Option<&str> {
    path.strip_prefix("/profiles/")?.strip_suffix("/mcp")
}

/// The middleware on the MCP routes (see the module docs).
pub(super) async fn guard(State(hub): State<HubHandle>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if !path.starts_with("/profiles/") {
        return next.run(request).await;
    }
    let Some(name) = profile_of(path) else {
        return error(
            StatusCode::NOT_FOUND,
            "a profile's endpoint is /profiles/<name>/mcp".into(),
        );
    };
    // A project file's profile is served on `/mcp` only, never here.
    let Some(profile) = hub.profile(name).filter(|p| p.project.is_none()) else {
        return error(
            StatusCode::NOT_FOUND,
            format!("no profile '{name}' is configured"),
        );
    };
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    match profile.admit(authorization) {
        Ok(()) => next.run(request).await,
        Err(Refused::Unauthorized(why)) => {
            let mut response = error(StatusCode::UNAUTHORIZED, why);
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"switchboard-profile\""),
            );
            response
        }
        Err(Refused::Unavailable(why)) => error(StatusCode::SERVICE_UNAVAILABLE, why),
    }
}

fn error(status: StatusCode, message: String) -> Response {
    (status, Json(api::ErrorResponse { error: message })).into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use axum::body::Body;
    use tower_service::Service;

    use super::*;
    use crate::hub::testing::hub;

    const TOKEN: &str = "profile-token-0123456789";

    fn initialize(path: &str, authorization: Option<&str>, host: &str) -> Request {
        let mut request = Request::post(path)
            .header(header::HOST, host)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(value) = authorization {
            request = request.header(header::AUTHORIZATION, value);
        }
        request
            .body(Body::from(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            ))
            .unwrap()
    }

    async fn body_text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[tokio::test]
    async fn a_profile_needs_its_token_and_an_unknown_one_is_not_found() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"x"}}}},
                "profiles":{{"p":{{"servers":["a"],"token":"{TOKEN}"}},"open":{{"servers":[]}}}}}}"#
        ))
        .await;
        let mut router = crate::http::router(handle.clone());
        let local = "127.0.0.1";

        let missing = router
            .call(initialize("/profiles/nope/mcp", None, local))
            .await
            .unwrap();
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert!(
            body_text(missing)
                .await
                .contains("no profile 'nope' is configured")
        );

        let bare = router
            .call(initialize("/profiles/p/mcp", None, local))
            .await
            .unwrap();
        assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);
        assert!(
            bare.headers()[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .starts_with("Bearer")
        );
        assert!(body_text(bare).await.contains("needs its token"));

        for wrong in [
            "Bearer wrong",
            "Bearer profile-token-012345678X",
            "Basic abc",
        ] {
            let refused = router
                .call(initialize("/profiles/p/mcp", Some(wrong), local))
                .await
                .unwrap();
            assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{wrong}");
            let text = body_text(refused).await;
            assert!(!text.contains(TOKEN), "{text}");
        }

        // The Host guard runs first, token or not.
        let foreign = router
            .call(initialize(
                "/profiles/p/mcp",
                Some(&format!("Bearer {TOKEN}")),
                "evil.example",
            ))
            .await
            .unwrap();
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN);

        for (path, authorization) in [
            ("/profiles/p/mcp", Some(format!("Bearer {TOKEN}"))),
            ("/profiles/p/mcp", Some(format!("bearer  {TOKEN}"))),
            ("/profiles/open/mcp", None),
        ] {
            let ok = router
                .call(initialize(path, authorization.as_deref(), local))
                .await
                .unwrap();
            assert_eq!(ok.status(), StatusCode::OK, "{path}");
            assert!(ok.headers().contains_key("mcp-session-id"), "{path}");
        }
        handle.shutdown();
    }
}
