//! Where OAuth tokens and secrets live: the OS keyring behind the
//! [`TokenStore`] trait, or memory.
//!
//! Every entry is one keyring item with service [`SERVICE`] (`switchboard`)
//! and an account naming what it holds: `oauth:<server-id>` (rmcp's
//! `StoredCredentials` as JSON) or `secret:<name>` (a value for a config
//! field written as `{"keyring": "<name>"}`).
//!
//! Which store is used is decided once per process by [`open`], following
//! [`plan`]: `tokenStore: auto` (the default) takes, on Linux, the Secret
//! Service (D-Bus, e.g. GNOME Keyring or KWallet), else the kernel keyring
//! (keyutils: survives hub restarts but not a reboot); on macOS the login
//! Keychain; on Windows the Credential Manager (values split over several
//! credentials when longer than one holds, see [`super::chunked`]). When none
//! answers it keeps tokens in memory and says so ([`KeyringKind::Unavailable`]).
//! Nothing is ever written to a plain file.
//!
//! Keyring calls block (D-Bus round trips, Keychain or unlock prompts): the
//! trait is synchronous on purpose, and async code goes through [`call`],
//! which runs it on tokio's blocking pool with a deadline.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The keyring service name of every entry Switchboard writes.
pub const SERVICE: &str = "switchboard";

/// How long a keyring call may take before the caller gives up on it.
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(10);

/// The keyring account of a server's OAuth credentials.
pub fn oauth_account(server: &str) -> String {
    format!("oauth:{server}")
}

/// The keyring account of a named secret.
pub fn secret_account(name: &str) -> String {
    format!("secret:{name}")
}

/// Which store holds the entries, as shown in the snapshot and the CLI (a wire type).
pub use switchboard_api::KeyringKind;

use crate::config::TokenStoreChoice;

/// Why a keyring call failed. Messages never contain stored values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("the {kind} keyring refused access: {message}")]
    NoAccess { kind: KeyringKind, message: String },
    #[error("the {kind} keyring failed: {message}")]
    Platform { kind: KeyringKind, message: String },
    #[error("the keyring entry {account:?} is not valid text")]
    BadData { account: String },
    #[error("the keyring did not answer within {} s", KEYRING_TIMEOUT.as_secs())]
    Timeout,
    #[error("no keyring is available ({0}); secrets cannot be stored")]
    Unavailable(String),
}

/// A blocking key-value store of secrets, keyed by account under [`SERVICE`].
pub trait TokenStore: Send + Sync + 'static {
    fn kind(&self) -> KeyringKind;
    /// The value of `account`, `None` if there is no such entry.
    fn get(&self, account: &str) -> Result<Option<String>, StoreError>;
    /// Creates or replaces the entry.
    fn set(&self, account: &str, value: &str) -> Result<(), StoreError>;
    /// Removes the entry; removing a missing entry is not an error.
    fn delete(&self, account: &str) -> Result<(), StoreError>;
}

/// Entries in a map: for tests, `tokenStore: memory`, and when no keyring is
/// available (then [`KeyringKind::Unavailable`]).
pub struct MemoryTokenStore {
    kind: KeyringKind,
    entries: Mutex<HashMap<String, String>>,
}

impl MemoryTokenStore {
    pub fn new() -> Self {
        Self::with_kind(KeyringKind::Memory)
    }

