//! rmcp's errors in plain words, for every message a person or a client
//! reads (JSON-RPC errors, the status `lastError`, the hub's log lines).
//!
//! rmcp's own `Display` texts name Rust types (`Transport
//! [rmcp::transport::worker::WorkerTransport<...>] error`) and print values
//! with `Debug`. Each function here matches rmcp's error enums by variant and
//! downcasts the boxed transport error to the types Switchboard's transports
//! produce (Streamable HTTP over reqwest, child-process stdio), so no message
//! text is parsed where a type says what happened. An error of a type not
//! known here is described by its own source chain, without the transport's
//! type name. Nothing here changes state: these are pure functions.

use std::error::Error as StdError;
use std::io;

use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use rmcp::transport::worker::WorkerQuitReason;

use crate::util::humanize;

/// The error type of the Streamable HTTP transport (plain or OAuth client:
/// both are reqwest underneath).
type HttpError = StreamableHttpError<reqwest::Error>;

/// The HTTP status Switchboard answers a request that came from itself
/// (`508 Loop Detected`; see `control::refuse_own_requests`).
pub(crate) const LOOP_DETECTED: u16 = 508;

/// Why the MCP handshake (`initialize`) with a server failed.
pub(crate) fn init_failure(err: &ClientInitializeError) -> String {
    match err {
        ClientInitializeError::TransportError { error, .. } => transport_failure(error),
        ClientInitializeError::ConnectionClosed(_) => {
            "the connection closed during the MCP handshake".into()
        }
        ClientInitializeError::JsonRpcError(error) => {
            format!("the server refused to initialize: {}", error.message)
        }
        ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::ExpectedInitResult(_) => {
            "the server did not answer `initialize` with an initialize result".into()
        }
        ClientInitializeError::ConflictInitResponseId(..)
        | ClientInitializeError::UncorrelatedErrorResponse { .. } => {
            "the server answered `initialize` with another request's id".into()
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => {
            let versions: Vec<String> = server_supported.iter().map(ToString::to_string).collect();
            format!(
                "no MCP protocol version in common (the server speaks {})",
                if versions.is_empty() {
                    "none it named".to_string()
                } else {
                    versions.join(", ")
                }
            )
        }
        ClientInitializeError::NoPreferredProtocolVersion => {
            "no MCP protocol version to offer".into()
        }
        ClientInitializeError::Cancelled => "the MCP handshake was cancelled".into(),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => init_failure(fallback),
        _ => "the MCP handshake failed".into(),
    }
}

/// The HTTP status a failed handshake was answered with, when that is why it
/// failed (429 and 5xx: the statuses rmcp's reqwest client reports as such).
pub(crate) fn init_http_status(err: &ClientInitializeError) -> Option<u16> {
    let ClientInitializeError::TransportError { error, .. } = err else {
        return None;
    };
    let http = error.error.downcast_ref::<HttpError>().or_else(|| {
        match error.error.downcast_ref::<WorkerQuitReason<HttpError>>() {
            Some(WorkerQuitReason::Fatal { error, .. }) => Some(error),
            _ => None,
        }
    })?;
    match http {
        StreamableHttpError::HttpStatus(status) => Some(status.status),
        _ => None,
    }
}

/// Why a request to a running server failed (other than an error the server
/// answered with, which is passed on as it is).
pub(crate) fn service_failure(err: &ServiceError) -> String {
    match err {
        ServiceError::McpError(error) => error.message.to_string(),
        ServiceError::TransportSend(error) => transport_failure(error),
        ServiceError::TransportClosed => "the connection closed".into(),
        ServiceError::UnexpectedResponse => "the answer was of the wrong kind".into(),
        ServiceError::SubscriptionLagged { .. } => {
            "too many messages arrived at once; some were lost".into()
        }
        ServiceError::Cancelled { reason } => match reason {
            Some(reason) => format!("the request was cancelled ({reason})"),
            None => "the request was cancelled".into(),
        },
        ServiceError::Timeout { timeout } => format!("no answer within {}", humanize(*timeout)),
        ServiceError::InputRequiredRoundsExceeded { max_rounds } => {
            format!("the server asked for more input more than {max_rounds} times")
        }
        _ => "the request failed".into(),
    }
}

/// Why a transport could not send or receive.
pub(crate) fn transport_failure(err: &DynamicTransportError) -> String {
    let inner: &(dyn StdError + 'static) = err.error.as_ref();
    if let Some(http) = inner.downcast_ref::<HttpError>() {
        return http_failure(http);
    }
    if let Some(quit) = inner.downcast_ref::<WorkerQuitReason<HttpError>>() {
        return worker_quit(quit);
    }
    if let Some(io) = inner.downcast_ref::<io::Error>() {
        return io_failure(io);
    }
    // Another transport: its own words, without the transport's type name.
    crate::util::error_chain(inner)
}

fn worker_quit(quit: &WorkerQuitReason<HttpError>) -> String {
    match quit {
        WorkerQuitReason::Fatal { error, .. } => http_failure(error),
        WorkerQuitReason::Join(_) => "the connection's task failed".into(),
        WorkerQuitReason::Cancelled => "the connection was cancelled".into(),
        WorkerQuitReason::TransportClosed | WorkerQuitReason::HandlerTerminated => {
            "the connection closed".into()
        }
        WorkerQuitReason::IdleTimeout(after) => {
            format!("the connection was idle for {}", humanize(*after))
        }
        _ => "the connection ended".into(),
    }
}

/// The Streamable HTTP transport's failures.
fn http_failure(err: &HttpError) -> String {
    match err {
        StreamableHttpError::Client(error) => reqwest_failure(error),
        StreamableHttpError::Io(error) => io_failure(error),
        StreamableHttpError::HttpStatus(status) => status_text(status.status),
        StreamableHttpError::Sse(error) => format!("the event stream broke off: {error}"),
        StreamableHttpError::UnexpectedEndOfStream => {
            "the server ended the event stream before answering".into()
        }
        StreamableHttpError::UnexpectedServerResponse(message) => {
            // rmcp's only wording that names a type, from a JSON body that is
            // not JSON-RPC; there is no typed variant for it.
            let message = message
                .strip_prefix("could not parse JSON response as ServerJsonRpcMessage: ")
                .map_or_else(
                    || message.to_string(),
                    |rest| format!("the answer is not a JSON-RPC message: {rest}"),
                );
            format!("unexpected answer: {message}")
        }
        StreamableHttpError::ResponseBodyTooLarge { max_size } => {
            format!("the answer is larger than {max_size} bytes")
        }
        StreamableHttpError::UnexpectedContentType(content_type) => match content_type {
            Some(content_type) => format!(
                "the server answered with {content_type}, not JSON or an event stream (is this an MCP endpoint?)"
            ),
            None => "the server's answer had no content type (is this an MCP endpoint?)".into(),
        },
        StreamableHttpError::ServerDoesNotSupportSse => {
            "the server does not offer an event stream".into()
        }
        StreamableHttpError::ServerDoesNotSupportDeleteSession => {
            "the server does not support ending a session".into()
        }
        StreamableHttpError::TokioJoinError(_) => "the connection's task failed".into(),
        StreamableHttpError::Deserialize(error) => format!("the answer is not valid JSON: {error}"),
        StreamableHttpError::TransportChannelClosed => "the connection closed".into(),
        StreamableHttpError::MissingSessionIdInResponse => {
            "the server did not send a session id".into()
        }
        StreamableHttpError::Auth(error) => format!("authorization failed: {error}"),
        StreamableHttpError::AuthRequired(_) => "the server requires authorization".into(),
        StreamableHttpError::InsufficientScope(_) => {
            "the server requires a token with more scopes".into()
        }
        StreamableHttpError::ReservedHeaderConflict(name) => {
            format!("header '{name}' is set by Switchboard itself and cannot be configured")
        }
        StreamableHttpError::SessionExpired => "the server ended the session (HTTP 404)".into(),
        StreamableHttpError::SessionRecoveryTimeout => {
            "the session could not be re-established in time; the request may have been processed"
                .into()
        }
        StreamableHttpError::ReinitializationFailed(error) => {
            format!("re-initializing the session failed: {}", error.message)
        }
        StreamableHttpError::ControlRequestTimeout => {
            "a cancellation or reply could not be sent in time".into()
        }
        _ => "the HTTP connection failed".into(),
    }
}

/// Whether a request failed on a 403 `insufficient_scope` challenge (the
/// token is good but lacks scopes the server now asks for: a step-up).
pub(super) fn is_insufficient_scope(err: &rmcp::ServiceError) -> bool {
    let rmcp::ServiceError::TransportSend(error) = err else {
        return false;
    };
    let mut source: Option<&(dyn StdError + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if current
            .downcast_ref::<rmcp::transport::streamable_http_client::InsufficientScopeError>()
            .is_some()
        {
            return true;
        }
        source = current.source();
    }
    false
}

/// `HTTP 500 Internal Server Error`, and what a 508 from Switchboard means.
pub(super) fn status_text(status: u16) -> String {
    if status == LOOP_DETECTED {
        return "the URL leads back to this hub (HTTP 508 Loop Detected); a hub cannot serve itself"
            .into();
    }
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|r| format!(" {r}"))
        .unwrap_or_default();
    format!("the server answered HTTP {status}{reason}")
}

/// reqwest's failures: what went wrong on the wire, from its typed checks and
/// the I/O error underneath.
pub(super) fn reqwest_failure(err: &reqwest::Error) -> String {
    let mut source: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<io::Error>() {
            let text = io_failure(io);
            return if err.is_connect() && !text.starts_with("connection") {
                format!("cannot connect: {text}")
            } else {
                text
            };
        }
        source = current.source();
    }
    if err.is_timeout() {
        "timed out".into()
    } else if err.is_connect() {
        format!("cannot connect: {}", root_cause(err))
    } else if err.is_body() || err.is_decode() {
        format!("reading the answer failed: {}", root_cause(err))
    } else if err.is_redirect() {
        super::redirect::refusal(err)
            .map_or_else(|| "too many redirects".into(), ToString::to_string)
    } else {
        root_cause(err)
    }
}

