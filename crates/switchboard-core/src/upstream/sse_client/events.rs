//! A bounded parser for `text/event-stream` bodies (the WHATWG server-sent
//! events format), fed with the body's chunks as they arrive.
//!
//! It splits lines on LF, CRLF or CR (also when a CRLF is split between two
//! chunks), skips comments (`:` lines) and a leading byte-order mark, joins
//! multi-line `data:` fields with LF, and dispatches an event on each blank
//! line that has data. `id:` and `retry:` are read and ignored: the legacy
//! transport does not resume streams. One event (its pending line plus its
//! data so far) may not exceed the size given to [`EventParser::new`]; past it
//! the stream is refused, so a server cannot make the hub buffer without end.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event:` field; `message` when the event named none.
    pub(crate) event: String,
    /// The `data:` lines, joined with LF.
    pub(crate) data: String,
}

/// Why a stream cannot be parsed further.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("an event on the stream is larger than {max} bytes")]
    TooLarge { max: usize },
    #[error("the stream is not UTF-8 text")]
    NotUtf8,
}

/// Parser state between chunks.
#[derive(Debug)]
pub(crate) struct EventParser {
    max: usize,
    /// The current line, not yet ended.
    line: Vec<u8>,
    /// The pending event's type (`event:`), empty for the default.
    event: String,
    /// The pending event's data lines, each followed by LF.
    data: String,
    /// The last chunk ended with CR: an LF starting the next one belongs to it.
    after_cr: bool,
    /// Nothing has been read yet (a byte-order mark may come first).
    at_start: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl EventParser {
    /// A parser refusing events larger than `max` bytes.
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            event: String::new(),
            data: String::new(),
            after_cr: false,
            at_start: true,
        }
    }

    /// Reads `bytes`, appending the events they complete to `out`.
    pub(crate) fn feed(
        &mut self,
        mut bytes: &[u8],
        out: &mut Vec<Event>,
    ) -> Result<(), ParseError> {
        if self.at_start && !bytes.is_empty() {
            // The BOM could be split between chunks; only a whole one at the
            // very start is skipped (servers send it in one piece, if at all).
            if let Some(rest) = bytes.strip_prefix(BOM) {
                bytes = rest;
            }
            self.at_start = false;
        }
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match bytes.iter().position(|b| *b == b'\n' || *b == b'\r') {
                Some(end) => {
                    self.take(&bytes[..end])?;
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out)?;
                }
                None => {
                    self.take(bytes)?;
                    bytes = &[];
                }
            }
        }
        Ok(())
    }

    /// Adds part of a line, within the size bound.
    fn take(&mut self, part: &[u8]) -> Result<(), ParseError> {
        if self.line.len() + part.len() + self.data.len() > self.max {
            return Err(ParseError::TooLarge { max: self.max });
        }
        self.line.extend_from_slice(part);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<Event>) -> Result<(), ParseError> {
        if line.is_empty() {
            if !self.data.is_empty() {
                let mut data = std::mem::take(&mut self.data);
                data.pop(); // the LF after the last data line
                let event = match std::mem::take(&mut self.event) {
                    event if event.is_empty() => "message".to_string(),
                    event => event,
                };
                out.push(Event { event, data });
            } else {
                self.event.clear();
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment (keep-alive)
        }
        let line = std::str::from_utf8(line).map_err(|_| ParseError::NotUtf8)?;
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            _ => {} // `id`, `retry` and unknown fields
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn event(event: &str, data: &str) -> Event {
        Event {
            event: event.into(),
            data: data.into(),
        }
    }

    fn parse_chunks(max: usize, chunks: &[&[u8]]) -> Result<Vec<Event>, ParseError> {
        let mut parser = EventParser::new(max);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out)?;
        }
        Ok(out)
    }

    #[test]
    fn endpoint_then_messages() {
        let body = b"event: endpoint\ndata: /messages?sessionId=abc\n\nevent: message\ndata: {\"a\":1}\n\n";
        assert_eq!(
            parse_chunks(1024, &[body]).unwrap(),
            [
                event("endpoint", "/messages?sessionId=abc"),
                event("message", "{\"a\":1}")
            ]
        );
    }

    #[test]
    fn multi_line_data_is_joined_and_the_type_defaults_to_message() {
        let body = b"data: first\ndata:second\ndata\ndata:  two spaces\n\n";
        assert_eq!(
            parse_chunks(1024, &[body]).unwrap(),
            [event("message", "first\nsecond\n\n two spaces")]
        );
    }

    #[test]
    fn comments_ids_retries_and_unknown_fields_are_skipped() {
        let body = b": keep-alive\n\n:\nid: 7\nretry: 1000\nfoo: bar\nevent: message\ndata: x\n\n";
        assert_eq!(
            parse_chunks(1024, &[body]).unwrap(),
            [event("message", "x")]
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched_and_its_type_is_forgotten() {
        let body = b"event: endpoint\n\ndata: y\n\n";
        assert_eq!(
            parse_chunks(1024, &[body]).unwrap(),
            [event("message", "y")]
        );
    }

    #[test]
    fn crlf_and_cr_line_ends_even_split_between_chunks() {
        let crlf: &[&[u8]] = &[b"event: endpoint\r\ndata: /m\r", b"\n\r", b"\ndata: z\r\r"];
        assert_eq!(
            parse_chunks(1024, crlf).unwrap(),
            [event("endpoint", "/m"), event("message", "z")]
        );
    }

    #[test]
    fn events_split_anywhere_between_chunks() {
        let body = b"event: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n";
        for split in 0..body.len() {
            let (a, b) = body.split_at(split);
            assert_eq!(
                parse_chunks(1024, &[a, b]).unwrap(),
                [event("message", "{\"jsonrpc\":\"2.0\"}")],
                "split at {split}"
            );
        }
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        assert_eq!(
            parse_chunks(1024, &[b"\xEF\xBB\xBFdata: a\n\n"]).unwrap(),
            [event("message", "a")]
        );
    }

    #[test]
    fn oversize_events_are_refused_whether_one_line_or_many() {
        let long_line = format!("data: {}\n\n", "x".repeat(100));
        assert_eq!(
            parse_chunks(64, &[long_line.as_bytes()]),
            Err(ParseError::TooLarge { max: 64 })
        );
        // Many short lines that add up, in small chunks: refused before the end.
        let many = "data: 0123456789\n".repeat(10);
        let chunks: Vec<&[u8]> = many.as_bytes().chunks(7).collect();
        assert_eq!(
            parse_chunks(64, &chunks),
            Err(ParseError::TooLarge { max: 64 })
        );
        // Events up to the bound pass, and the bound is per event.
        let fits = "data: 0123456789\n\n".repeat(10);
        assert_eq!(parse_chunks(64, &[fits.as_bytes()]).unwrap().len(), 10);
    }

    #[test]
    fn invalid_utf8_is_refused() {
        assert_eq!(
            parse_chunks(64, &[b"data: \xFF\n\n"]),
            Err(ParseError::NotUtf8)
        );
    }
}
