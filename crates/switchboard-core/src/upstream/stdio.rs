//! The pipes of a stdio server: the hub's transport around the child process
//! and the reader of its stderr, built so that one misbehaving server cannot
//! hurt the hub.
//!
//! rmcp frames the protocol ([`AsyncRwTransport`]: one JSON message a line,
//! lines over [`MAX_MESSAGE_BYTES`] dropped); this module wraps the pipes
//! under it:
//! - [`ServerStdout`] watches line lengths as they pass. When rmcp drops a
//!   line over the cap and that line was an answer, the reader puts a JSON-RPC
//!   error with the answer's id right after it, so the caller learns that the
//!   answer was too large instead of waiting for a timeout. Only the first
//!   [`HEAD_BYTES`] and last [`TAIL_BYTES`] of a line are kept to find the id.
//! - [`ServerStdin`] fails a write that makes no progress for the stall limit
//!   (the server's call timeout) and marks the stdin stuck in
//!   [`StdioHealth`]; the upstream then fails the call, marks the server
//!   failed and starts a new process on next use. Every later write fails at
//!   once, so nothing queues behind a stuck one.
//! - [`read_stderr`] reads stderr as bytes until EOF, decodes each line
//!   lossily and splits lines longer than [`STDERR_LINE_BYTES`].
//!
//! Invariant: apart from rmcp's line buffer (at most [`MAX_MESSAGE_BYTES`]),
//! nothing here holds more than a few KiB per server.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use crate::config::ServerId;

/// The largest message a stdio server may send (one line), as rmcp's default.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Stderr lines longer than this are split into pieces of at most this size.
pub const STDERR_LINE_BYTES: usize = 8 * 1024;
/// How much of the start of each line is kept, to find an oversized answer's id.
const HEAD_BYTES: usize = 1024;
/// How much of the end of a long line is kept (the id may come last).
const TAIL_BYTES: usize = 256;
/// How long closing the transport waits for the process to exit (the
/// upstream's monitor sends SIGTERM and SIGKILL meanwhile).
const EXIT_WAIT: Duration = Duration::from_secs(6);
/// The key in an injected error's `data` that marks an answer dropped for its size.
const TOO_LARGE_MARKER: &str = "switchboard/answerTooLarge";

/// What the pipes of one server process have noticed.
#[derive(Debug)]
pub(crate) struct StdioHealth {
    /// Cancelled once a write to stdin made no progress for `stall_limit`.
    stuck: CancellationToken,
    stall_limit: Duration,
    /// Set by whoever reports the stuck stdin first, so it is counted once.
    reported: AtomicBool,
    /// The last message dropped for its size: when, and how many bytes.
    dropped: Mutex<Option<(Instant, u64)>>,
}

impl StdioHealth {
    pub(crate) fn new(stall_limit: Duration) -> Arc<Self> {
        Arc::new(Self {
            stuck: CancellationToken::new(),
            stall_limit,
            reported: AtomicBool::new(false),
            dropped: Mutex::new(None),
        })
    }

    pub(crate) fn is_stuck(&self) -> bool {
        self.stuck.is_cancelled()
    }

    /// Completes once stdin is stuck.
    pub(crate) async fn stuck(&self) {
        self.stuck.cancelled().await;
    }

    /// How long a write may make no progress before stdin counts as stuck.
    pub(crate) fn stall_limit(&self) -> Duration {
        self.stall_limit
    }

    /// True the first time it is called after stdin got stuck.
    pub(crate) fn take_stuck_report(&self) -> bool {
        self.is_stuck() && !self.reported.swap(true, Ordering::SeqCst)
    }

    fn note_dropped(&self, bytes: u64) {
        if let Ok(mut dropped) = self.dropped.lock() {
            *dropped = Some((Instant::now(), bytes));
        }
    }

    /// The size of a message dropped for its size at or after `since`.
    pub(crate) fn dropped_since(&self, since: Instant) -> Option<u64> {
        self.dropped
            .lock()
            .ok()
            .and_then(|d| *d)
            .filter(|(at, _)| *at >= since)
            .map(|(_, bytes)| bytes)
    }
}

/// The size of an answer that was dropped for being too large, if `error` is
/// the error this module put in its place.
pub(crate) fn too_large_answer(error: &rmcp::model::ErrorData) -> Option<u64> {
    error
        .data
        .as_ref()?
        .get(TOO_LARGE_MARKER)?
        .get("bytes")?
        .as_u64()
}

