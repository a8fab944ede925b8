//! `connect --profile <name>`: the profile's entry (`switchboard-<name>`,
//! pointing at `/profiles/<name>/mcp`) and the token it must send, read
//! from Switchboard's config or the OS keyring. The token never shows in
//! `Debug` output; `connect` writes it as an `Authorization: Bearer` header.

use std::fmt;
use std::path::Path;

use switchboard_core::config::{self, ConfigValue, Source, process_env};
use toml_edit::Item;

use super::ClientError;
use super::connect::SWITCHBOARD_ENTRY;

/// A profile to connect (`connect --profile`): the entry's name and the
/// header it needs.
#[derive(Clone, PartialEq, Eq)]
pub struct ProfileEntry {
    pub name: String,
    /// The profile's bearer token, if it has one.
    pub token: Option<String>,
}

impl fmt::Debug for ProfileEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProfileEntry")
            .field("name", &self.name)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .finish()
    }
}

/// The entry `connect` writes: its name and the bearer token it sends.
#[derive(Clone, Copy)]
pub(super) struct EntrySpec<'a> {
    pub(super) name: &'a str,
    pub(super) token: Option<&'a str>,
}

impl<'a> EntrySpec<'a> {
    pub(super) fn of(profile: Option<&'a ProfileEntry>, name: &'a str) -> Self {
        Self {
            name,
            token: profile.and_then(|p| p.token.as_deref()),
        }
    }
}

/// The name of the entry for `profile` (`switchboard` without one).
pub fn entry_name(profile: Option<&ProfileEntry>) -> String {
    match profile {
        Some(p) => format!("{SWITCHBOARD_ENTRY}-{}", p.name),
        None => SWITCHBOARD_ENTRY.to_string(),
    }
}

/// Codex's `http_headers` inline table with the bearer token.
pub(super) fn codex_headers(token: &str) -> Item {
    let mut headers = toml_edit::InlineTable::new();
    headers.insert("Authorization", format!("Bearer {token}").into());
    toml_edit::value(headers)
}

/// The profile `name` of the config at `path` (`SWITCHBOARD_*` overrides
/// applied): its token read from the config, or from the OS keyring for
/// `{"keyring": ...}`.
pub async fn profile_entry(name: &str, path: &Path) -> Result<ProfileEntry, ClientError> {
    let config = config::load(Source::start(path).overrides(&process_env))
        .map_err(|err| ClientError::Profile(format!("reading {}: {err}", path.display())))?;
    let Some(profile) = config.profiles.iter().find(|p| p.name.as_str() == name) else {
        let known: Vec<&str> = config.profiles.iter().map(|p| p.name.as_str()).collect();
        return Err(ClientError::Profile(format!(
            "no profile '{name}' in {} ({})",
            path.display(),
            if known.is_empty() {
                "it has no `profiles`".to_string()
            } else {
                format!("its profiles: {}", known.join(", "))
            }
        )));
    };
    let token = match &profile.token {
        None => None,
        Some(ConfigValue::Literal(token)) => Some(token.clone()),
        Some(ConfigValue::Keyring(secret)) => {
            use switchboard_core::auth::store;
            let opened = store::open_async(config.settings.token_store).await;
            let account = store::secret_account(secret);
            let value = store::call(&opened.store, move |s| s.get(&account))
                .await
                .map_err(|err| {
                    ClientError::Profile(format!(
                        "reading profile '{name}''s token from the keyring: {err}"
                    ))
                })?;
            Some(value.ok_or_else(|| {
                ClientError::Profile(format!(
                    "profile '{name}''s token is kept in the keyring as '{secret}', which has no \
                     value; store it with `switchboard secret set {secret}`"
                ))
            })?)
        }
    };
    Ok(ProfileEntry {
        name: profile.name.to_string(),
        token,
    })
}
