//! The tool-search evaluation (issues #18, #32): runs the plain BM25
//! baseline, the lexical ranking, the semantic ranking alone and the served
//! fusion over `bench/search/queries.json` against the tools of real
//! published servers in `bench/search/catalog.json`, and prints recall@1,
//! recall@5 and MRR for the tuning servers, the held-out servers and all
//! queries. The split is by server: `queries.json`'s `heldoutServers`, a
//! third of the servers (every third in id order when the set was made, for
//! the 23 servers of issue #18 and, from the first, for the 10 of #32), is held out: its
//! requests were never looked at while tuning. A request belongs to the
//! held-out part when all its acceptable tools are on held-out servers.
//! Fails if the fusion's recall@5 on the held-out servers or over all
//! queries drops below [`FLOOR_RECALL_AT_5`], or to the baseline's.
//!
//! Table: `cargo test -p switchboard-core --test search_eval -- --nocapture`.
//! `SEARCH_EVAL_MISSES=1` also lists the tuning queries the fusion misses.
//! `SEARCH_EVAL_DUMP=FILE` writes each request's lexical top 50 (tool names,
//! best first) as JSON, for `bench/search/upper.py`, which fuses them with
//! full transformers' rankings.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;

use rmcp::model::Tool;
use serde_json::Value;
use switchboard_core::{SearchFusion, SearchHit, SearchIndex, ToolDoc, search_baseline};

/// The least recall@5 of the fusion, on the held-out servers and over all:
/// a guard a little under what it measures on the 314 requests of issue #32
/// with the contextual table and the server id (0.723 held out, 0.736
/// all). Issue #32's target, 0.90 held out, is not met by this ranking on
/// this set, nor by full transformers fused the same way
/// (`bench/search/upper.py`: 0.73 with all-MiniLM-L6-v2, 0.77 with
/// all-mpnet-base-v2); the test prints how far it is.
const FLOOR_RECALL_AT_5: f64 = 0.70;
/// Issue #32's target for recall@5 on the held-out servers.
const TARGET_RECALL_AT_5: f64 = 0.90;

/// Whether `server` is one of `queries.json`'s `heldoutServers`.
fn held_out_server(held: &[String], server: &str) -> bool {
    held.iter().any(|s| s == server)
}

struct Query {
    text: String,
    answers: Vec<String>,
    heldout: bool,
}

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/search")
}

fn load() -> (Vec<ToolDoc>, Vec<Query>, Vec<String>, Vec<String>) {
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(bench_dir().join("catalog.json")).expect("catalog.json"),
    )
    .expect("catalog.json is JSON");
    let mut docs = Vec::new();
    let mut servers: Vec<String> = catalog["servers"]
        .as_object()
        .expect("servers")
        .keys()
        .cloned()
        .collect();
    servers.sort();
    for (server, entry) in catalog["servers"].as_object().expect("servers") {
        for tool in entry["tools"].as_array().expect("tools") {
            let tool: Tool = serde_json::from_value(tool.clone()).expect("a tool definition");
            let name = format!("{server}__{}", tool.name);
            docs.push(ToolDoc::from_tool(&name, server, &tool));
        }
    }
    let queries: Value = serde_json::from_str(
        &std::fs::read_to_string(bench_dir().join("queries.json")).expect("queries.json"),
    )
    .expect("queries.json is JSON");
    let held: Vec<String> = queries["heldoutServers"]
        .as_array()
        .expect("heldoutServers")
        .iter()
        .map(|s| s.as_str().expect("a server id").to_string())
        .collect();
    for server in &held {
        assert!(
            servers.contains(server),
            "held-out {server} is not in the catalog"
        );
    }
    let queries = queries["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|q| Query {
            text: q["query"].as_str().expect("query").to_string(),
            answers: q["answers"]
                .as_array()
                .expect("answers")
                .iter()
                .map(|a| a.as_str().expect("answer").to_string())
                .collect(),
            heldout: q["answers"].as_array().expect("answers").iter().all(|a| {
                let server = a
                    .as_str()
                    .and_then(|a| a.split_once("__"))
                    .expect("server__tool")
                    .0;
                held_out_server(&held, server)
            }),
        })
        .collect();
    (docs, queries, servers, held)
}

#[derive(Default, Clone, Copy)]
struct Score {
    n: usize,
    at1: usize,
    at5: usize,
    rr: f64,
}

impl Score {
    fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(rank) = rank {
            self.at1 += usize::from(rank == 0);
            self.at5 += usize::from(rank < 5);
            self.rr += 1.0 / (rank as f64 + 1.0);
        }
    }
    fn recall5(self) -> f64 {
        self.at5 as f64 / self.n.max(1) as f64
    }
    fn row(self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        format!(
            "| {label:<30} | {:>4} | {:>8.1}% | {:>8.1}% | {:>5.3} |",
            self.n,
            100.0 * self.at1 as f64 / n,
            100.0 * self.at5 as f64 / n,
            self.rr / n
        )
    }
}

