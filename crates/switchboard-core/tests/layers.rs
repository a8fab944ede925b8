//! The engine's layout, checked from its sources (see "The core's layers"
//! in `docs/architecture.md`): each top-level module of the core imports
//! only from modules in lower (or its own) layers, no two top-level modules
//! import each other through any chain, and no Rust file in the workspace has
//! more than [`MAX_CODE_LINES`] lines before its tests. Inside the core, a
//! type owns its state in one place (`layers/ownership.rs`): no struct has
//! more than 15 named fields and no type's `impl` blocks are spread over
//! more than 3 files, except the types listed there.
//!
//! A top-level module is a file `src/<name>.rs` together with everything under
//! `src/<name>/`. Its references are the `crate::<name>` paths in its code
//! part (the lines before the first `#[cfg(test)]`), comments left out; `lib.rs`
//! is the facade and is not checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The ownership rules (fields per struct, files per type), in a file of
/// their own beside this one (not a test target of its own).
#[path = "layers/ownership.rs"]
mod ownership;

/// Every top-level module of the core and its layer, bottom to top. A module
/// may import from its own layer and those below; events flow up on channels.
/// To move a module, change its number here; a new module needs a row.
const LAYERS: &[(&str, u8)] = &[
    // 0: no engine state; what everything else is written in terms of.
    // (The config file's model is the `switchboard-config` crate, below
    // them all: `crate::config` is a re-export, not a module.)
    ("util", 0),
    ("limiter", 0),
    ("events", 0),
    // 1: pure or self-contained pieces one server or one request needs.
    ("listing", 1),
    ("catalog", 1),
    ("fingerprint", 1),
    ("resilience", 1),
    ("persist", 1),
    ("pins", 1),
    ("access", 1),
    ("identity", 1),
    ("import", 1),
    ("auth", 1),
    ("snapshot", 1),
    ("activity", 1),
    ("approval", 1),
    ("search", 1),
    ("token_count", 1),
    ("tool_defs", 1),
    ("interpreter", 1),
    ("sandbox", 1),
    ("scan", 1),
    ("mcp_registry", 1),
    // 2: one upstream server.
    ("upstream", 2),
    // 3: the set of servers and sessions, and the hub that owns them.
    ("registry", 3),
    ("sessions", 3),
    ("reload", 3),
    ("hub", 3),
    // 4: routing a request to a server.
    ("builtin", 4),
    ("gateway", 4),
    ("codemode", 4),
    // 5: the HTTP surface.
    ("http", 5),
    // 6: composition.
    ("server", 6),
];

/// Longest code part (lines before the first `#[cfg(test)]`) of any Rust file.
const MAX_CODE_LINES: usize = 700;

fn core_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, skipping build output and dependencies.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "target" | "node_modules" | "gen" | ".git" | "corpus" | "artifacts"
            ) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The lines before the test module (`#[cfg(test)]` then a `mod` line). A
/// test-only item above it (a helper, an import) does not end the code part:
/// stopping at the first `#[cfg(test)]` hid the rest of several files from
/// these rules.
fn code_part(text: &str) -> Vec<&str> {
    ownership::before_test_module(text)
}

/// A line without its `//` comment (string contents are not parsed: a
/// `crate::` inside a string literal would count, which the core has none of).
fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The top-level module names a line refers to as `crate::<name>`, including
/// grouped imports (`use crate::{a::X, b}`).
fn crate_refs(line: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        // `$crate::` and `some_crate::` are not this crate.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names inside the braces: those after `{` or a `,` at depth 0.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            found.push(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// Where one module refers to another: (file relative to `src/`, line number).
type Edges = BTreeMap<(String, String), Vec<(String, usize)>>;

/// Top-level modules and, for each reference from one to another, where.
fn module_graph() -> (BTreeSet<String>, Edges) {
    let src = core_src();
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if (path.is_dir() || path.extension().is_some_and(|e| e == "rs")) && stem != "lib" {
            modules.insert(stem);
        }
    }
    let mut edges = Edges::new();
    for module in &modules {
        let mut files = Vec::new();
        let file = src.join(format!("{module}.rs"));
        if file.is_file() {
            files.push(file);
        }
        rust_files(&src.join(module), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let shown = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for (n, line) in code_part(&text).into_iter().enumerate() {
                for target in crate_refs(strip_comment(line)) {
                    if &target != module && modules.contains(&target) {
                        edges
                            .entry((module.clone(), target))
                            .or_default()
                            .push((shown.clone(), n + 1));
                    }
                }
            }
        }
    }
    (modules, edges)
}

