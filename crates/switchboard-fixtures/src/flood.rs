//! Notification floods: a server that sends its client far more
//! notifications than any client should have to take.
//!
//! Two ways in, both bounded in count ([`MAX_COUNT`]):
//! - `--flood N --flood-kind KIND`: right after the client's
//!   `notifications/initialized`, each session gets `N` notifications of one
//!   kind, as fast as the transport takes them;
//! - the `flood` tool behaviour: a call sends `arguments.count` notifications
//!   of `arguments.kind` (default `progress`, on the call's own progress token)
//!   before it answers.
//!
//! Over stdio (see [`use_raw_stdout`]) the notifications are written straight
//! to stdout as JSON lines, in batches of [`BATCH`], on a blocking thread:
//! rmcp sends one notification at a time (about 1,500 a second in a debug
//! build), far slower than a misbehaving server can write. Each batch and
//! each of rmcp's own messages is one `write_all` under the std stdout lock
//! (tokio's stdout writes through it too), so lines never interleave. Over
//! HTTP they go through rmcp, at most [`IN_FLIGHT`] outstanding at a time.
//! A send that fails (the client went away) ends the flood. When one ends, a
//! stderr line `flood sent <n> <kind>` says how many went out, for tests to
//! wait on.

// Logging is deprecated only for protocol 2026-07-28 (SEP-2577).
#![allow(deprecated)]

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt as _;
use rmcp::{
    Peer, RoleServer,
    model::{
        LoggingLevel, LoggingMessageNotificationParam, NumberOrString, ProgressNotificationParam,
        ProgressToken, ResourceUpdatedNotificationParam,
    },
};
use serde_json::json;

use crate::stderr_line;

/// The most notifications one flood may send.
pub const MAX_COUNT: u64 = 100_000_000;
/// Sends outstanding at once through rmcp.
const IN_FLIGHT: usize = 64;
/// Notifications per write when writing to stdout directly.
const BATCH: u64 = 1000;

/// Set when the fixture serves stdio: floods are written to stdout directly.
static RAW_STDOUT: AtomicBool = AtomicBool::new(false);

/// Makes floods write to stdout directly (the fixture serves stdio).
pub fn use_raw_stdout() {
    RAW_STDOUT.store(true, Ordering::SeqCst);
}
/// The URI that `updated` floods name.
pub const FLOOD_URI: &str = "fixture://flood";

/// Which notification a flood repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FloodKind {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
    /// `notifications/message` (level info, logger `flood`).
    Log,
    /// `notifications/resources/updated` for [`FLOOD_URI`].
    Updated,
    /// `notifications/progress` on a token (the call's, or `flood`).
    Progress,
}

impl FloodKind {
    fn name(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
            Self::Log => "log",
            Self::Updated => "updated",
            Self::Progress => "progress",
        }
    }
}

/// One flood: how many notifications of which kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flood {
    pub count: u64,
    pub kind: FloodKind,
}

/// Sends the flood to `peer`; returns how many notifications went out.
/// Progress notifications carry `token` (or `flood` when there is none).
pub async fn send(peer: &Peer<RoleServer>, flood: Flood, token: Option<ProgressToken>) -> u64 {
    let count = flood.count.min(MAX_COUNT);
    let token = token.unwrap_or_else(|| ProgressToken(NumberOrString::String("flood".into())));
    let sent = if RAW_STDOUT.load(Ordering::SeqCst) {
        tokio::task::spawn_blocking(move || write_stdout(flood.kind, &token, count))
            .await
            .unwrap_or(0)
    } else {
        through_rmcp(peer, flood.kind, &token, count).await
    };
    stderr_line(format_args!("flood sent {sent} {}", flood.kind.name()));
    sent
}

/// Writes `count` notifications to stdout as JSON lines, a batch at a time.
fn write_stdout(kind: FloodKind, token: &ProgressToken, count: u64) -> u64 {
    let mut sent = 0;
    let mut batch = Vec::new();
    while sent < count {
        batch.clear();
        let n = BATCH.min(count - sent);
        for i in sent..sent + n {
            if serde_json::to_writer(&mut batch, &message(kind, token, i)).is_err() {
                return sent;
            }
            batch.push(b'\n');
        }
        if std::io::stdout().lock().write_all(&batch).is_err() {
            return sent;
        }
        sent += n;
    }
    sent
}

/// The JSON-RPC notification number `i` of a flood.
fn message(kind: FloodKind, token: &ProgressToken, i: u64) -> serde_json::Value {
    let (method, params) = match kind {
        FloodKind::Tools => ("notifications/tools/list_changed", json!({})),
        FloodKind::Prompts => ("notifications/prompts/list_changed", json!({})),
        FloodKind::Resources => ("notifications/resources/list_changed", json!({})),
        FloodKind::Log => (
            "notifications/message",
            json!({"level": "info", "logger": "flood", "data": format!("flood {i}")}),
        ),
        FloodKind::Updated => ("notifications/resources/updated", json!({"uri": FLOOD_URI})),
        FloodKind::Progress => (
            "notifications/progress",
            json!({"progressToken": token, "progress": i}),
        ),
    };
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

async fn through_rmcp(
    peer: &Peer<RoleServer>,
    kind: FloodKind,
    token: &ProgressToken,
    count: u64,
) -> u64 {
    let sends = futures::stream::iter(0..count)
        .map(|i| one(peer, kind, token, i))
        .buffer_unordered(IN_FLIGHT);
    tokio::pin!(sends);
    let mut sent = 0;
    while let Some(ok) = sends.next().await {
        if !ok {
            break;
        }
        sent += 1;
    }
    sent
}

async fn one(peer: &Peer<RoleServer>, kind: FloodKind, token: &ProgressToken, i: u64) -> bool {
    let sent = match kind {
        FloodKind::Tools => peer.notify_tool_list_changed().await,
        FloodKind::Prompts => peer.notify_prompt_list_changed().await,
        FloodKind::Resources => peer.notify_resource_list_changed().await,
        FloodKind::Log => {
            let message = LoggingMessageNotificationParam::new(
                LoggingLevel::Info,
                json!(format!("flood {i}")),
            )
            .with_logger("flood");
            peer.notify_logging_message(message).await
        }
        FloodKind::Updated => {
            peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(FLOOD_URI))
                .await
        }
        FloodKind::Progress => {
            let progress = ProgressNotificationParam::new(token.clone(), i as f64);
            peer.notify_progress(progress).await
        }
    };
    sent.is_ok()
}