/// Scores for (tuning, held-out, all); the rank is the first acceptable
/// answer's position in the top 10.
fn evaluate(
    docs: &[ToolDoc],
    queries: &[Query],
    run: impl Fn(&str) -> Vec<SearchHit>,
    show_misses: bool,
) -> [Score; 3] {
    let mut scores = [Score::default(); 3];
    for query in queries {
        let hits = run(&query.text);
        let rank = hits
            .iter()
            .position(|hit| query.answers.contains(&docs[hit.doc].name));
        scores[usize::from(query.heldout)].add(rank);
        scores[2].add(rank);
        if show_misses && !query.heldout && rank.is_none_or(|r| r >= 5) {
            let top: Vec<&str> = hits
                .iter()
                .take(5)
                .map(|h| docs[h.doc].name.as_str())
                .collect();
            println!("MISS {:?} want {:?} got {top:?}", query.text, query.answers);
        }
    }
    scores
}

#[test]
fn ranking_beats_bm25_on_the_evaluation_set() {
    let (docs, queries, servers, held) = load();
    assert!(servers.len() >= 30 && queries.len() >= 300);
    assert!(
        3 * held.len() >= servers.len(),
        "a third of the servers is held out"
    );
    for query in &queries {
        for answer in &query.answers {
            assert!(
                docs.iter().any(|d| &d.name == answer),
                "{answer} (for {:?}) is not in the catalog",
                query.text
            );
        }
    }
    // Built twice: the second is what a catalog change costs (the tables are
    // read once per process). Printed, never asserted.
    let _ = SearchIndex::build(docs.clone());
    let started = std::time::Instant::now();
    let index = SearchIndex::build(docs.clone());
    let built = started.elapsed();
    let misses = std::env::var_os("SEARCH_EVAL_MISSES").is_some();
    if let Some(path) = std::env::var_os("SEARCH_EVAL_DUMP") {
        let dump: serde_json::Map<String, Value> = queries
            .iter()
            .map(|q| {
                let names = index
                    .search_lexical(&q.text, 50)
                    .iter()
                    .map(|h| Value::from(docs[h.doc].name.clone()))
                    .collect();
                (q.text.clone(), Value::Array(names))
            })
            .collect();
        std::fs::write(path, Value::Object(dump).to_string()).unwrap();
    }
    let base = evaluate(&docs, &queries, |q| search_baseline(&docs, q, 10), false);
    let lexical = evaluate(&docs, &queries, |q| index.search_lexical(q, 10), false);
    let semantic = evaluate(&docs, &queries, |q| index.search_semantic(q, 10), false);
    let fused = evaluate(&docs, &queries, |q| index.search(q, 10), misses);
    println!(
        "{} tools of {} servers, {} queries; index built in {built:?}; held-out servers: {held:?}",
        docs.len(),
        servers.len(),
        queries.len()
    );
    println!("| ranking, part                  |    n | recall@1 | recall@5 |   MRR |");
    println!("|--------------------------------|------|----------|----------|-------|");
    for (label, scores) in [
        ("BM25", base),
        ("lexical", lexical),
        ("semantic", semantic),
        ("fusion", fused),
    ] {
        for (part, score) in ["tuning", "held-out", "all"].iter().zip(scores) {
            println!("{}", score.row(&format!("{label}, {part}")));
        }
    }
    if std::env::var_os("SEARCH_EVAL_SWEEP").is_some() {
        // The fusion's parameters, measured on the tuning servers only.
        for k in [5.0, 10.0, 20.0, 60.0] {
            for semantic in [0.2, 0.35, 0.5, 0.7, 1.0] {
                for depth in [5, 10, 30] {
                    let how = SearchFusion { k, semantic, depth };
                    let s = evaluate(&docs, &queries, |q| index.search_fused(q, 10, &how), false);
                    // Tuning servers only: the held-out figure is not shown here,
                    // so a choice made from this grid cannot look at it.
                    println!(
                        "SWEEP {}",
                        s[0].row(&format!("k={k} w={semantic} d={depth}"))
                    );
                }
            }
        }
    }
    println!(
        "issue #32 target: held-out recall@5 >= {TARGET_RECALL_AT_5}: {} ({:.3})",
        if fused[1].recall5() >= TARGET_RECALL_AT_5 {
            "met"
        } else {
            "NOT met"
        },
        fused[1].recall5()
    );
    for (part, i) in [("held-out servers", 1), ("all queries", 2)] {
        let r5 = fused[i].recall5();
        assert!(
            r5 >= FLOOR_RECALL_AT_5,
            "recall@5 on {part} {r5:.3} fell below {FLOOR_RECALL_AT_5}"
        );
        assert!(
            r5 > base[i].recall5(),
            "recall@5 on {part} {r5:.3} is not above the baseline's {:.3}",
            base[i].recall5()
        );
    }
}
