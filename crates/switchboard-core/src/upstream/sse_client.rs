//! The legacy HTTP+SSE transport of MCP 2024-11-05, client side
//! (`"transport": "sse"`): one `GET` opens an event stream whose first
//! `endpoint` event names the URL to `POST` each JSON-RPC message to; the
//! server's messages come back as `message` events on the stream.
//!
//! [`SseTransport`] implements rmcp's `Transport<RoleClient>`, so everything
//! above it (the hub's client handler, lists, calls, progress, notifications)
//! is the same as for Streamable HTTP. Everything is bounded: the `endpoint`
//! event by the start-up timeout (the caller's), an event by
//! [`MAX_MESSAGE_BYTES`], a `POST` by the call timeout. When the stream ends
//! the transport's receiving side ends, rmcp fails the pending requests and
//! the monitor task (`connect.rs`) records the loss, so the server is
//! reconnected on next use with the usual back-off. Header values, tokens and
//! the endpoint's query (it often carries a session id) never reach a log.

mod events;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::{RoleClient, TxJsonRpcMessage};
use rmcp::transport::{AuthClient, Transport};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use self::events::{Event, EventParser};
use super::stdio::MAX_MESSAGE_BYTES;
use super::{UpstreamError, describe};
use crate::config::ServerId;
use crate::util::redact;

/// Server messages read ahead of the hub's handler before the reader waits.
const INCOMING_QUEUE: usize = 256;
/// How much of a `POST`'s answer is read (it carries nothing the client needs).
const POST_ANSWER_BYTES: usize = 64 * 1024;

/// Why a message could not be sent or the stream could not be opened, in
/// words for people (no URL, no header value).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SseFailure(String);

/// Why [`open`] failed.
enum OpenError {
    /// HTTP 401: the server wants a (new) OAuth login.
    AuthRequired {
        challenge: Option<String>,
    },
    /// HTTP 508: the URL leads back to this hub.
    Loop,
    Failed(String),
}

/// What each `POST` needs; shared by the concurrent sends.
struct Poster {
    /// The hub's pooled client.
    http: reqwest::Client,
    /// Where messages go: the `endpoint` event's URL (the stream's URL
    /// until the event arrives).
    endpoint: reqwest::Url,
    /// The configured headers (values marked sensitive) and the hub's identity.
    headers: HeaderMap,
    /// A stored OAuth login: its (refreshed) token goes with each request.
    auth: Option<AuthClient<reqwest::Client>>,
    /// Bounds each `POST` (the server's call timeout).
    timeout: Duration,
}

/// A connected legacy SSE session.
pub(crate) struct SseTransport {
    poster: Arc<Poster>,
    /// The server's messages, from the stream reader; ends when it does.
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    /// Stops the stream reader when the transport is closed or dropped.
    reader: Option<DropGuard>,
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseFailure;

    fn name() -> Cow<'static, str> {
        "legacy SSE".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseFailure>> + Send + 'static {
        let poster = self.poster.clone();
        async move { poster.post(&item).await }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseFailure> {
        drop(self.reader.take());
        self.incoming.close();
        Ok(())
    }
}

