//! `${VAR}` references in a server's `command`, `args`, `env` values, `cwd`,
//! `url` and `headers` values, expanded from the hub's environment when the
//! config is loaded.
//!
//! The syntax ([`expand`]):
//! - `${NAME}`: the value of the variable `NAME` (`[A-Za-z_][A-Za-z0-9_]*`);
//!   unset is an error ([`ExpandError::Unset`]);
//! - `${NAME:-default}`: the value, or `default` when `NAME` is unset or
//!   empty; the default is plain text up to the first `}` (no references
//!   inside, may be empty);
//! - `${env:NAME}` (and `${env:NAME:-default}`): the same as `${NAME}`, the
//!   form Cursor and VS Code write;
//! - `$$`: one literal `$`; a `$` followed by anything but `{` or `$` is
//!   literal too (`$HOME` stays `$HOME`).
//!
//! Anything else that starts with `${` (no closing `}`, a bad name, another
//! operator, `${env:X}`) is an error ([`ExpandError::Malformed`]). The values
//! substituted are kept ([`Expanded::values`]) so the caller can treat them
//! as secrets. Pure: the variables come through a lookup function.

/// Where a reference's value comes from.
#[derive(Clone, Copy)]
pub enum Vars<'a> {
    /// Look each name up here (normally the process environment).
    Lookup(&'a dyn Fn(&str) -> Option<String>),
    /// Check the syntax only: an unset reference reads as its default, or
    /// as a placeholder (`x`) without one. For checking a definition's shape
    /// where the hub's environment is not the one that matters (import).
    ShapeOnly,
}

/// A text with its references replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub text: String,
    /// Whether the text held any reference.
    pub had_refs: bool,
    /// The non-empty values taken from variables (defaults excluded: they
    /// are written in the file).
    pub values: Vec<String>,
}

/// Why a text's references could not be expanded. The messages name the
/// reference, never a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("uses ${{{name}}}, which is not set")]
    Unset { name: String },
    #[error("has a malformed reference {shown:?}: {why} (write $$ for a literal $)")]
    Malformed { shown: String, why: &'static str },
}

