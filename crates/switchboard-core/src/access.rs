//! Who may use the hub's listener: the one place that checks `Host`,
//! `Origin` and credentials for every request (the MCP endpoints, the control
//! API, the dashboard). Which [`Privilege`] a route needs is not decided
//! here: each route declares it where it is added (`http/routes.rs`, the route
//! table), and a route that declares none is refused there.
//!
//! The rules (documented in `docs/security.md` and `docs/status.md`):
//! - `Host` must be a loopback name (DNS rebinding), unless the hub listens
//!   beyond loopback (`allowRemote`) and the request carries the bearer token.
//! - A request that carries an `Origin` must come from a loopback origin; a
//!   state-changing control request (`POST`/`PUT`/`DELETE`/... under
//!   `/api/v1`) only from the hub's own origin (exact scheme, host and port).
//! - State-changing control requests, and reads that may show a server's
//!   output or definitions (`/api/v1/servers/<id>/logs`, `/held`,
//!   `/config`, `/api/v1/import`, `/api/v1/activity`), need a credential: the control
//!   token as `Authorization: Bearer`, or the dashboard's session cookie
//!   together with the hub's own `Origin`. Status reads stay open.
//! - With `allowRemote`, the MCP endpoints need the bearer token too.
//!
//! Credentials: the control token is kept in `control-token` (mode 0600, in a
//! 0700 directory) in the state directory, created once and kept across
//! restarts (see [`load_or_create_token`]). Dashboard sessions are made only
//! from a one-time sign-in link (`/login?code=...`) that a holder of the token
//! asks for ([`Access::sign_in_link`]); they live in memory and end with the
//! hub. [`Access::credential`] is the single check every route goes through,
//! so per-client tokens can be added there later.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

/// The token file's name in the state directory.
pub const TOKEN_FILE: &str = "control-token";

/// How long a sign-in link works (once).
const SIGN_IN_TTL: Duration = Duration::from_secs(120);
/// At most this many sign-in links wait to be used; older ones are dropped.
const MAX_SIGN_INS: usize = 16;
/// At most this many dashboard sessions are kept; the oldest is dropped.
const MAX_SESSIONS: usize = 64;

/// Why the control token could not be kept or read.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("cannot keep the control token in {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot read the control token {path}: {source}. Is the hub running with the same \
         state directory (SWITCHBOARD_CACHE_DIR)?"
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the control token {path} is not safe: {why}")]
    Unsafe { path: PathBuf, why: String },
    #[error("no random numbers from the operating system: {0}")]
    Random(String),
}

/// What a request proved about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// Nothing.
    None,
    /// A bearer token that is not the one.
    Wrong,
    /// The control token.
    Token,
    /// A dashboard session cookie (only counts with the hub's own `Origin`).
    Session,
}

/// What a route needs of a request: declared with the route (the route table
/// in `http/routes.rs` attaches it as a layer); this module only says what each
/// privilege asks of the request's `Host`, `Origin` and credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Privilege {
    /// Anyone on loopback: status reads, the event stream, the dashboard's
    /// files, `/login`.
    Open,
    /// An MCP endpoint (`/mcp`, `/servers/<id>/mcp`, `/profiles/<name>/mcp`):
    /// open on loopback, the bearer token with `allowRemote`.
    Mcp,
    /// A read that may show server output or definitions (logs, held tools'
    /// definitions, a server's config, the import offer, the activity log,
    /// the calls waiting for approval): the token, or the dashboard's session.
    PrivateRead,
    /// A state change: the token, or the dashboard's session from the hub's
    /// own `Origin`; a foreign (even loopback) `Origin` is refused.
    Write,
}

/// Why a request was refused: the HTTP answer to give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// 401 with `WWW-Authenticate: Bearer`.
    Unauthorized(String),
    /// 403.
    Forbidden(String),
}

