//! Which protocol version a connection starts with.
//!
//! The hub offers 2026-07-28 first: `server/discover`, which rmcp's `Auto`
//! lifecycle follows, on the same connection, with the legacy `initialize`
//! (offering [`OFFERED_VERSION`], 2025-11-25) when the server answers the probe
//! as an older server does (an unknown-method error, or over HTTP a refusal
//! of a request without a session), or does not answer it within rmcp's 10 s.
//! A server that does answer `server/discover` but lists no version the hub
//! offers there (an rmcp server limited to 2025-11-25, say) leaves that
//! connection unusable: the hub notes it and starts the server again at once
//! with the legacy `initialize`, and keeps doing so for this server (until
//! its config changes, which makes a new `Upstream`). So is a server that
//! answers `server/discover` with a result of another kind (some older
//! servers answer every unknown method with an empty result).
//!
//! The rules are here; the flag a refusal sets is the connection slot's
//! (`link.rs`), and the second start is `Upstream::connect_negotiated`.

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode};

use super::client::OFFERED_VERSION;

/// The lifecycle that offers 2026-07-28 and falls back to `initialize`.
pub(super) fn auto() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(OFFERED_VERSION),
    }
}

/// Whether an initialization failure says the server answered
/// `server/discover` but speaks only versions with a handshake.
pub(super) fn wants_initialize(err: &ClientInitializeError) -> bool {
    match err {
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => server_supported.iter().any(ProtocolVersion::has_initialize),
        // An older server that answers any unknown method with an empty
        // result answers `server/discover` with one too.
        ClientInitializeError::ExpectedInitResult(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn only_a_server_listing_handshake_versions_is_retried_with_initialize() {
        let refused =
            |supported: Vec<ProtocolVersion>| ClientInitializeError::NoCompatibleProtocolVersion {
                client_supported: vec![ProtocolVersion::V_2026_07_28],
                server_supported: supported,
            };
        assert!(wants_initialize(&refused(vec![
            ProtocolVersion::V_2025_06_18,
            ProtocolVersion::V_2025_11_25
        ])));
        assert!(!wants_initialize(&refused(Vec::new())));
        assert!(!wants_initialize(&ClientInitializeError::Cancelled));
        assert!(wants_initialize(
            &ClientInitializeError::ExpectedInitResult(None)
        ));
        assert!(matches!(auto(), ClientLifecycleMode::Auto { .. }));
    }
}
