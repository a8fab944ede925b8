//! Profiles in the hub (see `docs/search.md`): each configured profile's
//! view of the merged catalog, its tool mode and its token, as the gateway
//! and the HTTP layer read them on every request of `/profiles/<name>/mcp`.
//!
//! A [`Profile`] is an immutable value, replaced whenever what it serves
//! changes: the merged catalog narrowed to its servers (same names as `/mcp`),
//! with list versions of its own, so its sessions are told a list changed only
//! when *their* list changed; its search index and search mode's prepared
//! `tools/list` bytes are made once per value, on first use (the fast path
//! stays a copy of bytes). Profiles are recomputed when the merged catalog
//! changes ([`HubHandle::rebuild_catalog`]), when the tool view changes, and
//! when a reload brings new profile configs ([`HubHandle::set_profiles`]),
//! which also reads keyring tokens and closes the sessions of removed
//! profiles. The table is written only by [`HubHandle::refresh_profiles`],
//! under its write lock, which also reads the catalog so an older catalog
//! never replaces a newer one.
//!
//! A token is compared in constant time ([`crate::access::same`]); it never
//! leaves this module: the snapshot says only whether a profile has one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use axum::body::Bytes;
use rmcp::model::{ListToolsResult, ServerResult, Tool};

use super::HubHandle;
use super::tool_mode::{SearchIndex, ToolView};
use crate::catalog::{Catalog, CatalogDiff, CatalogVersions};
use crate::config::{ProfileConfig, ServerId, ToolMode};
use crate::sessions::Scope;
use crate::upstream::Upstream;

/// A profile's token as the hub holds it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum ProfileToken {
    /// No token: any local client may connect.
    None,
    /// The token requests must carry.
    Ready(String),
    /// A keyring token that could not be read: every request is refused
    /// (fail closed) with the reason.
    Unavailable(String),
}

/// Why a request to a profile is refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No token, or a wrong one (HTTP 401).
    Unauthorized(String),
    /// The profile's token could not be read (HTTP 503).
    Unavailable(String),
}

/// One profile as served now.
pub(crate) struct Profile {
    pub name: Arc<str>,
    pub config: ProfileConfig,
    /// Its servers (as configured; disabled ones serve nothing).
    pub servers: Arc<HashSet<ServerId>>,
    pub mode: ToolMode,
    /// The folder whose project file it is (`hub/projects.rs`); `None` for
    /// a configured profile. A project profile has no route of its own.
    pub project: Option<std::path::PathBuf>,
    token: Arc<ProfileToken>,
    /// The merged catalog narrowed to its servers, with its own versions.
    pub catalog: Arc<Catalog>,
    /// The tool view (pinned tools) this value was made with.
    view: Arc<ToolView>,
    index: OnceLock<Arc<SearchIndex>>,
    search_list: OnceLock<Bytes>,
}

impl Profile {
    /// Whether it has a token (configured, read or not).
    pub fn has_token(&self) -> bool {
        *self.token != ProfileToken::None
    }

    /// Checks a request's `Authorization` header value against the token.
    pub fn admit(&self, authorization: Option<&str>) -> Result<(), Refused> {
        let name = &self.name;
        match &*self.token {
            ProfileToken::None => Ok(()),
            ProfileToken::Unavailable(why) => Err(Refused::Unavailable(format!(
                "profile '{name}' cannot be used: {why}"
            ))),
            ProfileToken::Ready(token) => {
                let given = authorization.and_then(|value| {
                    let (scheme, rest) = value.trim().split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
                });
                match given {
                    Some(given) if crate::access::same(given, token) => Ok(()),
                    Some(_) => Err(Refused::Unauthorized(format!(
                        "the bearer token is not valid for profile '{name}'"
                    ))),
                    None => Err(Refused::Unauthorized(format!(
                        "profile '{name}' needs its token: send `Authorization: Bearer <token>`"
                    ))),
                }
            }
        }
    }

