//! A server definition as it may be shown to a person (the dashboard's
//! server form, the import offer), and back: [`redact_definition`] replaces
//! secret-looking values by `***` ([`switchboard_util::redact::MASK`]);
//! [`restore_redacted`] puts the old values back where an edited definition
//! still holds the very text that was shown, so a form sent back unchanged
//! never writes `***` over a token.
//!
//! What is hidden: every value in `env` and `headers` (the project never
//! shows a header or env value, whatever its name), and anywhere else
//! (`url`, `args`, ...) what [`switchboard_util::redact::text`] masks (URL
//! userinfo, secret query values, `Bearer` credentials, `--token=...`,
//! values the hub knows as secrets), and in `args` the value after a
//! secret flag (`--api-key`, `-k`, ...) and token-looking arguments
//! ([`switchboard_util::redact::arg_secrets`]). A keyring reference
//! (`{"keyring": "name"}`) names a secret without holding it and is shown,
//! and so is a `${VAR}` reference in an env or header value (the value the
//! hub put in for it never is: this works on the file's text).

use serde_json::Value;

use switchboard_util::redact::{self, MASK};

/// `definition` with its secret-looking values replaced by `***`.
pub fn redact_definition(definition: &Value) -> Value {
    redact_at(definition, &mut Vec::new())
}

fn redact_at(value: &Value, path: &mut Vec<String>) -> Value {
    match value {
        Value::String(text) => Value::String(redact_leaf(path, text)),
        Value::Array(items) if path.as_slice() == ["args"] => redact_args(items),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    path.push(i.to_string());
                    let out = redact_at(item, path);
                    path.pop();
                    out
                })
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    path.push(key.clone());
                    let out = redact_at(item, path);
                    path.pop();
                    (key.clone(), out)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// How the string at `path` (keys from the definition's top) is shown.
fn redact_leaf(path: &[String], text: &str) -> String {
    if let [section, _name] = path
        && matches!(section.as_str(), "env" | "headers")
        && !text.is_empty()
    {
        return shown_references(text).unwrap_or_else(|| MASK.to_string());
    }
    redact::text(text)
}

/// A stdio server's `args`: each redacted as text, and the value after a
/// secret flag (`--api-key x`) or a token-looking argument masked, which
/// only the whole list tells ([`redact::arg_secrets`]).
fn redact_args(items: &[Value]) -> Value {
    let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
    let mut secrets = redact::arg_secrets(&texts);
    // Longest first, so a secret containing another is masked whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut path = vec!["args".to_string(), String::new()];
    Value::Array(
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(text) => {
                    let mut shown = text.clone();
                    for secret in &secrets {
                        shown = shown.replace(secret.as_str(), MASK);
                    }
                    Value::String(redact::text(&shown))
                }
                other => {
                    path[1] = i.to_string();
                    redact_at(other, &mut path)
                }
            })
            .collect(),
    )
}

/// An env or header value that takes its secret from `${VAR}` references,
/// as shown: each reference as written (a non-empty default as `***`), the
/// text around them only when it is a credential scheme (`Bearer `,
/// `Basic `, `token `) or blank, else `***`. `None` when it holds no reference.
fn shown_references(text: &str) -> Option<String> {
    use super::expand::{Piece, pieces};
    let mut out = String::new();
    for piece in pieces(text)? {
        match piece {
            Piece::Literal(literal) => {
                let scheme = literal.trim().to_ascii_lowercase();
                if matches!(scheme.as_str(), "" | "bearer" | "basic" | "token")
                    && literal.trim_start() == literal
                {
                    out.push_str(literal);
                } else {
                    out.push_str(MASK);
                }
            }
            Piece::Ref { name, default } => {
                out.push_str("${");
                out.push_str(name);
                match default {
                    Some("") => out.push_str(":-"),
                    Some(_) => {
                        out.push_str(":-");
                        out.push_str(MASK);
                    }
                    None => {}
                }
                out.push('}');
            }
        }
    }
    Some(out)
}

/// `edited` with every string that still reads as the redacted form of the
/// value at the same place in `old` put back to that value. A string that
/// holds `***` anywhere else is refused, naming where: the hidden value it
/// stood for is not known there (a new field, or a moved one).
pub fn restore_redacted(edited: &Value, old: Option<&Value>) -> Result<Value, String> {
    let shown = old.map(redact_definition);
    restore_at(edited, old, shown.as_ref(), &mut Vec::new())
}

