//! [`UpstreamError`]: why an upstream could not serve a request, one variant
//! per case a caller can act on, each naming the server.

use std::time::Duration;

use rmcp::model::ErrorData;

use crate::config::ServerId;
use crate::util::humanize;
use crate::util::redact;

/// Why an upstream could not serve a request. Each names the server.
///
/// The message never shows a secret: every field that can carry outside text
/// (a URL, an error chain, stderr, a reason) is shown through
/// [`crate::util::redact`], and URLs are stored redacted. The one exception is
/// `Rpc`, the server's own answer, passed on unchanged.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    #[error("server '{server}' is disabled")]
    Disabled { server: ServerId },
    #[error(
        "server '{server}' could not be started (`{}`): {}",
        redact::text(.command),
        redact::text(.message)
    )]
    Spawn {
        server: ServerId,
        command: String,
        message: String,
    },
    #[error("server '{server}' exited{}", tail_suffix(&redact::text(.stderr_tail)))]
    ProcessExited {
        server: ServerId,
        stderr_tail: String,
    },
    #[error("server '{server}' did not answer {during} within {}", humanize(*.after))]
    Timeout {
        server: ServerId,
        during: &'static str,
        after: Duration,
    },
    #[error("server '{server}' ({}): {}", redact::url(.url), redact::text(.message))]
    Connect {
        server: ServerId,
        url: String,
        message: String,
    },
    #[error("server '{server}' requires authorization: {}", redact::text(.reason))]
    AuthRequired { server: ServerId, reason: String },
    #[error("server '{server}' closed the connection")]
    Closed { server: ServerId },
    /// A legacy HTTP+SSE server's event stream ended (`"transport": "sse"`).
    #[error("server '{server}' closed the SSE stream")]
    SseClosed { server: ServerId },
    #[error("server '{server}' answered with an error: {}", .error.message)]
    Rpc { server: ServerId, error: ErrorData },
    #[error("server '{server}': {}", redact::text(.message))]
    Protocol { server: ServerId, message: String },
    #[error("server '{server}' is shutting down")]
    ShuttingDown { server: ServerId },
    #[error(
        "server '{server}' is failing ({}); calls are paused and it will be retried in {}",
        redact::text(.reason),
        humanize(*.retry_in)
    )]
    CircuitOpen {
        server: ServerId,
        reason: String,
        retry_in: Duration,
    },
    #[error("server '{server}': the client cancelled the request")]
    Cancelled { server: ServerId },
    #[error(
        "server '{server}' points back at this hub ({}); a hub cannot serve itself, so it is not started",
        redact::url(.url)
    )]
    SelfReference { server: ServerId, url: String },
    #[error(
        "server '{server}' stopped reading its stdin (nothing could be written to it for {}); \
         it is restarted on next use",
        humanize(*.after)
    )]
    StdinStuck { server: ServerId, after: Duration },
    #[error(
        "server '{server}' answered with a message of {bytes} bytes, larger than the limit of \
         {limit} bytes; the answer was dropped"
    )]
    AnswerTooLarge {
        server: ServerId,
        bytes: u64,
        limit: u64,
    },
}

fn tail_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

impl UpstreamError {
    pub fn server(&self) -> &ServerId {
        match self {
            Self::Disabled { server }
            | Self::Spawn { server, .. }
            | Self::ProcessExited { server, .. }
            | Self::Timeout { server, .. }
            | Self::Connect { server, .. }
            | Self::AuthRequired { server, .. }
            | Self::Closed { server }
            | Self::SseClosed { server }
            | Self::Rpc { server, .. }
            | Self::Protocol { server, .. }
            | Self::ShuttingDown { server }
            | Self::CircuitOpen { server, .. }
            | Self::Cancelled { server }
            | Self::SelfReference { server, .. }
            | Self::StdinStuck { server, .. }
            | Self::AnswerTooLarge { server, .. } => server,
        }
    }

