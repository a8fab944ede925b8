//! The character rules of definition scanning: text a person does not see
//! but a model reads (`invisible-unicode`, `terminal-escape`) and text
//! hidden by an encoding (`encoded-payload`), plus [`visible`], which writes
//! such characters out for an excerpt.

/// Characters that show nothing or reorder what is shown: zero-width
/// spaces and joiners, bidirectional controls, word joiners and invisible
/// operators, the byte-order mark, fillers, tag characters, the variation
/// selectors supplement.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{E0000}'..='\u{E007F}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// Control characters other than tab, line feed and carriage return (ANSI
/// escape sequences start with one), C1 controls included.
pub(super) fn is_control(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{2028}' || c == '\u{2029}'
}

/// The character rules' findings in `text`: at most one per rule.
pub(super) fn scan(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !text.is_ascii()
        && let Some((i, c)) = text.char_indices().find(|(_, c)| is_invisible(*c))
    {
        let hidden = tag_text(text);
        let excerpt = if hidden.is_empty() {
            super::excerpt(text, i, i + c.len_utf8())
        } else {
            // The tag characters spell ASCII: show what they say.
            let shown = super::excerpt(&hidden, 0, hidden.len().min(super::MAX_MATCH));
            format!("hidden text: {shown}")
        };
        out.push(("invisible-unicode", excerpt));
    }
    if let Some((i, c)) = text.char_indices().find(|(_, c)| is_control(*c)) {
        out.push(("terminal-escape", super::excerpt(text, i, i + c.len_utf8())));
    }
    if let Some(excerpt) = encoded(text) {
        out.push(("encoded-payload", excerpt));
    }
    out
}

/// The ASCII the tag characters (U+E0020..U+E007E) of `text` spell.
fn tag_text(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            let n = u32::from(c);
            (0xE0020..=0xE007E)
                .contains(&n)
                .then(|| char::from_u32(n - 0xE0000))
                .flatten()
        })
        .collect()
}

/// `text` with invisible and control characters written as `<U+XXXX>`.
pub(super) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible(c) || is_control(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The shortest encoded run that is looked at.
const MIN_BASE64: usize = 28;
const MIN_HEX: usize = 32;

/// An excerpt of the first base64 or hex run of `text` that decodes to
/// readable text (`decoded: ...`), if any.
fn encoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b64 = run(bytes, i, is_base64);
        if b64 >= MIN_BASE64 {
            let token = &text[i..i + b64];
            let decoded = if token.len() >= MIN_HEX && token.bytes().all(|b| b.is_ascii_hexdigit())
            {
                decode_hex(token)
            } else {
                decode_base64(token)
            };
            if let Some(decoded) = decoded.filter(|d| readable(d)) {
                let decoded = String::from_utf8_lossy(&decoded).into_owned();
                let shown = super::excerpt(&decoded, 0, decoded.len().min(super::MAX_MATCH));
                return Some(format!("decoded: {shown}"));
            }
        }
        i += b64.max(1);
        while i < bytes.len() && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    None
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
}

fn run(bytes: &[u8], from: usize, ok: impl Fn(u8) -> bool) -> usize {
    bytes[from..].iter().take_while(|b| ok(**b)).count()
}

/// Text a model would read: mostly printable ASCII, with spaces between
/// words (a random identifier or binary never is).
fn readable(bytes: &[u8]) -> bool {
    if bytes.len() < 16 {
        return false;
    }
    let printable = bytes
        .iter()
        .filter(|b| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\t'))
        .count();
    let letters = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let spaces = bytes.iter().filter(|b| **b == b' ').count();
    printable * 100 >= bytes.len() * 95 && letters * 2 >= bytes.len() && spaces >= 2
}

fn decode_hex(token: &str) -> Option<Vec<u8>> {
    let token = token.as_bytes();
    let even = &token[..token.len() - token.len() % 2];
    even.chunks(2)
        .map(|pair| {
            let text = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(text, 16).ok()
        })
        .collect()
}

/// Standard or URL-safe base64, padding optional; `None` if not base64.
fn decode_base64(token: &str) -> Option<Vec<u8>> {
    let value = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => u32::from(b - b'A'),
            b'a'..=b'z' => u32::from(b - b'a') + 26,
            b'0'..=b'9' => u32::from(b - b'0') + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        })
    };
    let trimmed = token.trim_end_matches('=');
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in trimmed.bytes() {
        acc = (acc << 6) | value(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xFF) as u8);
        }
    }
    Some(out)
}
