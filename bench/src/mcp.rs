//! A minimal Streamable HTTP MCP client: one HTTP/1.1 keep-alive connection
//! per session, raw request bodies, and just enough parsing to find the
//! JSON-RPC response in a JSON or SSE reply. Cheap on purpose: the generator
//! shares the machine with what it measures.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::time::Instant;

/// The protocol version every target is offered, so all are compared on the
/// same footing (see PERF-NOTES: newer versions make some servers add work).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Where an MCP endpoint lives.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    pub authority: HeaderValue,
    pub path: String,
    pub timeout: Duration,
    /// `Authorization` for [`plain_request`] (the hub's control token).
    pub bearer: Option<HeaderValue>,
    /// Protocol 2026-07-28: no `initialize`; every request carries
    /// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and its own `_meta`.
    pub stateless: Option<Stateless>,
}

/// The per-request headers of a 2026-07-28 client (one method and name per
/// session: the generator sends one kind of call).
#[derive(Debug, Clone)]
pub struct Stateless {
    pub method: HeaderValue,
    pub name: HeaderValue,
}

/// The protocol a 2026-07-28 client names in its headers and `_meta`.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// The `_meta` of a 2026-07-28 request, as JSON text for a `params` object.
pub fn stateless_meta(client_name: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientInfo":{{"name":"{client_name}","version":"{}"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

impl Target {
    /// Parses `http://HOST:PORT/PATH` (loopback addresses only need no DNS).
    pub fn parse(url: &str, timeout: Duration) -> anyhow::Result<Self> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| anyhow!("only http:// URLs are supported: {url}"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let host_port = authority.replace("localhost", "127.0.0.1");
        let addr: SocketAddr = host_port
            .parse()
            .with_context(|| format!("{authority} is not an IP:port"))?;
        Ok(Self {
            addr,
            authority: HeaderValue::from_str(authority)?,
            path: path.to_string(),
            timeout,
            bearer: None,
            stateless: None,
        })
    }
}

/// A JSON-RPC error answered by the server (as opposed to a transport failure).
#[derive(Debug)]
pub struct RpcError(pub Value);

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JSON-RPC error {}", self.0)
    }
}

impl std::error::Error for RpcError {}

/// One MCP session over one keep-alive connection (reconnected when the
/// server closes it).
pub struct Session {
    target: Target,
    sender: Option<SendRequest<Full<Bytes>>>,
    session_id: Option<HeaderValue>,
    next_id: u64,
    /// Bytes of the last response body (for reporting list sizes).
    pub last_body_len: usize,
    /// When the last byte of the last response body was received (before any
    /// of it was parsed); `None` while a request is under way or after it failed.
    pub last_received_at: Option<Instant>,
}