fn io_failure(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused (nothing listens there)".into(),
        io::ErrorKind::ConnectionReset => "the connection was reset".into(),
        io::ErrorKind::ConnectionAborted => "the connection was aborted".into(),
        io::ErrorKind::BrokenPipe => "the connection closed (broken pipe)".into(),
        io::ErrorKind::TimedOut => "timed out".into(),
        io::ErrorKind::UnexpectedEof => "the connection closed unexpectedly".into(),
        _ => err.to_string(),
    }
}

/// The innermost cause's own words.
fn root_cause(err: &(dyn StdError + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::ServiceExt;
    use rmcp::service::RoleClient;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::HttpStatusError;
    use std::time::Duration;

    type HttpTransport = StreamableHttpClientTransport<reqwest::Client>;

    /// What a person must never read: Rust paths, generics, `Debug` output.
    fn assert_plain(text: &str) {
        for bad in [
            "::",
            "<",
            ">",
            "rmcp",
            "Transport [",
            "Some(",
            "None",
            "Error {",
        ] {
            assert!(!text.contains(bad), "{text:?} contains {bad:?}");
        }
    }

    fn dynamic(error: HttpError) -> DynamicTransportError {
        DynamicTransportError::new::<HttpTransport, RoleClient>(error)
    }

    /// A real handshake against a loopback port nothing listens on.
    #[tokio::test]
    async fn a_refused_connection_reads_as_such() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let transport = HttpTransport::from_uri(format!("http://127.0.0.1:{port}/mcp"));
        let Err(err) = ().serve(transport).await else {
            panic!("nothing listens, yet the handshake succeeded");
        };
        // rmcp's own words name its types; ours do not.
        assert!(err.to_string().contains("rmcp::"), "{err}");
        let text = init_failure(&err);
        assert_plain(&text);
        assert_eq!(text, "connection refused (nothing listens there)");
        assert_eq!(init_http_status(&err), None);
    }

    /// A real handshake with a server answering 500, then 508.
    #[tokio::test]
    async fn http_statuses_read_as_such() {
        for (status, expected) in [
            (500, "the server answered HTTP 500 Internal Server Error".to_string()),
            (
                LOOP_DETECTED,
                "the URL leads back to this hub (HTTP 508 Loop Detected); a hub cannot serve itself"
                    .to_string(),
            ),
        ] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                while let Ok((mut socket, _)) = listener.accept().await {
                    let mut buf = vec![0u8; 64 * 1024];
                    let _ = socket.read(&mut buf).await;
                    let answer = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\nfail"
                    );
                    let _ = socket.write_all(answer.as_bytes()).await;
                }
            });
            let transport = HttpTransport::from_uri(format!("http://{addr}/mcp"));
            let Err(err) = ().serve(transport).await else {
                panic!("the server fails, yet the handshake succeeded");
            };
            let text = init_failure(&err);
            assert_plain(&text);
            assert_eq!(text, expected);
            assert_eq!(init_http_status(&err), Some(status));
            server.abort();
        }
    }

    #[test]
    fn transport_and_service_errors_name_no_types() {
        let cases = [
            dynamic(StreamableHttpError::HttpStatus(HttpStatusError::new(
                502, None,
            ))),
            dynamic(StreamableHttpError::UnexpectedContentType(Some(
                "text/html".into(),
            ))),
            dynamic(StreamableHttpError::UnexpectedContentType(None)),
            dynamic(StreamableHttpError::SessionExpired),
            dynamic(StreamableHttpError::TransportChannelClosed),
            dynamic(StreamableHttpError::UnexpectedServerResponse(
                "could not parse JSON response as ServerJsonRpcMessage: expected value: <empty>"
                    .into(),
            )),
            dynamic(StreamableHttpError::Io(io::Error::from(
                io::ErrorKind::ConnectionReset,
            ))),
        ];
        let expected = [
            "the server answered HTTP 502 Bad Gateway",
            "the server answered with text/html, not JSON or an event stream (is this an MCP endpoint?)",
            "the server's answer had no content type (is this an MCP endpoint?)",
            "the server ended the session (HTTP 404)",
            "the connection closed",
            "unexpected answer: the answer is not a JSON-RPC message: expected value: <empty>",
            "the connection was reset",
        ];
        for (err, expected) in cases.into_iter().zip(expected) {
            // rmcp's own text carries the transport's type name.
            assert!(err.to_string().contains("rmcp::"), "{err}");
            let service = ServiceError::TransportSend(err);
            assert_eq!(service_failure(&service), expected);
        }
        assert_eq!(
            service_failure(&ServiceError::Timeout {
                timeout: Duration::from_secs(30)
            }),
            "no answer within 30 s"
        );
        assert_eq!(
            service_failure(&ServiceError::TransportClosed),
            "the connection closed"
        );
        let stdio = DynamicTransportError::new::<rmcp::transport::TokioChildProcess, RoleClient>(
            io::Error::from(io::ErrorKind::BrokenPipe),
        );
        assert_eq!(
            transport_failure(&stdio),
            "the connection closed (broken pipe)"
        );
        let init = ClientInitializeError::TransportError {
            error: dynamic(StreamableHttpError::HttpStatus(HttpStatusError::new(
                503, None,
            ))),
            context: "send initialize request".into(),
        };
        assert!(init.to_string().contains("WorkerTransport"), "{init}");
        assert_eq!(
            init_failure(&init),
            "the server answered HTTP 503 Service Unavailable"
        );
        assert_eq!(init_http_status(&init), Some(503));
        let closed = ClientInitializeError::ConnectionClosed("initialize response".into());
        assert_plain(&init_failure(&closed));
        let wrong = ClientInitializeError::ExpectedInitResult(None);
        assert!(wrong.to_string().contains("None"), "{wrong}");
        assert_plain(&init_failure(&wrong));
    }
}
