//! A type of the core owns its state in one place (see "A type owns its
//! state" in the style guide and issue #28): no struct has more than
//! [`MAX_FIELDS`] named fields, and no type's `impl` blocks are spread over
//! more than [`MAX_IMPL_FILES`] files, except the types listed in
//! [`WIDE_STRUCTS`] and [`SPREAD_TYPES`], at no more than their recorded
//! figures. Read from the sources like the layer rule: each file up to its
//! test module, comments left out.

use std::collections::{BTreeMap, BTreeSet};

use super::{core_src, rust_files, strip_comment};

/// Most named fields a struct of the core may have: past a screenful, split
/// it by what each part owns (the connection, the status cell, the calls in
/// flight), not by which file its methods happen to be in.
const MAX_FIELDS: usize = 15;

/// Most files of the core holding `impl` blocks (inherent or of a trait) of
/// one type, so a type's methods are found next to its fields.
const MAX_IMPL_FILES: usize = 3;

/// Structs still over [`MAX_FIELDS`], with their count of named fields
/// today. The test fails when a listed struct grows past its figure, and
/// when one is within the limit (then remove its row), so the list stays
/// true; a figure is only ever lowered.
const WIDE_STRUCTS: &[(&str, usize)] = &[
    // The hub's shared state (hub.rs), used by every `impl HubHandle` file
    // (issue #28: split by owner like `Upstream`).
    ("HubInner", 35),
    // The plain copy of an upstream's status the snapshot is built from
    // (upstream/status.rs): one field per field of the wire type.
    ("UpstreamView", 16),
];

/// Types whose `impl` blocks are still in more than [`MAX_IMPL_FILES`]
/// files, with that number of files today; the same rules as for
/// [`WIDE_STRUCTS`].
const SPREAD_TYPES: &[(&str, usize)] = &[
    // The hub's handle: a file per job under `hub/` (issue #28).
    ("HubHandle", 15),
];

/// A line's leading identifier (letters, digits, `_`).
fn leading_ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// `s` without a leading visibility (`pub`, `pub(crate)`, `pub(in a::b)`).
fn without_visibility(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("pub") else {
        return s;
    };
    let rest = match rest.strip_prefix('(') {
        Some(inner) => inner.find(')').map_or(rest, |at| &inner[at + 1..]),
        None => rest,
    };
    // `pub` must be a word of its own (not `public_thing: u8`).
    if rest.starts_with(char::is_whitespace) {
        rest.trim_start()
    } else {
        s
    }
}

