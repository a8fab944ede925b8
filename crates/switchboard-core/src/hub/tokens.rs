//! The token counts in the snapshot (`toolTokens` per server, per endpoint
//! and in `totals`) and in the control API's tool lists: counted by the
//! hub's one counter task ([`run_counter`]) after each catalog rebuild, so
//! neither a request nor a snapshot ever waits for the tokenizer
//! ([`crate::token_count`]) and no request ever starts a count.
//!
//! [`TokenCounter`] owns the counts: the newest job (a catalog and the
//! listings it was built from; a newer one replaces one not started yet, so
//! a burst of rebuilds is one count), the last result, and the counts of
//! every text counted before, by a hash of the text, so a rebuild counts only
//! the definitions it has not seen (none, for a rebuild that changed
//! nothing). One task counts, so at most one helper runs per hub; every
//! helper run also holds [`HELPER_LOCK`], which keeps it to one per process
//! whoever asks. Before its first job the counter counts Switchboard's own
//! tools (`crate::tool_defs`), once per hub, per set: the hub computes the
//! totals of the sets it serves from those ([`HubHandle::own_tools`]).
//!
//! The counting itself runs in a helper process ([`count_jsons`]): the hub's
//! own binary as `__count-tokens`, which loads the vocabulary, counts and
//! exits, so the hub never holds the vocabulary's tables (measured: the idle
//! hub's RSS went from 21 MiB to 92 MiB when it counted in-process). Without a
//! registered binary (the core's own tests, other embedders), or if the
//! helper fails, the hub counts in its own process.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::Tool;
use tokio_util::sync::CancellationToken;

use super::HubHandle;
use crate::catalog::Catalog;
use crate::config::{ServerId, ToolMode};
use crate::listing::Capabilities;
use crate::token_count::{COUNT_ARG, CatalogTokens, count_text, tool_json};
use crate::tool_defs::{ToolSet, served_sets};

/// Held by every run of the helper (or the in-process fallback): at most one
/// count at a time in the process, whoever asks.
static HELPER_LOCK: Mutex<()> = Mutex::new(());

/// How long the helper may take for one batch before it is killed (a large
/// catalog, a megabyte of JSON, takes well under a second).
const HELPER_DEADLINE: Duration = Duration::from_secs(30);

/// Tokens of each text (a tool's compact JSON: no raw line break), in order.
/// Blocking: call it on a blocking task.
pub(crate) fn count_jsons(jsons: &[String]) -> Vec<usize> {
    if jsons.is_empty() {
        return Vec::new();
    }
    let _one_at_a_time = HELPER_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(program) = crate::upstream::guard::program() {
        match count_in_helper(program, jsons) {
            Ok(counts) => return counts,
            Err(err) => tracing::warn!(
                error = %err,
                "the token counter helper failed; counting in the hub's own process"
            ),
        }
    }
    jsons.iter().map(|json| count_text(json)).collect()
}

/// Tokens of each tool's definition, in order (see [`count_jsons`]).
fn count_each_tool(tools: &[Tool]) -> Vec<usize> {
    let jsons: Vec<String> = tools.iter().map(tool_json).collect();
    count_jsons(&jsons)
}

/// Runs `<program> __count-tokens`, writes one text per line and reads one
/// count per line back, within [`HELPER_DEADLINE`].
fn count_in_helper(program: &Path, jsons: &[String]) -> std::io::Result<Vec<usize>> {
    let mut command = Command::new(program);
    command
        .arg(COUNT_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt as _;
        // No console window flashes up for the desktop app's helper.
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    tracing::debug!(texts = jsons.len(), "counting tool tokens in the helper");
    let mut child = command.spawn()?;
    let mut stdin = child.stdin.take().ok_or_else(|| other("no stdin pipe"))?;
    let mut stdout = child.stdout.take().ok_or_else(|| other("no stdout pipe"))?;
    let mut input = jsons.join("\n");
    input.push('\n');
    // Written and read on threads of their own, so a full pipe never blocks
    // the other side, and a helper that stops answering can be killed.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let (done, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = done.send(stdout.read_to_string(&mut out).map(|_| out));
    });
    let out = match answer.recv_timeout(HELPER_DEADLINE) {
        Ok(out) => out,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(other("the helper did not answer in time"));
        }
    };
    let status = child.wait()?;
    let written = writer
        .join()
        .map_err(|_| other("the writer thread panicked"))?;
    let out = out?;
    written?;
    if !status.success() {
        return Err(other(&format!("the helper exited with {status}")));
    }
    let counts: Vec<usize> = out
        .lines()
        .map(|line| line.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|err| {
            other(&format!(
                "the helper answered a line that is no count: {err}"
            ))
        })?;
    if counts.len() != jsons.len() {
        return Err(other(&format!(
            "the helper answered {} counts for {} texts",
            counts.len(),
            jsons.len()
        )));
    }
    Ok(counts)
}

fn other(message: &str) -> std::io::Error {
    std::io::Error::other(message.to_string())
}