/// A spawned server: its transport, stderr, pid and health.
pub(crate) struct Spawned {
    pub(crate) transport: StdioTransport,
    pub(crate) stderr: Option<ChildStderr>,
    pub(crate) pid: Option<u32>,
    pub(crate) health: Arc<StdioHealth>,
}

/// Spawns `command` with piped stdio; writes to its stdin that make no
/// progress for `stall_limit` mark it stuck.
pub(crate) fn spawn(
    server: &ServerId,
    mut command: CommandWrap,
    stall_limit: Duration,
) -> io::Result<Spawned> {
    command
        .command_mut()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let stdin = child
        .stdin()
        .take()
        .ok_or_else(|| io::Error::other("no stdin pipe"))?;
    let stdout = child
        .stdout()
        .take()
        .ok_or_else(|| io::Error::other("no stdout pipe"))?;
    let stderr = child.stderr().take();
    let pid = child.id();
    let health = StdioHealth::new(stall_limit);
    let io = AsyncRwTransport::new_client(
        ServerStdout::new(stdout, server.clone(), health.clone()),
        ServerStdin::new(stdin, health.clone()),
    )
    .with_max_line_length(MAX_MESSAGE_BYTES);
    Ok(Spawned {
        transport: StdioTransport {
            child: Some(child),
            io,
        },
        stderr,
        pid,
        health,
    })
}

/// rmcp's line transport over the guarded pipes, owning the child process.
pub(crate) struct StdioTransport {
    child: Option<Box<dyn ChildWrapper>>,
    io: AsyncRwTransport<RoleClient, ServerStdout, ServerStdin>,
}

impl Transport<RoleClient> for StdioTransport {
    type Error = io::Error;

    // rmcp puts the name in error messages people read: no Rust type names.
    fn name() -> std::borrow::Cow<'static, str> {
        "stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.io.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.io.receive()
    }

    /// Closes stdin, then waits (bounded) for the process to exit.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.io.close().await?;
        if let Some(child) = self.child.as_mut()
            && let Ok(Ok(_)) = tokio::time::timeout(EXIT_WAIT, child.wait()).await
        {
            self.child = None;
        }
        Ok(())
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // The process (group) is killed; tokio reaps a dropped child.
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
        }
    }
}

/// The server's stdin: a write that makes no progress for the stall limit
/// fails and marks stdin stuck; after that every write fails at once.
pub(crate) struct ServerStdin {
    inner: ChildStdin,
    health: Arc<StdioHealth>,
    /// Running while the pipe is full; reset by any progress.
    stall: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl ServerStdin {
    fn new(inner: ChildStdin, health: Arc<StdioHealth>) -> Self {
        Self {
            inner,
            health,
            stall: None,
        }
    }

    fn guarded<T>(
        &mut self,
        cx: &mut Context<'_>,
        op: impl FnOnce(Pin<&mut ChildStdin>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if self.health.is_stuck() {
            return Poll::Ready(Err(stuck_error()));
        }
        match op(Pin::new(&mut self.inner), cx) {
            Poll::Ready(result) => {
                self.stall = None;
                Poll::Ready(result)
            }
            Poll::Pending => {
                let limit = self.health.stall_limit;
                let stall = self
                    .stall
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                ready!(stall.as_mut().poll(cx));
                self.stall = None;
                self.health.stuck.cancel();
                Poll::Ready(Err(stuck_error()))
            }
        }
    }
}

fn stuck_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the server stopped reading its stdin",
    )
}