/// The lines before the test module (`#[cfg(test)]` then a `mod` line): a
/// test-only item above it (a helper, an import) does not hide the rest of
/// the file. Every rule of the layer test reads this part.
pub(super) fn before_test_module(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|next| without_visibility(next.trim()).starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The structs with named fields that `lines` define: name and how many
/// named fields each has. Attributes, doc comments and comments are not
/// fields; a field's type may span lines (only lines at the body's own
/// brace depth that start with `name:` count).
fn struct_fields(lines: &[&str]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut open: Option<(String, usize, i32)> = None;
    for line in lines {
        let code = strip_comment(line).trim();
        if let Some((name, fields, depth)) = &mut open {
            if *depth == 1 && !code.starts_with('#') {
                let rest = without_visibility(code);
                let after = rest[leading_ident(rest).len()..].trim_start();
                if !leading_ident(rest).is_empty()
                    && after.starts_with(':')
                    && !after.starts_with("::")
                {
                    *fields += 1;
                }
            }
            for c in code.chars() {
                match c {
                    '{' => *depth += 1,
                    '}' => *depth -= 1,
                    _ => {}
                }
            }
            if *depth <= 0 {
                found.push((std::mem::take(name), *fields));
                open = None;
            }
            continue;
        }
        let Some(rest) = without_visibility(code).strip_prefix("struct ") else {
            continue;
        };
        let name = leading_ident(rest.trim_start()).to_string();
        // Only a body opened on the same line as the name (how rustfmt writes
        // it) has named fields; tuple and unit structs end in `(` or `;`, and
        // a body closed on that line is empty.
        if let Some(at) = code.find('{') {
            if code[at + 1..].contains('}') {
                found.push((name, 0));
            } else {
                open = Some((name, 0, 1));
            }
        }
    }
    found
}

/// The type each `impl` block in `lines` is for (the last path segment,
/// without generics): `impl<T> a::Foo<T>` and `impl Bar for Foo` are both
/// `Foo`.
fn impl_targets(lines: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for line in lines {
        let code = strip_comment(line).trim();
        let code = code.strip_prefix("unsafe ").unwrap_or(code);
        let Some(mut rest) = code.strip_prefix("impl") else {
            continue;
        };
        if let Some(generics) = rest.strip_prefix('<') {
            let mut depth = 1;
            let Some(end) = generics.char_indices().find_map(|(i, c)| {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            }) else {
                continue;
            };
            rest = &generics[end + 1..];
        } else if !rest.starts_with(char::is_whitespace) {
            continue; // `implement_x()`, not an impl block
        }
        let header = rest.split('{').next().unwrap_or_default();
        let header = header.split(" where").next().unwrap_or_default();
        // The self type follows ` for ` outside of generics, if there is one.
        let mut depth = 0;
        let mut self_type = header;
        for (i, c) in header.char_indices() {
            match c {
                '<' | '(' => depth += 1,
                '>' | ')' => depth -= 1,
                _ if depth == 0 && header[i..].starts_with(" for ") => {
                    self_type = &header[i + " for ".len()..];
                }
                _ => {}
            }
        }
        let path = self_type.trim().trim_start_matches('&').trim();
        let path = path.split('<').next().unwrap_or_default();
        let name = path.rsplit("::").next().unwrap_or_default().trim();
        if !name.is_empty() {
            found.push(name.to_string());
        }
    }
    found
}

/// Every Rust file of the core, relative to `src/`, with what precedes its
/// test module.
fn core_files() -> Vec<(String, String)> {
    let src = core_src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let shown = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (shown, before_test_module(&text).join("\n"))
        })
        .collect()
}

/// Measured figures checked against `limit` and an allow-list: a type past
/// the limit and not listed, past its listed figure, or listed but within
/// the limit (or gone) is a problem. A figure above today's count is not
/// (a branch that shrinks a type need not edit the list another one reads).
fn over_limit(
    measured: &BTreeMap<String, (usize, String)>,
    limit: usize,
    allowed: &[(&str, usize)],
    what: &str,
    list: &str,
) -> Vec<String> {
    let allowed: BTreeMap<&str, usize> = allowed.iter().copied().collect();
    let mut problems = Vec::new();
    for (name, (n, place)) in measured {
        match allowed.get(name.as_str()) {
            _ if *n <= limit => {}
            None => problems.push(format!(
                "`{name}` has {n} {what} (at most {limit}): {place}; split it by what each part owns"
            )),
            Some(&max) if *n > max => problems.push(format!(
                "`{name}` has {n} {what}, more than the {max} recorded in {list}: {place}"
            )),
            Some(_) => {}
        }
    }
    for name in allowed.keys() {
        let n = measured.get(*name).map_or(0, |(n, _)| *n);
        if n <= limit {
            problems.push(format!(
                "`{name}` has {n} {what}, within the limit of {limit}: remove it from {list}"
            ));
        }
    }
    problems
}

/// What breaks the two rules in `files` (path, text before the tests).
fn ownership_problems(files: &[(String, String)]) -> Vec<String> {
    // The widest definition of each struct name, and each type's files.
    let mut widths: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut impl_files: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in files {
        let lines: Vec<&str> = code.lines().collect();
        for (name, fields) in struct_fields(&lines) {
            let entry = widths.entry(name).or_insert((0, String::new()));
            if fields > entry.0 {
                *entry = (fields, file.clone());
            }
        }
        for name in impl_targets(&lines) {
            impl_files.entry(name).or_default().insert(file.clone());
        }
    }
    let spread: BTreeMap<String, (usize, String)> = impl_files
        .into_iter()
        .map(|(name, files)| {
            let shown = files.iter().cloned().collect::<Vec<_>>().join(", ");
            (name, (files.len(), shown))
        })
        .collect();
    let mut problems = over_limit(
        &widths,
        MAX_FIELDS,
        WIDE_STRUCTS,
        "named fields",
        "WIDE_STRUCTS",
    );
    problems.extend(over_limit(
        &spread,
        MAX_IMPL_FILES,
        SPREAD_TYPES,
        "files with its impl blocks",
        "SPREAD_TYPES",
    ));
    problems
}

