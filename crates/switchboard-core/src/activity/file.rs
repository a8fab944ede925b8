//! `activity.jsonl`: the activity log on disk, one JSON entry a line,
//! appended by the activity writer task only.
//!
//! The file is created `0600` (an existing one loses group and other access)
//! in a state directory made `0700` ([`crate::util::files::own_dir`]). Before
//! a line would take it past its size limit it is renamed to
//! `activity.1.jsonl` (replacing the previous one) and a new file started, so
//! the log never takes more than about twice the limit. A write that fails
//! is logged once and the file reopened on the next line; the in-memory
//! entries are unaffected.
//!
//! When the hub starts, [`last_entries`] reads the end of the file back, so
//! `GET /api/v1/activity` still shows the calls before the restart and entry
//! numbers go on from the last one (`switchboard activity --follow` asks for
//! entries after a number and would otherwise miss every call until the new
//! numbers passed the old ones).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use switchboard_api::ActivityEntry;

use crate::util::files;

/// How much of the end of the log [`last_entries`] reads at most.
const TAIL_BYTES: u64 = 1024 * 1024;

/// The open log and how big it is.
pub(super) struct LogFile {
    path: PathBuf,
    max_bytes: u64,
    out: Option<BufWriter<File>>,
    size: u64,
    /// Set after a failure was logged, until a write works again.
    failing: bool,
}

impl LogFile {
    pub(super) fn new(path: PathBuf, max_bytes: u64) -> Self {
        Self {
            path,
            max_bytes,
            out: None,
            size: 0,
            failing: false,
        }
    }

    /// `activity.1.jsonl` beside `activity.jsonl`.
    fn rotated(&self) -> PathBuf {
        let stem = self
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "activity".to_string());
        self.path.with_file_name(format!("{stem}.1.jsonl"))
    }

    fn open(&mut self) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            files::own_dir(dir)?;
        }
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(&self.path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = file.metadata()?;
            if meta.permissions().mode() & 0o077 != 0 {
                file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
        }
        self.size = file.metadata()?.len();
        self.out = Some(BufWriter::new(file));
        Ok(())
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.flush()?;
        }
        std::fs::rename(&self.path, self.rotated())?;
        self.open()
    }

    fn try_append(&mut self, line: &[u8]) -> std::io::Result<()> {
        if self.out.is_none() {
            self.open()?;
        }
        if self.size > 0 && self.size + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        if let Some(out) = self.out.as_mut() {
            out.write_all(line)?;
            self.size += line.len() as u64;
        }
        Ok(())
    }

    /// Appends one line (with its newline), rotating first if it would not fit.
    pub(super) fn append(&mut self, line: &[u8]) {
        let result = self.try_append(line);
        self.settle(result);
    }

    /// Writes out what is buffered.
    pub(super) fn flush(&mut self) {
        let result = match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        };
        self.settle(result);
    }

    fn settle(&mut self, result: std::io::Result<()>) {
        match result {
            Ok(()) => self.failing = false,
            Err(err) => {
                if !self.failing {
                    tracing::warn!(
                        path = %self.path.display(),
                        error = %err,
                        "could not write the activity log"
                    );
                }
                self.failing = true;
                self.out = None;
            }
        }
    }
}

/// The newest `max` entries of the log at `path`, oldest first, read from
/// at most its last [`TAIL_BYTES`]; lines that are not entries are skipped.
/// A missing or unreadable file gives none.
pub(super) fn last_entries(path: &Path, max: usize) -> Vec<ActivityEntry> {
    let Ok(mut file) = File::open(path) else {
        return Vec::new();
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = size.saturating_sub(TAIL_BYTES);
    let mut text = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err()
        || file.take(TAIL_BYTES).read_to_end(&mut text).is_err()
    {
        return Vec::new();
    }
    let mut lines = text.split(|&b| b == b'\n');
    if start > 0 {
        // The first line read is most likely the end of a cut one.
        lines.next();
    }
    let mut entries: Vec<ActivityEntry> = lines
        .filter(|line| !line.is_empty())
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect();
    let extra = entries.len().saturating_sub(max);
    entries.drain(..extra);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_private_and_rotates_at_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/activity.jsonl");
        let mut log = LogFile::new(path.clone(), 100);
        let line = [b'x'; 39];
        let mut line = line.to_vec();
        line.push(b'\n');
        for _ in 0..7 {
            log.append(&line);
        }
        log.flush();
        let current = std::fs::metadata(&path).unwrap().len();
        let rotated = std::fs::metadata(dir.path().join("state/activity.1.jsonl"))
            .unwrap()
            .len();
        // 7 lines of 40 bytes, two per file: 80 + 80 rotated away, 40 left.
        assert_eq!((current, rotated), (40, 80));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Reopened later (a restart), it continues from its size.
        let mut again = LogFile::new(path.clone(), 100);
        again.append(&line);
        again.flush();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 80);
    }
}
