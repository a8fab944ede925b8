//! Redaction: the one place that decides what of a URL, a header or a piece
//! of error text may be shown to a person, written to a log or returned to a
//! client.
//!
//! Everything Switchboard prints, logs or answers about a server goes through
//! [`text`] (or [`url`] when the value is known to be one):
//! upstream errors redact in their `Display`, the hub's per-server log and the
//! stderr ring redact each line as it is stored, the snapshot builder redacts
//! `lastError`, auth messages and config errors, and the CLI's log writer
//! redacts every line it writes. What becomes `***`:
//! - the whole userinfo of a URL (`https://user:pass@host` → `https://***@host`);
//! - the value of a query or fragment parameter whose name is a secret name
//!   ([`is_secret_name`]), in a URL and as `name=value` in free text;
//! - the value after `Bearer` / `Basic`, and of `Authorization:`-like header
//!   lines and `"name": "value"` JSON members with a secret name;
//! - every value registered with [`remember`] (the hub registers the secret
//!   values of every configured server: header values of secret headers, env
//!   values of secret-named variables, userinfo and secret query values of
//!   URLs, the values of secret flags and token-looking arguments of a
//!   command line ([`arg_secrets`]), and every value read from the keyring).
//!
//! Invariants: redaction only ever replaces characters by `***`, so applying
//! it twice gives the same text; it never fails and never panics on malformed
//! input (a URL that does not parse is still redacted by its shape).

use std::collections::BTreeSet;
use std::sync::Mutex;

mod args;
pub use args::arg_secrets;

/// What a secret is replaced by.
pub const MASK: &str = "***";

/// Names (lower case) whose values are secrets wherever they appear: query
/// and fragment parameters, `name=value` in text, JSON members, env vars.
pub const SECRET_NAMES: &[&str] = &[
    "token",
    "key",
    "apikey",
    "api_key",
    "api-key",
    "access_token",
    "refresh_token",
    "id_token",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "pass",
    "sig",
    "signature",
    "auth",
    "authorization",
    "code",
    "credential",
    "credentials",
    "sessionid",
    "session_id",
    "jwt",
    "private_key",
    "cookie",
];

/// Endings (lower case) that make any name a secret name, after a separator
/// (`github_token`, `x-api-key`, `aws.secret`) or at a camelCase boundary
/// (`accessToken`, `apiKey`).
pub const SECRET_SUFFIXES: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "signature",
    "sig",
    "credential",
    "credentials",
    "auth",
];

/// Header names (lower case) whose values are never shown, besides every
/// name [`is_secret_name`] accepts (`X-Api-Key`, `X-Auth-Token`, ...).
pub const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Registered values shorter than this are not searched for in text: they
/// would mask ordinary words and numbers.
const MIN_REMEMBERED_LEN: usize = 6;
/// At most this many values are remembered (the oldest are kept: a hub's
/// config rarely has more than a few dozen).
const MAX_REMEMBERED: usize = 4096;

static REMEMBERED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Whether a parameter, variable or field called `name` holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if SECRET_NAMES.contains(&lower.as_str()) {
        return true;
    }
    SECRET_SUFFIXES.iter().any(|suffix| {
        let Some(head) = lower.strip_suffix(suffix) else {
            return false;
        };
        if head.is_empty() {
            return true;
        }
        if head.ends_with(['_', '-', '.']) {
            return true;
        }
        // camelCase: `accessToken`, `apiKey` (not `monkey`).
        let at = head.len();
        let original = name.as_bytes();
        original.get(at).is_some_and(u8::is_ascii_uppercase)
            && original.get(at - 1).is_some_and(u8::is_ascii_lowercase)
    })
}

/// Whether the value of header `name` is a credential.
pub fn is_secret_header(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    SECRET_HEADERS.contains(&lower.as_str()) || is_secret_name(&lower)
}