#[test]
fn types_own_their_state_in_few_fields_and_files() {
    let files = core_files();
    let upstream = files.iter().find(|(f, _)| f == "upstream.rs");
    assert!(
        upstream.is_some_and(|(_, code)| code.contains("pub struct Upstream {")),
        "the core's files were not read"
    );
    let problems = ownership_problems(&files);
    assert!(
        problems.is_empty(),
        "types of the core that do not own their state in one place:\n{}",
        problems.join("\n")
    );
}

/// The ownership rules on made-up files, so that the test above cannot pass
/// by finding nothing.
#[test]
fn counts_fields_and_impl_files_and_keeps_the_allow_lists_true() {
    let sample = "\
/// Doc.
#[derive(Debug)]
pub(crate) struct Wide<T> {
    /// a: the first
    pub a: u8,
    #[serde(default)]
    pub(super) b: Option<(u64,
        String)>,
    c: std::collections::HashMap<String, T>, // a comment: d: e
    // x: not a field
}
struct Tuple(u8, u16);
struct Unit;
struct Empty {}
pub struct Nested {
    f: fn(u8) -> u8,
}
";
    let file = format!(
        "{sample}#[cfg(test)]\nfn helper() {{}}\n#[cfg(test)]\nmod tests {{\n    struct T {{\n        a: u8,\n    }}\n}}\n"
    );
    let lines = before_test_module(&file);
    assert_eq!(
        lines.len(),
        sample.lines().count() + 2,
        "up to the test module"
    );
    assert_eq!(
        struct_fields(&lines),
        [
            ("Wide".to_string(), 3),
            ("Empty".to_string(), 0),
            ("Nested".to_string(), 1)
        ]
    );
    let impls = "\
impl Wide<u8> {
impl<T: Clone> crate::a::Wide<T> {
impl fmt::Display for Nested {
    impl<'a> Iterator for Walk<'a> where 'a: 'static {
unsafe impl Send for Unit {}
implement_me();
";
    let lines: Vec<&str> = impls.lines().collect();
    assert_eq!(
        impl_targets(&lines),
        ["Wide", "Wide", "Nested", "Walk", "Unit"]
    );

    // Four files with `impl Spread`, one struct of 16 fields.
    let wide: String = (0..16).map(|i| format!("    f{i}: u8,\n")).collect();
    let files: Vec<(String, String)> = (0..4)
        .map(|i| (format!("f{i}.rs"), "impl Spread {\n}\n".to_string()))
        .chain([("w.rs".to_string(), format!("struct Big {{\n{wide}}}\n"))])
        .collect();
    let problems = ownership_problems(&files);
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("`Big` has 16 named fields (at most 15)")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("`Spread` has 4 files with its impl blocks (at most 3)")),
        "{problems:?}"
    );

    let measured: BTreeMap<String, (usize, String)> = [
        ("Grew".to_string(), (5, "g.rs".to_string())),
        ("Shrank".to_string(), (4, "s.rs".to_string())),
        ("Fits".to_string(), (2, "f.rs".to_string())),
        ("Kept".to_string(), (4, "k.rs".to_string())),
        ("New".to_string(), (4, "n.rs".to_string())),
    ]
    .into();
    let listed = [
        ("Grew", 4),
        ("Shrank", 5),
        ("Fits", 3),
        ("Gone", 6),
        ("Kept", 4),
    ];
    assert_eq!(
        over_limit(&measured, 3, &listed, "things", "LIST"),
        [
            "`Grew` has 5 things, more than the 4 recorded in LIST: g.rs",
            "`New` has 4 things (at most 3): n.rs; split it by what each part owns",
            "`Fits` has 2 things, within the limit of 3: remove it from LIST",
            "`Gone` has 0 things, within the limit of 3: remove it from LIST",
        ]
    );
}
