//! Reading and editing the JSON files AI clients keep, without rewriting them.
//!
//! Client config files are written by hand and by the clients themselves:
//! VS Code's `mcp.json` is JSONC (comments and trailing commas allowed), and
//! `~/.claude.json` is a large file Claude Code owns. Re-serializing such a file
//! would drop comments and reformat everything, so edits here are *splices*: the
//! file is parsed into a tree of byte spans, and an edit replaces exactly the
//! bytes of one value or member, leaving every other byte as it was.
//!
//! Invariants: [`Doc::parse`] accepts strict JSON plus `//` and `/* */`
//! comments, trailing commas and a UTF-8 byte order mark; every edit returns
//! text that parses again; inserted values use the indentation found in the
//! file (2 spaces when nothing can be learnt from it).

use serde_json::{Map, Value};

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 256;

/// A JSON syntax error with a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A parsed file: the original text, a copy with comments blanked out (same
/// byte offsets) and the span tree. `root` is `None` for an empty file.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    text: String,
    clean: Vec<u8>,
    root: Option<Node>,
}

/// One value and the bytes it occupies (`start..end`).
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String,
    Scalar,
}

/// One `"key": value` pair of an object.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

impl Node {
    /// The members of an object (empty for anything else).
    pub fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(members) => members,
            _ => &[],
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.kind, Kind::Object(_))
    }

    /// The member named `key`; with duplicate keys the last one wins, as in serde_json.
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.members().iter().rev().find(|m| m.key == key)
    }
}

struct Edit {
    start: usize,
    end: usize,
    text: String,
}

