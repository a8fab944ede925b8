//! The semantic half of [`super::Index`] and its fusion with the lexical
//! ranking: each tool's vector (from [`super::embed::Table`]) is computed
//! when the index is built; a search embeds the request, ranks every tool by
//! cosine, and merges that order with the lexical one by weighted reciprocal
//! rank fusion, so a tool both rankings place high wins and an exact name
//! (first by words) still comes first. Read-only after build.

use std::collections::HashMap;

use super::embed::{Table, dot, normalise};
use super::{Hit, Matched, ToolDoc, tokens};

/// How the two rankings are fused (the served values are the default;
/// the evaluation measures others).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// Reciprocal rank fusion's constant: weight / (k + rank).
    pub k: f32,
    /// Weight of the semantic ranking; the lexical one weighs 1.
    pub semantic: f32,
    /// Tools ranked by meaning that take part in the fusion.
    pub depth: usize,
}

impl Default for Fusion {
    fn default() -> Self {
        // The best recall@5 of the grid on the tuning servers (issue #32).
        Self {
            k: 5.0,
            semantic: 0.5,
            depth: 5,
        }
    }
}
/// Description bytes read into a tool's vector.
const DESCRIPTION_CAP: usize = 600;
/// Weight of a tool's name words in its vector, against 1 for its text.
const NAME_WEIGHT: f32 = 1.0;

/// Tool vectors, `dims` floats each, in document order.
#[derive(Debug, Default)]
pub(super) struct Semantic {
    table: Option<&'static Table>,
    dims: usize,
    vectors: Vec<f32>,
    /// The catalog's mean tool vector (shrunk towards zero for small
    /// catalogs), taken off every tool and every request before cosine.
    centre: Vec<f32>,
}

impl Semantic {
    /// Embeds every doc (nothing when the table cannot be read).
    pub(super) fn build(docs: &[ToolDoc]) -> Self {
        let Some(table) = Table::get() else {
            return Self::default();
        };
        let dims = table.dims();
        let mut vectors = Vec::with_capacity(docs.len() * dims);
        for doc in docs {
            vectors.extend(doc_vector(table, doc));
        }
        let centre = centre(&mut vectors, dims);
        Self {
            table: Some(table),
            dims,
            vectors,
            centre,
        }
    }

    /// Every tool by cosine to `query`, best first, at most `limit`.
    pub(super) fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let Some(table) = self.table else {
            return Vec::new();
        };
        let pieces = table.pieces(query);
        if pieces.is_empty() || self.dims == 0 {
            return Vec::new();
        }
        let mut q = table.mean(&pieces);
        if q.len() == self.centre.len() {
            for (a, c) in q.iter_mut().zip(&self.centre) {
                *a -= c;
            }
            normalise(&mut q);
        }
        let mut hits: Vec<Hit> = self
            .vectors
            .chunks_exact(self.dims)
            .enumerate()
            .map(|(doc, v)| Hit {
                doc,
                score: dot(&q, v),
                matched: Matched::Meaning,
            })
            .collect();
        let limit = limit.min(hits.len());
        if limit == 0 {
            return Vec::new();
        }
        let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc));
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
        hits.sort_by(order);
        hits
    }
}

/// Tools a catalog needs before its mean is taken off in full; fewer shrink
/// it (a catalog of three tools has no meaningful "average tool").
const CENTRE_PRIOR: f32 = 20.0;

/// Takes the catalog's (shrunk) mean off every vector, renormalises them,
/// and returns it. Static embeddings share a large common direction (every
/// tool text "is about a tool"); without it, cosine compares what differs.
fn centre(vectors: &mut [f32], dims: usize) -> Vec<f32> {
    let n = vectors.len().checked_div(dims).unwrap_or(0);
    let mut mean = vec![0.0f32; dims];
    if n == 0 {
        return mean;
    }
    for v in vectors.chunks_exact(dims) {
        for (m, x) in mean.iter_mut().zip(v) {
            *m += x;
        }
    }
    let scale = 1.0 / (n as f32 + CENTRE_PRIOR);
    for m in &mut mean {
        *m *= scale;
    }
    for v in vectors.chunks_exact_mut(dims) {
        for (x, m) in v.iter_mut().zip(&mean) {
            *x -= m;
        }
        normalise(v);
    }
    mean
}

