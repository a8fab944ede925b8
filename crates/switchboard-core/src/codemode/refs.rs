//! The servers a script names statically: `tools.<prefix>`, `tools?.<prefix>`,
//! `tools["<prefix>"]` and `callTool("<prefix>__<tool>", ...)` outside
//! comments and strings. The hub starts those servers, in parallel, before
//! the script runs; a server named only at run time (`tools[name]`) starts
//! on its first call. A reference that is never reached still starts its
//! server (a start, never a call).

use std::collections::BTreeSet;

/// The prefixes `code` names statically, in name order.
pub(crate) fn referenced_prefixes(code: &str) -> BTreeSet<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '"' | '\'' | '`' => i = string_end(&chars, i).0,
            c if is_ident_start(c) => {
                let start = i;
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
                let before = previous_non_space(&chars, start);
                if before == Some('.') {
                    continue;
                }
                let word: String = chars[start..i].iter().collect();
                match word.as_str() {
                    "tools" => {
                        if let Some(prefix) = member(&chars, i) {
                            found.insert(prefix);
                        }
                    }
                    "callTool" => {
                        if let Some(name) = first_string_argument(&chars, i)
                            && let Some((prefix, _)) = name.split_once("__")
                            && !prefix.is_empty()
                        {
                            found.insert(prefix.to_string());
                        }
                    }
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn previous_non_space(chars: &[char], at: usize) -> Option<char> {
    chars[..at]
        .iter()
        .rev()
        .find(|c| !c.is_whitespace())
        .copied()
}

fn skip_space(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    i
}

/// The index after the string starting at `start`, and its text when it
/// has no `${...}`.
fn string_end(chars: &[char], start: usize) -> (usize, Option<String>) {
    let quote = chars[start];
    let mut text = String::new();
    let mut plain = true;
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote {
        match chars[i] {
            '\\' => {
                i += 1;
                plain = false;
            }
            '$' if quote == '`' && chars.get(i + 1) == Some(&'{') => plain = false,
            c => text.push(c),
        }
        i += 1;
    }
    (i + 1, plain.then_some(text))
}

/// The member named right after `tools` (at `i`): `.name`, `?.name` or
/// `["name"]`.
fn member(chars: &[char], i: usize) -> Option<String> {
    let mut i = skip_space(chars, i);
    if chars.get(i) == Some(&'?') && chars.get(i + 1) == Some(&'.') {
        i += 1;
    }
    match chars.get(i)? {
        '.' => {
            let start = skip_space(chars, i + 1);
            let mut end = start;
            while end < chars.len() && is_ident(chars[end]) {
                end += 1;
            }
            (end > start).then(|| chars[start..end].iter().collect())
        }
        '[' => {
            let at = skip_space(chars, i + 1);
            if !matches!(chars.get(at), Some('"' | '\'' | '`')) {
                return None;
            }
            let (after, text) = string_end(chars, at);
            let close = skip_space(chars, after);
            (chars.get(close) == Some(&']')).then_some(text?)
        }
        _ => None,
    }
}

/// The literal first argument of a call at `i` (`("a__b", ...)`).
fn first_string_argument(chars: &[char], i: usize) -> Option<String> {
    let open = skip_space(chars, i);
    if chars.get(open) != Some(&'(') {
        return None;
    }
    let at = skip_space(chars, open + 1);
    if !matches!(chars.get(at), Some('"' | '\'' | '`')) {
        return None;
    }
    string_end(chars, at).1
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn found(code: &str) -> Vec<String> {
        referenced_prefixes(code).into_iter().collect()
    }

    #[test]
    fn static_references_are_found_and_dynamic_ones_and_comments_are_not() {
        assert_eq!(
            found(
                "const a = await tools.github.list_issues({});\n\
                 const b = await tools [ 'my-server' ]['get-thing']();\n\
                 await tools?.slack.post({});\n\
                 await callTool(\"notes__jot\", {});\n\
                 // tools.commented.out()\n\
                 /* tools.blocked.out() */\n\
                 const s = 'tools.quoted.x()';\n\
                 await tools[name].x(); await tools[`dyn${x}`].y();\n\
                 other.tools.not_this();"
            ),
            ["github", "my-server", "notes", "slack"]
        );
        assert_eq!(found("return 1"), Vec::<String>::new());
    }
}
