//! A deterministic key over the parts of a server's config that affect its
//! running connection: id, transport (command, args, env, cwd or url, headers),
//! namespace, OAuth settings and enabled. Two configs with the same fingerprint can share one
//! running upstream; settings that only change what clients see (such as
//! `disabledTools`) or per-call timeouts are not part of it.

use std::fmt;

use serde::Serialize;

use crate::config::{OAuthConfig, ServerConfig, ServerId, TransportConfig};
use crate::listing::canonical_hash;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(u64);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

#[derive(Serialize)]
struct Identity<'a> {
    id: &'a ServerId,
    transport: &'a TransportConfig,
    namespace: &'a Option<String>,
    enabled: bool,
    /// Left out when absent, so servers without `oauth` keep the fingerprint
    /// they had before the field existed (their warm catalog stays valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    oauth: &'a Option<OAuthConfig>,
    /// Left out when absent, for the same reason; a changed policy restarts
    /// the server under the new one.
    #[serde(skip_serializing_if = "is_inherit")]
    sandbox: &'a crate::config::ServerSandbox,
}

fn is_inherit(sandbox: &&crate::config::ServerSandbox) -> bool {
    matches!(sandbox, crate::config::ServerSandbox::Inherit)
}

impl Fingerprint {
    pub fn as_u64(self) -> u64 {
        self.0
    }

    pub fn of(server: &ServerConfig) -> Self {
        let identity = Identity {
            id: &server.id,
            transport: &server.transport,
            namespace: &server.namespace,
            enabled: server.enabled,
            oauth: &server.oauth,
            sandbox: &server.sandbox,
        };
        // Maps in the config are BTreeMaps and `canonical_hash` sorts object keys,
        // so the key is independent of the order keys had in the file.
        Self(canonical_hash(&identity))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use std::path::Path;

    fn fp(json: &str) -> Fingerprint {
        let cfg = config::load(config::Source::text(json, Path::new("t.json"))).unwrap();
        Fingerprint::of(&cfg.servers[0])
    }

    #[test]
    fn stable_across_key_order_and_runs() {
        let a = fp(r#"{"mcpServers":{"s":{"command":"x","args":["1"],"env":{"A":"1","B":"2"}}}}"#);
        let b = fp(r#"{"mcpServers":{"s":{"env":{"B":"2","A":"1"},"args":["1"],"command":"x"}}}"#);
        assert_eq!(a, b);
        assert_eq!(
            a.to_string(),
            fp(r#"{"mcpServers":{"s":{"command":"x","args":["1"],"env":{"B":"2","A":"1"}}}}"#)
                .to_string()
        );
    }

    #[test]
    fn changes_with_identity_fields_only() {
        let base = fp(r#"{"mcpServers":{"s":{"command":"x"}}}"#);
        for changed in [
            r#"{"mcpServers":{"t":{"command":"x"}}}"#,
            r#"{"mcpServers":{"s":{"command":"y"}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","args":["a"]}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","env":{"K":"v"}}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","cwd":"/tmp"}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","enabled":false}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","namespace":""}}}"#,
            r#"{"mcpServers":{"s":{"url":"http://127.0.0.1:1/mcp"}}}"#,
            r#"{"mcpServers":{"s":{"command":"x","env":{"K":{"keyring":"k"}}}}}"#,
        ] {
            assert_ne!(base, fp(changed), "{changed}");
        }
        assert_eq!(
            base,
            fp(r#"{"mcpServers":{"s":{"command":"x","disabledTools":["a"]}}}"#)
        );
        let h1 = fp(r#"{"mcpServers":{"s":{"url":"http://h/","headers":{"A":"1"}}}}"#);
        let h2 = fp(r#"{"mcpServers":{"s":{"url":"http://h/","headers":{"A":"2"}}}}"#);
        assert_ne!(h1, h2);
        let plain = fp(r#"{"mcpServers":{"s":{"url":"http://h/"}}}"#);
        let oauth = fp(r#"{"mcpServers":{"s":{"url":"http://h/","oauth":{"scopes":["a"]}}}}"#);
        let client = fp(r#"{"mcpServers":{"s":{"url":"http://h/","oauth":{"clientId":"c"}}}}"#);
        assert_ne!(plain, oauth);
        assert_ne!(oauth, client);
    }

    #[test]
    fn unchanged_for_servers_without_new_fields() {
        // The value a server without `oauth` or keyring values had before they existed.
        assert_eq!(
            fp(r#"{"mcpServers":{"s":{"command":"x","env":{"K":"v"}}}}"#),
            fp(r#"{"mcpServers":{"s":{"env":{"K":"v"},"command":"x"}}}"#)
        );
        let cfg = config::load(config::Source::text(
            r#"{"mcpServers":{"s":{"command":"x","env":{"K":"v"}}}}"#,
            Path::new("t.json"),
        ))
        .unwrap();
        let value = serde_json::to_value(&cfg.servers[0].transport).unwrap();
        assert_eq!(value["env"], serde_json::json!({"K": "v"}));
    }
}
