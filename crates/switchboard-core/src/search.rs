//! Ranking of tool definitions for a natural-language request: what the
//! `switchboard__search_tools` built-in tool and the dashboard's catalog
//! search answer with. Pure: it is given the tools (from the warm catalog, so
//! servers that are not running are searched too) and never starts anything.
//!
//! [`Index::search`] is the ranking served to clients: the lexical ranking
//! (`search/rank.rs`: field-weighted BM25 over stemmed words with concept
//! groups) fused with a semantic one (`search/fuse.rs` over the static
//! embeddings of `search/embed.rs`); [`baseline`] is a plain BM25 over the
//! same text, kept for the evaluation in `bench/search`.

use std::collections::HashMap;

mod embed;
mod fuse;
mod rank;

pub use fuse::Fusion;

use rmcp::model::Tool;
use serde_json::Value;

/// One tool as the ranking sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDoc {
    /// The name a client calls it by on the merged endpoint (`<server>__<tool>`).
    pub name: String,
    /// The server's id.
    pub server: String,
    /// The tool's own name at its server.
    pub tool: String,
    /// The tool's description ("" when it has none).
    pub description: String,
    /// Each parameter's name and description, in schema order.
    pub params: Vec<(String, String)>,
}

impl ToolDoc {
    /// The ranking's view of `tool`, exposed as `name` by server `server`.
    pub fn from_tool(name: &str, server: &str, tool: &Tool) -> Self {
        let params = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(key, schema)| {
                        let description = schema
                            .get("description")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        (key.clone(), description.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            name: name.to_string(),
            server: server.to_string(),
            tool: tool.name.to_string(),
            description: tool.description.as_deref().unwrap_or_default().to_string(),
            params,
        }
    }
}

/// One result: the position of a [`ToolDoc`] in the index and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index into the docs the index was built from.
    pub doc: usize,
    /// Higher is better; only comparable within one search.
    pub score: f32,
    /// Which ranking found it.
    pub matched: Matched,
}

/// Which ranking found a tool: its words, its meaning, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Matched {
    /// The request shares words (or concept words) with the tool.
    #[default]
    Words,
    /// The tool is among the closest by meaning.
    Meaning,
    /// Both.
    Both,
}

impl Matched {
    /// The word the control API and the dashboard show: `lexical`,
    /// `semantic` or `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            Matched::Words => "lexical",
            Matched::Meaning => "semantic",
            Matched::Both => "both",
        }
    }
}

/// The tools of a catalog, prepared for searching.
#[derive(Debug, Default)]
pub struct Index {
    docs: Vec<ToolDoc>,
    ranker: rank::Ranker,
    semantic: fuse::Semantic,
}

impl Index {
    /// Prepares `docs` for searching.
    pub fn build(docs: Vec<ToolDoc>) -> Self {
        let ranker = rank::Ranker::build(&docs);
        let semantic = fuse::Semantic::build(&docs);
        Self {
            docs,
            ranker,
            semantic,
        }
    }

    /// The tools indexed, in the order given to [`Index::build`].
    pub fn docs(&self) -> &[ToolDoc] {
        &self.docs
    }

    /// At most `limit` tools for `query`, best first: the lexical and the
    /// semantic rankings fused.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_fused(query, limit, &Fusion::default())
    }

    /// [`Index::search`] with other fusion parameters, for the evaluation.
    pub fn search_fused(&self, query: &str, limit: usize, how: &Fusion) -> Vec<Hit> {
        let lexical = self.ranker.search(query, FUSION_DEPTH.max(limit));
        let semantic = self.semantic.search(query, how.depth);
        fuse::fuse(&lexical, &semantic, limit, how)
    }

    /// The lexical ranking alone (tools sharing no term with the query are
    /// left out), for the evaluation.
    pub fn search_lexical(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.ranker.search(query, limit)
    }

    /// The semantic ranking alone, for the evaluation.
    pub fn search_semantic(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.semantic.search(query, limit)
    }
}

