//! The dashboard's static files, embedded in the binary and served by the
//! hub's listener at `/` (the page) and `/assets/*` (its script and styles).
//!
//! The files come from `ui/dist`, which is committed: building the hub needs
//! only Rust, never Node. `scripts/test.sh` rebuilds `ui/dist` from `ui/src`
//! and fails if the result differs from what is committed, so what is
//! embedded is always what the sources say. The same page runs in a browser
//! and in the desktop app's window, and talks only to the control API on the
//! same origin, so the security headers below can forbid everything else.
//! Requests still pass the control router's loopback checks (`Host`, `Origin`).

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use include_dir::{Dir, include_dir};

/// `ui/dist`, as built by `npm run build` in `ui/`.
static DIST: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../ui/dist");

/// What the page may load and talk to: only its own origin.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Routes for the page and its assets (merged into the control router).
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/assets/{*path}", get(asset))
}

async fn index() -> Response {
    serve("index.html")
}

async fn asset(Path(path): Path<String>) -> Response {
    serve(&format!("assets/{path}"))
}

/// An embedded file by its path under `ui/dist`, if there is one.
pub fn file(path: &str) -> Option<&'static [u8]> {
    if path.split('/').any(|part| part.is_empty() || part == "..") {
        return None;
    }
    DIST.get_file(path).map(|f| f.contents())
}

/// The `Content-Type` for a file name, by extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn serve(path: &str) -> Response {
    let Some(body) = file(path) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(path)),
    );
    // File names carry no content hash (the build is committed), so always revalidate.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if path.ends_with(".html") {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_and_every_asset_it_names_are_embedded() {
        let index = std::str::from_utf8(file("index.html").unwrap()).unwrap();
        let referenced: Vec<&str> = index
            .split(['"', '\''])
            .filter(|s| s.starts_with("./assets/"))
            .map(|s| s.trim_start_matches("./"))
            .collect();
        assert!(!referenced.is_empty(), "index.html names no assets");
        for path in referenced {
            assert!(
                file(path).is_some(),
                "{path} is named by index.html but not embedded"
            );
        }
    }

    #[test]
    fn paths_cannot_escape_the_dist_dir() {
        assert!(file("../Cargo.toml").is_none());
        assert!(file("assets/../index.html").is_none());
        assert!(file("/index.html").is_none());
        assert!(file("assets//app.js").is_none());
    }

    #[test]
    fn content_types_by_extension() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(
            content_type("assets/app.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("assets/index.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("x.unknown"), "application/octet-stream");
        assert_eq!(content_type("noext"), "application/octet-stream");
    }

    #[tokio::test]
    async fn served_over_http_with_security_headers() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app: Router = router();
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        let client = reqwest::Client::new();

        let page = client.get(format!("http://{addr}/")).send().await.unwrap();
        assert_eq!(page.status(), 200);
        let h = page.headers();
        assert_eq!(h[header::CONTENT_TYPE], "text/html; charset=utf-8");
        assert!(
            h[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap()
                .contains("connect-src 'self'")
        );
        assert!(page.text().await.unwrap().contains("<div id=\"app\">"));

        let script = client
            .get(format!("http://{addr}/assets/app.js"))
            .send()
            .await
            .unwrap();
        assert_eq!(script.status(), 200);
        assert_eq!(
            script.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );

        let missing = client
            .get(format!("http://{addr}/assets/nope.js"))
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), 404);
        server.abort();
    }
}