/// `old` is the value at `path` in the stored definition, `shown` the same
/// place in its redacted form (what the person saw).
fn restore_at(
    edited: &Value,
    old: Option<&Value>,
    shown: Option<&Value>,
    path: &mut Vec<String>,
) -> Result<Value, String> {
    Ok(match edited {
        Value::String(text) if text.contains(MASK) => match (old, shown) {
            (Some(Value::String(was)), Some(Value::String(seen))) if seen == text => {
                Value::String(was.clone())
            }
            _ => {
                return Err(format!(
                    "`{}` holds the hidden value {MASK}, but there is no value to keep \
                     there: type the value itself",
                    path.join(".")
                ));
            }
        },
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                out.push(restore_at(
                    item,
                    old.and_then(|o| o.get(i)),
                    shown.and_then(|o| o.get(i)),
                    path,
                )?);
                path.pop();
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (key, item) in map {
                path.push(key.clone());
                out.insert(
                    key.clone(),
                    restore_at(
                        item,
                        old.and_then(|o| o.get(key)),
                        shown.and_then(|o| o.get(key)),
                        path,
                    )?,
                );
                path.pop();
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// The secret values of `definition` (what [`redact_definition`] hides), to
/// mask them in a message that may quote the definition.
pub fn definition_secrets(definition: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect_secrets(definition, &redact_definition(definition), &mut found);
    found
}

fn collect_secrets(value: &Value, shown: &Value, found: &mut Vec<String>) {
    match (value, shown) {
        (Value::String(text), Value::String(masked)) if text != masked => {
            found.push(text.clone());
        }
        (Value::Array(items), Value::Array(shown)) => {
            for (item, masked) in items.iter().zip(shown) {
                collect_secrets(item, masked, found);
            }
        }
        (Value::Object(map), Value::Object(shown)) => {
            for (key, item) in map {
                if let Some(masked) = shown.get(key) {
                    collect_secrets(item, masked, found);
                }
            }
        }
        _ => {}
    }
}

/// `message` with the secrets of `definition` masked, then
/// [`redact::text`] applied.
pub fn mask_definition_secrets(message: &str, definition: &Value) -> String {
    let mut out = message.to_string();
    let mut secrets = definition_secrets(definition);
    // Longest first, so a secret containing another is masked whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    // Very short values (`1`, `on`) would mask unrelated words of the message.
    for secret in secrets.iter().filter(|s| s.chars().count() >= 4) {
        out = out.replace(secret.as_str(), MASK);
    }
    redact::text(&out)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn variable_references_are_shown_as_written_and_come_back() {
        let def = json!({"url": "https://h/mcp",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-A": "k-${A:-dflt}",
                        "X-B": "${B:-}", "X-C": "$${notref}"},
            "env": {"T": "${TOKEN}"}});
        let shown = redact_definition(&def);
        assert_eq!(
            shown,
            json!({"url": "https://h/mcp",
                "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-A": "***${A:-***}",
                            "X-B": "${B:-}", "X-C": "***"},
                "env": {"T": "${TOKEN}"}})
        );
        assert_eq!(restore_redacted(&shown, Some(&def)).unwrap(), def);
    }

    #[test]
    fn secrets_are_hidden_and_come_back_when_sent_unchanged() {
        let def = json!({
            "command": "npx",
            "args": ["-y", "server", "--api-key=abc123def456ghi789"],
            "env": {"GITHUB_TOKEN": "ghp_abcdefghijklmnop1234", "LOG_LEVEL": "debug"},
            "url_like": "https://user:hunter2@example.com/?token=abc",
        });
        let shown = redact_definition(&def);
        assert_eq!(shown["env"]["GITHUB_TOKEN"], json!("***"));
        // Every env value is hidden, whatever its name.
        assert_eq!(shown["env"]["LOG_LEVEL"], json!("***"));
        assert_eq!(shown["command"], json!("npx"));
        let url = shown["url_like"].as_str().unwrap();
        assert!(
            !url.contains("hunter2") && !url.contains("token=abc"),
            "{url}"
        );
        assert!(!shown.to_string().contains("ghp_"), "{shown}");
        // Sent back as shown: the old values.
        assert_eq!(restore_redacted(&shown, Some(&def)).unwrap(), def);
        // An edited field is taken as typed; a hidden one still restored.
        let mut edited = shown.clone();
        edited["env"]["LOG_LEVEL"] = json!("info");
        edited["env"]["GITHUB_TOKEN"] = json!("new-token");
        let restored = restore_redacted(&edited, Some(&def)).unwrap();
        assert_eq!(restored["env"]["GITHUB_TOKEN"], json!("new-token"));
        assert_eq!(restored["env"]["LOG_LEVEL"], json!("info"));
        assert_eq!(restored["url_like"], def["url_like"]);
        // `***` where nothing was hidden is refused, naming the place.
        let mut moved = shown.clone();
        moved["env"]["OTHER_KEY"] = json!("***");
        let err = restore_redacted(&moved, Some(&def)).unwrap_err();
        assert!(err.contains("env.OTHER_KEY"), "{err}");
        assert!(restore_redacted(&shown, None).is_err());
    }

    #[test]
    fn an_argument_after_a_secret_flag_is_hidden_and_comes_back() {
        let def = json!({
            "command": "server",
            "args": ["--api-key", "SBXsecretArg1", "--port", "8080", "-K", "SBXsecretArg2",
                     "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "--Token=SBXsecretArg3"],
        });
        let shown = redact_definition(&def);
        assert_eq!(
            shown["args"],
            json!([
                "--api-key",
                "***",
                "--port",
                "8080",
                "-K",
                "***",
                "***",
                "--Token=***"
            ])
        );
        assert_eq!(restore_redacted(&shown, Some(&def)).unwrap(), def);
        // The flag's value moved elsewhere: not restored, refused.
        let mut moved = shown.clone();
        moved["args"] = json!(["--port", "8080", "--api-key", "***"]);
        assert!(restore_redacted(&moved, Some(&def)).is_err());
        let mut secrets = definition_secrets(&def);
        secrets.sort();
        assert_eq!(
            secrets,
            [
                "--Token=SBXsecretArg3",
                "SBXsecretArg1",
                "SBXsecretArg2",
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
            ]
        );
    }

    #[test]
    fn a_message_quoting_a_secret_is_masked() {
        let def = json!({"headers": {"X-Api-Key": "s3cr3t-value", "X-Team": {"keyring": "team"}}});
        assert_eq!(
            redact_definition(&def),
            json!({"headers": {"X-Api-Key": "***", "X-Team": {"keyring": "team"}}})
        );
        let message = r#"invalid value "s3cr3t-value" in headers"#;
        assert_eq!(
            mask_definition_secrets(message, &def),
            r#"invalid value "***" in headers"#
        );
    }
}