impl Doc {
    pub fn parse(text: impl Into<String>) -> Result<Self, SyntaxError> {
        let text = text.into();
        let clean = blank_comments(&text);
        let mut parser = Parser {
            s: &clean,
            pos: 0,
            depth: 0,
        };
        parser.ws();
        let root = if parser.pos == clean.len() {
            None
        } else {
            let node = parser.value()?;
            parser.ws();
            if parser.pos != clean.len() {
                return Err(parser.error("unexpected text after the end of the JSON value"));
            }
            Some(node)
        };
        Ok(Self { text, clean, root })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The whole document as a value (`None` for an empty file).
    pub fn value(&self) -> Option<Value> {
        self.root.as_ref().map(|n| self.node_value(n))
    }

    /// The node at `path` (object keys from the root), if every step exists.
    pub fn get(&self, path: &[&str]) -> Option<&Node> {
        let mut node = self.root.as_ref()?;
        for key in path {
            node = &node.member(key)?.value;
        }
        Some(node)
    }

    pub fn node_value(&self, node: &Node) -> Value {
        match &node.kind {
            Kind::Object(members) => {
                let mut map = Map::new();
                for m in members {
                    map.insert(m.key.clone(), self.node_value(&m.value));
                }
                Value::Object(map)
            }
            Kind::Array(items) => Value::Array(items.iter().map(|n| self.node_value(n)).collect()),
            // Both were validated while parsing, so these cannot fail.
            Kind::String => decode_string(&self.clean[node.start..node.end])
                .map(Value::String)
                .unwrap_or(Value::Null),
            Kind::Scalar => {
                serde_json::from_slice(&self.clean[node.start..node.end]).unwrap_or(Value::Null)
            }
        }
    }

    /// The text with `value` stored at `path`, creating missing objects on the
    /// way. Fails when a step of the path exists but is not an object.
    pub fn with_set(&self, path: &[&str], value: &Value) -> Result<String, String> {
        let unit = self.indent_unit();
        let Some(root) = &self.root else {
            let nested = nest(&path[1..], value.clone());
            let key = json_key(path.first().copied().unwrap_or_default());
            let mut out = String::new();
            if path.is_empty() {
                out.push_str(&render(value, "", &unit));
            } else {
                out.push_str(&format!(
                    "{{\n{unit}{key}: {}\n}}",
                    render(&nested, &unit, &unit)
                ));
            }
            out.push('\n');
            return Ok(out);
        };
        if path.is_empty() {
            return Ok(self.apply(vec![Edit {
                start: root.start,
                end: root.end,
                text: render(value, "", &unit),
            }]));
        }
        let mut node = root;
        for (i, key) in path.iter().enumerate() {
            if !node.is_object() {
                return Err(if i == 0 {
                    "the file's top level is not a JSON object".to_string()
                } else {
                    format!("`{}` is not a JSON object", path[..i].join("."))
                });
            }
            match node.member(key) {
                Some(member) if i + 1 == path.len() => {
                    let text = if self.same_line(node.start, node.end) {
                        compact(value)
                    } else {
                        render(value, &self.line_indent(member.key_start), &unit)
                    };
                    return Ok(self.apply(vec![Edit {
                        start: member.value.start,
                        end: member.value.end,
                        text,
                    }]));
                }
                Some(member) => node = &member.value,
                None => {
                    let nested = nest(&path[i + 1..], value.clone());
                    return Ok(self.apply(self.insert_member(node, key, &nested, &unit)));
                }
            }
        }
        Ok(self.text.clone())
    }

    /// The text without the member at `path` (unchanged when it does not exist).
    pub fn with_removed(&self, path: &[&str]) -> String {
        let Some((last, parent_path)) = path.split_last() else {
            return self.text.clone();
        };
        let Some(parent) = self.get(parent_path) else {
            return self.text.clone();
        };
        let members = parent.members();
        let Some(idx) = members.iter().rposition(|m| m.key == *last) else {
            return self.text.clone();
        };
        let m = &members[idx];
        let edit = if members.len() == 1 {
            Edit {
                start: parent.start + 1,
                end: parent.end - 1,
                text: String::new(),
            }
        } else if let Some(next) = members.get(idx + 1) {
            Edit {
                start: m.key_start,
                end: next.key_start,
                text: String::new(),
            }
        } else {
            Edit {
                start: members[idx - 1].value.end,
                end: m.value.end,
                text: String::new(),
            }
        };
        self.apply(vec![edit])
    }

    fn insert_member(&self, obj: &Node, key: &str, value: &Value, unit: &str) -> Vec<Edit> {
        let key = json_key(key);
        let members = obj.members();
        let Some(last) = members.last() else {
            let outer = self.line_indent(obj.start);
            let inner = format!("{outer}{unit}");
            return vec![Edit {
                start: obj.start,
                end: obj.end,
                text: format!(
                    "{{\n{inner}{key}: {}\n{outer}}}",
                    render(value, &inner, unit)
                ),
            }];
        };
        let after_value = last.value.end;
        let p = self.skip_ws(after_value);
        let has_comma = self.clean.get(p) == Some(&b',');
        if self.same_line(obj.start, last.key_start) {
            let val = compact(value);
            return vec![if has_comma {
                Edit {
                    start: p + 1,
                    end: p + 1,
                    text: format!(" {key}: {val},"),
                }
            } else {
                Edit {
                    start: after_value,
                    end: after_value,
                    text: format!(", {key}: {val}"),
                }
            }];
        }
        let indent = self.line_indent(last.key_start);
        let val = render(value, &indent, unit);
        if has_comma {
            let at = self.end_of_blank_line(p + 1);
            return vec![Edit {
                start: at,
                end: at,
                text: format!("\n{indent}{key}: {val},"),
            }];
        }
        let at = self.end_of_blank_line(after_value);
        let member = format!("\n{indent}{key}: {val}");
        if at == after_value {
            vec![Edit {
                start: at,
                end: at,
                text: format!(",{member}"),
            }]
        } else {
            vec![
                Edit {
                    start: after_value,
                    end: after_value,
                    text: ",".into(),
                },
                Edit {
                    start: at,
                    end: at,
                    text: member,
                },
            ]
        }
    }

    fn apply(&self, mut edits: Vec<Edit>) -> String {
        edits.sort_by_key(|e| std::cmp::Reverse(e.start));
        let mut out = self.text.clone();
        for e in edits {
            out.replace_range(e.start..e.end, &e.text);
        }
        out
    }

    fn skip_ws(&self, mut pos: usize) -> usize {
        while pos < self.clean.len() && matches!(self.clean[pos], b' ' | b'\t' | b'\n' | b'\r') {
            pos += 1;
        }
        pos
    }

    /// If only blanks (or a blanked comment) follow `pos` on its line, the end
    /// of that line; otherwise `pos`.
    fn end_of_blank_line(&self, pos: usize) -> usize {
        let mut q = pos;
        while q < self.clean.len() && matches!(self.clean[q], b' ' | b'\t') {
            q += 1;
        }
        if q == self.clean.len() || matches!(self.clean[q], b'\n' | b'\r') {
            q
        } else {
            pos
        }
    }

    fn same_line(&self, a: usize, b: usize) -> bool {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        !self.clean[lo..hi].contains(&b'\n')
    }

    /// The blanks at the start of the line holding `pos`.
    fn line_indent(&self, pos: usize) -> String {
        let start = self.clean[..pos]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let len = self.clean[start..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        self.text[start..start + len].to_string()
    }

    /// One level of indentation as the file uses it, learnt from the first
    /// member of the top-level object; two spaces when the file does not say.
    fn indent_unit(&self) -> String {
        let Some(root) = &self.root else {
            return "  ".into();
        };
        match root.members().first() {
            Some(first) if !self.same_line(root.start, first.key_start) => {
                let outer = self.line_indent(root.start);
                let inner = self.line_indent(first.key_start);
                match inner.strip_prefix(outer.as_str()) {
                    Some(unit) if !unit.is_empty() => unit.to_string(),
                    _ => "  ".into(),
                }
            }
            _ => "  ".into(),
        }
    }
}

/// `value` wrapped in one object per key of `path`, outermost first.
fn nest(path: &[&str], value: Value) -> Value {
    path.iter().rev().fold(value, |inner, key| {
        let mut map = Map::new();
        map.insert((*key).to_string(), inner);
        Value::Object(map)
    })
}

fn json_key(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}

fn compact(value: &Value) -> String {
    value.to_string()
}

/// Pretty JSON indented by `unit`, continuation lines prefixed with `base`.
pub(crate) fn render(value: &Value, base: &str, unit: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    if value.serialize(&mut ser).is_err() {
        return compact(value);
    }
    let pretty = String::from_utf8(buf).unwrap_or_else(|_| compact(value));
    pretty.replace('\n', &format!("\n{base}"))
}

/// The text with comments (and a byte order mark) replaced by spaces, byte for
/// byte, so offsets stay the same. Newlines inside block comments are kept so
/// line numbers stay right.
fn blank_comments(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        out[..3].fill(b' ');
        i = 3;
    }
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out[i] = b' ';
                out[i + 1] = b' ';
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    if !matches!(b[i], b'\n' | b'\r') {
                        out[i] = b' ';
                    }
                    i += 1;
                }
                if i < b.len() {
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn decode_string(raw: &[u8]) -> Option<String> {
    serde_json::from_slice::<String>(raw).ok()
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        let before = &self.s[..self.pos.min(self.s.len())];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        SyntaxError {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        self.ws();
        match self.peek() {
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => {
                let start = self.pos;
                self.string()?;
                Ok(Node {
                    start,
                    end: self.pos,
                    kind: Kind::String,
                })
            }
            Some(b't' | b'f' | b'n') => self.literal(),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a JSON value")),
            None => Err(self.error("unexpected end of file, expected a JSON value")),
        }
    }

    fn nested(
        &mut self,
        f: fn(&mut Self) -> Result<Node, SyntaxError>,
    ) -> Result<Node, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting is too deep"));
        }
        let node = f(self);
        self.depth -= 1;
        node
    }