    pub fn with_kind(kind: KeyringKind) -> Self {
        Self {
            kind,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemoryTokenStore {
    fn default() -> Self {
        Self::new()
    }
}

impl TokenStore for MemoryTokenStore {
    fn kind(&self) -> KeyringKind {
        self.kind
    }
    fn get(&self, account: &str) -> Result<Option<String>, StoreError> {
        Ok(self.lock().get(account).cloned())
    }
    fn set(&self, account: &str, value: &str) -> Result<(), StoreError> {
        self.lock().insert(account.to_string(), value.to_string());
        Ok(())
    }
    fn delete(&self, account: &str) -> Result<(), StoreError> {
        self.lock().remove(account);
        Ok(())
    }
}

/// An OS keyring reached through `keyring-core`.
pub struct KeyringTokenStore {
    kind: KeyringKind,
    store: Arc<keyring_core::CredentialStore>,
}

impl KeyringTokenStore {
    fn entry(&self, account: &str) -> Result<keyring_core::Entry, StoreError> {
        let entry = if self.kind == KeyringKind::CredentialManager {
            // Kept on this computer: the default (enterprise) persistence would
            // copy tokens to every machine a domain account logs on to.
            let local = HashMap::from([("persistence", "Local")]);
            keyring_core::Entry::new_in_store_with_modifiers(&self.store, SERVICE, account, &local)
        } else {
            keyring_core::Entry::new_in_store(&self.store, SERVICE, account)
        };
        entry.map_err(|e| self.error(account, e))
    }

    fn error(&self, account: &str, err: keyring_core::Error) -> StoreError {
        use keyring_core::Error as E;
        match err {
            E::NoStorageAccess(e) => StoreError::NoAccess {
                kind: self.kind,
                message: e.to_string(),
            },
            E::PlatformFailure(e) => StoreError::Platform {
                kind: self.kind,
                message: e.to_string(),
            },
            E::BadEncoding(_) | E::BadDataFormat(..) => StoreError::BadData {
                account: account.to_string(),
            },
            // Other variants carry no stored data; their text is safe to show.
            other => StoreError::Platform {
                kind: self.kind,
                message: other.to_string(),
            },
        }
    }
}

impl TokenStore for KeyringTokenStore {
    fn kind(&self) -> KeyringKind {
        self.kind
    }

    fn get(&self, account: &str) -> Result<Option<String>, StoreError> {
        match self.entry(account)?.get_password() {
            Ok(value) => Ok(Some(value)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            // Two items for one account (e.g. written by another tool): use one.
            Err(keyring_core::Error::Ambiguous(entries)) => match entries.first() {
                Some(entry) => entry
                    .get_password()
                    .map(Some)
                    .map_err(|e| self.error(account, e)),
                None => Ok(None),
            },
            Err(e) => Err(self.error(account, e)),
        }
    }

    fn set(&self, account: &str, value: &str) -> Result<(), StoreError> {
        let entry = self.entry(account)?;
        match entry.set_password(value) {
            Ok(()) => Ok(()),
            // keyutils adds the key to the session keyring, then links it to the
            // user's persistent keyring; where that link is refused (containers,
            // some sessions) the key is stored all the same: check by reading it.
            Err(keyring_core::Error::NoStorageAccess(e)) if self.kind == KeyringKind::Keyutils => {
                match self.get(account) {
                    Ok(Some(stored)) if stored == value => {
                        tracing::debug!(%e, "keyutils: stored in the session keyring only");
                        Ok(())
                    }
                    _ => Err(StoreError::NoAccess {
                        kind: self.kind,
                        message: e.to_string(),
                    }),
                }
            }
            Err(keyring_core::Error::Ambiguous(_)) => {
                self.delete(account)?;
                self.entry(account)?
                    .set_password(value)
                    .map_err(|e| self.error(account, e))
            }
            Err(e) => Err(self.error(account, e)),
        }
    }

    fn delete(&self, account: &str) -> Result<(), StoreError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(keyring_core::Error::Ambiguous(entries)) => {
                for entry in entries {
                    match entry.delete_credential() {
                        Ok(()) | Err(keyring_core::Error::NoEntry) => {}
                        Err(e) => return Err(self.error(account, e)),
                    }
                }
                Ok(())
            }
            Err(e) => Err(self.error(account, e)),
        }
    }
}

/// The store a process uses, and what people should know about it.
#[derive(Clone)]
pub struct OpenedStore {
    pub store: Arc<dyn TokenStore>,
    /// Why the OS keyring is not used, when it is not.
    pub note: Option<String>,
}

impl OpenedStore {
    pub fn kind(&self) -> KeyringKind {
        self.store.kind()
    }

    /// A memory store of `kind` with `note`.
    pub fn memory(kind: KeyringKind, note: Option<String>) -> Self {
        Self {
            store: Arc::new(MemoryTokenStore::with_kind(kind)),
            note,
        }
    }
}

impl fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedStore")
            .field("kind", &self.kind())
            .field("note", &self.note)
            .finish()
    }
}

/// The keyrings `choice` tries on `os`, in order. An explicit choice of a
/// keyring another OS has is tried all the same (and fails with "not supported
/// on this platform", which the note shows).
pub fn plan(choice: TokenStoreChoice, os: Os) -> &'static [KeyringKind] {
    use KeyringKind as K;
    match choice {
        TokenStoreChoice::Memory => &[],
        TokenStoreChoice::SecretService => &[K::SecretService],
        TokenStoreChoice::Keyutils => &[K::Keyutils],
        TokenStoreChoice::Keychain => &[K::Keychain],
        TokenStoreChoice::CredentialManager => &[K::CredentialManager],
        TokenStoreChoice::Auto => match os {
            Os::Linux => &[K::SecretService, K::Keyutils],
            Os::OtherUnix => &[K::SecretService],
            Os::MacOs => &[K::Keychain],
            Os::Windows => &[K::CredentialManager],
            Os::Other => &[],
        },
    }
}

