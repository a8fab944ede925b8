//! The `--control FILE` poller: lets a test change the catalog at run time.
//!
//! Every 50 ms the file is read; a missing or blank file means nothing to do,
//! and the fixture never creates it. When its content differs from the last
//! content seen, it is parsed as a [`ControlUpdate`] and applied through
//! [`FixtureState::apply`]; with `"notify": true` the matching `list_changed`
//! notifications then go to every live session. Each outcome is one stderr line
//! that tests can wait for: `applied <n>` (n counts applied updates from 1, and
//! is written after the notifications were sent) or `control file <path>: <error>`
//! (the old lists stay). A half-written file fails to parse and is picked up
//! again, complete, on a later poll, since its content changes again.

use std::{io::ErrorKind, path::PathBuf, sync::Arc, time::Duration};

use anyhow::Context as _;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use crate::{spec::ControlUpdate, state::FixtureState, stderr_line};

/// How often the control file is read.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Polls `path` until `shutdown` is cancelled.
pub async fn watch(path: PathBuf, state: Arc<FixtureState>, shutdown: CancellationToken) {
    let mut ticks = tokio::time::interval(POLL_INTERVAL);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut last_seen = String::new();
    let mut applied: u64 = 0;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = ticks.tick() => {}
        }
        let content = match tokio::fs::read_to_string(&path).await {
            Ok(content) => content,
            Err(error) if error.kind() == ErrorKind::NotFound => continue,
            Err(error) => {
                tracing::warn!("cannot read control file {}: {error}", path.display());
                continue;
            }
        };
        if content.trim().is_empty() || content == last_seen {
            continue;
        }
        match apply(&content, &state).await {
            Ok(()) => {
                applied += 1;
                stderr_line(format_args!("applied {applied}"));
            }
            Err(error) => stderr_line(format_args!("control file {}: {error:#}", path.display())),
        }
        last_seen = content;
    }
}

/// Parses and applies one control-file content, then notifies if asked to.
async fn apply(content: &str, state: &FixtureState) -> anyhow::Result<()> {
    let update: ControlUpdate = serde_json::from_str(content).context("invalid JSON")?;
    let notify = update.notify;
    let changes = state.apply(update)?;
    if notify {
        state.peers.notify(changes).await;
    }
    Ok(())
}
