//! Watches the config file and reloads it when its content may have
//! changed. The file's directory is watched, so editors that save by rename
//! are seen; events are debounced so a burst (write, rename, chmod) makes
//! one reload.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::HubHandle;

/// How long file events are collected before a reload.
const DEBOUNCE: Duration = Duration::from_millis(250);

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

/// Watches the config file and reloads it on change until `cancel` fires.
pub(crate) async fn watch_config(hub: HubHandle, path: PathBuf, cancel: CancellationToken) {
    use notify::{RecursiveMode, Watcher};
    let Some(dir) = path.parent().map(Path::to_path_buf) else {
        return;
    };
    let Some(name) = path.file_name().map(|n| n.to_os_string()) else {
        return;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let watched_name = name.clone();
    let handler = move |event: notify::Result<notify::Event>| {
        // Reading the file (our own reload included) must not trigger a reload.
        if let Ok(event) = event
            && changes_content(&event.kind)
            && event
                .paths
                .iter()
                .any(|p| p.file_name() == Some(watched_name.as_os_str()))
        {
            let _ = tx.send(());
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(err) => {
            tracing::warn!(%err, "cannot watch the config file; use `switchboard reload`");
            return;
        }
    };
    if let Err(err) = crate::files::private_dir(&dir)
        .map_err(notify::Error::io)
        .and_then(|()| watcher.watch(&dir, RecursiveMode::NonRecursive))
    {
        tracing::warn!(%err, dir = %dir.display(), "cannot watch the config directory");
        return;
    }
    tracing::debug!(path = %path.display(), "watching config");
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            event = rx.recv() => {
                if event.is_none() {
                    break;
                }
            }
        }
        // Debounce: let a burst of events (write, rename, chmod) settle.
        loop {
            tokio::select! {
                () = tokio::time::sleep(DEBOUNCE) => break,
                more = rx.recv() => if more.is_none() { break },
            }
        }
        match hub.reload_from_file().await {
            Ok(result) => tracing::debug!(?result, "reloaded after file change"),
            Err(err) => tracing::debug!(%err, "reload after file change refused"),
        }
    }
    drop(watcher);
}

#[cfg(test)]
mod tests {
    use notify::EventKind;
    use notify::event::{
        AccessKind, AccessMode, CreateKind, DataChange, MetadataKind, ModifyKind, RemoveKind,
        RenameMode,
    };

    use super::changes_content;

    #[test]
    fn only_events_that_can_change_the_content_reload() {
        for kind in [
            EventKind::Create(CreateKind::File),
            EventKind::Remove(RemoveKind::File),
            EventKind::Modify(ModifyKind::Data(DataChange::Content)),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
        ] {
            assert!(changes_content(&kind), "{kind:?}");
        }
        for kind in [
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions)),
            EventKind::Access(AccessKind::Open(AccessMode::Read)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Any,
            EventKind::Other,
        ] {
            assert!(!changes_content(&kind), "{kind:?}");
        }
    }
}
