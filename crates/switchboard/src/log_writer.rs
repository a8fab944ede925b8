//! The writer behind the CLI's log: each log line is redacted
//! ([`switchboard_core::redact_text`]) before it reaches stderr, so a URL
//! with a token or a credential header printed by any library (rmcp, reqwest,
//! the hub) never lands in a terminal or a log file.
//!
//! `tracing_subscriber`'s formatter asks for one writer per event; the writer
//! collects the event's bytes and writes them, redacted, in one call when it
//! is dropped.

use std::io::Write;

use tracing_subscriber::fmt::MakeWriter;

/// Makes [`RedactedLine`] writers for `tracing_subscriber::fmt().with_writer(..)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RedactedStderr;

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = RedactedLine;

    fn make_writer(&'a self) -> Self::Writer {
        RedactedLine(Vec::with_capacity(256))
    }
}

/// One log event's text, written to stderr redacted when dropped.
#[derive(Debug)]
pub struct RedactedLine(Vec<u8>);

impl Write for RedactedLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedLine {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.0);
        let redacted = switchboard_core::redact_text(&text);
        let _ = std::io::stderr().lock().write_all(redacted.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_collected_whole() {
        let mut line = RedactedStderr.make_writer();
        line.write_all(b"error sending request for url (http://h/mcp?token=")
            .unwrap();
        line.write_all(b"abc123)\n").unwrap();
        let text = String::from_utf8_lossy(&line.0).into_owned();
        assert_eq!(
            switchboard_core::redact_text(&text),
            "error sending request for url (http://h/mcp?token=***)\n"
        );
        line.0.clear();
    }
}
