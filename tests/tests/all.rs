//! The one integration-test binary of `switchboard-e2e`: every suite file under
//! `tests/tests/suite/` is a module of it, so the test code links once and the
//! fixture binaries are built once per run (see `switchboard_e2e::bin`).
//!
//! Run one suite file with a name filter: `cargo test -p switchboard-e2e --test all -- routing::`.

mod suite;
