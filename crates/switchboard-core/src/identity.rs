//! Who a hub is on the wire, so that it never serves itself.
//!
//! Each hub gets a random instance id when it binds ([`HubIdentity`]). Its
//! listener names it on every answer ([`INSTANCE_HEADER`]), which is how
//! `switchboard import` recognises a running Switchboard behind a URL, and
//! the hub sends it on every request to a remote server ([`VIA_HEADER`]); a
//! request that arrives carrying the hub's own id came from the hub itself
//! and is answered `508 Loop Detected` (see `http`). Stdio servers get
//! the id in [`VIA_ENV`], which the `switchboard stdio` bridge sends on, so
//! a bridge back to the same hub is refused too. Before connecting, a
//! URL that names the hub's own listener (same port on the address it listens
//! on, a loopback name for it, or an any-address) is refused without a
//! request ([`HubIdentity::is_own_address`]).
//!
//! The id is not a secret: it only tells one hub process from another. The
//! value is fixed for the hub's life; nothing else here has state.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The response header naming the hub that answered (its instance id).
pub const INSTANCE_HEADER: &str = "switchboard-instance";
/// The request header naming the hub a request to a remote server came from.
pub const VIA_HEADER: &str = "switchboard-via";
/// The environment variable with the hub's id, set for every stdio server;
/// `switchboard stdio` sends it as [`VIA_HEADER`].
pub const VIA_ENV: &str = "SWITCHBOARD_VIA";

/// One hub's id and listener address.
#[derive(Debug, Clone)]
pub struct HubIdentity {
    /// 16 random hex digits, new for every hub.
    pub instance: Arc<str>,
    /// The address the listener is bound to.
    pub listen: SocketAddr,
}

impl HubIdentity {
    /// A new identity for a hub listening on `listen`; fails only if the
    /// operating system gives no random numbers.
    pub fn new(listen: SocketAddr) -> Result<Self, crate::access::AccessError> {
        Ok(Self {
            instance: Arc::from(crate::access::random_hex(8)?),
            listen,
        })
    }

    /// Whether `url` names this hub's own listener by address: `http`, the
    /// listener's port, and a host that connects to it — the listen address,
    /// `localhost` or an any-address (`0.0.0.0`, `[::]`) for a loopback or
    /// any-address listener, any loopback address for an any-address one.
    /// Other names that lead here are caught when the request arrives.
    pub fn is_own_address(&self, url: &str) -> bool {
        let Ok(parsed) = reqwest::Url::parse(url) else {
            return false;
        };
        if parsed.scheme() != "http" || parsed.port_or_known_default() != Some(self.listen.port()) {
            return false;
        }
        let listen = self.listen.ip();
        let Some(name) = parsed.host_str() else {
            return false;
        };
        let bare = name.trim_start_matches('[').trim_end_matches(']');
        let Ok(host) = bare.parse::<IpAddr>() else {
            return name.eq_ignore_ascii_case("localhost")
                && (listen.is_loopback() || listen.is_unspecified());
        };
        if host == listen {
            return true;
        }
        let same_family = host.is_ipv4() == listen.is_ipv4();
        match (listen.is_unspecified(), listen.is_loopback()) {
            // `0.0.0.0` takes IPv4 loopback; `[::]` (dual stack) takes both.
            (true, _) => {
                (host.is_loopback() || host.is_unspecified()) && (same_family || listen.is_ipv6())
            }
            // Connecting to the any-address reaches the local host.
            (false, true) => host.is_unspecified() && same_family,
            (false, false) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(addr: &str) -> HubIdentity {
        HubIdentity::new(addr.parse().unwrap()).unwrap()
    }

    #[test]
    fn ids_differ_between_hubs() {
        let a = on("127.0.0.1:8420");
        let b = on("127.0.0.1:8420");
        assert_ne!(a.instance, b.instance);
        assert_eq!(a.instance.len(), 16);
    }

    #[test]
    fn own_address_by_port_and_host() {
        let hub = on("127.0.0.1:8420");
        for own in [
            "http://127.0.0.1:8420/mcp",
            "http://localhost:8420/servers/x/mcp",
            "http://LOCALHOST:8420",
            "http://0.0.0.0:8420/mcp",
        ] {
            assert!(hub.is_own_address(own), "{own}");
        }
        for other in [
            "http://127.0.0.1:8421/mcp",
            "https://127.0.0.1:8420/mcp",
            "http://127.0.0.2:8420/mcp",
            "http://[::1]:8420/mcp",
            "http://example.com:8420/mcp",
            "http://127.0.0.1/mcp",
            "not a url",
        ] {
            assert!(!hub.is_own_address(other), "{other}");
        }
        let any = on("0.0.0.0:80");
        assert!(any.is_own_address("http://127.0.0.5/mcp"));
        assert!(any.is_own_address("http://localhost/mcp"));
        assert!(!any.is_own_address("http://[::1]/mcp"));
        let dual = on("[::]:9000");
        assert!(dual.is_own_address("http://[::1]:9000/mcp"));
        assert!(dual.is_own_address("http://127.0.0.1:9000/mcp"));
        let v6 = on("[::1]:9000");
        assert!(v6.is_own_address("http://[::1]:9000/mcp"));
        assert!(!v6.is_own_address("http://127.0.0.1:9000/mcp"));
    }
}
