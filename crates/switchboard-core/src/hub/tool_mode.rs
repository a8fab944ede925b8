//! Search mode's state in the hub (see `docs/search.md`): the tool mode and
//! pinned tools in force, which a reload changes (merged sessions are then
//! told their tool list changed); the search index over the merged catalog,
//! built on the first search, then rebuilt in the background whenever the
//! catalog's tools change (off the request path); and
//! the prepared `tools/list` bytes of search mode, serialized once per
//! catalog version and view, so the fast path stays a copy of bytes. Also
//! the snapshot's `endpoints` (`/mcp` and the profiles) with their tool and
//! token totals.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use axum::body::Bytes;
use rmcp::model::{ListToolsResult, ServerResult, Tool};

use switchboard_api::{EndpointSnapshot, ToolMode as WireToolMode};

use super::HubHandle;
use crate::catalog::{Catalog, CatalogDiff, Route};
use crate::config::{Settings, ToolMode};
use crate::search::{Index, ToolDoc};
use crate::token_count::CatalogTokens;

/// What the merged endpoint lists: the mode and the pinned tools.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ToolView {
    pub mode: ToolMode,
    pub pinned: HashSet<String>,
}

impl ToolView {
    fn from_settings(settings: &Settings) -> Self {
        Self {
            mode: settings.tool_mode,
            pinned: settings.pinned_tools.iter().cloned().collect(),
        }
    }
}

/// The search index of one catalog: document `i` is `catalog.tools[i]`.
pub(crate) struct SearchIndex {
    pub catalog: Arc<Catalog>,
    pub index: Index,
}

impl SearchIndex {
    pub(super) fn build(catalog: Arc<Catalog>) -> Self {
        let docs = catalog
            .tools
            .iter()
            .map(|tool| {
                let route = catalog.tool(&tool.name);
                let server = route.map(|r| r.server.as_str()).unwrap_or_default();
                let mut doc = ToolDoc::from_tool(&tool.name, server, tool);
                if let Some(route) = route {
                    doc.tool = route.name.to_string();
                }
                doc
            })
            .collect();
        Self {
            index: Index::build(docs),
            catalog,
        }
    }

    /// Where the `i`th document's tool leads.
    pub fn route(&self, i: usize) -> Option<(&Tool, &Route)> {
        let tool = self.catalog.tools.get(i)?;
        Some((tool, self.catalog.tool(&tool.name)?))
    }
}

type Prepared = (u64, Arc<ToolView>, bool, Bytes);

/// Search mode's tool list over `catalog` (the merged one or a profile's):
/// `builtin` first, then the catalog's pinned tools.
pub(super) fn search_mode_tools(
    catalog: &Catalog,
    view: &ToolView,
    builtin: Vec<Tool>,
) -> Vec<Tool> {
    let mut tools = builtin;
    tools.extend(
        catalog
            .tools
            .iter()
            .filter(|t| view.pinned.contains(t.name.as_ref()))
            .cloned(),
    );
    tools
}

/// The hub's search-mode state (one per hub).
#[derive(Default)]
pub(crate) struct ToolModeState {
    view: RwLock<Arc<ToolView>>,
    index: Mutex<Option<(u64, Arc<SearchIndex>)>>,
    listed: Mutex<Option<Prepared>>,
}

impl ToolModeState {
    pub(crate) fn new(settings: &Settings) -> Self {
        Self {
            view: RwLock::new(Arc::new(ToolView::from_settings(settings))),
            ..Self::default()
        }
    }
}

