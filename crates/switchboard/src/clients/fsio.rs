//! File plumbing shared by import and connect: optional reads, timestamped
//! backups and atomic replacement.
//!
//! A write never leaves a half-written file behind: the new content goes to a
//! temp file in the same directory, is flushed to disk, gets the old file's
//! permissions (`~/.claude.json` may hold tokens and be private) and is then
//! renamed over the target.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// Copies `path` to `<path>.bak-<unix-seconds>` and returns the copy's path.
pub(crate) fn backup(path: &Path, now: u64) -> Result<PathBuf, ClientError> {
    let target = free_sibling(path, &format!(".bak-{now}"));
    fs::copy(path, &target).map_err(io("back up", path))?;
    Ok(target)
}

/// Replaces `path` with `contents` atomically, creating parent directories.
pub(crate) fn write_atomic(path: &Path, contents: &str) -> Result<(), ClientError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(io("create directory", &dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let tmp = dir.join(format!(".{name}.switchboard-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp).map_err(io("create", &tmp))?;
        file.write_all(contents.as_bytes())
            .map_err(io("write", &tmp))?;
        file.sync_all().map_err(io("write", &tmp))?;
        drop(file);
        if let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&tmp, meta.permissions())
                .map_err(io("set permissions of", &tmp))?;
        }
        fs::rename(&tmp, path).map_err(io("replace", path))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
