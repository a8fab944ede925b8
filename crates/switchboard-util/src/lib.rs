//! Helpers that hold no engine state and know nothing of the engine or the
//! config: writing files privately and atomically ([`files`]) and redacting
//! secrets from anything shown, logged or answered ([`redact`]).
//!
//! One copy of each for the whole workspace: the config crate reads and
//! writes its file with them, and `switchboard_core::util` re-exports them
//! for the engine, the CLI and the app (so the values [`redact::remember`]
//! registers are one set, wherever a text is redacted).

pub mod files;
pub mod redact;
