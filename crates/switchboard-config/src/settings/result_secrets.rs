//! What credentials in tool results do (`settings.resultSecrets`,
//! `SWITCHBOARD_RESULT_SECRETS`, and a server's own `resultSecrets`; see
//! `util/redact/results.rs` and `docs/security.md`).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a credential found in a tool result does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultSecrets {
    /// Replaced by `[redacted <kind>]` before any client sees it.
    #[default]
    Redact,
    /// Passed on as it is; the activity log and the hub's log note it.
    Warn,
    /// Not looked for.
    Off,
}

impl FromStr for ResultSecrets {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "redact" => Ok(Self::Redact),
            "warn" => Ok(Self::Warn),
            "off" => Ok(Self::Off),
            _ => Err("expected redact, warn or off".into()),
        }
    }
}