/// The operating system families [`plan`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    /// The BSDs and other Unix systems with a D-Bus session.
    OtherUnix,
    MacOs,
    Windows,
    Other,
}

impl Os {
    /// The system this binary was built for.
    pub const fn current() -> Self {
        if cfg!(target_os = "linux") {
            Self::Linux
        } else if cfg!(target_os = "macos") {
            Self::MacOs
        } else if cfg!(windows) {
            Self::Windows
        } else if cfg!(all(
            unix,
            not(any(target_os = "ios", target_os = "android"))
        )) {
            Self::OtherUnix
        } else {
            Self::Other
        }
    }
}

/// Opens the store for `choice`. Blocks (D-Bus, Keychain): call it off the
/// async runtime ([`open_async`]).
pub fn open(choice: TokenStoreChoice) -> OpenedStore {
    open_with(choice, Os::current(), open_keyring)
}

/// [`open`] with the keyrings `opener` gives: the first of [`plan`] that
/// opens, else memory with a note naming every failure.
pub fn open_with(
    choice: TokenStoreChoice,
    os: Os,
    opener: impl Fn(KeyringKind) -> Result<Arc<dyn TokenStore>, String>,
) -> OpenedStore {
    if choice == TokenStoreChoice::Memory {
        return OpenedStore::memory(
            KeyringKind::Memory,
            Some("tokens are kept in memory only (tokenStore: memory)".into()),
        );
    }
    let mut reasons = Vec::new();
    for &kind in plan(choice, os) {
        match opener(kind) {
            Ok(store) => return OpenedStore { store, note: None },
            Err(reason) => reasons.push(reason),
        }
    }
    if reasons.is_empty() {
        reasons.push("this system has no keyring Switchboard supports".into());
    }
    let note = format!(
        "no OS keyring is available ({}); OAuth tokens are kept in memory only and \
         are lost when Switchboard stops",
        reasons.join("; ")
    );
    tracing::warn!("{note}");
    OpenedStore::memory(KeyringKind::Unavailable, Some(note))
}

/// Opens and probes one OS keyring.
fn open_keyring(kind: KeyringKind) -> Result<Arc<dyn TokenStore>, String> {
    match kind {
        KeyringKind::SecretService => secret_service(),
        KeyringKind::Keyutils => keyutils(),
        KeyringKind::Keychain => keychain(),
        KeyringKind::CredentialManager => credential_manager(),
        KeyringKind::Memory | KeyringKind::Unavailable => Err(format!("{kind}: not a keyring")),
    }
}

/// [`open`] on the blocking pool, with a deadline.
pub async fn open_async(choice: TokenStoreChoice) -> OpenedStore {
    let opening = tokio::task::spawn_blocking(move || open(choice));
    match tokio::time::timeout(KEYRING_TIMEOUT, opening).await {
        Ok(Ok(opened)) => opened,
        Ok(Err(join)) => OpenedStore::memory(
            KeyringKind::Unavailable,
            Some(format!(
                "opening the keyring failed ({join}); tokens are kept in memory only"
            )),
        ),
        Err(_) => OpenedStore::memory(
            KeyringKind::Unavailable,
            Some(format!(
                "the keyring did not answer within {} s; tokens are kept in memory only",
                KEYRING_TIMEOUT.as_secs()
            )),
        ),
    }
}

/// Runs a blocking store call on tokio's blocking pool, with a deadline.
pub async fn call<T, F>(store: &Arc<dyn TokenStore>, f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce(&dyn TokenStore) -> Result<T, StoreError> + Send + 'static,
{
    let store = store.clone();
    let task = tokio::task::spawn_blocking(move || f(store.as_ref()));
    match tokio::time::timeout(KEYRING_TIMEOUT, task).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(StoreError::Platform {
            kind: KeyringKind::Unavailable,
            message: format!("keyring call failed: {join}"),
        }),
        Err(_) => Err(StoreError::Timeout),
    }
}

/// A keyring store that answered a read (a missing probe entry is fine).
/// Every Unix keyring opens this way; Windows wraps its store first.
#[cfg(unix)]
fn probed(
    kind: KeyringKind,
    store: Arc<keyring_core::CredentialStore>,
) -> Result<Arc<dyn TokenStore>, String> {
    answering(KeyringTokenStore { kind, store })
}

