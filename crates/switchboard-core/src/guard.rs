//! Moved to `upstream/process/guard.rs` (the death guard of a stdio server's
//! process group); this path stays for the binaries' `main` until the facade
//! in `lib.rs` re-exports it.

pub use crate::upstream::guard::*;
