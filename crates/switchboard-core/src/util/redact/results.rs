//! Credentials in tool results (`settings.resultSecrets`, a server's own
//! `resultSecrets`; see `docs/security.md`): well-known credential formats
//! found in a result's text content and structured content are replaced by
//! `[redacted <kind>]` before any client sees them (`redact`), or only
//! reported (`warn`). What was found is named by kind only; the value is
//! never kept, logged or returned.
//!
//! Kinds: `aws-access-key` (`AKIA`/`ASIA` + 16), `github-token` (`ghp_`,
//! `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more; `github_pat_` + 22 or more),
//! `slack-token` (`xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxr-`, `xoxs-`),
//! `anthropic-key` (`sk-ant-`…), `openai-key` (other `sk-`… of 20 or more),
//! `private-key` (a `-----BEGIN … PRIVATE KEY-----` block), `jwt`
//! (`eyJ…​.eyJ…​.…`) and `url-password` (the password of `scheme://user:pw@`).
//! Each match must start at a word boundary.
//!
//! Cost: text without any of the markers (`AKIA`, `ASIA`, `gh?_`,
//! `github_pat_`, `xox`, `sk-`, `-----BEGIN`, `eyJ`, `://`) is passed over in
//! one scan of its bytes and nothing is allocated ([`might_hold_secret`]).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// What a result's secrets became.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The kinds found, each once, in the order first found.
    pub(crate) kinds: Vec<&'static str>,
}

impl Found {
    fn note(&mut self, kind: &'static str) {
        if !self.kinds.contains(&kind) {
            self.kinds.push(kind);
        }
    }
}

/// Scans `result`; with `replace`, every secret found is replaced by
/// `[redacted <kind>]` in place. Returns the kinds found.
pub(crate) fn scan_result(result: &mut CallToolResult, replace: bool) -> Found {
    let mut found = Found::default();
    for block in &mut result.content {
        if let ContentBlock::Text(text) = block {
            scan_text(&mut text.text, replace, &mut found);
        }
    }
    if let Some(value) = &mut result.structured_content {
        scan_value(value, replace, &mut found);
    }
    found
}

fn scan_value(value: &mut Value, replace: bool, found: &mut Found) {
    match value {
        Value::String(text) => scan_text(text, replace, found),
        Value::Array(items) => items.iter_mut().for_each(|v| scan_value(v, replace, found)),
        Value::Object(map) => map.values_mut().for_each(|v| scan_value(v, replace, found)),
        _ => {}
    }
}

fn scan_text(text: &mut String, replace: bool, found: &mut Found) {
    if !might_hold_secret(text) {
        return;
    }
    let (redacted, kinds) = redact_text(text);
    for kind in kinds {
        found.note(kind);
    }
    if replace && let Some(redacted) = redacted {
        *text = redacted;
    }
}