/// `store`, if it answers a read.
fn answering(store: impl TokenStore) -> Result<Arc<dyn TokenStore>, String> {
    match store.get("probe") {
        Ok(_) => Ok(Arc::new(store)),
        Err(err) => Err(format!("{}: {err}", store.kind())),
    }
}

#[cfg(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
))]
fn secret_service() -> Result<Arc<dyn TokenStore>, String> {
    match zbus_secret_service_keyring_store::Store::new() {
        Ok(store) => probed(KeyringKind::SecretService, store),
        Err(err) => Err(format!("secret-service: {err}")),
    }
}

#[cfg(not(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
)))]
fn secret_service() -> Result<Arc<dyn TokenStore>, String> {
    Err("secret-service: not supported on this platform".into())
}

#[cfg(target_os = "linux")]
fn keyutils() -> Result<Arc<dyn TokenStore>, String> {
    match linux_keyutils_keyring_store::Store::new() {
        Ok(store) => probed(KeyringKind::Keyutils, store),
        Err(err) => Err(format!("keyutils: {err}")),
    }
}

#[cfg(not(target_os = "linux"))]
fn keyutils() -> Result<Arc<dyn TokenStore>, String> {
    Err("keyutils: not supported on this platform".into())
}

#[cfg(target_os = "macos")]
fn keychain() -> Result<Arc<dyn TokenStore>, String> {
    match apple_native_keyring_store::keychain::Store::new() {
        Ok(store) => probed(KeyringKind::Keychain, store),
        Err(err) => Err(format!("keychain: {err}")),
    }
}

#[cfg(not(target_os = "macos"))]
fn keychain() -> Result<Arc<dyn TokenStore>, String> {
    Err("keychain: not supported on this platform".into())
}

#[cfg(windows)]
fn credential_manager() -> Result<Arc<dyn TokenStore>, String> {
    use super::chunked::{CREDENTIAL_MANAGER_UNITS, Chunked};
    match windows_native_keyring_store::Store::new() {
        Ok(store) => answering(Chunked::new(
            KeyringTokenStore {
                kind: KeyringKind::CredentialManager,
                store,
            },
            CREDENTIAL_MANAGER_UNITS,
        )),
        Err(err) => Err(format!("credential-manager: {err}")),
    }
}

