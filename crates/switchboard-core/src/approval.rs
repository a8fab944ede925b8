//! Asking a person before a call leaves the hub (`settings.confirmCalls`,
//! a server's `confirmCalls`, `confirmTools`, `allowTools`, and
//! `settings.confirmTimeoutSecs`; see `docs/security.md`).
//!
//! Two pure parts and one shared table:
//! - [`policy`]: whether a call of a tool needs approval, from the settings
//!   and the tool's annotations (`destructiveHint`, `readOnlyHint`), with
//!   [`glob`] matching the tool-name patterns;
//! - [`pending`]: the calls waiting, which every decider (the control API
//!   and the CLI, the dashboard, elicitation to the calling client) answers
//!   through [`Pending::decide`]; the first answer wins, later ones find
//!   nothing to decide.
//!
//! The waiting itself (progress notifications, the elicitation, the
//! timeout) is the gateway's (`gateway/approval.rs`), the one place every
//! route's `tools/call` passes before it is forwarded.

mod glob;
mod pending;
mod policy;

pub use pending::{Decider, Decision, NotPending, Pending};
pub(crate) use policy::{may_ask, needs_approval};