impl Poster {
    async fn post(&self, message: &ClientJsonRpcMessage) -> Result<(), SseFailure> {
        let body = serde_json::to_vec(message)
            .map_err(|err| SseFailure(format!("encoding a message failed: {err}")))?;
        let mut request = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .timeout(self.timeout)
            .body(body);
        if let Some(token) = bearer(self.auth.as_ref()).await? {
            request = request.header(AUTHORIZATION, token);
        }
        let response = request.send().await.map_err(|err| {
            SseFailure(format!(
                "posting a message failed: {}",
                describe::reqwest_failure(&err.without_url())
            ))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(SseFailure(format!(
                "posting a message: {}",
                describe::status_text(status.as_u16())
            )));
        }
        // Read the short answer ("Accepted") so the connection goes back to
        // the pool; a long one is cut off (and its connection not reused).
        let mut response = response;
        let mut read = 0;
        while let Ok(Some(chunk)) = response.chunk().await {
            read += chunk.len();
            if read > POST_ANSWER_BYTES {
                break;
            }
        }
        Ok(())
    }
}

/// `Bearer <token>` from a stored OAuth login, if there is one.
async fn bearer(
    auth: Option<&AuthClient<reqwest::Client>>,
) -> Result<Option<HeaderValue>, SseFailure> {
    let Some(auth) = auth else {
        return Ok(None);
    };
    let token = auth
        .get_access_token()
        .await
        .map_err(|err| SseFailure(format!("the OAuth token could not be read: {err}")))?;
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| SseFailure("the OAuth token is not a valid header value".into()))?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// Opens the stream at `poster.endpoint` and waits for its `endpoint` event (the caller
/// bounds the wait); the reader task then forwards `message` events.
///
/// `poster.endpoint` then becomes the URL the event announces.
async fn open(server: &ServerId, poster: Poster) -> Result<SseTransport, OpenError> {
    let base = poster.endpoint.clone();
    let mut request = poster
        .http
        .get(base.clone())
        .headers(poster.headers.clone())
        .header(ACCEPT, "text/event-stream");
    if let Some(token) = bearer(poster.auth.as_ref())
        .await
        .map_err(|err| OpenError::Failed(err.0))?
    {
        request = request.header(AUTHORIZATION, token);
    }
    let mut response = request
        .send()
        .await
        .map_err(|err| OpenError::Failed(describe::reqwest_failure(&err.without_url())))?;
    let status = response.status().as_u16();
    if status == 401 {
        let challenge = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        return Err(OpenError::AuthRequired { challenge });
    }
    if status == describe::LOOP_DETECTED {
        return Err(OpenError::Loop);
    }
    if !response.status().is_success() {
        // What a Streamable HTTP server answers a GET without a session.
        let hint = if matches!(status, 400 | 405 | 406) {
            " (a Streamable HTTP server needs no `\"transport\": \"sse\"`)"
        } else {
            ""
        };
        return Err(OpenError::Failed(format!(
            "opening the event stream: {}{hint}",
            describe::status_text(status)
        )));
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !content_type.starts_with("text/event-stream") {
        let shown = if content_type.is_empty() {
            "no content type".to_string()
        } else {
            content_type.to_string()
        };
        return Err(OpenError::Failed(format!(
            "the server answered with {shown}, not an event stream (a Streamable HTTP server \
             needs no `\"transport\": \"sse\"`)"
        )));
    }

    let mut parser = EventParser::new(MAX_MESSAGE_BYTES);
    let mut early = Vec::new();
    let endpoint = loop {
        let chunk = response.chunk().await.map_err(|err| {
            OpenError::Failed(format!(
                "reading the event stream: {}",
                describe::reqwest_failure(&err.without_url())
            ))
        })?;
        let Some(chunk) = chunk else {
            return Err(OpenError::Failed(
                "the server closed the event stream before its `endpoint` event".into(),
            ));
        };
        parser
            .feed(&chunk, &mut early)
            .map_err(|err| OpenError::Failed(err.to_string()))?;
        if let Some(at) = early.iter().position(|e| e.event == "endpoint") {
            let endpoint = early.remove(at);
            break endpoint.data;
        }
    };
    let endpoint = resolve_endpoint(&base, &endpoint).map_err(OpenError::Failed)?;
    tracing::debug!(
        server = %server,
        endpoint = %redact::url(endpoint.as_str()),
        "legacy SSE session open"
    );
    let (tx, incoming) = mpsc::channel(INCOMING_QUEUE);
    let stop = CancellationToken::new();
    tokio::spawn(read_stream(
        server.clone(),
        response,
        parser,
        early,
        tx,
        stop.clone(),
    ));
    Ok(SseTransport {
        poster: Arc::new(Poster { endpoint, ..poster }),
        incoming,
        reader: Some(stop.drop_guard()),
    })
}

/// The `endpoint` event's URL, resolved against the stream's URL; refused
/// when it leads to another origin (the hub's headers and token go there).
fn resolve_endpoint(base: &reqwest::Url, data: &str) -> Result<reqwest::Url, String> {
    let endpoint = base
        .join(data.trim())
        .map_err(|err| format!("the `endpoint` event is not a URL: {err}"))?;
    super::redirect::same_origin(base, &endpoint).map_err(|_| {
        format!(
            "the `endpoint` event names another origin ({}); refused, as the server's \
             headers and token would go there",
            redact::url(&endpoint.origin().ascii_serialization())
        )
    })?;
    Ok(endpoint)
}

/// Forwards the stream's `message` events until it ends, breaks, sends an
/// event over the bound, or `stop` fires. Ending drops `tx`, which ends the
/// transport's receiving side.
async fn read_stream(
    server: ServerId,
    mut response: reqwest::Response,
    mut parser: EventParser,
    early: Vec<Event>,
    tx: mpsc::Sender<ServerJsonRpcMessage>,
    stop: CancellationToken,
) {
    let reading = async {
        let mut events = early;
        loop {
            for event in events.drain(..) {
                for message in decode(&server, event) {
                    if tx.send(message).await.is_err() {
                        return "the connection was closed".to_string();
                    }
                }
            }
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if let Err(err) = parser.feed(&chunk, &mut events) {
                        return err.to_string();
                    }
                }
                Ok(None) => return "the server ended the stream".to_string(),
                Err(err) => {
                    return format!(
                        "reading it failed: {}",
                        describe::reqwest_failure(&err.without_url())
                    );
                }
            }
        }
    };
    tokio::select! {
        why = reading => {
            tracing::warn!(server = %server, reason = %why, "server '{server}' closed the SSE stream");
        }
        () = stop.cancelled() => {}
    }
}

