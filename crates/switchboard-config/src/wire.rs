//! The wire form of a refused config ([`switchboard_api::ConfigError`]: the
//! snapshot's `configError`, the reload answer's `configError`), here because
//! this crate owns [`ConfigError`](crate::ConfigError) and the wire crate
//! knows nothing of the config: paths become text, every other field stays.

/// The wire form of a refused config (the snapshot's `configError`, the
/// reload answer's `configError`).
impl From<crate::ConfigError> for switchboard_api::ConfigError {
    fn from(err: crate::ConfigError) -> Self {
        use crate::ConfigError as E;
        let path = |p: std::path::PathBuf| p.display().to_string();
        match err {
            E::Read { path: p, message } => Self::Read {
                path: path(p),
                message,
            },
            E::Missing { path: p, message } => Self::Missing {
                path: path(p),
                message,
            },
            E::Empty { path: p, message } => Self::Empty {
                path: path(p),
                message,
            },
            E::NotAFile { path: p, message } => Self::NotAFile {
                path: path(p),
                message,
            },
            E::Unsafe { path: p, message } => Self::Unsafe {
                path: path(p),
                message,
            },
            E::Invalid {
                path: p,
                line,
                column,
                message,
            } => Self::Invalid {
                path: path(p),
                line,
                column,
                message,
            },
            E::Env {
                name,
                value,
                message,
            } => Self::Env {
                name,
                value,
                message,
            },
        }
    }
}