#[cfg(not(windows))]
fn credential_manager() -> Result<Arc<dyn TokenStore>, String> {
    Err("credential-manager: not supported on this platform".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check_secret_name;

    #[test]
    fn memory_store_round_trip() {
        let store = MemoryTokenStore::new();
        assert_eq!(store.get("a").unwrap(), None);
        store.set("a", "1").unwrap();
        store.set("a", "2").unwrap();
        assert_eq!(store.get("a").unwrap().as_deref(), Some("2"));
        store.delete("a").unwrap();
        store.delete("a").unwrap();
        assert_eq!(store.get("a").unwrap(), None);
        assert_eq!(store.kind(), KeyringKind::Memory);
    }

    #[test]
    fn choices_and_names() {
        assert_eq!("auto".parse(), Ok(TokenStoreChoice::Auto));
        assert_eq!("memory".parse(), Ok(TokenStoreChoice::Memory));
        assert!("file".parse::<TokenStoreChoice>().is_err());
        assert_eq!(
            serde_json::to_value(KeyringKind::SecretService).unwrap(),
            "secret-service"
        );
        assert_eq!(oauth_account("gh"), "oauth:gh");
        assert!(check_secret_name("GITHUB_TOKEN.v2").is_ok());
        assert!(check_secret_name("").is_err());
        assert!(check_secret_name("a b").is_err());
    }

    #[test]
    fn auto_takes_each_systems_keyring() {
        use KeyringKind as K;
        let auto = TokenStoreChoice::Auto;
        assert_eq!(plan(auto, Os::Linux), [K::SecretService, K::Keyutils]);
        assert_eq!(plan(auto, Os::OtherUnix), [K::SecretService]);
        assert_eq!(plan(auto, Os::MacOs), [K::Keychain]);
        assert_eq!(plan(auto, Os::Windows), [K::CredentialManager]);
        assert!(plan(auto, Os::Other).is_empty());
        assert!(plan(TokenStoreChoice::Memory, Os::Windows).is_empty());
        // An explicit choice is tried on every system (and fails where it has no keyring).
        assert_eq!(plan(TokenStoreChoice::Keychain, Os::Linux), [K::Keychain]);
        assert_eq!(
            plan(TokenStoreChoice::CredentialManager, Os::MacOs),
            [K::CredentialManager]
        );
        if cfg!(target_os = "linux") {
            assert_eq!(Os::current(), Os::Linux);
        }
        for (name, choice) in [
            ("keychain", TokenStoreChoice::Keychain),
            ("credential-manager", TokenStoreChoice::CredentialManager),
        ] {
            assert_eq!(name.parse(), Ok(choice));
            assert_eq!(serde_json::to_value(choice).unwrap(), name);
        }
        assert!(K::Keychain.persists() && K::CredentialManager.persists());
        assert_eq!(K::CredentialManager.as_str(), "credential-manager");
    }

    /// An opener whose keyrings are memory stores, failing for the kinds in `broken`.
    fn opener<'a>(
        broken: &'static [KeyringKind],
        tried: &'a Mutex<Vec<KeyringKind>>,
    ) -> impl Fn(KeyringKind) -> Result<Arc<dyn TokenStore>, String> + 'a {
        move |kind| {
            tried.lock().unwrap().push(kind);
            if broken.contains(&kind) {
                Err(format!("{kind}: refused"))
            } else {
                Ok(Arc::new(MemoryTokenStore::with_kind(kind)))
            }
        }
    }

    #[test]
    fn open_takes_the_first_keyring_that_answers() {
        use KeyringKind as K;
        let tried = Mutex::new(Vec::new());
        let opened = open_with(TokenStoreChoice::Auto, Os::Windows, opener(&[], &tried));
        assert_eq!(opened.kind(), K::CredentialManager);
        assert_eq!(opened.note, None);

        let tried = Mutex::new(Vec::new());
        let opened = open_with(
            TokenStoreChoice::Auto,
            Os::Linux,
            opener(&[K::SecretService], &tried),
        );
        assert_eq!(opened.kind(), K::Keyutils);
        assert_eq!(*tried.lock().unwrap(), [K::SecretService, K::Keyutils]);

        let tried = Mutex::new(Vec::new());
        let opened = open_with(TokenStoreChoice::Auto, Os::MacOs, opener(&[], &tried));
        assert_eq!(opened.kind(), K::Keychain);
        assert_eq!(*tried.lock().unwrap(), [K::Keychain]);
    }

    #[test]
    fn open_falls_back_to_memory_and_says_why() {
        use KeyringKind as K;
        let tried = Mutex::new(Vec::new());
        let opened = open_with(
            TokenStoreChoice::Auto,
            Os::Linux,
            opener(&[K::SecretService, K::Keyutils], &tried),
        );
        assert_eq!(opened.kind(), K::Unavailable);
        let note = opened.note.unwrap();
        assert!(
            note.contains("secret-service: refused; keyutils: refused"),
            "{note}"
        );
        assert!(note.contains("kept in memory only"), "{note}");

        let tried = Mutex::new(Vec::new());
        let opened = open_with(TokenStoreChoice::Auto, Os::Other, opener(&[], &tried));
        assert_eq!(opened.kind(), K::Unavailable);
        assert!(
            opened
                .note
                .unwrap()
                .contains("no keyring Switchboard supports")
        );
        assert!(tried.lock().unwrap().is_empty());

        let tried = Mutex::new(Vec::new());
        let opened = open_with(TokenStoreChoice::Memory, Os::MacOs, opener(&[], &tried));
        assert_eq!(opened.kind(), K::Memory);
        assert!(tried.lock().unwrap().is_empty());
    }

    #[test]
    fn other_systems_keyrings_say_they_are_not_supported_here() {
        if cfg!(target_os = "linux") {
            let keychain = open(TokenStoreChoice::Keychain);
            assert_eq!(keychain.kind(), KeyringKind::Unavailable);
            assert!(
                keychain
                    .note
                    .unwrap()
                    .contains("keychain: not supported on this platform")
            );
            let windows = open(TokenStoreChoice::CredentialManager);
            assert!(
                windows
                    .note
                    .unwrap()
                    .contains("credential-manager: not supported on this platform")
            );
        }
    }

    #[tokio::test]
    async fn memory_choice_never_touches_the_os() {
        let opened = open_async(TokenStoreChoice::Memory).await;
        assert_eq!(opened.kind(), KeyringKind::Memory);
        let store = opened.store.clone();
        call(&store, |s| s.set("x", "y")).await.unwrap();
        assert_eq!(
            call(&store, |s| s.get("x")).await.unwrap().as_deref(),
            Some("y")
        );
    }
}