impl Session {
    /// Connects, sends `initialize` and `notifications/initialized`.
    pub async fn open(target: &Target, client_name: &str) -> anyhow::Result<Self> {
        let mut session = Self {
            target: target.clone(),
            sender: None,
            session_id: None,
            next_id: 0,
            last_body_len: 0,
            last_received_at: None,
        };
        if target.stateless.is_some() {
            return Ok(session);
        }
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": client_name, "version": env!("CARGO_PKG_VERSION")},
        });
        let id = session.fresh_id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
        let (status, session_id, reply) = session.post(Bytes::from(body.to_string())).await?;
        if status != StatusCode::OK {
            bail!(
                "initialize answered HTTP {status}: {}",
                String::from_utf8_lossy(&reply)
            );
        }
        find_response(&reply, id)?;
        session.session_id = session_id;
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let (status, _, reply) = session.post(Bytes::from_static(note.as_bytes())).await?;
        if !status.is_success() {
            bail!(
                "notifications/initialized answered HTTP {status}: {}",
                String::from_utf8_lossy(&reply)
            );
        }
        Ok(session)
    }

    pub fn session_id(&self) -> Option<&HeaderValue> {
        self.session_id.as_ref()
    }

    pub fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request and returns its `result` (an `error` becomes [`RpcError`]).
    pub async fn request(&mut self, method: &str, params: &Value) -> anyhow::Result<Value> {
        self.request_as(method, params).await
    }

    /// Like [`Session::request`], deserializing the result as `T`.
    pub async fn request_as<T: DeserializeOwned>(
        &mut self,
        method: &str,
        params: &Value,
    ) -> anyhow::Result<T> {
        let id = self.fresh_id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.request_raw_as(Bytes::from(body.to_string()), id).await
    }

    /// Sends a pre-built request body whose id is `id`; the result as `T`.
    pub async fn request_raw_as<T: DeserializeOwned>(
        &mut self,
        body: Bytes,
        id: u64,
    ) -> anyhow::Result<T> {
        let (status, _, reply) = self.post(body).await?;
        if status != StatusCode::OK {
            bail!(
                "HTTP {status}: {}",
                truncate(&String::from_utf8_lossy(&reply))
            );
        }
        self.last_body_len = reply.len();
        find_response_as(&reply, id)
    }

    /// Ends the session politely (some peers keep a child process per session).
    pub async fn close(mut self) {
        if self.session_id.is_some() {
            let _ =
                tokio::time::timeout(Duration::from_secs(2), self.send(Method::DELETE, None)).await;
        }
    }

    async fn post(
        &mut self,
        body: Bytes,
    ) -> anyhow::Result<(StatusCode, Option<HeaderValue>, Bytes)> {
        tokio::time::timeout(self.target.timeout, self.send(Method::POST, Some(body)))
            .await
            .map_err(|_| anyhow!("no complete answer within {:?}", self.target.timeout))?
    }

    async fn send(
        &mut self,
        method: Method,
        body: Option<Bytes>,
    ) -> anyhow::Result<(StatusCode, Option<HeaderValue>, Bytes)> {
        let mut builder = Request::builder()
            .method(method)
            .uri(self.target.path.as_str())
            .header(HOST, self.target.authority.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some(id) = &self.session_id {
            builder = builder
                .header("mcp-session-id", id.clone())
                .header("mcp-protocol-version", PROTOCOL_VERSION);
        }
        if let Some(stateless) = &self.target.stateless {
            builder = builder
                .header("mcp-protocol-version", STATELESS_VERSION)
                .header("mcp-method", stateless.method.clone())
                .header("mcp-name", stateless.name.clone());
        }
        let request = builder.body(Full::new(body.unwrap_or_default()))?;
        self.last_received_at = None;
        let sender = self.ready_sender().await?;
        let response = match sender.send_request(request).await {
            Ok(response) => response,
            Err(err) => {
                self.sender = None;
                return Err(err).context("sending the request");
            }
        };
        let status = response.status();
        let session_id = response.headers().get("mcp-session-id").cloned();
        let collected = match response.into_body().collect().await {
            Ok(collected) => collected,
            Err(err) => {
                self.sender = None;
                return Err(err).context("reading the response body");
            }
        };
        // The last byte is in; joining the chunks is the generator's work.
        self.last_received_at = Some(Instant::now());
        Ok((status, session_id, collected.to_bytes()))
    }

    async fn ready_sender(&mut self) -> anyhow::Result<&mut SendRequest<Full<Bytes>>> {
        let usable = match self.sender.as_mut() {
            Some(sender) => sender.ready().await.is_ok(),
            None => false,
        };
        if !usable {
            self.sender = Some(connect(self.target.addr).await?);
        }
        self.sender.as_mut().ok_or_else(|| anyhow!("no connection"))
    }
}

async fn connect(addr: SocketAddr) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .with_context(|| format!("connecting to {addr}"))?;
    stream.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

/// One plain HTTP request on a fresh connection (for the control API).
pub async fn plain_request(
    target: &Target,
    method: Method,
    path: &str,
    body: Option<Bytes>,
) -> anyhow::Result<(StatusCode, Bytes)> {
    let mut sender = connect(target.addr).await?;
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header(HOST, target.authority.clone())
        .header(CONTENT_TYPE, "application/json");
    if let Some(bearer) = &target.bearer {
        request = request.header(hyper::header::AUTHORIZATION, bearer.clone());
    }
    let request = request.body(Full::new(body.unwrap_or_default()))?;
    let response = tokio::time::timeout(target.timeout, async {
        let response = sender.send_request(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        anyhow::Ok((status, body))
    })
    .await
    .map_err(|_| anyhow!("no answer within {:?}", target.timeout))??;
    Ok(response)
}

/// Opens the session's standalone GET event stream and forwards every JSON
/// message on it, stamped with its arrival time.
pub async fn event_stream(
    target: &Target,
    session: &Session,
) -> anyhow::Result<tokio::sync::mpsc::UnboundedReceiver<(tokio::time::Instant, Value)>> {
    let mut sender = connect(target.addr).await?;
    let mut builder = Request::builder()
        .method(Method::GET)
        .uri(target.path.as_str())
        .header(HOST, target.authority.clone())
        .header(ACCEPT, "text/event-stream")
        .header("mcp-protocol-version", PROTOCOL_VERSION);
    if let Some(id) = session.session_id() {
        builder = builder.header("mcp-session-id", id.clone());
    }
    let response = sender
        .send_request(builder.body(Full::new(Bytes::new()))?)
        .await?;
    if response.status() != StatusCode::OK {
        bail!("GET event stream answered HTTP {}", response.status());
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut body = response.into_body();
    tokio::spawn(async move {
        let _keep = sender;
        let mut buffer = String::new();
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let at = tokio::time::Instant::now();
            buffer.push_str(&String::from_utf8_lossy(&data));
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n"))
                    && tx.send((at, value)).is_err()
                {
                    return;
                }
            }
        }
    });
    Ok(rx)
}