    /// Whether the profile serves `server`.
    pub fn covers(&self, server: &ServerId) -> bool {
        self.servers.contains(server)
    }

    /// The search index over its catalog, built on first use.
    pub fn search_index(&self) -> Arc<SearchIndex> {
        self.index
            .get_or_init(|| Arc::new(SearchIndex::build(self.catalog.clone())))
            .clone()
    }

    /// Its tools in search mode (`builtin`, then its pinned tools).
    pub fn search_mode_tools(&self, builtin: Vec<Tool>) -> Vec<Tool> {
        super::tool_mode::search_mode_tools(&self.catalog, &self.view, builtin)
    }

    /// Search mode's `tools/list` bytes, made once per value.
    pub fn search_mode_list(&self, builtin: impl FnOnce() -> Vec<Tool>) -> Bytes {
        self.search_list
            .get_or_init(|| {
                crate::catalog::legacy_result_bytes(ServerResult::ListToolsResult(
                    ListToolsResult::with_all_items(self.search_mode_tools(builtin())),
                ))
            })
            .clone()
    }
}

/// The hub's profiles: the configs in force (tokens read) and the values served.
#[derive(Default)]
pub(crate) struct ProfilesState {
    configs: Mutex<Vec<(ProfileConfig, Arc<ProfileToken>)>>,
    live: RwLock<HashMap<Arc<str>, Arc<Profile>>>,
    /// Cancelled when a profile is removed (its `subscriptions/listen`
    /// streams end), by name, for as long as the profile exists.
    gone: Mutex<HashMap<Arc<str>, tokio_util::sync::CancellationToken>>,
    /// The project files consulted so far (unnamed profiles).
    pub(super) projects: super::projects::Projects,
}

impl HubHandle {
    /// Applies the profile configs of a (re)loaded config: reads keyring
    /// tokens, recomputes every profile, and closes the sessions of profiles
    /// that are gone (their route answers 404 from now on).
    pub(crate) async fn set_profiles(&self, configs: Vec<ProfileConfig>) {
        let mut resolved = Vec::with_capacity(configs.len());
        for config in configs {
            crate::util::redact::remember(config.secret_values().iter().map(String::as_str));
            let token = match &config.token {
                None => ProfileToken::None,
                Some(value) => match self.inner.auth.resolve(value).await {
                    Ok(token) if !token.trim().is_empty() => ProfileToken::Ready(token),
                    Ok(_) => ProfileToken::Unavailable("its token is empty".into()),
                    Err(err) => {
                        tracing::warn!(profile = %config.name, error = %err, "a profile's token could not be read; the profile refuses every request");
                        ProfileToken::Unavailable(format!("its token could not be read: {err}"))
                    }
                },
            };
            resolved.push((config, Arc::new(token)));
        }
        let removed: Vec<Arc<str>> = {
            let Ok(mut current) = self.inner.profiles.configs.lock() else {
                return;
            };
            let gone = current
                .iter()
                .filter(|(old, _)| !resolved.iter().any(|(new, _)| new.name == old.name))
                .map(|(old, _)| old.name.as_arc().clone())
                .collect();
            *current = resolved;
            gone
        };
        // The servers a project file names may have come or gone.
        self.inner.profiles.projects.forget();
        if let Ok(mut tokens) = self.inner.profiles.gone.lock() {
            for name in &removed {
                if let Some(token) = tokens.remove(name) {
                    token.cancel();
                }
            }
        }
        self.refresh_profiles();
        for name in removed {
            tracing::info!(profile = %name, "profile removed");
            self.inner
                .sessions
                .close_scope(&Scope::Profile(name), &self.inner.tasks);
        }
        self.publish_snapshot();
    }

