//! Simple URI template matching for `resources/read` on resource templates.
//!
//! Supports literal text and `{var}` expressions only: `{var}` matches one or
//! more characters other than `/`, `{+var}` one or more of any character. Other
//! RFC 6570 operators are not understood; an unclosed `{` is literal text.
//! Pure functions, no state.

/// One piece of a parsed template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part<'a> {
    Literal(&'a str),
    Var { name: &'a str, slashes: bool },
}

fn parse(template: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        let Some((literal, expression)) = rest
            .split_once('{')
            .and_then(|(literal, tail)| tail.split_once('}').map(|split| (literal, split)))
        else {
            parts.push(Part::Literal(rest));
            break;
        };
        let (name, tail) = expression;
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        parts.push(match name.strip_prefix('+') {
            Some(name) => Part::Var {
                name,
                slashes: true,
            },
            None => Part::Var {
                name,
                slashes: false,
            },
        });
        rest = tail;
    }
    parts
}

/// Matches `uri` against `template`, returning the variable bindings in order,
/// or `None` when it does not match.
pub fn match_template(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let mut bindings = Vec::new();
    match_parts(&parse(template), uri, &mut bindings).then_some(bindings)
}

fn match_parts(parts: &[Part<'_>], uri: &str, bindings: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match *first {
        Part::Literal(literal) => uri
            .strip_prefix(literal)
            .is_some_and(|tail| match_parts(rest, tail, bindings)),
        Part::Var { name, slashes } => {
            for (index, ch) in uri.char_indices() {
                if ch == '/' && !slashes {
                    break;
                }
                let end = index + ch.len_utf8();
                bindings.push((name.to_owned(), uri[..end].to_owned()));
                if match_parts(rest, &uri[end..], bindings) {
                    return true;
                }
                bindings.pop();
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn matches_simple_variables() {
        let template = "fixture://a/items/{id}";
        assert_eq!(
            match_template(template, "fixture://a/items/42"),
            bind(&[("id", "42")])
        );
        assert_eq!(match_template(template, "fixture://a/items/"), None);
        assert_eq!(match_template(template, "fixture://a/items/4/2"), None);
        assert_eq!(match_template(template, "fixture://b/items/42"), None);
        assert_eq!(match_template(template, "fixture://a/items"), None);
    }

    #[test]
    fn matches_several_variables_and_suffixes() {
        assert_eq!(
            match_template("db://{table}/rows/{id}.json", "db://users/rows/7.json"),
            bind(&[("table", "users"), ("id", "7")])
        );
        assert_eq!(
            match_template("x://{a}-{b}", "x://one-two-three"),
            bind(&[("a", "one"), ("b", "two-three")])
        );
        assert_eq!(
            match_template("db://{table}/rows/{id}.json", "db://users/rows/7"),
            None
        );
    }

    #[test]
    fn reserved_variables_span_slashes() {
        assert_eq!(
            match_template("file:///{+path}", "file:///a/b/c.txt"),
            bind(&[("path", "a/b/c.txt")])
        );
    }

    #[test]
    fn literal_templates_and_unclosed_braces() {
        assert_eq!(match_template("x://fixed", "x://fixed"), bind(&[]));
        assert_eq!(match_template("x://fixed", "x://fixed2"), None);
        assert_eq!(match_template("x://{open", "x://{open"), bind(&[]));
    }
}