/// Where an edge's references are, for a message: `a.rs:3, a/b.rs:10`.
fn places(at: &[(String, usize)]) -> String {
    let mut shown: Vec<String> = at.iter().take(3).map(|(f, l)| format!("{f}:{l}")).collect();
    if at.len() > 3 {
        shown.push(format!("and {} more", at.len() - 3));
    }
    shown.join(", ")
}

/// The import cycles among top-level modules: each strongly connected group
/// of more than one module (Tarjan's algorithm).
fn cycles(modules: &BTreeSet<String>, edges: &Edges) -> Vec<Vec<String>> {
    struct Walk<'a> {
        next: BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.next.get(v).cloned().unwrap_or_default() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        next: BTreeMap::new(),
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for (from, to) in edges.keys() {
        walk.next
            .entry(from.as_str())
            .or_default()
            .push(to.as_str());
    }
    for module in modules {
        if !walk.index.contains_key(module.as_str()) {
            walk.visit(module);
        }
    }
    walk.groups
}

/// What is wrong with the module graph, one line per problem.
fn layout_problems() -> Vec<String> {
    let (modules, edges) = module_graph();
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut problems = Vec::new();
    for module in &modules {
        if !layer.contains_key(module.as_str()) {
            problems.push(format!(
                "module `{module}` has no layer: add it to LAYERS in tests/layers.rs"
            ));
        }
    }
    for (name, _) in LAYERS {
        if !modules.contains(*name) {
            problems.push(format!(
                "LAYERS in tests/layers.rs names `{name}`, which is not a module of the core"
            ));
        }
    }
    for group in cycles(&modules, &edges) {
        let mut line = format!("import cycle among {}:", group.join(", "));
        for ((from, to), at) in &edges {
            if group.contains(from) && group.contains(to) {
                let _ = write!(line, "\n    {from} -> {to} ({})", places(at));
            }
        }
        problems.push(line);
    }
    for ((from, to), at) in &edges {
        if let (Some(&a), Some(&b)) = (layer.get(from.as_str()), layer.get(to.as_str()))
            && b > a
        {
            problems.push(format!(
                "`{from}` (layer {a}) imports `{to}` (layer {b}), a higher layer: {}",
                places(at)
            ));
        }
    }
    problems
}

#[test]
fn modules_import_only_lower_layers_and_form_no_cycle() {
    let problems = layout_problems();
    assert!(
        problems.is_empty(),
        "the core's module layout breaks its layers ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn no_rust_file_is_too_long() {
    let root = workspace_root();
    let mut files = Vec::new();
    for dir in [
        "crates",
        "tests",
        "src-tauri/src",
        "bench",
        "fuzz/fuzz_targets",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found too few Rust files under {root:?}");
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            let lines = code_part(&text).len();
            (lines > MAX_CODE_LINES).then(|| {
                let shown = file.strip_prefix(&root).unwrap_or(file).display();
                format!("{shown}: {lines} lines before its tests")
            })
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "Rust files longer than {MAX_CODE_LINES} lines before their tests (split them by \
         responsibility):\n{}",
        long.join("\n")
    );
}

/// The workspace crates a crate's manifest depends on (normal and
/// target-specific dependencies; dev- and build-dependencies left out).
fn switchboard_deps(manifest: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            let section = line.trim_matches(|c| c == '[' || c == ']');
            in_deps = section == "dependencies" || section.ends_with(".dependencies");
            continue;
        }
        if !in_deps || line.starts_with('#') {
            continue;
        }
        let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if key.starts_with("switchboard") {
            deps.insert(key.to_string());
        }
    }
    deps
}