    /// Recomputes every profile from the merged catalog, the tool view and
    /// the configs; tells each profile's sessions which of its lists changed.
    pub(crate) fn refresh_profiles(&self) {
        let mut configs: Vec<_> = match self.inner.profiles.configs.lock() {
            Ok(configs) => configs
                .iter()
                .map(|(c, t)| (c.clone(), t.clone(), None))
                .collect(),
            Err(_) => return,
        };
        let open = Arc::new(ProfileToken::None);
        for (config, folder) in self.inner.profiles.projects.configs() {
            configs.push((config, open.clone(), Some(folder)));
        }
        let Ok(mut live) = self.inner.profiles.live.write() else {
            return;
        };
        if configs.is_empty() && live.is_empty() {
            return;
        }
        let merged = self.catalog();
        let view = self.tool_view();
        let mut next = HashMap::with_capacity(configs.len());
        let mut announce = Vec::new();
        for (config, token, project) in configs {
            let name = config.name.as_arc().clone();
            let servers: HashSet<ServerId> = config.servers.iter().cloned().collect();
            let mode = config.mode(view.mode);
            let mut catalog = merged.filtered(|s| servers.contains(s));
            let previous = live.get(&name);
            let (mut diff, base) = match previous {
                Some(p) => (p.catalog.diff(&catalog), p.catalog.versions),
                None => (
                    CatalogDiff {
                        tools: true,
                        prompts: true,
                        resources: true,
                    },
                    CatalogVersions::default(),
                ),
            };
            if let Some(p) = previous
                && (p.mode != mode || (mode != ToolMode::All && p.view.pinned != view.pinned))
            {
                diff.tools = true;
            }
            // Other servers: every list may differ once they are listed (a
            // server never listed shows up on the next list request, so the
            // client is told to ask).
            if let Some(p) = previous
                && p.config.servers != config.servers
            {
                diff = CatalogDiff {
                    tools: true,
                    prompts: true,
                    resources: true,
                };
            }
            if let Some(p) = previous
                && !diff.any()
                && p.config == config
                && p.token == token
            {
                next.insert(name, p.clone());
                continue;
            }
            catalog.versions = base.bumped(diff);
            if previous.is_some() {
                announce.push((name.clone(), diff, catalog.versions));
            }
            next.insert(
                name.clone(),
                Arc::new(Profile {
                    name,
                    config,
                    servers: Arc::new(servers),
                    mode,
                    project,
                    token,
                    catalog: Arc::new(catalog),
                    view: view.clone(),
                    index: OnceLock::new(),
                    search_list: OnceLock::new(),
                }),
            );
        }
        self.inner.sessions.set_profile_servers(
            next.iter()
                .map(|(name, p)| (name.clone(), p.servers.clone()))
                .collect(),
        );
        *live = next;
        drop(live);
        for (name, diff, versions) in announce {
            self.inner.sessions.announce_to(
                &Scope::Profile(name),
                diff,
                versions,
                &self.inner.tasks,
            );
        }
    }

    /// The profile called `name`, as served now.
    pub(crate) fn profile(&self, name: &str) -> Option<Arc<Profile>> {
        self.inner.profiles.live.read().ok()?.get(name).cloned()
    }

    /// Cancelled when profile `name` is removed; `None` when it does not exist.
    pub(crate) fn profile_removed(
        &self,
        name: &str,
    ) -> Option<tokio_util::sync::CancellationToken> {
        self.profile(name)?;
        let mut tokens = self.inner.profiles.gone.lock().ok()?;
        Some(tokens.entry(Arc::from(name)).or_default().clone())
    }