/// The hub's access rules and credentials (one per hub).
pub struct Access {
    token: String,
    allow_remote: bool,
    /// The port the hub listens on: the only port of its own origin.
    port: u16,
    /// `switchboard-session-<port>` (see [`Access::cookie_name`]).
    cookie_name: String,
    /// One-time sign-in codes and when they stop working.
    sign_ins: Mutex<HashMap<String, Instant>>,
    /// Dashboard session cookie values, oldest first.
    sessions: Mutex<VecDeque<String>>,
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("allow_remote", &self.allow_remote)
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl Access {
    pub fn new(token: String, allow_remote: bool, port: u16) -> Self {
        Self {
            token,
            allow_remote,
            port,
            cookie_name: format!("switchboard-session-{port}"),
            sign_ins: Mutex::new(HashMap::new()),
            sessions: Mutex::new(VecDeque::new()),
        }
    }

    /// The control token (for the in-process app and for sign-in links).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The name of the dashboard's session cookie (per port: cookies are not
    /// kept apart by port, two hubs must not overwrite each other's).
    pub fn cookie_name(&self) -> &str {
        &self.cookie_name
    }

    /// What the request's headers prove. The one credential check of the hub.
    pub fn credential(&self, headers: &HeaderMap) -> Credential {
        if let Some(value) = headers.get(header::AUTHORIZATION) {
            let value = value.to_str().unwrap_or_default();
            let presented = value
                .split_once(' ')
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token.trim());
            return match presented {
                Some(token) if same(token, &self.token) => Credential::Token,
                _ => Credential::Wrong,
            };
        }
        let name = self.cookie_name();
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string());
        match cookie {
            Some(value) if self.has_session(&value) => Credential::Session,
            _ => Credential::None,
        }
    }

    fn has_session(&self, value: &str) -> bool {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.iter().any(|s| same(s, value))
    }

    /// Decides whether a request to a route of this privilege may go on.
    pub fn check(&self, privilege: Privilege, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_kind(privilege, headers)
    }

    /// Whether a request (already let through [`Access::check`]) may see
    /// private data in an open answer (`stderrTail` in the status and
    /// events): whether it has what a private read needs.
    pub fn may_read_private(&self, headers: &HeaderMap) -> bool {
        self.check_kind(Privilege::PrivateRead, headers).is_ok()
    }

    fn check_kind(&self, kind: Privilege, headers: &HeaderMap) -> Result<(), Refusal> {
        let credential = self.credential(headers);
        let host = headers
            .get(header::HOST)
            .map(|h| h.to_str().unwrap_or_default());
        let local_host = host.is_none_or(is_loopback_authority);
        if !local_host {
            let host = host.unwrap_or_default();
            if !self.allow_remote {
                return Err(Refusal::Forbidden(format!(
                    "Host {host:?} is not a loopback address"
                )));
            }
            if credential == Credential::Wrong {
                return Err(Refusal::Forbidden("the bearer token is not valid".into()));
            }
            if credential != Credential::Token {
                return Err(Refusal::Unauthorized(format!(
                    "requests to {host:?} need the control token as a bearer token"
                )));
            }
        }
        let origin = headers
            .get(header::ORIGIN)
            .map(|o| o.to_str().unwrap_or_default());
        let own_origin = match (origin, host) {
            (Some(origin), Some(host)) => local_host && self.is_own_origin(origin, host),
            _ => false,
        };
        if let Some(origin) = origin {
            let loopback = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(is_loopback_authority);
            if !loopback || (kind == Privilege::Write && !own_origin) {
                return Err(Refusal::Forbidden(format!(
                    "Origin {origin:?} is not allowed"
                )));
            }
        }
        let needs_credential = match kind {
            Privilege::Write | Privilege::PrivateRead => true,
            Privilege::Mcp => self.allow_remote,
            Privilege::Open => false,
        };
        if !needs_credential {
            return Ok(());
        }
        match credential {
            Credential::Token => Ok(()),
            // A session counts only on a request from the page itself: a
            // browser always sends `Origin` with a write; a read may come without.
            Credential::Session
                if (kind == Privilege::Write && own_origin)
                    || (kind == Privilege::PrivateRead && (own_origin || origin.is_none())) =>
            {
                Ok(())
            }
            Credential::Wrong => Err(Refusal::Forbidden("the bearer token is not valid".into())),
            _ => Err(Refusal::Unauthorized(match kind {
                Privilege::Mcp => "allowRemote is on: MCP requests need the control token as \
                              `Authorization: Bearer <token>`"
                    .into(),
                Privilege::PrivateRead => "reading this needs the control token \
                                             (`Authorization: Bearer <token>`, from the \
                                             control-token file) or the dashboard opened with \
                                             `switchboard dashboard`"
                    .into(),
                _ => "changing the hub needs the control token (`Authorization: Bearer <token>`, \
                      from the control-token file) or the dashboard opened with \
                      `switchboard dashboard`"
                    .into(),
            })),
        }
    }

    /// `Origin` is exactly `http://<Host>` and on the hub's port.
    fn is_own_origin(&self, origin: &str, host: &str) -> bool {
        let Some(authority) = origin.strip_prefix("http://") else {
            return false;
        };
        authority.eq_ignore_ascii_case(host)
            && split_port(authority).is_some_and(|(_, port)| port == self.port)
    }

    /// A one-time sign-in path for the dashboard (`/login?code=...`), valid
    /// for two minutes.
    pub fn sign_in_link(&self) -> Result<String, AccessError> {
        let code = random_hex(32)?;
        let mut codes = self.sign_ins.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        codes.retain(|_, until| *until > now);
        while codes.len() >= MAX_SIGN_INS {
            let oldest = codes
                .iter()
                .min_by_key(|(_, until)| **until)
                .map(|(c, _)| c.clone());
            match oldest {
                Some(c) => codes.remove(&c),
                None => break,
            };
        }
        codes.insert(code.clone(), now + SIGN_IN_TTL);
        Ok(format!("/login?code={code}"))
    }

    /// Uses up a sign-in code; answers the new session's cookie value.
    pub fn redeem(&self, code: &str) -> Option<String> {
        let valid = {
            let mut codes = self.sign_ins.lock().unwrap_or_else(|e| e.into_inner());
            let found = codes.keys().find(|c| same(c, code)).cloned();
            found
                .and_then(|c| codes.remove(&c))
                .is_some_and(|until| until > Instant::now())
        };
        if !valid {
            return None;
        }
        let session = random_hex(32).ok()?;
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        while sessions.len() >= MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(session.clone());
        Some(session)
    }

    /// The `Set-Cookie` value for a session.
    pub fn session_cookie(&self, session: &str) -> String {
        format!(
            "{}={session}; HttpOnly; SameSite=Strict; Path=/",
            self.cookie_name()
        )
    }
}