/// A catalog to count, with the listings it was built from (each enabled
/// server's tools under its own names, disabled ones included, for the
/// control API's per-tool counts).
pub(crate) struct CountJob {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) listed: Vec<(ServerId, Arc<Capabilities>)>,
}

/// The hub's token counts and its one counter's queue (see the module docs).
#[derive(Default)]
pub(crate) struct TokenCounter {
    /// The next job; a newer one replaces it until the counter takes it.
    next: Mutex<Option<CountJob>>,
    /// Wakes the counter when `next` is set.
    wake: tokio::sync::Notify,
    /// The counts of the newest catalog counted so far.
    counted: Mutex<Arc<CatalogTokens>>,
    /// Counts of the texts counted before, by [`text_key`]; only the
    /// counter's blocking part uses it (a lock it never waits on).
    known: Arc<Mutex<HashMap<u64, usize>>>,
    /// Tokens of each set of Switchboard's own tools, by [`ToolSet::index`]
    /// (0 for a set never served), set once by the counter before its first
    /// job; unset until then.
    own: OnceLock<[usize; ToolSet::ALL.len()]>,
}

/// How many of Switchboard's own tools an endpoint serves, and their tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OwnTools {
    pub(crate) tools: usize,
    /// 0 until counted (see [`HubHandle::tokens_counted`]).
    pub(crate) tokens: usize,
}

impl TokenCounter {
    /// Queues `job`, replacing a job not started yet, and wakes the counter.
    fn submit(&self, job: CountJob) {
        *self.next.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        self.wake.notify_one();
    }