/// Expands the references in `text` (see the module docs).
pub fn expand(text: &str, vars: &Vars<'_>) -> Result<Expanded, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut values = Vec::new();
    let mut had_refs = false;
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("$$") {
            out.push('$');
            rest = after;
            continue;
        }
        if !tail.starts_with("${") {
            out.push('$');
            rest = &tail[1..];
            continue;
        }
        let Some(close) = tail.find('}') else {
            return Err(malformed(tail, "no closing `}`"));
        };
        let body = &tail[2..close];
        // `${env:NAME}` is the form Cursor and VS Code write: the same thing.
        let body = body.strip_prefix("env:").unwrap_or(body);
        let (name, default) = match body.find(':') {
            Some(colon) => match body[colon..].strip_prefix(":-") {
                Some(default) => (&body[..colon], Some(default)),
                None => {
                    return Err(malformed(
                        &tail[..=close],
                        "only ${NAME} and ${NAME:-default} are supported",
                    ));
                }
            },
            None => (body, None),
        };
        if !is_name(name) {
            return Err(malformed(
                &tail[..=close],
                "a variable name is letters, digits and '_', not starting with a digit",
            ));
        }
        if default.is_some_and(|d| d.contains("${")) {
            return Err(malformed(
                &tail[..=close],
                "a default cannot hold another reference",
            ));
        }
        had_refs = true;
        let found = match vars {
            Vars::Lookup(lookup) => lookup(name),
            Vars::ShapeOnly => None,
        };
        match (found, default) {
            (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
            (Some(value), _) => {
                out.push_str(&value);
                if !value.is_empty() {
                    values.push(value);
                }
            }
            (None, Some(default)) => out.push_str(default),
            (None, None) => match vars {
                Vars::ShapeOnly => out.push('x'),
                Vars::Lookup(_) => {
                    return Err(ExpandError::Unset {
                        name: name.to_string(),
                    });
                }
            },
        }
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    Ok(Expanded {
        text: out,
        had_refs,
        values,
    })
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A malformed reference as shown in an error: at most 40 characters of it.
fn malformed(reference: &str, why: &'static str) -> ExpandError {
    let shown: String = reference.chars().take(40).collect();
    ExpandError::Malformed { shown, why }
}

/// The pieces of `text` for showing it: literal runs and references, in
/// order; `None` when the text does not parse or holds no reference.
pub fn pieces(text: &str) -> Option<Vec<Piece<'_>>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut literal_start = 0;
    let mut offset = 0;
    let mut any = false;
    while let Some(at) = rest.find('$') {
        let tail = &rest[at..];
        let skip = if tail.starts_with("$$") {
            2
        } else if tail.starts_with("${") {
            let close = tail.find('}')?;
            let reference = &tail[..=close];
            expand(reference, &Vars::ShapeOnly).ok()?;
            let start = offset + at;
            if literal_start < start {
                out.push(Piece::Literal(&text[literal_start..start]));
            }
            let body = &tail[2..close];
            let body = body.strip_prefix("env:").unwrap_or(body);
            out.push(match body.split_once(":-") {
                Some((name, default)) => Piece::Ref {
                    name,
                    default: Some(default),
                },
                None => Piece::Ref {
                    name: body,
                    default: None,
                },
            });
            literal_start = start + close + 1;
            any = true;
            close + 1
        } else {
            1
        };
        offset += at + skip;
        rest = &tail[skip..];
    }
    if literal_start < text.len() {
        out.push(Piece::Literal(&text[literal_start..]));
    }
    any.then_some(out)
}

/// A part of a text with references ([`pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Literal(&'a str),
    Ref {
        name: &'a str,
        default: Option<&'a str>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("tok-123".into()),
            "EMPTY" => Some(String::new()),
            "UNI" => Some("žluťoučký 🐴".into()),
            _ => None,
        }
    }

    fn run(text: &str) -> Result<String, ExpandError> {
        expand(text, &Vars::Lookup(&env)).map(|e| e.text)
    }

    #[test]
    fn plain_references_and_defaults() {
        assert_eq!(run("Bearer ${TOKEN}").unwrap(), "Bearer tok-123");
        assert_eq!(run("${TOKEN}${TOKEN}").unwrap(), "tok-123tok-123");
        assert_eq!(run("${MISSING:-fallback}").unwrap(), "fallback");
        assert_eq!(run("${EMPTY:-fallback}").unwrap(), "fallback");
        assert_eq!(run("${EMPTY}").unwrap(), "");
        assert_eq!(run("${MISSING:-}").unwrap(), "");
        assert_eq!(
            run("${MISSING:-https://h:8080/a-b}/mcp").unwrap(),
            "https://h:8080/a-b/mcp"
        );
        assert_eq!(run("${TOKEN:-unused}").unwrap(), "tok-123");
        assert_eq!(run("${env:TOKEN}").unwrap(), "tok-123");
        assert_eq!(run("${env:MISSING:-d}").unwrap(), "d");
        assert_eq!(run("no refs here").unwrap(), "no refs here");
        assert_eq!(run("").unwrap(), "");
    }

    #[test]
    fn unicode_values_defaults_and_text_around() {
        assert_eq!(run("ä ${UNI} ö").unwrap(), "ä žluťoučký 🐴 ö");
        assert_eq!(run("${MISSING:-日本語}").unwrap(), "日本語");
        assert!(matches!(run("${NAMÉ}"), Err(ExpandError::Malformed { .. })));
    }

    #[test]
    fn escaping_and_lone_dollars() {
        assert_eq!(run("$${TOKEN}").unwrap(), "${TOKEN}");
        assert_eq!(run("a$$b").unwrap(), "a$b");
        assert_eq!(run("$$${TOKEN}").unwrap(), "$tok-123");
        assert_eq!(run("$$$${TOKEN}").unwrap(), "$${TOKEN}");
        assert_eq!(run("$HOME and $").unwrap(), "$HOME and $");
        assert_eq!(run("cost: 5$").unwrap(), "cost: 5$");
    }

    #[test]
    fn unset_names_the_variable_not_a_value() {
        let err = run("x ${GITHUB_TOKEN} y").unwrap_err();
        assert_eq!(
            err,
            ExpandError::Unset {
                name: "GITHUB_TOKEN".into()
            }
        );
        assert_eq!(err.to_string(), "uses ${GITHUB_TOKEN}, which is not set");
    }

    #[test]
    fn malformed_references_are_refused() {
        for bad in [
            "${",
            "${TOKEN",
            "abc ${TOKEN:-x",
            "${}",
            "${1A}",
            "${A B}",
            "${input:key}",
            "${keyring:name}",
            "${A:=x}",
            "${A:-${B}}",
            "${A-x}",
        ] {
            let err = run(bad).unwrap_err();
            assert!(
                matches!(err, ExpandError::Malformed { .. }),
                "{bad}: {err:?}"
            );
            assert!(err.to_string().contains("$$"), "{err}");
        }
        // A nested reference closes at the first `}`: the rest is literal.
        assert!(run("${A:-${B}}").is_err());
    }

    #[test]
    fn values_are_collected_as_secrets_but_defaults_are_not() {
        let e = expand("${TOKEN}:${MISSING:-def}:${EMPTY}", &Vars::Lookup(&env)).unwrap();
        assert_eq!(e.text, "tok-123:def:");
        assert!(e.had_refs);
        assert_eq!(e.values, vec!["tok-123".to_string()]);
        let none = expand("$$plain", &Vars::Lookup(&env)).unwrap();
        assert!(!none.had_refs);
    }

    #[test]
    fn shape_only_checks_syntax_and_uses_placeholders() {
        let e = expand("${A}/${B:-d}", &Vars::ShapeOnly).unwrap();
        assert_eq!(e.text, "x/d");
        assert!(expand("${A", &Vars::ShapeOnly).is_err());
    }

    #[test]
    fn pieces_split_literals_and_references() {
        assert_eq!(
            pieces("Bearer ${TOKEN}").unwrap(),
            vec![
                Piece::Literal("Bearer "),
                Piece::Ref {
                    name: "TOKEN",
                    default: None
                }
            ]
        );
        assert_eq!(
            pieces("$$a${B:-c}d").unwrap(),
            vec![
                Piece::Literal("$$a"),
                Piece::Ref {
                    name: "B",
                    default: Some("c")
                },
                Piece::Literal("d")
            ]
        );
        assert_eq!(pieces("plain $$ text"), None);
        assert_eq!(pieces("${bad"), None);
    }
}

