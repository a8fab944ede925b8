//! What tool definitions cost a client, in tokens: the JSON of each tool as
//! `tools/list` sends it, counted with OpenAI's `o200k_base` vocabulary (the
//! `bpe-openai` crate, which embeds it: nothing is read or downloaded at run
//! time). Other models' tokenizers differ by some percent; the count is a
//! size a person can compare, not a bill.
//!
//! Pure and layer 1: it is given tools and counts them. Counting is linear
//! in the text but not free (about a megabyte of JSON for a few thousand
//! tools), so the hub counts once per catalog change, off the request path
//! (`hub::tokens`), and the snapshot reads the cached result.
//!
//! The vocabulary costs memory for as long as a process has it loaded
//! (about 35 MiB of tables, plus the 32 MiB it is read from), more than the
//! whole idle hub otherwise; so the hub counts in a short-lived helper, its
//! own binary run as `<program> __count-tokens` (see `hub::tokens`), which
//! reads tool definitions one per line and answers with [`serve_counts`].

use std::collections::HashMap;

use rmcp::model::Tool;

use crate::catalog::Catalog;
use crate::config::ServerId;

/// Tokens of `text` in `o200k_base`.
pub fn count_text(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}

/// Tokens of one tool's definition: its JSON as a client receives it in
/// `tools/list` (compact, as rmcp serializes it).
pub fn count_tool(tool: &Tool) -> usize {
    count_text(&tool_json(tool))
}

/// Tokens of a list of tool definitions: the sum of [`count_tool`] over
/// them (the list's own brackets and commas, one token or so per tool, are
/// not counted). The function every per-mode or per-profile total uses.
pub fn count_tools(tools: &[Tool]) -> usize {
    tools.iter().map(count_tool).sum()
}

/// The hidden first argument that runs the hub's binary as a token counter
/// (dispatched with the guard's, see `upstream::guard::run_if_guard`).
pub const COUNT_ARG: &str = "__count-tokens";

/// The counter's whole work: for each line of `input` (one text, e.g. a
/// tool's compact JSON, which has no raw line break), the line's tokens as a
/// decimal number on a line of `output`.
pub fn serve_counts(
    input: impl std::io::BufRead,
    mut output: impl std::io::Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        writeln!(output, "{}", count_text(&line?))?;
    }
    output.flush()
}

/// One tool's definition as a client receives it in `tools/list` (compact
/// JSON: one line).
pub fn tool_json(tool: &Tool) -> String {
    // Serializing an rmcp `Tool` into memory does not fail; if it ever did,
    // the tool would count as nothing rather than stop the count.
    serde_json::to_string(tool).unwrap_or_default()
}

/// What one catalog's tools cost: per server (its exposed tools, after
/// `disabledTools`, with the names clients see) and in all.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CatalogTokens {
    /// The catalog's tool version this was counted for.
    pub tools_version: u64,
    /// Tokens of each server's exposed tools.
    pub per_server: HashMap<ServerId, usize>,
    /// Tokens of each tool, by exposed name (for the totals of endpoints
    /// that list some tools: search mode's pinned ones, profiles).
    pub per_tool: HashMap<std::sync::Arc<str>, usize>,
    /// Tokens of every tool in the catalog (the built-in tools excluded).
    pub total: usize,
    /// Tokens of each tool of each enabled server as the server lists it
    /// (its own name; disabled tools too), for the control API's tool list.
    pub listed: HashMap<ServerId, HashMap<std::sync::Arc<str>, usize>>,
}

impl CatalogTokens {
    /// `catalog`'s tools grouped by the server each one leads to, given
    /// `counts`, the tokens of each tool's JSON ([`tool_json`]) in the
    /// catalog's order, and the `listed` counts of each server's own tools.
    pub fn with_counts(
        catalog: &Catalog,
        counts: &[usize],
        listed: HashMap<ServerId, HashMap<std::sync::Arc<str>, usize>>,
    ) -> Self {
        let mut per_server: HashMap<ServerId, usize> = HashMap::new();
        let mut per_tool = HashMap::with_capacity(catalog.tools.len());
        let mut total = 0;
        for (i, tool) in catalog.tools.iter().enumerate() {
            let tokens = counts.get(i).copied().unwrap_or_default();
            total += tokens;
            per_tool.insert(std::sync::Arc::from(tool.name.as_ref()), tokens);
            if let Some(route) = catalog.tool(&tool.name) {
                *per_server.entry(route.server.clone()).or_default() += tokens;
            }
        }
        Self {
            tools_version: catalog.versions.tools,
            per_server,
            per_tool,
            total,
            listed,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::catalog::CatalogSource;
    use crate::listing::{Capabilities, RefreshTrigger};

    fn tool(name: &str, description: &str) -> Tool {
        serde_json::from_value(json!({
            "name": name, "description": description,
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
        }))
        .unwrap()
    }

    #[test]
    fn counts_match_o200k_base() {
        // Reference counts from OpenAI's `tiktoken` with `o200k_base`
        // (see the test's note in docs/status.md).
        assert_eq!(
            bpe_openai::o200k_base().encode("hello world"),
            vec![24912, 2375]
        );
        assert_eq!(count_text("hello world"), 2);
        assert_eq!(count_text(""), 0);
    }

    #[test]
    fn a_catalog_is_counted_per_server_and_in_all() {
        let source = |id: &str, tools: Vec<Tool>, disabled: &[&str]| {
            let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
            caps.tools = tools;
            CatalogSource {
                server: ServerId::new(id).unwrap(),
                prefix: id.to_string(),
                disabled_tools: disabled.iter().map(|s| s.to_string()).collect(),
                capabilities: Arc::new(caps),
                pinned_at: std::collections::HashMap::new(),
                tool_overrides: Default::default(),
            }
        };
        let a = vec![tool("read", "Read a file."), tool("write", "Write a file.")];
        let b = vec![tool("search", "Search the web for pages about a topic.")];
        let catalog = Catalog::build(vec![
            source("a", a, &["write"]),
            source("b", b.clone(), &[]),
        ]);
        let counts: Vec<usize> = catalog
            .tools
            .iter()
            .map(|t| count_text(&tool_json(t)))
            .collect();
        let counted = CatalogTokens::with_counts(&catalog, &counts, HashMap::new());
        let exposed = |name: &str| catalog.tools.iter().find(|t| t.name == name).unwrap();
        let a_tokens = count_tool(exposed("a__read"));
        let b_tokens = count_tool(exposed("b__search"));
        assert!(
            a_tokens > 10 && b_tokens > a_tokens,
            "{a_tokens} {b_tokens}"
        );
        assert_eq!(counted.per_server[&ServerId::new("a").unwrap()], a_tokens);
        assert_eq!(counted.per_server[&ServerId::new("b").unwrap()], b_tokens);
        assert_eq!(counted.total, a_tokens + b_tokens);
        assert_eq!(count_tools(&catalog.tools), counted.total);
        // The exposed name is what a client sees, so it is what is counted.
        let mut plain = b[0].clone();
        plain.name = "b__search".into();
        assert_eq!(count_tool(&plain), b_tokens);
    }
}