    fn take(&self) -> Option<CountJob> {
        self.next.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn counted(&self) -> Arc<CatalogTokens> {
        self.counted.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Keeps `next` unless counts of a newer tool version are already there.
    fn store(&self, next: CatalogTokens) -> bool {
        let mut current = self.counted.lock().unwrap_or_else(|e| e.into_inner());
        if next.tools_version < current.tools_version || **current == next {
            return false;
        }
        *current = Arc::new(next);
        true
    }
}

/// A tool's own name and its JSON.
type NamedJson = (Arc<str>, String);

/// The key of a counted text: a hash (SipHash with fixed keys; a collision
/// would only mix up two counts).
fn text_key(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Counts `job` with the counts in `known`, counting only the texts it does
/// not have (one helper run), and keeps in `known` only this job's texts.
/// Blocking.
fn count_job(job: &CountJob, known: &Mutex<HashMap<u64, usize>>) -> CatalogTokens {
    let catalog: Vec<String> = job.catalog.tools.iter().map(tool_json).collect();
    let listed: Vec<(ServerId, Vec<NamedJson>)> = job
        .listed
        .iter()
        .map(|(server, caps)| {
            let tools = caps
                .tools
                .iter()
                .map(|tool| (Arc::from(tool.name.as_ref()), tool_json(tool)))
                .collect();
            (server.clone(), tools)
        })
        .collect();
    let texts = catalog.iter().chain(
        listed
            .iter()
            .flat_map(|(_, tools)| tools.iter().map(|(_, json)| json)),
    );
    let mut known = known.lock().unwrap_or_else(|e| e.into_inner());
    let mut wanted: HashMap<u64, &String> = HashMap::new();
    let mut now: HashMap<u64, usize> = HashMap::new();
    for text in texts {
        let key = text_key(text);
        match known.get(&key) {
            Some(&count) => {
                now.insert(key, count);
            }
            None => {
                wanted.insert(key, text);
            }
        }
    }
    let (keys, missing): (Vec<u64>, Vec<String>) =
        wanted.into_iter().map(|(k, t)| (k, t.clone())).unzip();
    let counts = count_jsons(&missing);
    now.extend(keys.into_iter().zip(counts));
    let of = |text: &String| now.get(&text_key(text)).copied().unwrap_or_default();
    let catalog_counts: Vec<usize> = catalog.iter().map(of).collect();
    let listed_counts = listed
        .iter()
        .map(|(server, tools)| {
            let counts = tools.iter().map(|(name, json)| (name.clone(), of(json)));
            (server.clone(), counts.collect())
        })
        .collect();
    let counted = CatalogTokens::with_counts(&job.catalog, &catalog_counts, listed_counts);
    // Only what the newest job has: the table never outgrows the catalog.
    *known = now;
    counted
}

/// The hub's counter: counts each job submitted (the newest, when several
/// came while it counted), stores the result and republishes the snapshot,
/// until `cancel` fires.
pub(super) async fn run_counter(hub: HubHandle, cancel: CancellationToken) {
    let counter = &hub.inner.tokens;
    if !count_own_tools(&hub, &cancel).await {
        return;
    }
    loop {
        let job = loop {
            // Registered before the check, so a submit in between still wakes.
            let woken = counter.wake.notified();
            if let Some(job) = counter.take() {
                break job;
            }
            tokio::select! {
                () = woken => {}
                () = cancel.cancelled() => return,
            }
        };
        let known = counter.known.clone();
        let counted = tokio::task::spawn_blocking(move || count_job(&job, &known)).await;
        match counted {
            Ok(counted) => {
                if counter.store(counted) {
                    hub.publish_snapshot();
                }
            }
            Err(err) => tracing::warn!(error = %err, "counting tool tokens failed"),
        }
    }
}

/// Counts Switchboard's own tools once, per set, and republishes; `false`
/// when `cancel` fired first. The hub tools only when they are on (settings
/// are fixed for the hub's life); search and code mode's always, as a
/// reload may turn either mode on. If the count fails the sets count as 0
/// tokens, so the figures are still marked complete and never stay
/// "counting".
async fn count_own_tools(hub: &HubHandle, cancel: &CancellationToken) -> bool {
    let builtin = hub.inner.settings.builtin_tools;
    let sets: Vec<ToolSet> = ToolSet::ALL
        .into_iter()
        .filter(|set| *set != ToolSet::Hub || builtin)
        .collect();
    let tools: Vec<Tool> = sets
        .iter()
        .flat_map(|set| set.tools().iter().cloned())
        .collect();
    let counting = tokio::task::spawn_blocking(move || count_each_tool(&tools));
    let counted = tokio::select! {
        counted = counting => counted,
        () = cancel.cancelled() => return false,
    };
    let mut own = [0; ToolSet::ALL.len()];
    match counted {
        Ok(counts) => {
            let mut counts = counts.into_iter();
            for set in sets {
                own[set.index()] = counts.by_ref().take(set.defs().len()).sum();
            }
        }
        Err(err) => tracing::warn!(error = %err, "counting Switchboard's own tools failed"),
    }
    let _ = hub.inner.tokens.own.set(own);
    hub.publish_snapshot();
    true
}

impl HubHandle {
    /// Has the counter count `catalog` and the listings it was built from
    /// (see [`run_counter`]); returns at once.
    pub(super) fn count_tool_tokens(
        &self,
        catalog: Arc<Catalog>,
        listed: Vec<(ServerId, Arc<Capabilities>)>,
    ) {
        self.inner.tokens.submit(CountJob { catalog, listed });
    }

    /// The last counts of the catalog's tools.
    pub(crate) fn tool_tokens(&self) -> Arc<CatalogTokens> {
        self.inner.tokens.counted()
    }

    /// Whether the counts for the current catalog's tools and Switchboard's
    /// own tools exist yet: until then the snapshot's token figures are
    /// incomplete and people are told "counting".
    pub(crate) fn tokens_counted(&self) -> bool {
        self.inner.tokens.own.get().is_some()
            && self.tool_tokens().tools_version == self.catalog().versions.tools
    }

    /// Switchboard's own tools a merged endpoint in `mode` serves besides
    /// the servers' (`crate::tool_defs`, with `settings.builtinTools`): how
    /// many and their tokens.
    pub(crate) fn own_tools(&self, mode: ToolMode) -> OwnTools {
        let counted = self.inner.tokens.own.get();
        served_sets(self.inner.settings.builtin_tools, mode).fold(
            OwnTools {
                tools: 0,
                tokens: 0,
            },
            |sum, set| OwnTools {
                tools: sum.tools + set.defs().len(),
                tokens: sum.tokens + counted.map_or(0, |own| own[set.index()]),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::hub::testing::hub;

    #[tokio::test]
    async fn the_counter_counts_the_own_tools_each_endpoint_serves() {
        let (_hub, handle) = hub(r#"{"mcpServers":{},"settings":{"toolMode":"code"}}"#).await;
        let mut snapshots = handle.subscribe();
        assert!(!handle.tokens_counted());
        let cancel = CancellationToken::new();
        let counter = tokio::spawn(run_counter(handle.clone(), cancel.clone()));
        let snapshot = tokio::time::timeout(
            Duration::from_secs(60),
            snapshots.wait_for(|s| s.endpoints.first().is_some_and(|e| e.tokens_counted)),
        )
        .await
        .expect("counted in time")
        .unwrap()
        .clone();
        let tokens = |builtin, mode| -> usize {
            count_each_tool(&crate::tool_defs::served(builtin, mode))
                .iter()
                .sum()
        };
        // Code mode serves every set: the built-in tools, the search tools, run_code.
        let mcp = &snapshot.endpoints[0];
        assert_eq!(mcp.tools, 6);
        assert_eq!(mcp.tool_tokens, tokens(true, ToolMode::Code));
        // The totals count what `all` mode adds: the built-in tools only.
        assert_eq!(snapshot.totals.tool_tokens, tokens(true, ToolMode::All));
        assert!(snapshot.totals.tool_tokens > 0);
        assert_eq!(
            handle.own_tools(ToolMode::Search).tokens,
            tokens(true, ToolMode::Search)
        );
        cancel.cancel();
        counter.await.unwrap();
        handle.shutdown();
    }
}