impl AsyncWrite for ServerStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().guarded(cx, |w, cx| w.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().guarded(cx, |w, cx| w.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The server's stdout, passed through to rmcp unchanged, except that after a
/// line over the cap that was an answer it adds an error line for that answer.
pub(crate) struct ServerStdout {
    inner: ChildStdout,
    server: ServerId,
    health: Arc<StdioHealth>,
    limit: usize,
    /// Bytes of the current line so far.
    line_len: usize,
    /// The first [`HEAD_BYTES`] of the current line.
    head: Vec<u8>,
    /// The last [`TAIL_BYTES`] (or a little more) of a long current line.
    tail: Vec<u8>,
    /// An error line to deliver next, and how much of it was delivered.
    inject: Vec<u8>,
    inject_at: usize,
    /// Bytes read past the end of an oversized line, delivered after `inject`.
    held: Vec<u8>,
    held_at: usize,
}

impl ServerStdout {
    fn new(inner: ChildStdout, server: ServerId, health: Arc<StdioHealth>) -> Self {
        Self {
            inner,
            server,
            health,
            limit: MAX_MESSAGE_BYTES,
            line_len: 0,
            head: Vec::with_capacity(HEAD_BYTES),
            tail: Vec::new(),
            inject: Vec::new(),
            inject_at: 0,
            held: Vec::new(),
            held_at: 0,
        }
    }

    /// Follows lines through `bytes`; returns how many bytes to deliver now:
    /// all of them, or fewer when an oversized answer ends inside them (its
    /// error line must come right after it).
    fn track(&mut self, bytes: &[u8]) -> usize {
        let mut pos = 0;
        while pos < bytes.len() {
            let rest = &bytes[pos..];
            let (len, ends_line) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (rest.len(), false),
            };
            let segment = &rest[..len];
            if self.head.len() < HEAD_BYTES {
                let take = (HEAD_BYTES - self.head.len()).min(len);
                self.head.extend_from_slice(&segment[..take]);
            }
            self.line_len = self.line_len.saturating_add(len);
            if self.line_len > HEAD_BYTES {
                keep_tail(&mut self.tail, segment);
            }
            pos += len;
            if ends_line {
                let total = std::mem::take(&mut self.line_len);
                if total > self.limit {
                    self.oversized(total);
                }
                self.head.clear();
                self.tail.clear();
                if !self.inject.is_empty() {
                    return pos;
                }
            }
        }
        pos
    }

    /// A line of `total` bytes went over the cap (rmcp drops it).
    fn oversized(&mut self, total: usize) {
        tracing::warn!(
            server = %self.server,
            bytes = total,
            limit = self.limit,
            "the server sent a message larger than the limit; it was dropped"
        );
        self.health.note_dropped(total as u64);
        if let Some(id) = answer_id(&self.head, &self.tail) {
            let line = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {
                    "code": rmcp::model::ErrorCode::INTERNAL_ERROR.0,
                    "message": format!(
                        "the answer ({total} bytes) is larger than the limit of {} bytes",
                        self.limit
                    ),
                    "data": {TOO_LARGE_MARKER: {"bytes": total, "limit": self.limit}},
                },
            });
            if let Ok(mut bytes) = serde_json::to_vec(&line) {
                bytes.push(b'\n');
                self.inject = bytes;
                self.inject_at = 0;
            }
        }
    }
}

/// Appends `segment` to `tail`, keeping about the last [`TAIL_BYTES`].
fn keep_tail(tail: &mut Vec<u8>, segment: &[u8]) {
    if segment.len() >= TAIL_BYTES {
        tail.clear();
        tail.extend_from_slice(&segment[segment.len() - TAIL_BYTES..]);
    } else {
        tail.extend_from_slice(segment);
        if tail.len() > 2 * TAIL_BYTES {
            tail.drain(..tail.len() - TAIL_BYTES);
        }
    }
}