/// Registers secret values (a configured token, a keyring value) so that
/// [`text`] masks them wherever they show up, e.g. echoed in a server's
/// error answer. Short values are ignored (see [`MIN_REMEMBERED_LEN`]).
pub fn remember<'a>(values: impl IntoIterator<Item = &'a str>) {
    let Ok(mut known) = REMEMBERED.lock() else {
        return;
    };
    for value in values {
        let value = value.trim();
        if value.chars().count() >= MIN_REMEMBERED_LEN
            && known.len() < MAX_REMEMBERED
            && value != MASK
        {
            known.insert(value.to_string());
        }
    }
}

/// The secrets inside a configured value: the whole value when `name` (a
/// header or variable name) is secret or the value looks like a generated
/// credential ([`looks_like_token`]), and the secrets of any URL in it; for
/// `Bearer x` / `Basic x` also `x` alone.
pub fn secrets_in(name: &str, value: &str) -> Vec<String> {
    let mut found = Vec::new();
    if is_secret_header(name) || looks_like_token(value) {
        found.push(value.to_string());
        if let Some((scheme, credential)) = value.trim().split_once(' ')
            && is_auth_scheme(scheme)
        {
            found.push(credential.trim().to_string());
        }
    }
    found.extend(url_secrets(value));
    found
}

/// Whether a value looks like a generated credential whatever its name
/// (`GITHUB_PAT=ghp_...`): at least 16 characters, no spaces or path
/// separators, letters and digits mixed.
pub fn looks_like_token(value: &str) -> bool {
    let v = value.trim();
    v.len() >= 16
        && !v.contains(|c: char| c.is_whitespace() || c == '/' || c == '\\')
        && v.contains(|c: char| c.is_ascii_alphabetic())
        && v.contains(|c: char| c.is_ascii_digit())
}

/// The userinfo parts and secret parameter values of every URL in `text`.
pub fn url_secrets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (start, end) in url_spans(text) {
        let parts = split_url(&text[start..end]);
        if let Some(userinfo) = parts.userinfo {
            found.push(userinfo.to_string());
            if let Some((user, password)) = userinfo.split_once(':') {
                found.push(user.to_string());
                found.push(password.to_string());
            }
        }
        for params in [parts.query, parts.fragment].into_iter().flatten() {
            for pair in params.split(['&', ';']) {
                if let Some((name, value)) = pair.split_once('=')
                    && is_secret_name(&percent_decode(name))
                {
                    found.push(value.to_string());
                    found.push(percent_decode(value));
                }
            }
        }
    }
    found
}

/// A URL as it may be shown: userinfo and secret parameter values masked.
/// Text that is not a URL is returned with [`text`] applied.
pub fn url(value: &str) -> String {
    text(value)
}

/// Free text (an error message, a log line, a server's stderr line) with
/// every secret this module knows how to find masked (see the module docs).
pub fn text(input: &str) -> String {
    if input.is_empty() {
        return String::new();
    }
    let mut out = redact_urls(input);
    out = redact_auth_schemes(&out);
    out = redact_header_lines(&out);
    out = redact_json_members(&out);
    out = redact_pairs(&out);
    redact_remembered(&out)
}

// ---------------------------------------------------------------------------
// URLs

/// The parts of one URL, borrowed from it.
struct UrlParts<'a> {
    /// `scheme://`
    prefix: &'a str,
    userinfo: Option<&'a str>,
    /// Host, port and path.
    rest: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// Splits a URL by its shape (no validation: malformed URLs split too).
fn split_url(url: &str) -> UrlParts<'_> {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let (prefix, tail) = url.split_at(after_scheme);
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (tail, None),
    };
    let (before_query, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let authority_end = before_query.find('/').unwrap_or(before_query.len());
    let authority = &before_query[..authority_end];
    let (userinfo, rest) = match authority.rfind('@') {
        Some(at) => (Some(&before_query[..at]), &before_query[at + 1..]),
        None => (None, before_query),
    };
    UrlParts {
        prefix,
        userinfo,
        rest,
        query,
        fragment,
    }
}