/// Which crate may depend on which: the helpers on no other crate, the
/// config crate on neither the engine nor anything above it, the engine and
/// the wire types on no binary, the AI-client crate on no binary, the
/// desktop app not on the CLI crate (it uses `switchboard-clients`).
#[test]
fn crates_depend_only_along_their_boundaries() {
    let root = workspace_root();
    let rules: &[(&str, &[&str])] = &[
        (
            "crates/switchboard-util",
            &[
                "switchboard-api",
                "switchboard-config",
                "switchboard-core",
                "switchboard-clients",
                "switchboard",
                "switchboard-app",
            ],
        ),
        (
            "crates/switchboard-config",
            &[
                "switchboard-core",
                "switchboard-clients",
                "switchboard",
                "switchboard-app",
            ],
        ),
        (
            "crates/switchboard-api",
            &[
                "switchboard-core",
                "switchboard-clients",
                "switchboard",
                "switchboard-app",
            ],
        ),
        (
            "crates/switchboard-core",
            &["switchboard-clients", "switchboard", "switchboard-app"],
        ),
        (
            "crates/switchboard-clients",
            &["switchboard", "switchboard-app"],
        ),
        ("src-tauri", &["switchboard", "switchboard-fixtures"]),
    ];
    let mut problems = Vec::new();
    for (dir, forbidden) in rules {
        let manifest = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap();
        let deps = switchboard_deps(&manifest);
        for dep in forbidden.iter() {
            if deps.contains(*dep) {
                problems.push(format!("{dir} depends on {dep}"));
            }
        }
    }
    let app =
        switchboard_deps(&std::fs::read_to_string(root.join("src-tauri/Cargo.toml")).unwrap());
    assert!(
        app.contains("switchboard-core") && app.contains("switchboard-clients"),
        "the app's manifest was not read: {app:?}"
    );
    let config = switchboard_deps(
        &std::fs::read_to_string(root.join("crates/switchboard-config/Cargo.toml")).unwrap(),
    );
    assert!(
        config.contains("switchboard-util"),
        "the config crate's manifest was not read: {config:?}"
    );
    assert!(
        problems.is_empty(),
        "crate boundaries broken:\n{}",
        problems.join("\n")
    );
}

/// The HTTP resources (`control`, `servers`, `tools`, ...) hold handlers and
/// import none of each other: only the route table (`http/routes.rs`) names
/// them, and the answers they share are in `http/respond.rs`.
#[test]
fn http_resources_import_only_the_shared_answers() {
    const RESOURCES: &[&str] = &[
        "activity", "auth", "control", "pending", "pins", "servers", "tools",
    ];
    let dir = core_src().join("http");
    let mut problems = Vec::new();
    for name in RESOURCES {
        let text = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        for (n, line) in code_part(&text).iter().enumerate() {
            let code = strip_comment(line);
            for other in RESOURCES {
                let crate_path = format!("crate::http::{other}");
                let super_path = format!("super::{other}");
                if code.contains(&crate_path) || code.contains(&super_path) {
                    problems.push(format!("http/{name}.rs:{}: imports {other}", n + 1));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "an HTTP resource imports another:\n{}",
        problems.join("\n")
    );
    let routes = std::fs::read_to_string(dir.join("routes.rs")).unwrap();
    assert!(
        routes.contains("servers::put_server"),
        "the route table was not read"
    );
}

/// The checks themselves, on made-up input, so that the two tests above
/// cannot pass by finding nothing.
#[test]
fn reads_crate_references_and_finds_cycles() {
    assert_eq!(crate_refs("use crate::hub::HubHandle;"), ["hub"]);
    assert_eq!(
        crate_refs("use crate::{config::ServerId, gateway::{Gateway, Scope}, hub};"),
        ["config", "gateway", "hub"]
    );
    assert_eq!(
        crate_refs("let x = crate::access::new_token()?; // crate::hub"),
        ["access", "hub"]
    );
    assert_eq!(
        crate_refs(strip_comment("f(); // see crate::hub")),
        Vec::<String>::new()
    );
    assert!(crate_refs("$crate::x and switchboard_crate::y").is_empty());
    assert_eq!(code_part("a\nb\n#[cfg(test)]\nmod tests {}\n"), ["a", "b"]);
    assert_eq!(
        code_part("a\n    #[cfg(test)]\n    use x;\nb\n#[cfg(test)]\nmod tests {}\n"),
        ["a", "    #[cfg(test)]", "    use x;", "b"]
    );

    let modules: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let mut edges = Edges::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges.insert((from.into(), to.into()), vec![(format!("{from}.rs"), 1)]);
    }
    assert_eq!(cycles(&modules, &edges), [["a", "b", "c"]]);
    edges.remove(&("c".into(), "a".into()));
    assert!(cycles(&modules, &edges).is_empty());
}

/// The module graph is read at all: the core has modules and references.
#[test]
fn the_core_has_a_module_graph() {
    let (modules, edges) = module_graph();
    assert!(
        modules.contains("hub") && modules.contains("upstream"),
        "{modules:?}"
    );
    assert!(
        edges
            .keys()
            .any(|(from, to)| from == "hub" && to == "upstream"),
        "no hub -> upstream reference found"
    );
}