/// Finds the JSON-RPC response with `id` in a JSON body or an SSE stream
/// (`data:` lines of one event joined by newlines) and returns its result.
pub fn find_response(body: &[u8], id: u64) -> anyhow::Result<Value> {
    find_response_as(body, id)
}

/// Like [`find_response`], deserializing the result as `T`. Only the result
/// of the matching message is deserialized; the rest is scanned, not built.
pub fn find_response_as<T: DeserializeOwned>(body: &[u8], id: u64) -> anyhow::Result<T> {
    let text = std::str::from_utf8(body).context("the body is not UTF-8")?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Some(found) = try_message(trimmed, id)? {
            return found;
        }
        bail!("no response with id {id} in {}", truncate(text));
    }
    let mut event: Vec<&str> = Vec::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(found) = check_event(&mut event, id)? {
                return found;
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            event.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    if let Some(found) = check_event(&mut event, id)? {
        return found;
    }
    bail!("no response with id {id} in {}", truncate(text))
}

type Found<T> = Option<anyhow::Result<T>>;

fn check_event<T: DeserializeOwned>(event: &mut Vec<&str>, id: u64) -> anyhow::Result<Found<T>> {
    let found = match event.as_slice() {
        [] => None,
        [single] => try_message(single, id)?,
        lines => try_message(&lines.join("\n"), id)?,
    };
    event.clear();
    Ok(found)
}

/// One JSON-RPC message (or batch) with its result left unparsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
}

impl Envelope<'_> {
    fn resolve<T: DeserializeOwned>(self, id: u64) -> Found<T> {
        if self.id.as_ref().and_then(Value::as_u64) != Some(id) {
            return None;
        }
        if let Some(error) = self.error {
            return Some(Err(RpcError(error).into()));
        }
        Some(match self.result {
            Some(raw) => serde_json::from_str(raw.get()).context("unexpected result shape"),
            None => Err(anyhow!("response {id} has neither result nor error")),
        })
    }
}

fn try_message<T: DeserializeOwned>(json: &str, id: u64) -> anyhow::Result<Found<T>> {
    let json = json.trim();
    if json.is_empty() {
        return Ok(None);
    }
    if json.starts_with('[') {
        let batch: Vec<Envelope<'_>> = serde_json::from_str(json).context("bad JSON-RPC batch")?;
        return Ok(batch.into_iter().find_map(|e| e.resolve(id)));
    }
    let envelope: Envelope<'_> = serde_json::from_str(json)
        .with_context(|| format!("bad JSON-RPC message: {}", truncate(json)))?;
    Ok(envelope.resolve(id))
}

pub fn truncate(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_response_in_sse_after_a_priming_event() {
        let body = b"data: \nid: 0\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":1}}\n\n";
        assert_eq!(find_response(body, 7).unwrap(), json!({"ok": 1}));
    }

    #[test]
    fn finds_the_response_in_json_and_reports_errors() {
        let body = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}"#;
        let err = find_response(body, 3).unwrap_err();
        assert!(err.downcast_ref::<RpcError>().is_some());
        assert!(find_response(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, 3).is_err());
    }

    #[test]
    fn parses_loopback_urls() {
        let t = Target::parse(
            "http://127.0.0.1:8080/servers/a/mcp",
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(t.path, "/servers/a/mcp");
        assert_eq!(t.addr.port(), 8080);
        assert!(Target::parse("https://x/mcp", Duration::from_secs(1)).is_err());
    }
}