/// A tool's vector: its server id and name's words, and its text, each
/// normalised, summed. The server id is read with the name because it often
/// names the product ("slack post message"), which carries the domain a
/// request speaks of ("tell the team in chat") better than the tool's verb.
fn doc_vector(table: &Table, doc: &ToolDoc) -> Vec<f32> {
    let mut name = tokens(&doc.server);
    name.extend(tokens(&doc.tool));
    let name = name.join(" ");
    let mut text = String::new();
    text.push_str(super::rank::prefix(&doc.description, DESCRIPTION_CAP));
    for (param, _) in &doc.params {
        text.push(' ');
        text.push_str(&tokens(param).join(" "));
    }
    let mut v = table.embed(&name);
    let body = table.embed(&text);
    for (a, b) in v.iter_mut().zip(&body) {
        *a = *a * NAME_WEIGHT + b;
    }
    normalise(&mut v);
    v
}

/// Weighted reciprocal rank fusion of a lexical and a semantic ranking.
pub(super) fn fuse(lexical: &[Hit], semantic: &[Hit], limit: usize, how: &Fusion) -> Vec<Hit> {
    let mut fused: HashMap<usize, (f32, bool, bool)> = HashMap::new();
    for (rank, hit) in lexical.iter().enumerate() {
        let entry = fused.entry(hit.doc).or_default();
        entry.0 += 1.0 / (how.k + rank as f32 + 1.0);
        entry.1 = true;
    }
    for (rank, hit) in semantic.iter().take(how.depth).enumerate() {
        let entry = fused.entry(hit.doc).or_default();
        entry.0 += how.semantic / (how.k + rank as f32 + 1.0);
        entry.2 = true;
    }
    let mut hits: Vec<Hit> = fused
        .into_iter()
        .map(|(doc, (score, words, meaning))| Hit {
            doc,
            score,
            matched: match (words, meaning) {
                (true, true) => Matched::Both,
                (true, false) => Matched::Words,
                _ => Matched::Meaning,
            },
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    hits.truncate(limit);
    hits
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn hit(doc: usize) -> Hit {
        Hit {
            doc,
            score: 0.0,
            matched: Matched::Words,
        }
    }

    #[test]
    fn fusion_favours_tools_both_rankings_place_high() {
        let lexical = [hit(1), hit(2), hit(3)];
        let semantic = [hit(3), hit(4), hit(1)];
        let fused = fuse(&lexical, &semantic, 10, &Fusion::default());
        let order: Vec<(usize, Matched)> = fused.iter().map(|h| (h.doc, h.matched)).collect();
        assert_eq!(
            order,
            vec![
                (1, Matched::Both),
                (3, Matched::Both),
                (2, Matched::Words),
                (4, Matched::Meaning)
            ]
        );
        assert_eq!(fuse(&lexical, &semantic, 2, &Fusion::default()).len(), 2);
    }

    fn doc(server: &str, tool: &str, description: &str) -> ToolDoc {
        ToolDoc {
            name: format!("{server}__{tool}"),
            server: server.to_string(),
            tool: tool.to_string(),
            description: description.to_string(),
            params: Vec::new(),
        }
    }

    #[test]
    fn the_server_id_gives_a_tool_the_domain_its_text_leaves_out() {
        // The same tool text under two servers: the request speaks of chat,
        // which only the server id "slack" says.
        let text = "Post a new message to a channel";
        let docs = [
            doc("kubernetes", "post_message", text),
            doc("slack", "post_message", text),
            doc("git", "git_log", "Shows the commit logs"),
            doc(
                "time",
                "get_current_time",
                "Get the current time in a timezone",
            ),
        ];
        let semantic = Semantic::build(&docs);
        let hits = semantic.search("tell everyone in the team chat that lunch is here", 4);
        assert_eq!(
            hits.first().map(|h| docs[h.doc].server.as_str()),
            Some("slack")
        );
    }
}