/// `text` with every `$` that does not start a reference Switchboard
/// expands, or `$$`, doubled: what another client's file meant literally
/// (or expanded its own way, like `${input:key}`) then reaches the server
/// as written. References and `$$` are kept as they are.
pub fn escape_foreign(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("$$") {
            out.push_str("$$");
            rest = after;
            continue;
        }
        if tail.starts_with("${")
            && let Some(close) = tail.find('}')
            && expand(&tail[..=close], &Vars::ShapeOnly).is_ok()
        {
            out.push_str(&tail[..=close]);
            rest = &tail[close + 1..];
            continue;
        }
        if tail.starts_with("${") {
            out.push_str("$$");
        } else {
            out.push('$');
        }
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    #[test]
    fn foreign_placeholders_are_escaped_and_ours_kept() {
        assert_eq!(escape_foreign("${input:key}"), "$${input:key}");
        assert_eq!(
            escape_foreign("Bearer ${T} $$ $HOME"),
            "Bearer ${T} $$ $HOME"
        );
        assert_eq!(escape_foreign("${A:-x}/${unclosed"), "${A:-x}/$${unclosed");
        for text in ["${input:key}", "a ${ b", "${1}"] {
            let back = expand(&escape_foreign(text), &Vars::ShapeOnly).unwrap();
            assert_eq!(back.text, text);
        }
    }
}