/// Whether `text` has any marker a secret starts with: one pass over its
/// bytes, no allocation.
pub(crate) fn might_hold_secret(text: &str) -> bool {
    let bytes = text.as_bytes();
    let at = |i: usize, marker: &[u8]| bytes.get(i..i + marker.len()) == Some(marker);
    bytes.iter().enumerate().any(|(i, b)| match b {
        b'A' => at(i, b"AKIA") || at(i, b"ASIA"),
        b'g' => (at(i, b"gh") && bytes.get(i + 3) == Some(&b'_')) || at(i, b"github_pat_"),
        b'x' => at(i, b"xox"),
        b's' => at(i, b"sk-"),
        b'-' => at(i, b"-----BEGIN"),
        b'e' => at(i, b"eyJ"),
        b':' => at(i, b"://"),
        _ => false,
    })
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The length of the run of bytes from `from` that satisfy `ok`.
fn run(bytes: &[u8], from: usize, ok: impl Fn(u8) -> bool) -> usize {
    bytes[from.min(bytes.len())..]
        .iter()
        .take_while(|b| ok(**b))
        .count()
}

/// A secret at byte `i` (a word boundary): its kind and byte range to replace.
fn secret_at(text: &str, i: usize) -> Option<(&'static str, usize, usize)> {
    let bytes = text.as_bytes();
    let rest = &text[i..];
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let upper_digit = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit();
    let token = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    if (rest.starts_with("AKIA") || rest.starts_with("ASIA"))
        && run(bytes, i + 4, upper_digit) == 16
    {
        return Some(("aws-access-key", i, i + 20));
    }
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        if rest.starts_with(prefix) {
            let n = run(bytes, i + 4, alnum);
            return (n >= 36).then_some(("github-token", i, i + 4 + n));
        }
    }
    if rest.starts_with("github_pat_") {
        let n = run(bytes, i + 11, |b| alnum(b) || b == b'_');
        return (n >= 22).then_some(("github-token", i, i + 11 + n));
    }
    if rest.starts_with("xox")
        && matches!(
            bytes.get(i + 3),
            Some(b'a' | b'b' | b'p' | b'o' | b'r' | b's')
        )
        && bytes.get(i + 4) == Some(&b'-')
    {
        let n = run(bytes, i + 5, |b| alnum(b) || b == b'-');
        return (n >= 10).then_some(("slack-token", i, i + 5 + n));
    }
    if rest.starts_with("sk-") {
        let n = run(bytes, i + 3, token);
        let kind = if rest.starts_with("sk-ant-") {
            "anthropic-key"
        } else {
            "openai-key"
        };
        return (n >= 20).then_some((kind, i, i + 3 + n));
    }
    if rest.starts_with("-----BEGIN ") {
        let head_end = rest.find("-----\n").or_else(|| rest.find("-----\r\n"))?;
        if !rest[..head_end].ends_with("PRIVATE KEY") {
            return None;
        }
        let end_marker = rest.find("-----END ")?;
        let close = rest[end_marker + 9..].find("-----")? + end_marker + 9 + 5;
        return Some(("private-key", i, i + close));
    }
    if rest.starts_with("eyJ") {
        let first = run(bytes, i, token);
        let second_at = i + first + 1;
        if bytes.get(i + first) == Some(&b'.') && text[second_at..].starts_with("eyJ") {
            let second = run(bytes, second_at, token);
            let third_at = second_at + second + 1;
            if bytes.get(second_at + second) == Some(&b'.') {
                let third = run(bytes, third_at, token);
                if first >= 10 && second >= 10 && third >= 10 {
                    return Some(("jwt", i, third_at + third));
                }
            }
        }
        return None;
    }
    None
}

/// The password of a `scheme://user:password@host` at byte `i` (`://`):
/// the byte range of the password.
fn url_password_at(text: &str, i: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let scheme = bytes[..i]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    if scheme == 0 {
        return None;
    }
    let start = i + 3;
    let authority = run(bytes, start, |b| {
        !matches!(
            b,
            b'/' | b'?' | b'#' | b' ' | b'"' | b'\'' | b'\n' | b'\r' | b'\t' | b'<' | b'>'
        )
    });
    let userinfo = text[start..start + authority].rfind('@')?;
    let colon = text[start..start + userinfo].find(':')?;
    let (from, to) = (start + colon + 1, start + userinfo);
    (to > from).then_some((from, to))
}

