//! Continue's and Goose's YAML config files: reading them into JSON values,
//! and replacing one top-level block (`mcpServers`, `extensions`) while
//! keeping every other byte of the file.
//!
//! YAML is parsed with `serde_yaml_ng` (a maintained fork of `serde_yaml`),
//! which cannot edit a document in place. So an edit rewrites only the
//! relevant top-level block: the lines from `key:` to the next top-level key
//! are replaced by the new block, rendered from its value; comments inside
//! that block are not kept, and the caller says so. The edited text is parsed
//! again and must equal the intended document (the old one with that block
//! replaced), or nothing is written: a file in a shape this cannot edit
//! safely (flow style, anchors shared with other blocks) is refused with a
//! hint to use `--print` instead.

use std::path::Path;

use serde_json::{Map, Value};

use super::ClientError;

/// Parses a YAML file into a JSON value; an empty file is an empty object.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Value, ClientError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_yaml_ng::from_str(text).map_err(|err| {
        let (line, column) = err.location().map_or((1, 1), |at| (at.line(), at.column()));
        ClientError::Syntax {
            path: path.to_path_buf(),
            line,
            column,
            message: err
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
        }
    })?;
    Ok(match value {
        Value::Null => Value::Object(Map::new()),
        other => other,
    })
}

/// `{key: value}` as YAML text (ends with a newline).
pub(crate) fn render(key: &str, value: &Value) -> Result<String, String> {
    let mut doc = Map::new();
    doc.insert(key.to_string(), value.clone());
    serde_yaml_ng::to_string(&Value::Object(doc)).map_err(|err| err.to_string())
}

/// Whether `line` starts the top-level mapping key `key`.
fn starts_key(line: &str, key: &str) -> bool {
    [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .any(|k| {
            line.strip_prefix(k.as_str())
                .and_then(|rest| rest.strip_prefix(':'))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
        })
}

/// Whether `line` belongs to the block of the top-level key above it.
fn continues_block(line: &str) -> bool {
    line.trim().is_empty()
        || line.starts_with([' ', '\t', '#'])
        || line.starts_with("- ")
        || line.trim_end() == "-"
}

/// The edited text, and whether the rewritten block had comments (which are
/// then gone).
pub(crate) struct Replaced {
    pub text: String,
    pub lost_comments: bool,
}

/// `text` with its top-level `key` set to `value`, every line outside that
/// key's block kept as it was.
pub(crate) fn with_top_level(
    path: &Path,
    text: &str,
    key: &str,
    value: &Value,
) -> Result<Replaced, ClientError> {
    let refuse = |why: &str| ClientError::Shape {
        path: path.to_path_buf(),
        message: format!(
            "cannot edit `{key}` safely ({why}); add the entry by hand from `switchboard \
             connect --print`"
        ),
    };
    let mut expected = parse(path, text)?;
    let Value::Object(root) = &mut expected else {
        return Err(refuse("the top level is not a mapping"));
    };
    root.insert(key.to_string(), value.clone());
    let block = render(key, value).map_err(|e| refuse(&e))?;

    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (out, lost_comments) = match lines.iter().position(|l| starts_key(l, key)) {
        Some(start) => {
            let mut end = start + 1;
            while end < lines.len() && continues_block(lines[end]) {
                end += 1;
            }
            // Blank lines and column-0 comments before the next key are its own.
            while end > start + 1
                && (lines[end - 1].trim().is_empty() || lines[end - 1].starts_with('#'))
            {
                end -= 1;
            }
            let had_comments = lines[start..end].iter().any(|l| l.contains('#'));
            let mut out = lines[..start].concat();
            out.push_str(&block);
            out.push_str(&lines[end..].concat());
            (out, had_comments)
        }
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&block);
            (out, false)
        }
    };
    if parse(path, &out).ok().as_ref() != Some(&expected) {
        return Err(refuse("the file's layout is not one this edit understands"));
    }
    Ok(Replaced {
        text: out,
        lost_comments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn only_the_block_changes() {
        let text = "# models\nmodels:\n  - name: a # mine\n\nmcpServers:\n  # the old one\n  - name: old\n    command: x\n\n# rules follow\nrules:\n  - be nice\n";
        let got = with_top_level(
            Path::new("c.yaml"),
            text,
            "mcpServers",
            &json!([{"name": "new", "url": "http://h/mcp"}]),
        )
        .unwrap();
        assert_eq!(
            got.text,
            "# models\nmodels:\n  - name: a # mine\n\nmcpServers:\n- name: new\n  url: http://h/mcp\n\n# rules follow\nrules:\n  - be nice\n"
        );
        assert!(got.lost_comments);
        let plain = with_top_level(
            Path::new("c.yaml"),
            "mcpServers: []\n",
            "mcpServers",
            &json!([]),
        )
        .unwrap();
        assert!(!plain.lost_comments);
    }

    #[test]
    fn a_missing_block_is_appended_and_flow_style_is_refused() {
        let got =
            with_top_level(Path::new("c.yaml"), "a: 1", "extensions", &json!({"x": {}})).unwrap();
        assert_eq!(got.text, "a: 1\nextensions:\n  x: {}\n");
        let err = with_top_level(
            Path::new("c.yaml"),
            "{a: 1, extensions: {y: 2}}",
            "extensions",
            &json!({}),
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("--print"), "{err}");
    }

    #[test]
    fn syntax_errors_have_a_place() {
        let err = parse(Path::new("c.yaml"), "a: [1,\nb: 2\n").unwrap_err();
        assert!(
            matches!(err, ClientError::Syntax { line, .. } if line >= 1),
            "{err}"
        );
    }
}
