//! Search latency over a 1,000-tool catalog (issue #32's budget: p99 ≤ 5 ms
//! on this machine). The catalog is made of the real published definitions
//! in `bench/search/catalog.json`, repeated under more server ids (`github`,
//! `github-2`, …) until it holds 1,000 tools; every request of
//! `bench/search/queries.json` is searched, several rounds, and p50, p99
//! and the slowest search are printed. A measurement, not a check: it
//! asserts only that searches answer (timings depend on the machine), and
//! is ignored by default:
//!
//! `cargo test -p switchboard-core --release --test search_latency -- --ignored --nocapture`
//! (a debug build, without `--release`, gives an upper bound).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rmcp::model::Tool;
use serde_json::Value;
use switchboard_core::{SearchIndex, ToolDoc};

const TOOLS: usize = 1_000;
const ROUNDS: usize = 5;

fn read(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/search")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect(name)).expect("JSON")
}

fn catalog() -> Vec<ToolDoc> {
    let catalog = read("catalog.json");
    let servers = catalog["servers"].as_object().expect("servers");
    let mut docs = Vec::with_capacity(TOOLS);
    for copy in 1.. {
        for (server, entry) in servers {
            let server = if copy == 1 {
                server.clone()
            } else {
                format!("{server}-{copy}")
            };
            for tool in entry["tools"].as_array().expect("tools") {
                if docs.len() == TOOLS {
                    return docs;
                }
                let tool: Tool = serde_json::from_value(tool.clone()).expect("a tool");
                let name = format!("{server}__{}", tool.name);
                docs.push(ToolDoc::from_tool(&name, &server, &tool));
            }
        }
    }
    docs
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn search_latency_over_1000_real_tools() {
    let docs = catalog();
    assert_eq!(docs.len(), TOOLS);
    let queries = read("queries.json");
    let queries: Vec<&str> = queries["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|q| q["query"].as_str().expect("query"))
        .collect();
    let started = Instant::now();
    let index = SearchIndex::build(docs);
    let built = started.elapsed();
    // The first search parses the embedding table (once per process).
    assert!(!index.search(queries[0], 10).is_empty());
    let mut times = Vec::with_capacity(queries.len() * ROUNDS);
    for _ in 0..ROUNDS {
        for query in &queries {
            let started = Instant::now();
            let hits = index.search(query, 10);
            times.push(started.elapsed());
            assert!(!hits.is_empty(), "{query:?} found nothing");
        }
    }
    times.sort();
    println!(
        "{TOOLS} tools, {} searches: index built in {built:?}; p50 {:?}, p99 {:?}, max {:?}",
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[times.len() - 1]
    );
}
