//! Named modes the settings table uses (`tokenStore`, `toolPinning`, `toolMode`; see
//! `docs/search.md` for the latter) and the kind of `pinnedTools`.

use std::str::FromStr;

use serde::de::MapAccess;
use serde::{Deserialize, Serialize};

use super::Kind;

/// The store the person asked for (`settings.tokenStore`, `SWITCHBOARD_TOKEN_STORE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenStoreChoice {
    /// The OS keyring, else memory (and say so): on Linux the Secret Service,
    /// else keyutils; the Keychain on macOS; the Credential Manager on Windows.
    #[default]
    Auto,
    SecretService,
    Keyutils,
    Keychain,
    CredentialManager,
    /// Never touch the OS keyring; tokens last as long as the process.
    Memory,
}

impl FromStr for TokenStoreChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "secret-service" => Ok(Self::SecretService),
            "keyutils" => Ok(Self::Keyutils),
            "keychain" => Ok(Self::Keychain),
            "credential-manager" => Ok(Self::CredentialManager),
            "memory" => Ok(Self::Memory),
            _ => Err(
                "expected auto, secret-service, keyutils, keychain, credential-manager or memory"
                    .into(),
            ),
        }
    }
}

/// What happens when a pinned tool's definition changes
/// (`settings.toolPinning`, `SWITCHBOARD_TOOL_PINNING`; see the engine's `pins` module).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolPinning {
    /// The changed tool is withheld until someone approves it.
    #[default]
    Hold,
    /// The changed tool stays listed, flagged as changed.
    Warn,
    /// No pins are kept or compared.
    Off,
}

impl FromStr for ToolPinning {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hold" => Ok(Self::Hold),
            "warn" => Ok(Self::Warn),
            "off" => Ok(Self::Off),
            _ => Err("expected hold, warn or off".into()),
        }
    }
}

/// What the merged endpoint lists (`settings.toolMode`, `SWITCHBOARD_TOOL_MODE`;
/// see `docs/search.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolMode {
    /// Every enabled server's tools.
    #[default]
    All,
    /// Only the pinned tools, the built-in tools and the two search tools.
    Search,
    /// Search mode's list and `switchboard__run_code`, which runs a script
    /// that calls the tools (see the engine's `codemode` module).
    Code,
}

impl FromStr for ToolMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(Self::All),
            "search" => Ok(Self::Search),
            "code" => Ok(Self::Code),
            _ => Err("expected all, search or code".into()),
        }
    }
}

/// A list of names (`pinnedTools`): an array of strings in the file; in a
/// variable, names separated by commas (blanks ignored).
pub(super) struct NameList;

impl Kind<Vec<String>> for NameList {
    fn read_file<'de, A: MapAccess<'de>>(
        &self,
        _name: &'static str,
        map: &mut A,
    ) -> Result<Option<Vec<String>>, A::Error> {
        map.next_value::<Option<Vec<String>>>()
    }

    fn read_env(&self, text: &str) -> Result<Vec<String>, String> {
        Ok(text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect())
    }
}
