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
//!   Finding that id in a partial line is `scan.rs`'s job.
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
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use crate::config::ServerId;

mod scan;

use scan::answer_id;

/// The largest message a stdio server may send (one line), as rmcp's default.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Stderr lines longer than this are split into pieces of at most this size.
pub(crate) const STDERR_LINE_BYTES: usize = 8 * 1024;
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
    use serde_json::Value;

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
