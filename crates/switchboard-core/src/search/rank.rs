//! The served ranking behind [`super::Index::search`]: a field-weighted BM25
//! (BM25F-style) over stemmed words without stop words, where a tool's name
//! counts most, then its server id and the first sentence of its description,
//! then the rest of the description, then its parameters; each query word
//! also matches the other words of its concept groups (`concepts.txt`) at a
//! lower weight. Built once per catalog; a search only reads it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Hit, Matched, ToolDoc, tokens};

/// The concept groups, checked in next to this file.
const CONCEPTS: &str = include_str!("concepts.txt");

const NAME: f32 = 2.0;
const SERVER: f32 = 1.5;
const SUMMARY: f32 = 1.5;
const DESCRIPTION: f32 = 0.5;
const PARAMS: f32 = 0.3;
/// Weight of a concept-group match relative to the query's own word.
const RELATED: f32 = 0.35;
/// Bonus for a tool whose own name the query covers (own words count fully,
/// related words at their weight): the score grows by up to this fraction.
const NAME_COVER: f32 = 0.5;
/// Text read from a description past its first sentence, and from each
/// parameter's description, in bytes: long descriptions go on with usage
/// examples that add little but cost index time.
const REST_CAP: usize = 1200;
const PARAM_CAP: usize = 200;
const K1: f32 = 1.2;
const B: f32 = 0.75;

const STOP: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "me",
    "my",
    "i",
    "in",
    "on",
    "of",
    "to",
    "for",
    "is",
    "are",
    "was",
    "what",
    "which",
    "whats",
    "s",
    "how",
    "do",
    "does",
    "it",
    "its",
    "with",
    "from",
    "and",
    "or",
    "be",
    "can",
    "so",
    "some",
    "any",
    "please",
    "you",
    "your",
    "at",
    "by",
    "as",
    "into",
    "there",
    "here",
    "we",
    "our",
    "us",
    "one",
    "about",
    "have",
    "has",
    "been",
    "will",
    "should",
    "would",
    "could",
    "if",
    "then",
    "than",
    "yet",
    "up",
    "out",
    "give",
    "everything",
    "com",
];

/// A small English stemmer: enough to make plural, -ing and -ed forms and
/// the bare verb meet (`files`/`file`, `creating`/`create`, `navigation`/`navigate`).
pub(super) fn stem(word: &str) -> String {
    let mut w = word.to_string();
    let len = w.chars().count();
    if len <= 3 || !w.is_ascii() {
        return w;
    }
    for (suffix, replace) in [
        ("ies", "y"),
        ("sses", "ss"),
        ("ation", "at"),
        ("ing", ""),
        ("ied", "y"),
        ("ed", ""),
    ] {
        if w.ends_with(suffix) && len - suffix.len() >= 3 {
            w.truncate(w.len() - suffix.len());
            w.push_str(replace);
            if suffix == "ing" || suffix == "ed" {
                let bytes = w.as_bytes();
                let n = bytes.len();
                if n >= 2 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b's' | b'l') {
                    w.pop();
                }
            }
            return trim_e(w);
        }
    }
    if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    trim_e(w)
}

fn trim_e(mut w: String) -> String {
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// Stemmed words of `text`, stop words left out.
pub(super) fn terms(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter(|t| !STOP.contains(&t.as_str()))
        .map(|t| stem(&t))
        .collect()
}

/// Each stemmed word to the other stemmed words of its concept groups,
/// read once per process.
fn related() -> &'static HashMap<String, Vec<String>> {
    static RELATED: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    RELATED.get_or_init(concepts)
}

/// Abbreviations, read once per process.
fn abbreviations() -> &'static HashMap<String, Vec<String>> {
    static ALIASES: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    ALIASES.get_or_init(aliases)
}

/// Each stemmed word to the other stemmed words of its concept groups.
fn concepts() -> HashMap<String, Vec<String>> {
    let mut related: HashMap<String, Vec<String>> = HashMap::new();
    for line in CONCEPTS.lines() {
        if line.trim_start().starts_with(['#', '=']) {
            continue;
        }
        let group: Vec<String> = line.split_whitespace().map(stem).collect();
        for word in &group {
            let entry = related.entry(word.clone()).or_default();
            for other in &group {
                if other != word && !entry.contains(other) {
                    entry.push(other.clone());
                }
            }
        }
    }
    related
}

/// Abbreviations (`= short long words` lines): the short form to the stemmed
/// long words.
fn aliases() -> HashMap<String, Vec<String>> {
    CONCEPTS
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix('='))
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let short = words.next()?;
            Some((short.to_string(), words.map(stem).collect()))
        })
        .collect()
}

/// The prepared index.
#[derive(Debug, Default)]
pub(super) struct Ranker {
    /// Term to (doc, weighted term frequency).
    postings: HashMap<String, Vec<(usize, f32)>>,
    /// Weighted length of each doc.
    lengths: Vec<f32>,
    /// Each doc's distinct name terms.
    names: Vec<Vec<String>>,
    average: f32,
}