impl AsyncRead for ServerStdout {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if out.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        if this.inject_at < this.inject.len() {
            let n = (this.inject.len() - this.inject_at).min(out.remaining());
            out.put_slice(&this.inject[this.inject_at..this.inject_at + n]);
            this.inject_at += n;
            if this.inject_at == this.inject.len() {
                this.inject.clear();
                this.inject_at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        if this.held_at < this.held.len() {
            let held = std::mem::take(&mut this.held);
            let n = (held.len() - this.held_at).min(out.remaining());
            let slice = &held[this.held_at..this.held_at + n];
            let deliver = this.track(slice);
            out.put_slice(&slice[..deliver]);
            this.held_at += deliver;
            if this.held_at < held.len() {
                this.held = held;
            } else {
                this.held_at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        let before = out.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, out))?;
        let deliver = this.track(&out.filled()[before..]);
        let end = before + deliver;
        if end < out.filled().len() {
            this.held = out.filled()[end..].to_vec();
            this.held_at = 0;
            out.set_filled(end);
        }
        Poll::Ready(Ok(()))
    }
}

/// The id of the JSON-RPC answer a line starts with (`head`) or, for servers
/// that write the id last, ends with (`tail`). `None` for requests and
/// notifications (they have a `method`) and when no id can be found.
fn answer_id(head: &[u8], tail: &[u8]) -> Option<Value> {
    let scan = scan_top_level(head);
    if scan.method || !scan.answer {
        return None;
    }
    let raw = match scan.id {
        Some(id) if !id.is_empty() => id,
        _ => trailing_id(tail)?,
    };
    match serde_json::from_slice::<Value>(&raw).ok()? {
        id @ (Value::Number(_) | Value::String(_)) => Some(id),
        _ => None,
    }
}

/// What the start of a JSON object says at its top level.
#[derive(Debug, Default, PartialEq)]
struct TopLevel {
    /// The raw text of the `id` value, if it was complete in the bytes seen.
    id: Option<Vec<u8>>,
    /// A `result` or `error` key was seen.
    answer: bool,
    /// A `method` key was seen.
    method: bool,
}

/// Scans the start of a JSON object for its top-level keys (a prefix is fine:
/// what is not seen is not reported).
fn scan_top_level(bytes: &[u8]) -> TopLevel {
    let mut found = TopLevel::default();
    let mut depth = 0u32;
    let (mut in_string, mut escaped) = (false, false);
    let mut expecting_key = false;
    let mut key: Option<Vec<u8>> = None;
    let mut last_key: Vec<u8> = Vec::new();
    let mut id_value: Option<Vec<u8>> = None;
    for &b in bytes {
        if in_string {
            if let Some(value) = id_value.as_mut() {
                value.push(b);
            }
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if let Some(k) = key.take() {
                    match k.as_slice() {
                        b"result" | b"error" => found.answer = true,
                        b"method" => found.method = true,
                        _ => {}
                    }
                    last_key = k;
                }
                continue;
            }
            if let Some(k) = key.as_mut()
                && k.len() < 16
            {
                k.push(b);
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                if depth == 1 && expecting_key {
                    key = Some(Vec::new());
                    expecting_key = false;
                } else if let Some(value) = id_value.as_mut() {
                    value.push(b);
                }
            }
            b'{' | b'[' => {
                depth += 1;
                expecting_key = depth == 1 && b == b'{';
                if let Some(value) = id_value.as_mut() {
                    value.push(b);
                }
            }
            b'}' | b']' => {
                if depth == 1
                    && let Some(value) = id_value.take()
                {
                    found.id = Some(value);
                }
                depth = depth.saturating_sub(1);
                if let Some(value) = id_value.as_mut() {
                    value.push(b);
                }
            }
            b':' if depth == 1 => {
                if last_key == b"id" {
                    id_value = Some(Vec::new());
                }
            }
            b',' if depth == 1 => {
                if let Some(value) = id_value.take() {
                    found.id = Some(value);
                }
                expecting_key = true;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => {
                if let Some(value) = id_value.as_mut() {
                    value.push(b);
                }
            }
        }
    }
    found
}

/// The `id` among the last simple members of a JSON object (`...,"id":3}` or
/// `...,"id":3,"jsonrpc":"2.0"}`), read backwards from its closing brace.
fn trailing_id(tail: &[u8]) -> Option<Vec<u8>> {
    let mut rest = trim_end(tail).strip_suffix(b"}")?;
    for _ in 0..4 {
        rest = trim_end(rest);
        // The value: a string or a number.
        let value_start = if rest.last() == Some(&b'"') {
            string_start(&rest[..rest.len() - 1])?
        } else {
            let digits = rest
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
                .count();
            if digits == 0 {
                return None;
            }
            rest.len() - digits
        };
        let value = &rest[value_start..];
        rest = trim_end(&rest[..value_start]).strip_suffix(b":")?;
        rest = trim_end(rest);
        let key_start = string_start(rest.strip_suffix(b"\"")?)?;
        let key = &rest[key_start..];
        if key == b"\"id\"" {
            return Some(value.to_vec());
        }
        rest = trim_end(&rest[..key_start]).strip_suffix(b",")?;
    }
    None
}

/// Where the JSON string ending just before `before_quote` (whose closing
/// quote was stripped) starts, at its opening quote.
fn string_start(before_quote: &[u8]) -> Option<usize> {
    let mut i = before_quote.len();
    while i > 0 {
        i -= 1;
        if before_quote[i] == b'"' {
            let backslashes = before_quote[..i]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

/// Reads a server's stderr until EOF, handing each line to `emit`: decoded
/// lossily (bytes that are not UTF-8 become U+FFFD), without its line ending,
/// and split into pieces of at most [`STDERR_LINE_BYTES`].
pub(crate) async fn read_stderr(stderr: ChildStderr, mut emit: impl FnMut(String)) {
    let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, stderr);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let available = match reader.fill_buf().await {
            Ok([]) => break,
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                tracing::debug!(%err, "stderr read failed");
                break;
            }
        };
        let room = STDERR_LINE_BYTES - line.len();
        let window = &available[..available.len().min(room)];
        let consumed = match window.iter().position(|&b| b == b'\n') {
            Some(i) => {
                line.extend_from_slice(&window[..i]);
                emit(decode(&line));
                line.clear();
                i + 1
            }
            None => {
                line.extend_from_slice(window);
                if line.len() >= STDERR_LINE_BYTES {
                    let cut = utf8_cut(&line);
                    emit(decode(&line[..cut]));
                    line.drain(..cut);
                }
                window.len()
            }
        };
        reader.consume(consumed);
    }
    if !line.is_empty() {
        emit(decode(&line));
    }
}

fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Where to cut `bytes` so that no UTF-8 character is split: before a
/// character whose bytes are not all there, else at the end.
fn utf8_cut(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let i = len - back;
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let width = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < width && i > 0 { i } else { len };
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_id_of_an_answer_at_either_end() {
        let head = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(answer_id(head, b""), Some(json!(7)));
        let head = br#"{"id":"a\"b","jsonrpc":"2.0","result":{"#;
        assert_eq!(answer_id(head, b""), Some(json!("a\"b")));
        // TypeScript servers write the result first and the id last.
        let head = br#"{"result":{"content":[{"type":"text","text":"xx"#;
        let tail = br#"xxx"}],"id":5}},"jsonrpc":"2.0","id":12}"#;
        assert_eq!(answer_id(head, tail), Some(json!(12)));
        let tail = br#"xxx"}]},"id":"r-1" , "jsonrpc":"2.0" }"#;
        assert_eq!(answer_id(head, tail), Some(json!("r-1")));
    }

    #[test]
    fn no_id_for_requests_nested_ids_or_unknown_shapes() {
        let head = br#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"x":"#;
        assert_eq!(answer_id(head, b""), None);
        // An `id` inside the result is not the answer's id.
        let head = br#"{"result":{"id":9,"content":[{"text":"xx"#;
        let tail = br#"xx"}],"meta":{"id":4}}}"#;
        assert_eq!(answer_id(head, tail), None);
        assert_eq!(answer_id(b"xxxxxxxx", b"xxxx"), None);
    }

    #[test]
    fn stderr_cut_never_splits_a_character() {
        let text = "aé€😀";
        let bytes = text.as_bytes();
        for end in 1..=bytes.len() {
            let cut = utf8_cut(&bytes[..end]);
            assert!(
                std::str::from_utf8(&bytes[..cut]).is_ok(),
                "cut {cut} of {end}"
            );
            assert!(cut > 0);
        }
    }

    #[tokio::test]
    async fn tracks_lines_and_injects_after_an_oversized_answer() {
        let (health, server) = (
            StdioHealth::new(Duration::from_secs(1)),
            ServerId::new("big").unwrap(),
        );
        // A stdout we never read from: only `track` is exercised here.
        let mut child = tokio::process::Command::new("true")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut reader = ServerStdout::new(stdout, server, health.clone());
        reader.limit = 64;
        let small = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
        assert_eq!(reader.track(small), small.len());
        assert!(reader.inject.is_empty());
        let mut big = br#"{"jsonrpc":"2.0","id":2,"result":{"text":""#.to_vec();
        big.extend(std::iter::repeat_n(b'x', 200));
        big.extend_from_slice(b"\"}}\n{\"next\":1}\n");
        let delivered = reader.track(&big);
        assert_eq!(&big[delivered..], b"{\"next\":1}\n");
        let injected: Value = serde_json::from_slice(&reader.inject).unwrap();
        assert_eq!(injected["id"], json!(2));
        let error: rmcp::model::ErrorData =
            serde_json::from_value(injected["error"].clone()).unwrap();
        assert_eq!(too_large_answer(&error), Some(delivered as u64));
        assert!(
            health
                .dropped_since(Instant::now() - Duration::from_secs(5))
                .is_some()
        );
        let _ = child.wait().await;
    }
}
