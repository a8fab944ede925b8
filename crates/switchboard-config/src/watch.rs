//! Watching the config file: [`ConfigWatch`] only says "the file may have
//! changed"; what to do about it (a reload) is the hub's.
//!
//! The file's directory is watched, not the file, so that editors that save
//! by writing a new file and renaming it over the old one are seen. Events
//! that cannot mean new content (an access, a metadata change) are ignored,
//! so reading the file (a reload included) never signals. A burst of events
//! (write, rename, chmod) is debounced into one signal: [`ConfigWatch::changed`]
//! returns once no event has come for [`DEBOUNCE`].

use std::path::Path;
use std::time::Duration;

use tokio::sync::mpsc;

/// How long file events are collected before [`ConfigWatch::changed`] returns.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// A running watch of one config file; dropping it stops watching.
pub struct ConfigWatch {
    events: mpsc::UnboundedReceiver<()>,
    /// Kept for its `Drop`, which stops the OS watch.
    _watcher: notify::RecommendedWatcher,
}

impl ConfigWatch {
    /// Starts watching the file at `path` (creating its directory, `0700`,
    /// if missing). `None`, after logging why, when it cannot be watched:
    /// the hub then runs on and reloads only when asked.
    pub fn start(path: &Path) -> Option<Self> {
        use notify::{RecursiveMode, Watcher};
        let dir = path.parent()?.to_path_buf();
        let name = path.file_name()?.to_os_string();
        let (tx, events) = mpsc::unbounded_channel::<()>();
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && changes_content(&event.kind)
                && event
                    .paths
                    .iter()
                    .any(|p| p.file_name() == Some(name.as_os_str()))
            {
                let _ = tx.send(());
            }
        };
        let mut watcher = match notify::recommended_watcher(handler) {
            Ok(w) => w,
            Err(err) => {
                tracing::warn!(%err, "cannot watch the config file; use `switchboard reload`");
                return None;
            }
        };
        if let Err(err) = switchboard_util::files::private_dir(&dir)
            .map_err(notify::Error::io)
            .and_then(|()| watcher.watch(&dir, RecursiveMode::NonRecursive))
        {
            tracing::warn!(%err, dir = %dir.display(), "cannot watch the config directory");
            return None;
        }
        tracing::debug!(path = %path.display(), "watching config");
        Some(Self {
            events,
            _watcher: watcher,
        })
    }

    /// Waits until the file may have changed and the burst of events has
    /// settled; `false` when the watch has ended.
    pub async fn changed(&mut self) -> bool {
        if self.events.recv().await.is_none() {
            return false;
        }
        loop {
            tokio::select! {
                () = tokio::time::sleep(DEBOUNCE) => return true,
                more = self.events.recv() => if more.is_none() { return true },
            }
        }
    }
}

/// Whether a file event can mean new content: creation, removal, a write or a
/// rename; not an access or a metadata change.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(access) => {
            // A file closed after writing is the end of a save.
            matches!(
                access,
                notify::event::AccessKind::Close(notify::event::AccessMode::Write)
            )
        }
        EventKind::Any | EventKind::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, CreateKind, MetadataKind, ModifyKind};

    use super::*;

    #[test]
    fn only_events_that_can_change_content_count() {
        for (kind, counts) in [
            (EventKind::Create(CreateKind::File), true),
            (EventKind::Remove(notify::event::RemoveKind::File), true),
            (EventKind::Modify(ModifyKind::Any), true),
            (
                EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::To)),
                true,
            ),
            (
                EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions)),
                false,
            ),
            (
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                true,
            ),
            (EventKind::Access(AccessKind::Read), false),
            (EventKind::Any, false),
        ] {
            assert_eq!(changes_content(&kind), counts, "{kind:?}");
        }
    }

    #[tokio::test]
    async fn a_burst_of_writes_is_one_signal_and_reads_are_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, "{}").unwrap();
        let mut watch = ConfigWatch::start(&path).unwrap();
        // Reading the file, or writing another one beside it, is no change.
        std::fs::read(&path).unwrap();
        std::fs::write(dir.path().join("other.json"), "{}").unwrap();
        let none = tokio::time::timeout(DEBOUNCE * 4, watch.changed()).await;
        assert!(none.is_err(), "no signal for a read or another file");
        for n in 0..5 {
            std::fs::write(&path, format!("{{\"n\": {n}}}")).unwrap();
        }
        let changed = tokio::time::timeout(Duration::from_secs(10), watch.changed()).await;
        assert_eq!(changed, Ok(true), "a change is signalled");
        // The burst of five writes was one signal.
        let more = tokio::time::timeout(DEBOUNCE * 4, watch.changed()).await;
        assert!(more.is_err(), "no second signal");
    }
}
