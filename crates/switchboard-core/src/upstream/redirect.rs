//! Where the hub's HTTP requests to remote servers may be sent on: the one
//! origin rule ([`same_origin`]) shared by the Streamable HTTP transport, the
//! authorized (OAuth) client and the legacy SSE client's `endpoint` event,
//! and the pooled client built with it ([`client`]).
//!
//! A request to a server carries its configured headers (`X-Api-Key`, ...),
//! a `?token=` in its URL, its OAuth token and a body; reqwest strips only
//! `Authorization` and cookies when it follows a redirect to another host,
//! and a 307 or 308 sends the body again. So a redirect is followed only to
//! the origin (scheme, host and port) of the URL that answered it; one to
//! another origin fails the request with [`RedirectRefused`], which names the
//! target (redacted) and is reached by nothing. No request sends `Referer`.
//!
//! Pure rules and a client builder; nothing here holds state.

use std::time::Duration;

use reqwest::Url;
use reqwest::redirect::{Attempt, Policy};

use crate::util::redact;

/// At most this many redirects are followed for one request (reqwest's own
/// default), all within its origin.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// A URL on another origin than the one it came from, as it may be shown:
/// userinfo and secret query values masked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("another origin ({target})")]
pub(crate) struct OtherOrigin {
    /// The redacted URL.
    target: String,
}

/// Why a redirect was not followed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RedirectRefused {
    #[error(
        "the server redirected the request to {0}; not followed, as the server's headers, \
         token and request body would go there"
    )]
    OtherOrigin(OtherOrigin),
    #[error("too many redirects (more than {MAX_REDIRECTS})")]
    TooMany,
}

/// Whether `to` is on `from`'s origin; if not, the (redacted) `to` to name.
pub(crate) fn same_origin(from: &Url, to: &Url) -> Result<(), OtherOrigin> {
    if from.origin() == to.origin() {
        return Ok(());
    }
    Err(OtherOrigin {
        target: redact::url(to.as_str()),
    })
}

/// The redirect rule of every hub request to a remote server: follow within
/// the first URL's origin, at most [`MAX_REDIRECTS`] times.
fn decide(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    if attempt.previous().len() > MAX_REDIRECTS {
        return attempt.error(RedirectRefused::TooMany);
    }
    let checked = match attempt.previous().first() {
        Some(first) => same_origin(first, attempt.url()),
        None => Ok(()),
    };
    match checked {
        Ok(()) => attempt.follow(),
        Err(other) => attempt.error(RedirectRefused::OtherOrigin(other)),
    }
}

/// The policy of [`decide`], for a reqwest client builder.
pub(crate) fn policy() -> Policy {
    Policy::custom(decide)
}

/// The hub's pooled HTTP client for remote servers and OAuth: same-origin
/// redirects only, no `Referer`.
pub(crate) fn client() -> reqwest::Client {
    let build = || {
        reqwest::Client::builder()
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_nodelay(true)
            .redirect(policy())
            .referer(false)
            .build()
    };
    build().unwrap_or_else(|err| {
        tracing::error!(
            error = %crate::util::error_chain(&err),
            "could not set up the HTTP client; remote servers will fail"
        );
        // Still a client that follows no redirect: never the default one.
        reqwest::Client::builder()
            .redirect(Policy::none())
            .referer(false)
            .build()
            .unwrap_or_default()
    })
}

/// The refusal inside a reqwest error, if a redirect was refused.
pub(crate) fn refusal<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> Option<&'a RedirectRefused> {
    let mut current = Some(err);
    while let Some(err) = current {
        if let Some(refused) = err.downcast_ref::<RedirectRefused>() {
            return Some(refused);
        }
        current = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_the_same_scheme_host_and_port_is_the_same_origin() {
        let from = url("http://127.0.0.1:8000/mcp?token=abc");
        for same in [
            "http://127.0.0.1:8000/other",
            "http://127.0.0.1:8000/mcp?x=1#f",
        ] {
            assert_eq!(same_origin(&from, &url(same)), Ok(()), "{same}");
        }
        for other in [
            "http://127.0.0.2:8000/mcp",
            "http://127.0.0.1:8001/mcp",
            "https://127.0.0.1:8000/mcp",
            "http://localhost:8000/mcp",
        ] {
            assert!(same_origin(&from, &url(other)).is_err(), "{other}");
        }
    }

    #[test]
    fn the_named_target_has_its_secrets_masked() {
        let from = url("http://127.0.0.1:8000/mcp");
        let err = same_origin(
            &from,
            &url("http://eve:hunter22@127.0.0.2:9/sink?token=s3cr3tvalue&page=2"),
        )
        .unwrap_err();
        let text = RedirectRefused::OtherOrigin(err).to_string();
        assert_eq!(
            text,
            "the server redirected the request to another origin \
             (http://***@127.0.0.2:9/sink?token=***&page=2); not followed, as the server's \
             headers, token and request body would go there"
        );
    }
}