/// How deep each ranking is read before fusing.
const FUSION_DEPTH: usize = 50;

/// Plain BM25 over each tool's name, description and parameter text, the
/// baseline the evaluation compares [`Index::search`] with.
pub fn baseline(docs: &[ToolDoc], query: &str, limit: usize) -> Vec<Hit> {
    Bm25::build(docs.iter().map(plain_text)).search(&tokens(query), limit)
}

fn plain_text(doc: &ToolDoc) -> Vec<String> {
    let mut text = tokens(&doc.tool);
    text.extend(tokens(&doc.description));
    for (name, description) in &doc.params {
        text.extend(tokens(name));
        text.extend(tokens(description));
    }
    text
}

/// Lower-cased words of `text`, split on anything but letters and digits and
/// on camelCase and snake_case boundaries.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            if ch.is_uppercase() && prev_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
            word.extend(ch.to_lowercase());
        } else {
            prev_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// An inverted index with BM25 scoring.
#[derive(Debug, Default)]
struct Bm25 {
    postings: HashMap<String, Vec<(usize, u32)>>,
    lengths: Vec<u32>,
    average: f32,
}

impl Bm25 {
    fn build(docs: impl Iterator<Item = Vec<String>>) -> Self {
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (doc, terms) in docs.enumerate() {
            lengths.push(u32::try_from(terms.len()).unwrap_or(u32::MAX));
            let mut counts: HashMap<String, u32> = HashMap::new();
            for term in terms {
                *counts.entry(term).or_default() += 1;
            }
            for (term, count) in counts {
                postings.entry(term).or_default().push((doc, count));
            }
        }
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let average = if lengths.is_empty() {
            0.0
        } else {
            total as f32 / lengths.len() as f32
        };
        Self {
            postings,
            lengths,
            average,
        }
    }

    fn search(&self, query: &[String], limit: usize) -> Vec<Hit> {
        let n = self.lengths.len() as f32;
        let mut scores: HashMap<usize, f32> = HashMap::new();
        let mut seen = Vec::new();
        for term in query {
            if seen.contains(&term) {
                continue;
            }
            seen.push(term);
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let tf = tf as f32;
                let len = self.lengths.get(doc).copied().unwrap_or(0) as f32;
                let norm = 1.0 - B + B * len / self.average.max(1.0);
                *scores.entry(doc).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|(doc, score)| Hit {
                doc,
                score,
                matched: Matched::Words,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        hits.truncate(limit);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, description: &str, params: &[(&str, &str)]) -> ToolDoc {
        ToolDoc {
            name: format!("s__{name}"),
            server: "s".into(),
            tool: name.into(),
            description: description.into(),
            params: params
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }

    #[test]
    fn words_split_on_case_and_punctuation() {
        assert_eq!(
            tokens("readFile read_multiple-files URL2Text"),
            ["read", "file", "read", "multiple", "files", "url2", "text"]
        );
    }

    #[test]
    fn the_tool_sharing_the_rarest_terms_ranks_first() {
        let index = Index::build(vec![
            doc(
                "read_file",
                "Read a file from disk",
                &[("path", "file path")],
            ),
            doc(
                "create_issue",
                "Open a GitHub issue",
                &[("title", "issue title")],
            ),
            doc("list_files", "List files in a directory", &[]),
        ]);
        let hits = index.search("open an issue on github", 5);
        assert_eq!(hits.first().map(|h| h.doc), Some(1));
        // Words alone find nothing for a word no tool has; meaning still
        // ranks every tool, so the fusion returns some.
        assert!(index.search_lexical("zzz", 5).is_empty());
        assert_eq!(index.search("file", 1).len(), 1);
        // A tool found by words and by meaning says so.
        let top = index.search("read a file", 3);
        assert_eq!((top[0].doc, top[0].matched), (0, Matched::Both));
    }
}
