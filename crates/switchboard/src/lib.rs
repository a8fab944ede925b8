//! The `switchboard` command line's library: everything the binary does
//! besides parsing arguments, so integration tests can call it directly.
//!
//! - [`activity`]: the table `switchboard activity` prints;
//! - [`clients`]: AI clients' MCP config files (`import`, `connect`), the
//!   `switchboard-clients` crate (its `import_offer` is the dashboard's first run);
//! - [`bridge`]: the stdio bridge (`switchboard stdio`);
//! - [`remote`]: talking to a running hub's control API (`status`, `refresh`, ...);
//! - [`log_writer`]: the stderr writer of the log, which redacts every line.

pub mod activity;
pub mod bridge;
pub mod log_writer;
pub mod remote;

pub use switchboard_clients as clients;
