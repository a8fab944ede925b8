//! Which calls wait for a person's approval (`settings.confirmCalls`,
//! `SWITCHBOARD_CONFIRM_CALLS`, and a server's own `confirmCalls`; see
//! `switchboard_core`'s approval module and `docs/security.md`), and a server's approval
//! settings as configured ([`ServerApproval`]).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which calls ask first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmCalls {
    /// No call asks (unless its tool matches `confirmTools`).
    #[default]
    Off,
    /// Tools annotated `destructiveHint: true` (and not `readOnlyHint: true`).
    Destructive,
    /// Every tool not annotated `readOnlyHint: true`.
    Writes,
    /// Every call.
    All,
}

impl FromStr for ConfirmCalls {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Self::Off),
            "destructive" => Ok(Self::Destructive),
            "writes" => Ok(Self::Writes),
            "all" => Ok(Self::All),
            _ => Err("expected off, destructive, writes or all".into()),
        }
    }
}

/// One server's approval settings: `confirmCalls` (overrides the hub's),
/// `confirmTools` (globs of its tool names that always ask) and
/// `allowTools` (globs that never ask; `always` answers add to it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerApproval {
    pub confirm_calls: Option<ConfirmCalls>,
    pub confirm_tools: Vec<String>,
    pub allow_tools: Vec<String>,
}

/// A server's `confirmCalls`, `confirmTools` and `allowTools`, as read.
impl From<(Option<ConfirmCalls>, Vec<String>, Vec<String>)> for ServerApproval {
    fn from(
        (confirm_calls, confirm_tools, allow_tools): (
            Option<ConfirmCalls>,
            Vec<String>,
            Vec<String>,
        ),
    ) -> Self {
        Self {
            confirm_calls,
            confirm_tools,
            allow_tools,
        }
    }
}

impl ServerApproval {
    /// Whether nothing is configured: the hub-wide setting decides alone.
    pub fn is_default(&self) -> bool {
        self.confirm_calls.is_none() && self.confirm_tools.is_empty() && self.allow_tools.is_empty()
    }
}