/// `text` with every secret replaced (`None` when nothing was), and the
/// kinds found.
pub(crate) fn redact_text(text: &str) -> (Option<String>, Vec<&'static str>) {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut kinds = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !is_word(bytes[i - 1]);
        let hit = if bytes[i] == b':' {
            url_password_at(text, i).map(|(from, to)| ("url-password", from, to))
        } else if boundary && text.is_char_boundary(i) {
            secret_at(text, i)
        } else {
            None
        };
        match hit {
            Some((kind, from, to)) => {
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[copied..from]);
                out.push_str("[redacted ");
                out.push_str(kind);
                out.push(']');
                kinds.push(kind);
                copied = to;
                i = to.max(i + 1);
            }
            None => i += 1,
        }
    }
    if let Some(out) = &mut out {
        out.push_str(&text[copied..]);
    }
    (out, kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn redacted(text: &str) -> String {
        redact_text(text).0.unwrap_or_else(|| text.to_string())
    }

    #[test]
    fn each_kind_is_replaced_by_its_name() {
        let cases = [
            (
                "key AKIAIOSFODNN7EXAMPLE ok",
                "key [redacted aws-access-key] ok",
            ),
            (
                "ghp_0123456789abcdefghijABCDEFGHIJ012345",
                "[redacted github-token]",
            ),
            (
                "t=github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
                "t=[redacted github-token]",
            ),
            ("xoxb-1234567890-abcdefABCDEF", "[redacted slack-token]"),
            ("sk-proj-abcdefghijklmnopqrstuvwx", "[redacted openai-key]"),
            (
                "\"sk-ant-api03-abcdefghijklmnopqrstuvwxyz\"",
                "\"[redacted anthropic-key]\"",
            ),
            (
                "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----\nz",
                "a\n[redacted private-key]\nz",
            ),
            (
                "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "Bearer [redacted jwt]",
            ),
            (
                "postgres://app:hunter2@db.internal:5432/x",
                "postgres://app:[redacted url-password]@db.internal:5432/x",
            ),
        ];
        for (text, expected) in cases {
            assert!(might_hold_secret(text), "{text}");
            assert_eq!(redacted(text), expected);
        }
    }

    /// The pre-filter's cost on an ordinary result, measured rather than
    /// asserted: `cargo test -p switchboard-core --lib result_scan_cost --
    /// --ignored --nocapture` (figures in `docs/benchmarks.md`).
    #[test]
    #[ignore = "a measurement, not a test"]
    fn result_scan_cost() {
        let text = "The weather in Lisbon is sunny, 24 degrees, light wind from the north. \
                    Tomorrow: clouds in the morning, right after noon some rain. "
            .repeat(8);
        let mut result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"city": "Lisbon", "forecast": [{"day": 1, "sky": "sunny"}]}
        }))
        .unwrap();
        const N: u32 = 100_000;
        let started = std::time::Instant::now();
        for _ in 0..N {
            assert!(scan_result(&mut result, true).kinds.is_empty());
        }
        println!(
            "result scan, {} bytes of text without secrets: {:?} per result",
            text.len(),
            started.elapsed() / N
        );
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "AKIA is a prefix; AKIASHORT",
            "ghp_short, task-manager, risk-free",
            "xoxo hugs",
            "https://example.com/path?q=1 and mailto:me@example.com",
            "http://user@host/ has no password",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "eyJhbGciOiJIUzI1NiJ9 alone",
            "desk-0123456789abcdefghijklmnop",
        ] {
            assert_eq!(redacted(text), text, "{text}");
        }
        assert!(!might_hold_secret(
            "plain words, numbers 123 and a path /tmp/x"
        ));
    }

    #[test]
    fn a_result_is_redacted_in_text_and_structured_content_or_only_reported() {
        let result = || -> CallToolResult {
            serde_json::from_value(json!({
                "content": [{"type": "text", "text": "AKIAIOSFODNN7EXAMPLE"}],
                "structuredContent": {"env": ["x", {"k": "xoxp-1234567890-abcdef"}]}
            }))
            .unwrap()
        };
        let mut redact = result();
        let found = scan_result(&mut redact, true);
        assert_eq!(found.kinds, ["aws-access-key", "slack-token"]);
        assert_eq!(
            serde_json::to_value(&redact).unwrap()["structuredContent"],
            json!({"env": ["x", {"k": "[redacted slack-token]"}]})
        );
        assert_eq!(
            redact.content[0].as_text().unwrap().text,
            "[redacted aws-access-key]"
        );
        let mut warn = result();
        assert_eq!(scan_result(&mut warn, false).kinds.len(), 2);
        assert_eq!(warn, result());
    }
}
