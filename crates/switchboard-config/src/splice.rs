//! Byte spans of a JSON text, for edits that keep every other byte of a file.
//!
//! [`object_at`] scans one object of an already valid JSON text (the caller
//! parsed it first) and returns where each member's key and value start and
//! end, respecting strings and their escapes; [`Splice`] then replaces,
//! inserts or removes one member, copying the style of its siblings: the
//! whitespace before a key, the separator after it (`": "` or `":"`), the
//! line ending (`\n` or `\r\n`) and the indentation unit (spaces or tabs).
//! A text that does not scan (it was not valid JSON) gives `None`; nothing
//! here panics on any input.

use serde_json::Value;

/// One `"key": value` member of an object, as byte offsets into the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Member {
    /// The key, unescaped.
    pub key: String,
    /// The opening quote of the key.
    pub key_start: usize,
    /// Just past the closing quote of the key.
    pub key_end: usize,
    pub value_start: usize,
    /// Just past the value.
    pub value_end: usize,
}

/// An object: its braces and members in text order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Object {
    /// The `{`.
    pub open: usize,
    /// The `}`.
    pub close: usize,
    pub members: Vec<Member>,
}

impl Object {
    /// The last member called `key` (the one a JSON parser keeps).
    pub fn member(&self, key: &str) -> Option<(usize, &Member)> {
        self.members
            .iter()
            .enumerate()
            .rev()
            .find(|(_, m)| m.key == key)
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).copied().is_some_and(is_ws) {
        at += 1;
    }
    at
}

/// Past the string whose opening quote is at `at`.
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Past the value starting at `at` (no leading whitespace).
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            // Brackets nest; strings may hold brackets, so they are skipped whole.
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !is_ws(*b) && !matches!(b, b',' | b'}' | b']'))
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

/// The object whose `{` is at `open`.
pub(super) fn object_at(text: &str, open: usize) -> Option<Object> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::new();
    let mut at = skip_ws(bytes, open + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(Object {
            open,
            close: at,
            members,
        });
    }
    loop {
        let key_start = at;
        let key_end = skip_string(bytes, key_start)?;
        let key: String = serde_json::from_str(text.get(key_start..key_end)?).ok()?;
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(bytes, at + 1);
        let value_end = skip_value(bytes, value_start)?;
        members.push(Member {
            key,
            key_start,
            key_end,
            value_start,
            value_end,
        });
        at = skip_ws(bytes, value_end);
        match bytes.get(at)? {
            b',' => at = skip_ws(bytes, at + 1),
            b'}' => {
                return Some(Object {
                    open,
                    close: at,
                    members,
                });
            }
            _ => return None,
        }
    }
}

/// The top-level object of `text`.
pub(super) fn root(text: &str) -> Option<Object> {
    object_at(text, skip_ws(text.as_bytes(), 0))
}

/// The object that is `member`'s value, if it is one.
pub(super) fn object_value(text: &str, member: &Member) -> Option<Object> {
    object_at(text, member.value_start)
}

/// The layout of a file: line ending and indentation unit.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub newline: &'static str,
    /// One level of indentation (`"  "`, `"    "`, `"\t"`).
    pub unit: String,
}

impl Layout {
    /// The layout `text` is written in (two spaces and `\n` when it shows none).
    pub fn of(text: &str) -> Self {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let unit = text
            .split('\n')
            .skip(1)
            .map(|line| {
                let end = line
                    .find(|c: char| c != ' ' && c != '\t')
                    .unwrap_or(line.len());
                &line[..end]
            })
            .find(|indent| !indent.is_empty())
            .unwrap_or("  ")
            .to_string();
        Self { newline, unit }
    }
}

/// The spaces and tabs that start the line holding byte `at`.
pub(super) fn line_indent(text: &str, at: usize) -> &str {
    let start = text
        .get(..at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let rest = text.get(start..).unwrap_or_default();
    let end = rest
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(rest.len());
    &rest[..end]
}

/// How a value is written: over several lines from an indentation, or on one line.
#[derive(Debug, Clone)]
pub(super) enum Style<'a> {
    Lines {
        layout: &'a Layout,
        /// The indentation of the line the value starts on.
        indent: String,
        /// `": "` or `":"` between a key and its value.
        colon: &'a str,
    },
    OneLine {
        /// Whether `", "` and `": "` carry a space.
        spaced: bool,
    },
}

/// `value` written in `style`.
pub(super) fn render(value: &Value, style: &Style<'_>) -> String {
    let mut out = String::new();
    match style {
        Style::Lines {
            layout,
            indent,
            colon,
        } => render_lines(value, layout, indent, colon, &mut out),
        Style::OneLine { spaced } => render_one_line(value, *spaced, &mut out),
    }
    out
}

fn key_text(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}