fn redact_one_url(url: &str) -> String {
    let parts = split_url(url);
    let mut out = String::with_capacity(url.len());
    out.push_str(parts.prefix);
    if parts.userinfo.is_some() {
        out.push_str(MASK);
        out.push('@');
    }
    out.push_str(parts.rest);
    if let Some(query) = parts.query {
        out.push('?');
        out.push_str(&redact_params(query));
    }
    if let Some(fragment) = parts.fragment {
        out.push('#');
        out.push_str(&redact_params(fragment));
    }
    out
}

/// `a=1&token=x;b` → `a=1&token=***;b`.
fn redact_params(params: &str) -> String {
    let mut out = String::with_capacity(params.len());
    let mut rest = params;
    loop {
        let end = rest.find(['&', ';']).unwrap_or(rest.len());
        let pair = &rest[..end];
        match pair.split_once('=') {
            Some((name, value)) if is_secret_name(&percent_decode(name)) && !value.is_empty() => {
                out.push_str(name);
                out.push('=');
                out.push_str(MASK);
            }
            _ => out.push_str(pair),
        }
        if end == rest.len() {
            break;
        }
        out.push_str(&rest[end..end + 1]);
        rest = &rest[end + 1..];
    }
    out
}

/// Where URLs (`scheme://...`) are in `text`, as byte ranges.
fn url_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("://") {
        let sep = from + found;
        // The scheme: letters, digits, '+', '-', '.' before "://", starting with a letter.
        let mut start = sep;
        while start > 0 {
            let c = bytes[start - 1];
            if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') {
                start -= 1;
            } else {
                break;
            }
        }
        while start < sep && !bytes[start].is_ascii_alphabetic() {
            start += 1;
        }
        let mut end = sep + 3;
        while end < bytes.len() && !ends_url(bytes[end]) {
            end += 1;
        }
        if start < sep && end > sep + 3 {
            spans.push((start, end));
        }
        from = end.max(sep + 3);
    }
    spans
}

fn ends_url(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'<' | b'>' | b'`' | b')' | b'\\')
}

fn redact_urls(text: &str) -> String {
    let spans = url_spans(text);
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in spans {
        out.push_str(&text[last..start]);
        out.push_str(&redact_one_url(&text[start..end]));
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

// ---------------------------------------------------------------------------
// Free text

fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token", "digest"]
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s))
}

fn is_credential_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '+' | '/' | '=' | '-' | ':')
}

/// `Bearer abc` / `Basic abc` → `Bearer ***` (the scheme word is kept).
fn redact_auth_schemes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((pos, word_len)) = find_scheme_word(rest) {
        let after = pos + word_len;
        out.push_str(&rest[..after]);
        let tail = &rest[after..];
        let spaces = tail.len() - tail.trim_start_matches(' ').len();
        let credential_len: usize = tail[spaces..]
            .chars()
            .take_while(|c| is_credential_char(*c))
            .map(char::len_utf8)
            .sum();
        if spaces > 0 && credential_len > 0 && &tail[spaces..spaces + credential_len] != MASK {
            out.push_str(&tail[..spaces]);
            out.push_str(MASK);
            rest = &tail[spaces + credential_len..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// The next `Bearer`/`Basic` word (case-insensitive, whole word).
fn find_scheme_word(text: &str) -> Option<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut best: Option<(usize, usize)> = None;
    for word in ["bearer", "basic"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(word) {
            let pos = from + i;
            let before_ok = pos == 0 || !lower.as_bytes()[pos - 1].is_ascii_alphanumeric();
            if before_ok && best.is_none_or(|(b, _)| pos < b) {
                best = Some((pos, word.len()));
                break;
            }
            from = pos + word.len();
        }
    }
    best
}

/// `Authorization: xyz` (a header written out in text) → `Authorization: ***`.
fn redact_header_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&redact_header_line(line));
    }
    out
}

