//! Recognising a running Switchboard behind a server URL, so that `import`
//! never adds a hub to its own (or another hub's) config.
//!
//! A hub names itself on every answer with the `switchboard-instance` header
//! (see `switchboard_core::identity`). [`running_switchboard`] asks the URL's
//! origin for `/api/v1/status` and looks only at the answer's headers. Only
//! plain `http` URLs on this machine (`localhost`, loopback and any-addresses)
//! are asked: a hub listens on loopback and answers only loopback names, and
//! an import must not contact other hosts. Each ask is bounded (connect
//! 300 ms, answer 1 s, 16 KiB of headers); nothing is kept between calls.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

const CONNECT_TIMEOUT: Duration = Duration::from_millis(300);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(1);
const MAX_HEAD: usize = 16 * 1024;

/// The origin (`http://127.0.0.1:8420`) of the running Switchboard that
/// `url` leads to, or `None` when it is not one (or cannot be asked).
pub fn running_switchboard(url: &str) -> Option<String> {
    let (origin, host, port) = local_origin(url)?;
    let addrs: Vec<SocketAddr> = (host.as_str(), port)
        .to_socket_addrs()
        .ok()?
        .filter(|a| a.ip().is_loopback() || a.ip().is_unspecified())
        .collect();
    addrs
        .iter()
        .any(|addr| answers_as_switchboard(addr, &host, port))
        .then_some(origin)
}

/// `(origin, host, port)` of an `http` URL on this machine, else `None`.
fn local_origin(url: &str) -> Option<(String, String, u16)> {
    let rest = url.trim().strip_prefix("http://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    // No user info: a hub's URL has none, and it must not be sent anywhere.
    if authority.contains('@') {
        return None;
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            (host.to_string(), after.strip_prefix(':').unwrap_or("80"))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), port),
            None => (authority.to_string(), "80"),
        },
    };
    let port: u16 = port.parse().ok()?;
    let local = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified());
    if !local {
        return None;
    }
    let shown = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_ascii_lowercase()
    };
    Some((format!("http://{shown}:{port}"), host, port))
}

/// Asks `addr` for `/api/v1/status` and reads the answer's head only.
fn answers_as_switchboard(addr: &SocketAddr, host: &str, port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(addr, CONNECT_TIMEOUT) else {
        return false;
    };
    if stream.set_read_timeout(Some(ANSWER_TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(ANSWER_TIMEOUT)).is_err()
    {
        return false;
    }
    let host_header = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let request = format!(
        "GET /api/v1/status HTTP/1.1\r\nHost: {host_header}\r\nAccept: application/json\r\n\
         Connection: close\r\nUser-Agent: switchboard-import\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = Vec::new();
    let mut chunk = [0u8; 2048];
    // Bounded by MAX_HEAD bytes and, per read, by ANSWER_TIMEOUT.
    while head.len() < MAX_HEAD && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
    }
    names_a_switchboard(&head)
}

/// Whether an HTTP answer's head carries the hub's instance header.
fn names_a_switchboard(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let header_block = text.split("\r\n\r\n").next().unwrap_or_default();
    let mut lines = header_block.split("\r\n");
    let is_http = lines
        .next()
        .is_some_and(|status| status.starts_with("HTTP/1."));
    is_http
        && lines.any(|line| {
            line.split_once(':').is_some_and(|(name, value)| {
                name.trim()
                    .eq_ignore_ascii_case(switchboard_core::INSTANCE_HEADER)
                    && !value.trim().is_empty()
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_http_origins_are_asked() {
        assert_eq!(
            local_origin("http://127.0.0.1:8420/mcp"),
            Some(("http://127.0.0.1:8420".into(), "127.0.0.1".into(), 8420))
        );
        assert_eq!(
            local_origin("http://LocalHost:9/servers/x/mcp?a=b"),
            Some(("http://localhost:9".into(), "LocalHost".into(), 9))
        );
        assert_eq!(
            local_origin("http://[::1]:7/mcp"),
            Some(("http://[::1]:7".into(), "::1".into(), 7))
        );
        assert_eq!(local_origin("http://0.0.0.0/mcp").map(|o| o.2), Some(80));
        for other in [
            "https://127.0.0.1:8420/mcp",
            "http://example.com:8420/mcp",
            "http://192.168.1.2:8420/mcp",
            "http://user:pw@127.0.0.1:8420/mcp",
            "http://127.0.0.1:notaport/mcp",
            "ftp://127.0.0.1/",
        ] {
            assert_eq!(local_origin(other), None, "{other}");
        }
    }

    #[test]
    fn the_instance_header_marks_a_switchboard() {
        assert!(names_a_switchboard(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nSwitchboard-Instance: 0a1b\r\n\r\n{}"
        ));
        assert!(!names_a_switchboard(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\nswitchboard-instance: x"
        ));
        assert!(!names_a_switchboard(b"SSH-2.0-OpenSSH\r\n\r\n"));
        assert!(!names_a_switchboard(b""));
    }
}