impl Ranker {
    pub(super) fn build(docs: &[ToolDoc]) -> Self {
        let mut postings: HashMap<String, Vec<(usize, f32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(docs.len());
        let mut names = Vec::with_capacity(docs.len());
        for (i, doc) in docs.iter().enumerate() {
            let mut weights: HashMap<String, f32> = HashMap::new();
            let mut length = 0.0;
            let mut add = |text: &str, weight: f32| {
                for term in terms(text) {
                    *weights.entry(term).or_default() += weight;
                    length += weight;
                }
            };
            add(&doc.tool, NAME);
            add(&doc.server, SERVER);
            let (summary, rest) = split_summary(&doc.description);
            add(summary, SUMMARY);
            add(prefix(rest, REST_CAP), DESCRIPTION);
            for (name, description) in &doc.params {
                add(name, PARAMS);
                add(prefix(description, PARAM_CAP), PARAMS);
            }
            lengths.push(length);
            let mut name = terms(&doc.tool);
            name.sort();
            name.dedup();
            names.push(name);
            for (term, weight) in weights {
                postings.entry(term).or_default().push((i, weight));
            }
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f32>() / lengths.len() as f32).max(1.0)
        };
        Self {
            postings,
            lengths,
            names,
            average,
        }
    }

    pub(super) fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        // Each query term with its weight: own words 1, related words less.
        let mut wanted: Vec<(String, f32)> = Vec::new();
        let mut own = Vec::new();
        for term in terms(query) {
            match abbreviations().get(&term) {
                Some(long) => own.extend(long.iter().cloned()),
                None => own.push(term),
            }
        }
        for term in &own {
            upsert(&mut wanted, term, 1.0);
        }
        for term in &own {
            for other in related().get(term).into_iter().flatten() {
                upsert(&mut wanted, other, RELATED);
            }
            // "PR 42", "add 2 and 3": a number in the query is about a number.
            if term.bytes().all(|b| b.is_ascii_digit()) {
                upsert(&mut wanted, "number", RELATED);
            }
        }
        let n = self.lengths.len() as f32;
        let mut scores: HashMap<usize, f32> = HashMap::new();
        for (term, weight) in &wanted {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let len = self.lengths.get(doc).copied().unwrap_or(0.0);
                let norm = 1.0 - B + B * len / self.average;
                *scores.entry(doc).or_default() +=
                    weight * idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|(doc, score)| {
                let name = self.names.get(doc).map_or(&[][..], Vec::as_slice);
                let covered: f32 = name
                    .iter()
                    .filter_map(|t| {
                        wanted
                            .iter()
                            .find(|(w, _)| w == t)
                            .map(|(_, weight)| weight)
                    })
                    .sum();
                let cover = covered / name.len().max(1) as f32;
                Hit {
                    doc,
                    score: score * (1.0 + NAME_COVER * cover),
                    matched: Matched::Words,
                }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        hits.truncate(limit);
        hits
    }
}

fn upsert(wanted: &mut Vec<(String, f32)>, term: &str, weight: f32) {
    match wanted.iter_mut().find(|(t, _)| t == term) {
        Some(entry) => entry.1 = entry.1.max(weight),
        None => wanted.push((term.to_string(), weight)),
    }
}

/// At most the first `max` bytes of `text`, cut at a character boundary.
pub(super) fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The description's first sentence and the rest.
fn split_summary(description: &str) -> (&str, &str) {
    let text = description.trim_start();
    match text.find(". ").or_else(|| text.find('\n')) {
        Some(end) if end < 300 => text.split_at(end),
        _ => {
            let end = text.char_indices().nth(300).map_or(text.len(), |(i, _)| i);
            text.split_at(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("files", "file"),
            ("creating", "create"),
            ("navigation", "navigate"),
            ("entities", "entity"),
            ("running", "run"),
            ("staged", "stage"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
    }

    fn doc(server: &str, tool: &str, description: &str) -> ToolDoc {
        ToolDoc {
            name: format!("{server}__{tool}"),
            server: server.into(),
            tool: tool.into(),
            description: description.into(),
            params: Vec::new(),
        }
    }

    #[test]
    fn concepts_and_abbreviations_find_tools_without_their_words() {
        let docs = [
            doc(
                "github",
                "create_issue",
                "Create a new issue in a repository",
            ),
            doc("github", "create_pull_request", "Create a new pull request"),
            doc("files", "read_file", "Read a file from disk"),
            doc("tickets", "list_tickets", "List support tickets"),
        ];
        let ranker = Ranker::build(&docs);
        let first = |q: &str| ranker.search(q, 5).first().map(|h| h.doc);
        // Only through the concept group: "ticket" -> "issue", "open" -> "create".
        assert_eq!(first("open a bug report"), Some(0));
        // An abbreviation at full weight.
        assert_eq!(first("open a PR"), Some(1));
        // The request's own word beats a related one.
        assert_eq!(first("tickets"), Some(3));
        assert!(ranker.search("zzz", 5).is_empty());
    }

    #[test]
    fn concept_words_match_at_a_lower_weight() {
        let related = concepts();
        assert!(related[&stem("ticket")].contains(&stem("issue")));
        assert!(!related.contains_key("#") && !related.contains_key("="));
        assert_eq!(aliases()["pr"], [stem("pull"), stem("request")]);
    }
}