fn redact_header_line(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(colon) = rest.find(':') {
        // The name runs back from the colon to the nearest character that
        // cannot be in one (which may be several bytes long).
        let name_start = rest[..colon]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &rest[name_start..colon];
        // A header starts a line or follows a delimiter (`| Authorization: x`,
        // `{cookie: x`), not a word: "requires authorization: log in" is prose.
        let before = rest[..name_start].trim_end_matches([' ', '\t']);
        let starts_item = before.is_empty() && out.is_empty()
            || before.ends_with([';', ',', '|', '{', '[', '(', '"', '\'', '\r']);
        let headerish = starts_item
            && !name.is_empty()
            && (SECRET_HEADERS.contains(&name.to_ascii_lowercase().as_str())
                || (name.contains(['-', '_']) && is_secret_header(name)));
        let value = &rest[colon + 1..];
        if headerish && value.starts_with(' ') {
            let end = value
                .find([',', ';', '"', '\'', '}', ')', '|'])
                .unwrap_or(value.len());
            let shown = value[..end].trim();
            out.push_str(&rest[..=colon]);
            if shown.is_empty() || shown == MASK || shown.ends_with(MASK) {
                out.push_str(&value[..end]);
            } else {
                let shown_all = &value[..end];
                out.push(' ');
                out.push_str(MASK);
                out.push_str(&shown_all[shown_all.trim_end().len()..]);
            }
            rest = &value[end..];
        } else {
            out.push_str(&rest[..=colon]);
            rest = value;
        }
    }
    out.push_str(rest);
    out
}

/// `"token": "abc"` → `"token": "***"` (JSON written out in text).
fn redact_json_members(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let Some(close) = rest[open + 1..].find('"').map(|i| open + 1 + i) else {
            break;
        };
        let name = &rest[open + 1..close];
        let after = &rest[close + 1..];
        let trimmed = after.trim_start();
        if is_secret_name(name)
            && let Some(value_part) = trimmed.strip_prefix(':')
        {
            let value_trimmed = value_part.trim_start();
            if let Some(value) = value_trimmed.strip_prefix('"')
                && let Some(value_end) = find_string_end(value)
            {
                let consumed = after.len() - value.len();
                out.push_str(&rest[..close + 1]);
                out.push_str(&after[..consumed]);
                out.push_str(MASK);
                rest = &value[value_end..];
                continue;
            }
        }
        out.push_str(&rest[..close + 1]);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The index of the closing quote of a JSON string body (escapes skipped).
fn find_string_end(body: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

/// `token=abc` anywhere in text → `token=***`. A short all-digit value
/// (`code=1`, an exit or status code) is kept.
fn redact_pairs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(eq) = rest.find('=') {
        let name_start = rest[..eq]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &rest[name_start..eq];
        let value = &rest[eq + 1..];
        let value_len = value
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '&' | ';' | ',' | '"' | '\'' | '<' | '>' | ')')
            })
            .unwrap_or(value.len());
        let shown = &value[..value_len];
        let numeric = shown.len() <= 3 && shown.chars().all(|c| c.is_ascii_digit());
        out.push_str(&rest[..=eq]);
        if is_secret_name(name) && !shown.is_empty() && shown != MASK && !numeric {
            out.push_str(MASK);
            rest = &value[value_len..];
        } else {
            rest = value;
        }
    }
    out.push_str(rest);
    out
}

fn redact_remembered(text: &str) -> String {
    let known: Vec<String> = match REMEMBERED.lock() {
        Ok(known) => known
            .iter()
            .filter(|k| text.contains(k.as_str()))
            .cloned()
            .collect(),
        Err(_) => return text.to_string(),
    };
    if known.is_empty() {
        return text.to_string();
    }
    let mut known = known;
    // Longest first, so a value containing another is masked whole.
    known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let mut out = text.to_string();
    for value in known {
        out = out.replace(&value, MASK);
    }
    out
}

