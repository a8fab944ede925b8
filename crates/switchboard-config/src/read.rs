//! Reading the config file's bytes, safely: only a regular file, only one
//! no other user can change (`guard.rs`), at most [`MAX_CONFIG_BYTES`], and
//! never blocking on a FIFO. Parsing is `load.rs`'s job.

use std::path::Path;

use super::{ConfigError, MAX_CONFIG_BYTES};

/// Reads the config file: `Ok(None)` when there is none. Refuses, without
/// blocking, anything but a regular file (a FIFO would otherwise wait for a
/// writer forever), a file or directory another user could change
/// (`guard.rs`), and files over [`MAX_CONFIG_BYTES`].
pub fn read_config_file(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    use std::io::Read;
    let read_error = |err: std::io::Error| ConfigError::Read {
        path: path.to_path_buf(),
        message: err.to_string(),
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading waits for a writer unless non-blocking;
        // for a regular file the flag changes nothing.
        options.custom_flags(nix::libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(read_error(err)),
    };
    let meta = file.metadata().map_err(read_error)?;
    if !meta.is_file() {
        return Err(ConfigError::NotAFile {
            path: path.to_path_buf(),
            message: format!(
                "the config file is {}, not a regular file; Switchboard reads its config only from a regular file",
                file_kind(&meta.file_type())
            ),
        });
    }
    super::guard::check_file(path, &meta)?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError::Read {
            path: path.to_path_buf(),
            message: format!(
                "the file is {} bytes; a config file may have at most {MAX_CONFIG_BYTES} bytes",
                meta.len()
            ),
        });
    }
    let mut bytes = Vec::new();
    // `take`: the file may grow between the check and the read.
    file.take(MAX_CONFIG_BYTES)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    Ok(Some(bytes))
}

/// What a non-regular file is, in words.
fn file_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}
