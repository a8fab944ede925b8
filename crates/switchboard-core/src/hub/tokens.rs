//! The token counts in the snapshot (`toolTokens` per server and in
//! `totals`): counted once per change of the merged tool list, on a blocking
//! task so neither a request nor a snapshot ever waits for the tokenizer
//! ([`crate::token_count`]). Counts may finish out of order; the one for the
//! newest tool version wins.
//!
//! The counting itself runs in a helper process ([`count_jsons`]): the hub's
//! own binary as `__count-tokens`, which loads the vocabulary, counts and
//! exits, so the hub never holds the vocabulary's tables (measured: the idle
//! hub's RSS went from 21 MiB to 92 MiB when it counted in-process). Without a
//! registered binary (the core's own tests, other embedders), or if the
//! helper fails, the hub counts in its own process.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::Tool;

use super::HubHandle;
use crate::catalog::Catalog;
use crate::token_count::{COUNT_ARG, CatalogTokens, count_text, tool_json};

/// How long the helper may take for one batch before it is killed (a large
/// catalog, a megabyte of JSON, takes well under a second).
const HELPER_DEADLINE: Duration = Duration::from_secs(30);

/// Tokens of each text (a tool's compact JSON: no raw line break), in order.
/// Blocking: call it on a blocking task.
pub(crate) fn count_jsons(jsons: &[String]) -> Vec<usize> {
    if jsons.is_empty() {
        return Vec::new();
    }
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
pub(crate) fn count_each_tool(tools: &[Tool]) -> Vec<usize> {
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

impl HubHandle {
    /// Counts `catalog`'s tools in the background, then republishes the
    /// snapshot with the counts.
    pub(super) fn count_tool_tokens(&self, catalog: Arc<Catalog>) {
        let hub = self.clone();
        self.inner.tasks.spawn(async move {
            let Ok(counted) = tokio::task::spawn_blocking(move || {
                CatalogTokens::with_counts(&catalog, count_jsons)
            })
            .await
            else {
                return;
            };
            let Ok(mut current) = hub.inner.tool_tokens.lock() else {
                return;
            };
            if counted.tools_version < current.tools_version {
                return;
            }
            *current = Arc::new(counted);
            drop(current);
            hub.publish_snapshot();
        });
    }

    /// The last counts of the catalog's tools.
    pub(crate) fn tool_tokens(&self) -> Arc<CatalogTokens> {
        self.inner
            .tool_tokens
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// Sets the tokens of the built-in tools (the layer that has them counts
    /// them once, before serving).
    pub(crate) fn set_builtin_tool_tokens(&self, tokens: usize) {
        self.inner
            .builtin_tool_tokens
            .store(tokens, Ordering::Relaxed);
        self.publish_snapshot();
    }

    pub(crate) fn builtin_tool_tokens(&self) -> usize {
        self.inner.builtin_tool_tokens.load(Ordering::Relaxed)
    }
}