    /// Every profile, by name.
    pub(crate) fn profiles(&self) -> Vec<Arc<Profile>> {
        let mut all: Vec<Arc<Profile>> = match self.inner.profiles.live.read() {
            Ok(live) => live.values().cloned().collect(),
            Err(_) => Vec::new(),
        };
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// Whether some profile has `roots` (if none, no client is asked for its
    /// roots).
    pub(crate) fn profiles_have_roots(&self) -> bool {
        self.inner
            .profiles
            .live
            .read()
            .is_ok_and(|live| live.values().any(|p| !p.config.roots.is_empty()))
    }

    /// The profile a client's root folders choose (`config::roots`); `None`
    /// for the whole hub. A tie is logged, naming the profiles.
    pub(crate) fn profile_for_roots(&self, roots: &[std::path::PathBuf]) -> Option<Arc<str>> {
        use crate::config::roots::{Choice, choose, normalize};
        let home = dirs::home_dir();
        let folders: Vec<(Arc<str>, Vec<std::path::PathBuf>)> = self
            .profiles()
            .iter()
            .filter(|p| !p.config.roots.is_empty())
            // A project file serves a session that names its folder.
            .filter(|p| p.project.as_ref().is_none_or(|f| roots.contains(f)))
            .map(|p| {
                let dirs = p.config.roots.iter();
                let dirs = dirs.filter_map(|d| normalize(d, home.as_deref()));
                (p.name.clone(), dirs.collect())
            })
            .collect();
        match choose(&folders, roots) {
            Choice::Whole => None,
            Choice::Profile(name) => Some(name),
            Choice::Tie(names) => {
                tracing::warn!(
                    profiles = ?names,
                    ?roots,
                    "the client's roots lie in folders of the same depth in several profiles; \
                     serving the whole hub"
                );
                None
            }
        }
    }

    /// A profile's lists for a client's list request: its servers never
    /// listed are listed first, within the same cold-start wait as `/mcp`.
    /// `None` when the profile is gone.
    pub(crate) async fn profile_for_lists(&self, name: &str) -> Option<Arc<Profile>> {
        let profile = self.profile(name)?;
        let upstreams: Vec<Arc<Upstream>> = self
            .inner
            .registry
            .enabled()
            .into_iter()
            .filter(|u| profile.covers(&u.id))
            .collect();
        self.wait_for_listings(upstreams).await;
        self.profile(name)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn profile(token: ProfileToken) -> Profile {
        Profile {
            name: Arc::from("p"),
            config: ProfileConfig {
                name: crate::config::ProfileName::new("p").unwrap(),
                servers: Vec::new(),
                tool_mode: None,
                token: None,
                roots: Vec::new(),
            },
            servers: Arc::default(),
            mode: ToolMode::All,
            project: None,
            token: Arc::new(token),
            catalog: Arc::default(),
            view: Arc::default(),
            index: OnceLock::new(),
            search_list: OnceLock::new(),
        }
    }

    #[test]
    fn admission_needs_the_exact_bearer_token() {
        let open = profile(ProfileToken::None);
        assert!(!open.has_token());
        assert_eq!(open.admit(None), Ok(()));
        assert_eq!(open.admit(Some("Bearer anything")), Ok(()));

        let guarded = profile(ProfileToken::Ready("s3cret-token-0123456".into()));
        assert!(guarded.has_token());
        for good in [
            "Bearer s3cret-token-0123456",
            "bearer s3cret-token-0123456",
            "  BEARER   s3cret-token-0123456 ",
        ] {
            assert_eq!(guarded.admit(Some(good)), Ok(()), "{good}");
        }
        assert_eq!(
            guarded.admit(None),
            Err(Refused::Unauthorized(
                "profile 'p' needs its token: send `Authorization: Bearer <token>`".into()
            ))
        );
        for bad in [
            "Bearer s3cret-token-012345",
            "Bearer s3cret-token-01234567",
            "Basic s3cret-token-0123456",
            "s3cret-token-0123456",
            "Bearer",
        ] {
            let refused = guarded.admit(Some(bad));
            assert!(
                matches!(refused, Err(Refused::Unauthorized(_))),
                "{bad}: {refused:?}"
            );
            assert!(!format!("{refused:?}").contains("s3cret"), "{bad}");
        }

        let unreadable = profile(ProfileToken::Unavailable(
            "its token could not be read".into(),
        ));
        assert!(unreadable.has_token());
        assert_eq!(
            unreadable.admit(Some("Bearer x")),
            Err(Refused::Unavailable(
                "profile 'p' cannot be used: its token could not be read".into()
            ))
        );
    }
}
