//! Finds the id of a JSON-RPC answer in the first and last bytes of a line
//! too long to keep (see `stdio.rs`): a scan of the top level of a JSON
//! object that never parses more than it was given and never allocates more
//! than the id.

use serde_json::Value;

/// The id of the JSON-RPC answer a line starts with (`head`) or, for servers
/// that write the id last, ends with (`tail`). `None` for requests and
/// notifications (they have a `method`) and when no id can be found.
pub(super) fn answer_id(head: &[u8], tail: &[u8]) -> Option<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