fn render_lines(value: &Value, layout: &Layout, indent: &str, colon: &str, out: &mut String) {
    let inner = format!("{indent}{}", layout.unit);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { "," });
                out.push_str(layout.newline);
                out.push_str(&inner);
                out.push_str(&key_text(key));
                out.push_str(colon);
                render_lines(item, layout, &inner, colon, out);
            }
            out.push_str(layout.newline);
            out.push_str(indent);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { "," });
                out.push_str(layout.newline);
                out.push_str(&inner);
                render_lines(item, layout, &inner, colon, out);
            }
            out.push_str(layout.newline);
            out.push_str(indent);
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn render_one_line(value: &Value, spaced: bool, out: &mut String) {
    let (comma, colon) = if spaced { (", ", ": ") } else { (",", ":") };
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { comma });
                out.push_str(&key_text(key));
                out.push_str(colon);
                render_one_line(item, spaced, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { comma });
                render_one_line(item, spaced, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// One text edit: `range` of the original replaced by `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Splice {
    pub range: std::ops::Range<usize>,
    pub with: String,
}

impl Splice {
    pub fn apply(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len() + self.with.len());
        out.push_str(text.get(..self.range.start)?);
        out.push_str(&self.with);
        out.push_str(text.get(self.range.end..)?);
        Some(out)
    }
}

/// The separator a member of `object` uses after its key (`": "` when it has none).
fn colon_of<'t>(text: &'t str, object: &Object) -> &'t str {
    object
        .members
        .first()
        .and_then(|m| text.get(m.key_end..m.value_start))
        .unwrap_or(": ")
}

/// How a new value of a member of `object` is written: like its siblings'
/// values (several lines or one), else like the object.
fn style_in<'a>(text: &'a str, object: &Object, layout: &'a Layout, at: usize) -> Style<'a> {
    let colon = colon_of(text, object);
    // A non-empty object or array shows the style; a scalar or `{}` does
    // not, and then the object's own layout decides.
    let sibling = object
        .members
        .last()
        .and_then(|last| text.get(last.value_start..last.value_end))
        .filter(|v| v.starts_with(['{', '[']) && v.len() > 2);
    let multi_line = match sibling {
        Some(value) => value.contains('\n'),
        None => text
            .get(object.open..=object.close)
            .is_some_and(|o| o.contains('\n')),
    };
    if multi_line {
        Style::Lines {
            layout,
            indent: line_indent(text, at).to_string(),
            colon,
        }
    } else {
        Style::OneLine {
            spaced: colon.ends_with(' '),
        }
    }
}

/// Replaces the value of `member` (of `object`) with `value`, written like
/// the old value (over several lines if it was, else on one line).
pub(super) fn replace_value(
    text: &str,
    object: &Object,
    member: &Member,
    value: &Value,
    layout: &Layout,
) -> Splice {
    let old = text
        .get(member.value_start..member.value_end)
        .unwrap_or_default();
    let colon = colon_of(text, object);
    let style = if old.contains('\n') || (!old.starts_with(['{', '[']) && text.contains('\n')) {
        Style::Lines {
            layout,
            indent: line_indent(text, member.key_start).to_string(),
            colon,
        }
    } else {
        Style::OneLine {
            spaced: colon.ends_with(' '),
        }
    };
    Splice {
        range: member.value_start..member.value_end,
        with: render(value, &style),
    }
}

/// Adds `"key": value` as the last member of `object`.
pub(super) fn insert_member(
    text: &str,
    object: &Object,
    key: &str,
    value: &Value,
    layout: &Layout,
) -> Splice {
    let bytes = text.as_bytes();
    match object.members.last() {
        Some(last) => {
            // The whitespace before the last key, copied before the new one.
            let mut ws_start = last.key_start;
            while ws_start > object.open + 1 && bytes.get(ws_start - 1).copied().is_some_and(is_ws)
            {
                ws_start -= 1;
            }
            let before_key = text.get(ws_start..last.key_start).unwrap_or_default();
            let colon = text.get(last.key_end..last.value_start).unwrap_or(": ");
            let style = style_in(text, object, layout, last.key_start);
            Splice {
                range: last.value_end..last.value_end,
                with: format!(
                    ",{before_key}{}{colon}{}",
                    key_text(key),
                    render(value, &style)
                ),
            }
        }
        None if text.contains('\n') => {
            let indent = line_indent(text, object.open);
            let inner = format!("{indent}{}", layout.unit);
            let style = Style::Lines {
                layout,
                indent: inner.clone(),
                colon: ": ",
            };
            let nl = layout.newline;
            Splice {
                range: object.open + 1..object.close,
                with: format!(
                    "{nl}{inner}{}: {}{nl}{indent}",
                    key_text(key),
                    render(value, &style)
                ),
            }
        }
        None => {
            let spaced = text.contains(": ");
            let colon = if spaced { ": " } else { ":" };
            Splice {
                range: object.open + 1..object.close,
                with: format!(
                    "{}{colon}{}",
                    key_text(key),
                    render(value, &Style::OneLine { spaced })
                ),
            }
        }
    }
}

/// Removes member `index` of `object` with its comma; the only member
/// leaves `{}`.
pub(super) fn remove_member(object: &Object, index: usize) -> Option<Splice> {
    let member = object.members.get(index)?;
    let range = if object.members.len() == 1 {
        object.open + 1..object.close
    } else if let Some(next) = object.members.get(index + 1) {
        // Up to the next key: that key takes this one's place and indentation.
        member.key_start..next.key_start
    } else {
        // The last one: from the end of the previous value, comma included.
        object.members.get(index.checked_sub(1)?)?.value_end..member.value_end
    };
    Some(Splice {
        range,
        with: String::new(),
    })
}
