//! [`ConfigError`]: why a configuration was refused, with the path, line and
//! column of what is wrong, and its redacted form for the snapshot and logs.

use std::path::PathBuf;

use serde::Serialize;

/// Why a configuration was refused.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ConfigError {
    #[error("cannot read config file {path}: {message}")]
    Read { path: PathBuf, message: String },
    /// The file is gone (only on a reload: at start-up it means no servers yet).
    #[error("{path}: {message}")]
    Missing { path: PathBuf, message: String },
    /// The file holds nothing but whitespace (only on a reload: at start-up it
    /// means no servers yet). An editor that truncates and then writes shows this.
    #[error("{path}: {message}")]
    Empty { path: PathBuf, message: String },
    /// A FIFO, a directory, a device or a socket: only a regular file is read.
    #[error("{path}: {message}")]
    NotAFile { path: PathBuf, message: String },
    /// The file or its directory could be changed by another user
    /// (`guard.rs`): the message names which, and its mode or owner.
    #[error("{path}: {message}")]
    Unsafe { path: PathBuf, message: String },
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("environment variable {name}={value:?}: {message}")]
    Env {
        name: String,
        value: String,
        message: String,
    },
}

impl ConfigError {
    /// The same error with [`switchboard_util::redact::text`] applied to the text that
    /// can quote the file or the environment (for the snapshot and logs).
    pub fn redacted(self) -> Self {
        use switchboard_util::redact::text;
        match self {
            Self::Read { path, message } => Self::Read {
                path,
                message: text(&message),
            },
            Self::Missing { path, message } => Self::Missing {
                path,
                message: text(&message),
            },
            Self::Empty { path, message } => Self::Empty {
                path,
                message: text(&message),
            },
            Self::NotAFile { path, message } => Self::NotAFile {
                path,
                message: text(&message),
            },
            Self::Unsafe { path, message } => Self::Unsafe { path, message },
            Self::Invalid {
                path,
                line,
                column,
                message,
            } => Self::Invalid {
                path,
                line,
                column,
                message: text(&message),
            },
            Self::Env {
                name,
                value,
                message,
            } => Self::Env {
                value: if switchboard_util::redact::is_secret_name(&name) {
                    switchboard_util::redact::MASK.to_string()
                } else {
                    text(&value)
                },
                name,
                message: text(&message),
            },
        }
    }
}