/// `%XX` decoded (lossy); anything malformed is kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn pairs_after_multibyte_characters_are_found_without_splitting_them() {
        // Found by the config_parse fuzz target: a name preceded by a
        // three-byte character used to be sliced inside that character.
        assert_eq!(redact_pairs("\u{fffd}token=abc"), "\u{fffd}token=***");
        assert_eq!(redact_pairs("é\u{fffd}=x"), "é\u{fffd}=x");
        assert_eq!(
            text("ws://h/\u{fffd}\u{fffd}key=1234"),
            "ws://h/\u{fffd}\u{fffd}key=***"
        );
    }

    #[test]
    fn secret_names_match_exactly_by_suffix_and_camel_case() {
        for yes in [
            "token",
            "TOKEN",
            "api_key",
            "apikey",
            "ApiKey",
            "apiKey",
            "access_token",
            "github_token",
            "X-Api-Key",
            "x-auth-token",
            "accessToken",
            "client_secret",
            "AWS_SECRET_ACCESS_KEY",
            "sig",
            "X-Amz-Signature",
            "code",
            "password",
            "DB_PASSWORD",
        ] {
            assert!(is_secret_name(yes), "{yes}");
        }
        for no in [
            "monkey",
            "turkey",
            "name",
            "page",
            "q",
            "limit",
            "tokens_used",
            "keys",
            "",
            "host",
            "encode",
            "barcode",
        ] {
            assert!(!is_secret_name(no), "{no}");
        }
        assert!(is_secret_header("Authorization"));
        assert!(is_secret_header("cookie"));
        assert!(is_secret_header("X-Goog-Api-Key"));
        assert!(!is_secret_header("Content-Type"));
        assert!(!is_secret_header("Accept"));
    }

    #[test]
    fn userinfo_is_masked_whole() {
        assert_eq!(
            url("https://user:pass@host.example/mcp"),
            "https://***@host.example/mcp"
        );
        assert_eq!(
            url("https://ghp_abc@github.com/x"),
            "https://***@github.com/x"
        );
        assert_eq!(url("http://u:p@[::1]:8080/"), "http://***@[::1]:8080/");
        // An '@' in the path is not userinfo.
        assert_eq!(
            url("https://host/users/@me?x=1"),
            "https://host/users/@me?x=1"
        );
    }

    #[test]
    fn secret_query_values_are_masked_others_kept() {
        assert_eq!(
            url("https://h/mcp?token=abc&page=2&API_KEY=k1;sig=s&apiKey=z"),
            "https://h/mcp?token=***&page=2&API_KEY=***;sig=***&apiKey=***"
        );
        assert_eq!(
            url("https://h/mcp?x-api-key=v&access%5Ftoken=t&q=token"),
            "https://h/mcp?x-api-key=***&access%5Ftoken=***&q=token"
        );
        assert_eq!(
            url("https://h/mcp?token=&flag"),
            "https://h/mcp?token=&flag"
        );
    }

    #[test]
    fn fragments_are_redacted_like_queries() {
        assert_eq!(
            url("https://h/cb#access_token=abc&state=s1"),
            "https://h/cb#access_token=***&state=s1"
        );
        assert_eq!(url("https://h/page#section-2"), "https://h/page#section-2");
    }

    #[test]
    fn malformed_urls_are_redacted_by_shape() {
        assert_eq!(
            url("https://u:p@[::1/mcp?key=1x"),
            "https://***@[::1/mcp?key=***"
        );
        assert_eq!(url("http://:secret@"), "http://***@");
        assert_eq!(url("not a url token=abc"), "not a url token=***");
        assert_eq!(url("htp//x?token=abc"), "htp//x?token=***");
        assert_eq!(url(""), "");
        assert_eq!(url("://"), "://");
        assert_eq!(url("a://b%zz?token=%"), "a://b%zz?token=***");
    }

    #[test]
    fn urls_inside_error_text_are_found() {
        let reqwest = "error sending request for url (http://alice:s3cr3t@127.0.0.1:9/mcp?token=t0k&x=1): \
                       client error (Connect): tcp connect error: Connection refused (os error 111)";
        assert_eq!(
            text(reqwest),
            "error sending request for url (http://***@127.0.0.1:9/mcp?token=***&x=1): \
             client error (Connect): tcp connect error: Connection refused (os error 111)"
        );
        assert_eq!(
            text("unreachable at \"https://h/m?api_key=1234\", giving up"),
            "unreachable at \"https://h/m?api_key=***\", giving up"
        );
        assert_eq!(
            text("see <https://u:p@h/x> and https://h/y?code=abcd."),
            "see <https://***@h/x> and https://h/y?code=***"
        );
    }

    #[test]
    fn headers_bearer_and_json_in_text_are_masked() {
        assert_eq!(
            text("sent Authorization: Bearer abc.def-ghi, then"),
            "sent Authorization: Bearer ***, then"
        );
        assert_eq!(
            text("authorization: Basic dXNlcjpwYXNz"),
            "authorization: Basic ***"
        );
        assert_eq!(text("x-api-key: k-123456\nnext"), "x-api-key: ***\nnext");
        assert_eq!(
            text(r#"{"error":"bad","access_token":"tok\"en","n":1}"#),
            r#"{"error":"bad","access_token":"***","n":1}"#
        );
        assert_eq!(
            text("stderr: a | Proxy-Authorization: Digest u=1 | b"),
            "stderr: a | Proxy-Authorization: *** | b"
        );
        // Prose is not a header.
        assert_eq!(
            text("server 'r' requires authorization: log in with `switchboard login r`"),
            "server 'r' requires authorization: log in with `switchboard login r`"
        );
        assert!(is_secret_header("Authorization"));
        assert!(!is_secret_header("Accept"));
    }

    /// Found by the `config_parse` fuzz target: a multi-byte character right
    /// before a header-like name made the name's start fall inside it.
    #[test]
    fn a_multibyte_character_before_a_name_is_not_split() {
        assert_eq!(text("a\u{86}x: y"), "a\u{86}x: y");
        assert_eq!(
            text("é|Authorization: Bearer t"),
            "é|Authorization: Bearer ***"
        );
    }

    #[test]
    fn ordinary_text_is_untouched_and_redaction_is_idempotent() {
        for plain in [
            "server 'notes' exited; stderr: boom",
            "server 'x' did not answer the request within 60 s",
            "process exited with code=1",
            "HTTP 500: internal error (status=503)",
            "key: value pairs are fine when the name has no separator",
            "a monkey=banana",
        ] {
            assert_eq!(text(plain), plain);
        }
        let messy = "https://a:b@h/?token=x&k=1 Bearer y {\"secret\": \"z\"} password=w";
        let once = text(messy);
        assert_eq!(
            once,
            "https://***@h/?token=***&k=1 Bearer *** {\"secret\": \"***\"} password=***"
        );
        assert_eq!(text(&once), once);
    }

    #[test]
    fn remembered_values_are_masked_anywhere() {
        let value = "zq-remembered-9c1e7f";
        remember([value, "short"]);
        assert_eq!(
            text(&format!("the server said: bad header {value}!")),
            "the server said: bad header ***!"
        );
        assert_eq!(text("short stays"), "short stays");
    }

    #[test]
    fn secrets_in_configured_values() {
        assert_eq!(
            secrets_in("Authorization", "Bearer tok123"),
            ["Bearer tok123", "tok123"]
        );
        assert_eq!(secrets_in("Accept", "text/plain"), Vec::<String>::new());
        assert_eq!(
            secrets_in("GITHUB_PAT", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
            ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"]
        );
        assert!(secrets_in("NODE_ENV", "production").is_empty());
        assert!(secrets_in("PATH", "/usr/local/bin:/usr/bin2024").is_empty());
        assert_eq!(
            secrets_in(
                "DATABASE_URL",
                "postgres://u:pw@db/x?sslmode=require&password=p2"
            ),
            ["u:pw", "u", "pw", "p2", "p2"]
        );
    }
}
