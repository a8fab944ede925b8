//! Misbehaviours of a stdio server, for the hub's fault tests
//! (`tests/tests/suite/faults_stdio.rs`).
//!
//! - `--stderr-invalid-utf8`: a stderr line with bytes that are not UTF-8,
//!   then `stderr tick N` every 50 ms, so a test sees whether the hub keeps
//!   reading stderr after it;
//! - `--stderr-flood-bytes N`: N bytes of stderr without a newline, then
//!   `flood done`;
//! - `--ignore-stdin-eof`: the process keeps running after stdin closes;
//! - the `deaf` tool behaviour ([`go_deaf`]): after answering, the server
//!   never reads stdin again, so a large enough request fills the pipe.
//!
//! The stderr writers run on their own threads and stop at the first failed
//! write (the hub closed the pipe).

use std::io::Write as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, ReadBuf};

/// The line with invalid UTF-8 that `--stderr-invalid-utf8` writes first.
pub const INVALID_UTF8_LINE: &[u8] = b"invalid utf-8 here: \xff\xfe end\n";

/// Starts writing the invalid line, then a numbered tick every 50 ms.
pub fn stderr_invalid_utf8() {
    std::thread::spawn(|| {
        let mut stderr = std::io::stderr();
        if stderr.write_all(INVALID_UTF8_LINE).is_err() {
            return;
        }
        for n in 1..=100_000u64 {
            std::thread::sleep(Duration::from_millis(50));
            if writeln!(stderr, "stderr tick {n}").is_err() {
                return;
            }
        }
    });
}

/// Starts writing `bytes` bytes of `x` with no newline, then `\nflood done\n`.
pub fn stderr_flood(bytes: u64) {
    std::thread::spawn(move || {
        let chunk = vec![b'x'; 64 * 1024];
        let mut stderr = std::io::stderr();
        let mut left = bytes;
        while left > 0 {
            let n = usize::try_from(left.min(chunk.len() as u64)).unwrap_or(chunk.len());
            if stderr.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n as u64;
        }
        let _ = stderr.write_all(b"\nflood done\n");
    });
}

/// Set by the `deaf` behaviour: stdin is never read again.
static DEAF: AtomicBool = AtomicBool::new(false);

/// Stops reading stdin from now on (the `deaf` tool behaviour).
pub fn go_deaf() {
    crate::stderr_line(format_args!("fixture stops reading stdin"));
    DEAF.store(true, Ordering::SeqCst);
}

/// Stdin that stops delivering bytes once [`go_deaf`] was called: reads then
/// stay pending for good, and the pipe fills up behind them.
pub struct DeafableStdin<R>(pub R);

impl<R: AsyncRead + Unpin> AsyncRead for DeafableStdin<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if DEAF.load(Ordering::SeqCst) {
            return Poll::Pending;
        }
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

/// Never returns: what a server that ignores EOF on stdin does once its
/// session is over.
pub async fn linger() -> ! {
    crate::stderr_line(format_args!("fixture ignores EOF on stdin"));
    loop {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}
