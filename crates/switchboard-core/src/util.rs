//! Layer 0 helpers that hold no engine state and import nothing from the
//! engine: writing files atomically ([`files`]), redacting secrets from
//! anything shown, logged or answered ([`redact`]), an error's source chain
//! in one line ([`error_chain`]) and durations in words ([`humanize`]).
//! One of each: the rest of the engine, the CLI and the app use these.
//! Files and redaction live in the `switchboard-util` crate, below the config
//! crate that needs them too; they are re-exported here, so there is one copy
//! (and one set of remembered secrets).

mod error;
pub use switchboard_util::files;
mod humanize;
pub mod redact;

pub use error::error_chain;
pub use humanize::{humanize, humanize_coarse};
