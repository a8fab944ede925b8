//! File plumbing shared by import and connect: optional reads, timestamped
//! backups and atomic replacement.
//!
//! Writes go through the core's one atomic-write function
//! ([`switchboard_core::files::write_atomic`]): never a half-written file, a
//! symlinked client config stays a symlink, the file keeps its owner, and on
//! Unix new files are `0600` in `0700` directories. Backups are `0600`
//! whatever the original's mode: they hold the same tokens.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_core::files::{self, FileMode};

use super::ClientError;

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ClientError {
    let path = path.to_path_buf();
    move |source| ClientError::Io {
        action,
        path,
        source,
    }
}

/// The file's text, or `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, ClientError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ClientError::Shape {
                path: path.to_path_buf(),
                message: "the file is not UTF-8 text".into(),
            }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io("read", path)(err)),
    }
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `<file name><suffix>` beside `path`; `-2`, `-3`, ... appended while taken.
pub(crate) fn free_sibling(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = path.with_file_name(format!("{name}{suffix}"));
    if !first.exists() {
        return first;
    }
    (2..)
        .map(|n| path.with_file_name(format!("{name}{suffix}-{n}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// Copies `path` to `<path>.bak-<unix-seconds>` (mode `0600`) and returns the copy's path.
pub(crate) fn backup(path: &Path, now: u64) -> Result<PathBuf, ClientError> {
    let target = free_sibling(path, &format!(".bak-{now}"));
    files::copy_private(path, &target).map_err(io("back up", path))?;
    Ok(target)
}

/// Replaces `path` with `contents` atomically, creating parent directories;
/// `mode` says whether an existing file keeps its mode ([`FileMode::Keep`],
/// a client's own config) or becomes owner-only ([`FileMode::Private`]).
pub(crate) fn write_atomic(path: &Path, contents: &str, mode: FileMode) -> Result<(), ClientError> {
    files::write_atomic(path, contents.as_bytes(), mode)
        .map(|_| ())
        .map_err(io("replace", path))
}