/// Compares secrets in time that does not depend on where they differ.
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new random token (for a hub that keeps none on disk).
pub fn new_token() -> Result<String, AccessError> {
    random_hex(32)
}

/// `len` random bytes from the operating system, as hex: the hub's one
/// source of random ids (tokens, sign-in codes, dashboard sessions, the
/// instance id in `identity`).
pub(crate) fn random_hex(len: usize) -> Result<String, AccessError> {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).map_err(|e| AccessError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
pub fn is_loopback_authority(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((host, _)) => host,
            None => return false,
        }
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `host:port` → (host, port), port 80 when left out.
fn split_port(authority: &str) -> Option<(&str, u16)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after.strip_prefix(':') {
            Some(port) => Some((host, port.parse().ok()?)),
            None if after.is_empty() => Some((host, 80)),
            None => None,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host, port.parse().ok()?)),
        None => Some((authority, 80)),
    }
}

/// The token file in a state directory.
pub fn token_path(state_dir: &Path) -> PathBuf {
    state_dir.join(TOKEN_FILE)
}

/// The hub's side: reads the token kept in `path`, or makes a new one. A
/// file that others could read, or that another user owns, is replaced by a
/// new token (the old one may be known). The directory is made 0700.
pub fn load_or_create_token(path: &Path) -> Result<String, AccessError> {
    let write_err = |source| AccessError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        crate::util::files::own_dir(dir).map_err(write_err)?;
    }
    if let Ok(token) = read_checked(path) {
        return Ok(token);
    }
    match std::fs::remove_file(path) {
        Ok(()) => {
            tracing::warn!(path = %path.display(), "replacing a control token file that was not private or held no token")
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(write_err(err)),
    }
    // Written whole under a private name, then linked into place: another
    // hub never reads a half-written token, and the first one linked wins.
    let token = random_hex(32)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        std::io::Write::write_all(&mut file, token.as_bytes())?;
        file.sync_all()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    match written {
        Ok(()) => {
            tracing::info!(path = %path.display(), "new control token");
            Ok(token)
        }
        // Another hub made it first: use that one.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => read_checked(path),
        Err(err) => Err(write_err(err)),
    }
}