    /// A short machine-readable kind, used in JSON-RPC error data.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Disabled { .. } => "disabled",
            Self::Spawn { .. } => "spawnFailed",
            Self::ProcessExited { .. } => "processExited",
            Self::Timeout { .. } => "timeout",
            Self::Connect { .. } => "unreachable",
            Self::AuthRequired { .. } => "authRequired",
            Self::Closed { .. } | Self::SseClosed { .. } => "closed",
            Self::Rpc { .. } => "upstreamError",
            Self::Protocol { .. } => "protocol",
            Self::ShuttingDown { .. } => "shuttingDown",
            Self::CircuitOpen { .. } => "circuitOpen",
            Self::Cancelled { .. } => "cancelled",
            Self::SelfReference { .. } => "selfReference",
            Self::StdinStuck { .. } => "stdinStuck",
            Self::AnswerTooLarge { .. } => "answerTooLarge",
        }
    }

    /// Whether the failure says the server cannot be reached or used (what
    /// the circuit breaker counts), as opposed to an answer it gave.
    pub(super) fn is_transport_failure(&self) -> bool {
        matches!(
            self,
            Self::Spawn { .. }
                | Self::ProcessExited { .. }
                | Self::Timeout { .. }
                | Self::Connect { .. }
                | Self::Closed { .. }
                | Self::SseClosed { .. }
                | Self::StdinStuck { .. }
        )
    }

    /// Whether trying again soon could help (for discovery retries). Not a
    /// timeout: it already took the whole start-up or call allowance, and
    /// trying again would multiply the wait of whoever needs the listing.
    pub(super) fn is_retryable(&self) -> bool {
        self.is_transport_failure() && !matches!(self, Self::Timeout { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_server_and_cause() {
        let server = ServerId::new("notes").unwrap();
        let err = UpstreamError::Timeout {
            server: server.clone(),
            during: "the request",
            after: Duration::from_secs(30),
        };
        assert_eq!(
            err.to_string(),
            "server 'notes' did not answer the request within 30 s"
        );
        let err = UpstreamError::ProcessExited {
            server,
            stderr_tail: "boom".into(),
        };
        assert_eq!(err.to_string(), "server 'notes' exited; stderr: boom");
        assert_eq!(err.kind(), "processExited");
    }

    #[test]
    fn error_messages_never_show_secrets() {
        let server = ServerId::new("gh").unwrap();
        let err = UpstreamError::Connect {
            server: server.clone(),
            url: "https://me:pw@h/mcp?token=t1".into(),
            message: "error sending request for url (https://me:pw@h/mcp?token=t1)".into(),
        };
        assert_eq!(
            err.to_string(),
            "server 'gh' (https://***@h/mcp?token=***): \
             error sending request for url (https://***@h/mcp?token=***)"
        );
        let err = UpstreamError::ProcessExited {
            server,
            stderr_tail: "bad arg https://x:y@h/?api_key=k | Authorization: Bearer abc".into(),
        };
        assert_eq!(
            err.to_string(),
            "server 'gh' exited; stderr: bad arg https://***@h/?api_key=*** | Authorization: Bearer ***"
        );
    }

    #[test]
    fn only_failures_to_reach_the_server_count_and_only_quick_ones_are_retried() {
        let server = ServerId::new("s").unwrap();
        let s = || server.clone();
        let timeout = UpstreamError::Timeout {
            server: s(),
            during: "initialize",
            after: Duration::from_secs(1),
        };
        let transport = [
            UpstreamError::Spawn {
                server: s(),
                command: "x".into(),
                message: "missing".into(),
            },
            UpstreamError::ProcessExited {
                server: s(),
                stderr_tail: String::new(),
            },
            UpstreamError::Connect {
                server: s(),
                url: "http://h".into(),
                message: "refused".into(),
            },
            UpstreamError::Closed { server: s() },
            UpstreamError::SseClosed { server: s() },
            UpstreamError::StdinStuck {
                server: s(),
                after: Duration::from_secs(1),
            },
        ];
        for err in &transport {
            assert!(err.is_transport_failure() && err.is_retryable(), "{err}");
        }
        assert!(timeout.is_transport_failure() && !timeout.is_retryable());
        let answers = [
            UpstreamError::Rpc {
                server: s(),
                error: ErrorData::invalid_params("bad", None),
            },
            UpstreamError::AuthRequired {
                server: s(),
                reason: "log in".into(),
            },
            UpstreamError::Cancelled { server: s() },
            UpstreamError::CircuitOpen {
                server: s(),
                reason: "down".into(),
                retry_in: Duration::from_secs(5),
            },
            UpstreamError::Disabled { server: s() },
        ];
        for err in &answers {
            assert!(!err.is_transport_failure() && !err.is_retryable(), "{err}");
            assert_eq!(err.server(), &server);
        }
    }
}