impl HubHandle {
    /// The tool mode and pinned tools in force.
    pub(crate) fn tool_view(&self) -> Arc<ToolView> {
        self.inner
            .tool_mode
            .view
            .read()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    /// Applies `settings`' tool mode and pinned tools (a reload); when they
    /// changed, the merged tool list gets a new version and merged sessions
    /// that listed tools are told it changed.
    pub(crate) fn set_tool_view(&self, settings: &Settings) {
        let next = ToolView::from_settings(settings);
        {
            let Ok(mut view) = self.inner.tool_mode.view.write() else {
                return;
            };
            if **view == next {
                return;
            }
            *view = Arc::new(next);
        }
        let Ok(_writer) = self.inner.catalog_write.lock() else {
            return;
        };
        let Ok(mut current) = self.inner.catalog.write() else {
            return;
        };
        let diff = CatalogDiff {
            tools: true,
            prompts: false,
            resources: false,
        };
        let mut next = (**current).clone();
        next.versions = current.versions.bumped(diff);
        let versions = next.versions;
        *current = Arc::new(next);
        drop(current);
        self.inner
            .sessions
            .announce(diff, versions, &self.inner.tasks);
        drop(_writer);
        self.refresh_profiles();
    }

    /// The merged endpoints for the snapshot: `/mcp` and each profile's,
    /// with its mode, how many tools its `tools/list` returns and their
    /// tokens (from the counts made off the request path, `hub/tokens.rs`).
    pub(crate) fn endpoints_snapshot(&self) -> Vec<EndpointSnapshot> {
        let view = self.tool_view();
        let tokens = self.tool_tokens();
        let mut endpoints =
            vec![self.endpoint_snapshot("/mcp".into(), &self.catalog(), view.mode, &view, &tokens)];
        for profile in self.profiles() {
            // A project file's profile is served on `/mcp`, to the sessions
            // whose roots name its folder.
            let path = match &profile.project {
                Some(_) => "/mcp".to_string(),
                None => format!("/profiles/{}/mcp", profile.name),
            };
            let mut endpoint =
                self.endpoint_snapshot(path, &profile.catalog, profile.mode, &view, &tokens);
            endpoint.profile = Some(switchboard_api::EndpointProfile {
                name: profile.name.to_string(),
                servers: profile
                    .config
                    .servers
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                has_token: profile.has_token(),
                project: profile.project.as_ref().map(|f| f.display().to_string()),
            });
            endpoints.push(endpoint);
        }
        endpoints
    }

    /// One merged endpoint over `catalog` in `mode`.
    fn endpoint_snapshot(
        &self,
        path: String,
        catalog: &Catalog,
        mode: ToolMode,
        view: &ToolView,
        tokens: &CatalogTokens,
    ) -> EndpointSnapshot {
        // Switchboard's own tools this mode serves (`crate::tool_defs`).
        let own = self.own_tools(mode);
        let tokens_counted = self.tokens_counted();
        let of = |tool: &Tool| {
            tokens
                .per_tool
                .get(tool.name.as_ref())
                .copied()
                .unwrap_or(0)
        };
        match mode {
            ToolMode::All => EndpointSnapshot {
                path,
                tool_mode: WireToolMode::All,
                tools: own.tools + catalog.tools.len(),
                tool_tokens: own.tokens + catalog.tools.iter().map(of).sum::<usize>(),
                tokens_counted,
                profile: None,
            },
            ToolMode::Search | ToolMode::Code => {
                let pinned: Vec<&Tool> = catalog
                    .tools
                    .iter()
                    .filter(|t| view.pinned.contains(t.name.as_ref()))
                    .collect();
                EndpointSnapshot {
                    path,
                    tool_mode: if mode == ToolMode::Code {
                        WireToolMode::Code
                    } else {
                        WireToolMode::Search
                    },
                    tools: own.tools + pinned.len(),
                    tool_tokens: own.tokens + pinned.into_iter().map(of).sum::<usize>(),
                    tokens_counted,
                    profile: None,
                }
            }
        }
    }

    /// The search index over `catalog` (the merged catalog a search is
    /// answered from): built once per tools version, on first use.
    pub(crate) fn search_index(&self, catalog: &Arc<Catalog>) -> Arc<SearchIndex> {
        let version = catalog.versions.tools;
        if let Ok(cached) = self.inner.tool_mode.index.lock()
            && let Some((v, index)) = cached.as_ref()
            && *v == version
        {
            return index.clone();
        }
        // Built outside the lock: a search of the index in place is not held
        // up by a rebuild.
        let index = Arc::new(SearchIndex::build(catalog.clone()));
        if let Ok(mut cached) = self.inner.tool_mode.index.lock()
            && cached.as_ref().is_none_or(|(v, _)| *v < version)
        {
            *cached = Some((version, index.clone()));
        }
        index
    }

    /// After the catalog's tools changed: rebuilds the search index in the
    /// background, off the request path, if one was built before (a hub that
    /// never searched builds none, and never reads the embedding table).
    pub(crate) fn refresh_search_index(&self, catalog: &Arc<Catalog>) {
        let built = self
            .inner
            .tool_mode
            .index
            .lock()
            .map(|cached| cached.is_some())
            .unwrap_or(false);
        if !built {
            return;
        }
        let hub = self.clone();
        let catalog = catalog.clone();
        self.spawn(async move {
            let _ = tokio::task::spawn_blocking(move || hub.search_index(&catalog)).await;
        });
    }

    /// Search mode's tool list: `builtin` (the hub's own tools, first), then
    /// the catalog's pinned tools.
    pub(crate) fn search_mode_tools(
        &self,
        catalog: &Catalog,
        view: &ToolView,
        builtin: Vec<Tool>,
    ) -> Vec<Tool> {
        search_mode_tools(catalog, view, builtin)
    }

    /// Search mode's `tools/list` result as JSON bytes, prepared once per
    /// catalog version and view.
    pub(crate) fn search_mode_list(
        &self,
        catalog: &Catalog,
        builtin_on: bool,
        builtin: impl FnOnce() -> Vec<Tool>,
    ) -> Bytes {
        let view = self.tool_view();
        let version = catalog.versions.tools;
        if let Ok(cached) = self.inner.tool_mode.listed.lock()
            && let Some((v, seen, on, bytes)) = cached.as_ref()
            && *v == version
            && Arc::ptr_eq(seen, &view)
            && *on == builtin_on
        {
            return bytes.clone();
        }
        let tools = self.search_mode_tools(catalog, &view, builtin());
        let bytes = crate::catalog::legacy_result_bytes(ServerResult::ListToolsResult(
            ListToolsResult::with_all_items(tools),
        ));
        if let Ok(mut cached) = self.inner.tool_mode.listed.lock() {
            *cached = Some((version, view, builtin_on, bytes.clone()));
        }
        bytes
    }
}