/// The clients' side (CLI, app, tests): the token a hub keeps in `path`.
pub fn read_token(path: &Path) -> Result<String, AccessError> {
    read_checked(path)
}

fn read_checked(path: &Path) -> Result<String, AccessError> {
    let text = std::fs::read_to_string(path).map_err(|source| AccessError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let unsafe_file = |why: String| AccessError::Unsafe {
        path: path.to_path_buf(),
        why,
    };
    #[cfg(unix)]
    {
        use crate::util::files::{Guard, check_exposure};
        let meta = std::fs::symlink_metadata(path).map_err(|source| AccessError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if !meta.file_type().is_file() {
            return Err(unsafe_file("it is not a plain file".into()));
        }
        check_exposure(&meta, Guard::Private)
            .map_err(|exposure| unsafe_file(format!("it {exposure}")))?;
    }
    let token = text.trim();
    if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(unsafe_file("it does not hold a token".into()));
    }
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k.clone(), v.parse().unwrap());
        }
        h
    }

    fn access() -> Access {
        Access::new("t".repeat(64), false, 8420)
    }

    #[test]
    fn random_ids_are_hex_of_the_asked_length_and_differ() {
        let a = random_hex(8).unwrap();
        let b = random_hex(8).unwrap();
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
        assert_eq!(new_token().unwrap().len(), 64);
    }

    #[test]
    fn loopback_authorities() {
        for ok in [
            "localhost",
            "localhost:8420",
            "127.0.0.1:1",
            "127.1.2.3",
            "[::1]:80",
            "[::1]",
        ] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:8420",
            "10.0.0.1:80",
            "[::2]:1",
            "localhost.evil.com",
        ] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
    }

    #[test]
    fn foreign_hosts_and_origins_are_refused() {
        let a = access();
        let get = |h: &[(header::HeaderName, &str)]| a.check(Privilege::Open, &headers(h));
        assert!(get(&[(header::HOST, "127.0.0.1:8420")]).is_ok());
        assert!(
            get(&[
                (header::HOST, "127.0.0.1:8420"),
                (header::ORIGIN, "http://localhost:5173")
            ])
            .is_ok()
        );
        assert!(
            get(&[
                (header::HOST, "127.0.0.1:8420"),
                (header::ORIGIN, "https://evil.example")
            ])
            .is_err()
        );
        assert!(get(&[(header::HOST, "127.0.0.1:8420"), (header::ORIGIN, "null")]).is_err());
        assert!(get(&[(header::HOST, "attacker.example:8420")]).is_err());
    }

    #[test]
    fn writes_need_the_token_and_the_own_origin() {
        let a = access();
        let token = format!("Bearer {}", "t".repeat(64));
        let post = |h: &[(header::HeaderName, &str)]| a.check(Privilege::Write, &headers(h));
        let host = (header::HOST, "127.0.0.1:8420");
        assert!(post(&[host.clone(), (header::AUTHORIZATION, &token)]).is_ok());
        assert!(
            post(&[
                host.clone(),
                (header::AUTHORIZATION, &token),
                (header::ORIGIN, "http://127.0.0.1:8420")
            ])
            .is_ok()
        );
        assert!(matches!(
            post(std::slice::from_ref(&host)),
            Err(Refusal::Unauthorized(_))
        ));
        assert!(matches!(
            post(&[host.clone(), (header::AUTHORIZATION, "Bearer nope")]),
            Err(Refusal::Forbidden(_))
        ));
        for other in [
            "http://localhost:3000",
            "http://127.0.0.1:3000",
            "http://localhost:8420",
            "https://127.0.0.1:8420",
        ] {
            assert!(
                matches!(
                    post(&[
                        host.clone(),
                        (header::AUTHORIZATION, &token),
                        (header::ORIGIN, other)
                    ]),
                    Err(Refusal::Forbidden(_))
                ),
                "{other}"
            );
        }
    }

    #[test]
    fn sessions_come_from_one_time_links_and_need_the_own_origin() {
        let a = access();
        let link = a.sign_in_link().unwrap();
        let code = link.strip_prefix("/login?code=").unwrap();
        let session = a.redeem(code).unwrap();
        assert!(a.redeem(code).is_none(), "a code works once");
        assert!(a.redeem("nope").is_none());
        let cookie = format!("other=1; {}={session}", a.cookie_name());
        let host = (header::HOST, "127.0.0.1:8420");
        let post = |h: &[(header::HeaderName, &str)]| a.check(Privilege::Write, &headers(h));
        assert!(
            post(&[
                host.clone(),
                (header::COOKIE, &cookie),
                (header::ORIGIN, "http://127.0.0.1:8420")
            ])
            .is_ok()
        );
        assert!(
            post(&[host.clone(), (header::COOKIE, &cookie)]).is_err(),
            "no Origin"
        );
        assert!(
            post(&[
                host.clone(),
                (header::COOKIE, &cookie),
                (header::ORIGIN, "http://127.0.0.1:3000")
            ])
            .is_err()
        );
        let forged = format!("{}={}", a.cookie_name(), "f".repeat(64));
        assert!(
            post(&[
                host.clone(),
                (header::COOKIE, &forged),
                (header::ORIGIN, "http://127.0.0.1:8420")
            ])
            .is_err()
        );
        assert!(
            a.session_cookie(&session)
                .contains("HttpOnly; SameSite=Strict")
        );
    }

    #[test]
    fn a_refused_private_read_says_reading_needs_the_token() {
        let a = access();
        let host = headers(&[(header::HOST, "127.0.0.1:8420")]);
        let Err(Refusal::Unauthorized(text)) = a.check(Privilege::PrivateRead, &host) else {
            panic!("a private read was not refused with 401");
        };
        assert!(
            text.starts_with("reading this needs the control token"),
            "{text}"
        );
        let Err(Refusal::Unauthorized(text)) = a.check(Privilege::Write, &host) else {
            panic!("a write was not refused with 401");
        };
        assert!(
            text.starts_with("changing the hub needs the control token"),
            "{text}"
        );
    }

    #[test]
    fn remote_listening_needs_the_token_on_mcp() {
        let a = Access::new("t".repeat(64), true, 8420);
        let token = format!("Bearer {}", "t".repeat(64));
        let h = headers(&[(header::HOST, "192.168.1.5:8420")]);
        assert!(matches!(
            a.check(Privilege::Mcp, &h),
            Err(Refusal::Unauthorized(_))
        ));
        let h = headers(&[(header::HOST, "127.0.0.1:8420")]);
        assert!(matches!(
            a.check(Privilege::Mcp, &h),
            Err(Refusal::Unauthorized(_))
        ));
        let h = headers(&[
            (header::HOST, "192.168.1.5:8420"),
            (header::AUTHORIZATION, &token),
        ]);
        assert!(a.check(Privilege::Mcp, &h).is_ok());
        assert!(a.check(Privilege::Mcp, &h).is_ok());
        // Without allowRemote, MCP on loopback needs nothing.
        let local = access();
        let h = headers(&[(header::HOST, "127.0.0.1:8420")]);
        assert!(local.check(Privilege::Mcp, &h).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_private_kept_and_replaced_when_exposed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = token_path(&state);
        let first = load_or_create_token(&path).unwrap();
        assert_eq!(first.len(), 64);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&state), 0o700);
        assert_eq!(load_or_create_token(&path).unwrap(), first, "kept");
        assert_eq!(read_token(&path).unwrap(), first);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read_token(&path).is_err(), "an exposed token is not used");
        let second = load_or_create_token(&path).unwrap();
        assert_ne!(second, first, "an exposed token is replaced");
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
        load_or_create_token(&path).unwrap();
        assert_eq!(mode(&state), 0o700, "the directory is made private again");
    }
}