    fn object(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'"') => {}
                _ => return Err(self.error("expected a quoted key or '}'")),
            }
            let key_start = self.pos;
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after the key"));
            }
            self.pos += 1;
            let value = self.value()?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
        Ok(Node {
            start,
            end: self.pos,
            kind: Kind::Object(members),
        })
    }

    fn array(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
        Ok(Node {
            start,
            end: self.pos,
            kind: Kind::Array(items),
        })
    }

    /// Scans a string starting at the opening quote and returns it decoded.
    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => self.pos += 2,
                Some(c) if c < 0x20 => {
                    return Err(self.error("control character inside a string"));
                }
                Some(_) => self.pos += 1,
            }
        }
        let raw = &self.s[start..self.pos.min(self.s.len())];
        match decode_string(raw) {
            Some(decoded) => Ok(decoded),
            None => {
                self.pos = start;
                Err(self.error("invalid escape in string"))
            }
        }
    }

    fn literal(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        for word in [&b"true"[..], b"false", b"null"] {
            if self.s[self.pos..].starts_with(word) {
                self.pos += word.len();
                return Ok(Node {
                    start,
                    end: self.pos,
                    kind: Kind::Scalar,
                });
            }
        }
        Err(self.error("expected a JSON value"))
    }

    fn number(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.pos += 1;
        }
        if serde_json::from_slice::<serde_json::Number>(&self.s[start..self.pos]).is_err() {
            self.pos = start;
            return Err(self.error("invalid number"));
        }
        Ok(Node {
            start,
            end: self.pos,
            kind: Kind::Scalar,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn parses_comments_trailing_commas_and_bom() {
        let doc = Doc::parse(
            "\u{feff}{\n  // a comment\n  \"a\": [1, 2,], /* b */ \"s\": \"x//y\",\n}\n",
        )
        .unwrap();
        assert_eq!(doc.value(), Some(json!({"a": [1, 2], "s": "x//y"})));
    }

    #[test]
    fn reports_line_and_column() {
        let err = Doc::parse("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 3));
    }

    #[test]
    fn inserts_with_the_files_indentation_and_keeps_comments() {
        let text = "{\n    \"x\": 1, // keep me\n    \"servers\": {}\n}\n";
        let doc = Doc::parse(text).unwrap();
        let out = doc
            .with_set(&["servers", "s"], &json!({"url": "http://h/"}))
            .unwrap();
        assert_eq!(
            out,
            "{\n    \"x\": 1, // keep me\n    \"servers\": {\n        \"s\": {\n            \"url\": \"http://h/\"\n        }\n    }\n}\n"
        );
        let out = Doc::parse(out)
            .unwrap()
            .with_set(&["y"], &json!(true))
            .unwrap();
        assert!(out.ends_with("    },\n    \"y\": true\n}\n"), "{out}");
    }

    #[test]
    fn comment_after_last_member_stays_on_its_line() {
        let doc = Doc::parse("{\n  \"a\": 1 // note\n}").unwrap();
        let out = doc.with_set(&["b"], &json!(2)).unwrap();
        assert_eq!(out, "{\n  \"a\": 1, // note\n  \"b\": 2\n}");
    }

    #[test]
    fn removes_first_middle_last_and_only_members() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}";
        let doc = Doc::parse(text).unwrap();
        assert_eq!(doc.with_removed(&["a"]), "{\n  \"b\": 2,\n  \"c\": 3\n}");
        assert_eq!(doc.with_removed(&["b"]), "{\n  \"a\": 1,\n  \"c\": 3\n}");
        assert_eq!(doc.with_removed(&["c"]), "{\n  \"a\": 1,\n  \"b\": 2\n}");
        let one = Doc::parse("{\"o\": {\"a\": 1}}").unwrap();
        assert_eq!(one.with_removed(&["o", "a"]), "{\"o\": {}}");
        assert_eq!(one.with_removed(&["o", "zz"]), "{\"o\": {\"a\": 1}}");
    }

    #[test]
    fn empty_file_becomes_an_object() {
        let doc = Doc::parse("  ").unwrap();
        let out = doc
            .with_set(&["mcpServers", "a"], &json!({"url": "u"}))
            .unwrap();
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"a\": {\n      \"url\": \"u\"\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn refuses_to_descend_into_non_objects() {
        let doc = Doc::parse("{\"mcpServers\": []}").unwrap();
        let err = doc.with_set(&["mcpServers", "a"], &json!(1)).unwrap_err();
        assert_eq!(err, "`mcpServers` is not a JSON object");
    }
}