/// The JSON-RPC messages in one event (a legacy server may send a batch).
fn decode(server: &ServerId, event: Event) -> Vec<ServerJsonRpcMessage> {
    match event.event.as_str() {
        "message" => {}
        "endpoint" => {
            tracing::debug!(server = %server, "ignoring a second `endpoint` event");
            return Vec::new();
        }
        other => {
            tracing::debug!(server = %server, event = %other, "ignoring an SSE event of another type");
            return Vec::new();
        }
    }
    let data = event.data.trim_start();
    let decoded = if data.starts_with('[') {
        serde_json::from_str::<Vec<ServerJsonRpcMessage>>(data)
    } else {
        serde_json::from_str::<ServerJsonRpcMessage>(data).map(|m| vec![m])
    };
    decoded.unwrap_or_else(|err| {
        tracing::warn!(server = %server, error = %err, "ignoring an SSE message that is not JSON-RPC");
        Vec::new()
    })
}

/// What a session's requests carry, given by the upstream.
pub(super) struct Session {
    /// The hub's pooled client.
    pub(super) http: reqwest::Client,
    /// The configured headers (values marked sensitive) and the hub's identity.
    pub(super) headers: HeaderMap,
    /// A stored OAuth login, if any.
    pub(super) auth: Option<AuthClient<reqwest::Client>>,
    /// Bounds each `POST` (the server's call timeout).
    pub(super) timeout: Duration,
}

/// Opens the event stream of `url` and waits for its `endpoint`: the
/// transport the MCP handshake then runs over. A 401 records the server's
/// challenge for the next login.
pub(super) async fn open_session(
    server: &ServerId,
    url: &str,
    session: Session,
    auth: &crate::auth::Auth,
) -> Result<SseTransport, UpstreamError> {
    let endpoint = reqwest::Url::parse(url).map_err(|err| UpstreamError::Connect {
        server: server.clone(),
        url: redact::url(url),
        message: err.to_string(),
    })?;
    let poster = Poster {
        http: session.http,
        endpoint,
        headers: session.headers,
        auth: session.auth,
        timeout: session.timeout,
    };
    match open(server, poster).await {
        Ok(transport) => Ok(transport),
        Err(OpenError::AuthRequired { challenge }) => {
            auth.server(server).set_challenge(challenge.as_deref());
            Err(UpstreamError::AuthRequired {
                server: server.clone(),
                reason: super::login::reason(auth, server),
            })
        }
        Err(OpenError::Loop) => Err(UpstreamError::SelfReference {
            server: server.clone(),
            url: url.to_string(),
        }),
        Err(OpenError::Failed(message)) => Err(UpstreamError::Connect {
            server: server.clone(),
            url: redact::url(url),
            message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_against_the_stream_url_on_its_origin_only() {
        let base = reqwest::Url::parse("http://127.0.0.1:9/sse?x=1").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/messages?sessionId=a b")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/messages?sessionId=a%20b"
        );
        assert_eq!(
            resolve_endpoint(&base, "messages?s=1").unwrap().as_str(),
            "http://127.0.0.1:9/messages?s=1"
        );
        assert_eq!(
            resolve_endpoint(&base, " http://127.0.0.1:9/m \n")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/m"
        );
        for elsewhere in [
            "http://127.0.0.1:10/messages",
            "https://127.0.0.1:9/messages",
            "http://evil.example/messages",
            "//evil.example/messages",
        ] {
            let err = resolve_endpoint(&base, elsewhere).unwrap_err();
            assert!(err.contains("another origin"), "{elsewhere}: {err}");
        }
    }

    #[test]
    fn messages_and_batches_are_decoded_and_other_events_skipped() {
        let server = ServerId::new("s").unwrap();
        let one = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        let msg = |event: &str, data: &str| Event {
            event: event.into(),
            data: data.into(),
        };
        assert_eq!(decode(&server, msg("message", one)).len(), 1);
        assert_eq!(
            decode(&server, msg("message", &format!("[{one},{one}]"))).len(),
            2
        );
        assert!(decode(&server, msg("message", "not json")).is_empty());
        assert!(decode(&server, msg("endpoint", "/m")).is_empty());
        assert!(decode(&server, msg("ping", one)).is_empty());
    }
}
