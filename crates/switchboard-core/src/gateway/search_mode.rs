//! Search mode on the merged endpoint (`settings.toolMode: "search"`, see
//! `docs/search.md`): its tool list (built-in tools, the two search tools and
//! the pinned tools) and its two tools. `switchboard__call_tool` is unwrapped
//! here into the call it names, which then takes the same route as a direct
//! call (built-in tools, pins and held tools, progress, cancellation, errors
//! naming the server, the activity log). Tools that are not listed can still
//! be called directly by name: search mode changes what is listed, not what
//! may be called. A profile in search mode (`/profiles/<name>/mcp`) lists
//! and searches only its servers' tools (`hub/profiles.rs`).

use std::borrow::Cow;

use axum::body::Bytes;
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorData, Tool};

use super::Router;
use super::lists::Lists;
use crate::activity::Served;
use crate::builtin::search::{self, CALL_TOOL, SEARCH_TOOLS};
use crate::catalog::Catalog;
use crate::config::ToolMode;
use crate::hub::HubHandle;
use crate::sessions::{Scope, Session};

/// The tool mode of one session's endpoint (`/mcp`'s, its profile's, `all`
/// for pass-through) and what search mode lists and answers there.
/// References only, made per request for free.
#[derive(Clone, Copy)]
pub(super) struct SearchMode<'a> {
    /// The hub whose tool view, profiles and search index are read.
    hub: &'a HubHandle,
    /// The session whose scope decides the mode.
    session: &'a Session,
}

impl<'a> SearchMode<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Session) -> Self {
        Self { hub, session }
    }

    fn scope(&self) -> std::borrow::Cow<'a, Scope> {
        self.session.served()
    }

    /// Whether this session is a merged one (`/mcp` or a profile's) in
    /// search mode, or in code mode (which lists and answers the search
    /// tools too).
    pub(super) fn in_search_mode(&self) -> bool {
        matches!(self.tool_mode(), ToolMode::Search | ToolMode::Code)
    }

    /// The tool mode of this session's endpoint (`all` for pass-through).
    pub(super) fn tool_mode(&self) -> ToolMode {
        match &*self.scope() {
            Scope::Merged => self.hub.tool_view().mode,
            Scope::Profile(name) => self.hub.profile(name).map_or(ToolMode::All, |p| p.mode),
            Scope::Server(_) => ToolMode::All,
        }
    }

    /// The hub's own tools this session lists in search mode (the hub
    /// tools when on, the search tools, and in code mode `run_code`).
    fn search_mode_builtins(&self) -> Vec<Tool> {
        crate::tool_defs::served(self.hub.settings().builtin_tools, self.tool_mode())
    }

    /// Search mode's tool list for rmcp's path; `None` in `all` mode.
    pub(super) fn search_mode_tools(&self, lists: &Lists) -> Option<Vec<Tool>> {
        let Lists::Merged(catalog) = lists else {
            return None;
        };
        if !self.in_search_mode() {
            return None;
        }
        if let Scope::Profile(name) = &*self.scope() {
            let profile = self.hub.profile(name)?;
            return Some(profile.search_mode_tools(self.search_mode_builtins()));
        }
        let view = self.hub.tool_view();
        Some(
            self.hub
                .search_mode_tools(catalog, &view, self.search_mode_builtins()),
        )
    }

    /// Search mode's prepared `tools/list` bytes for the fast path; `None`
    /// in `all` mode.
    pub(super) fn search_mode_list(&self, catalog: &Catalog) -> Option<Bytes> {
        if !self.in_search_mode() {
            return None;
        }
        if let Scope::Profile(name) = &*self.scope() {
            let profile = self.hub.profile(name)?;
            return Some(profile.search_mode_list(|| self.search_mode_builtins()));
        }
        Some(
            self.hub
                .search_mode_list(catalog, self.hub.settings().builtin_tools, || {
                    self.search_mode_builtins()
                }),
        )
    }

    /// Answers `switchboard__search_tools`, or turns `switchboard__call_tool`
    /// into the call it names (rewriting `request`; `None` then, and the
    /// caller routes it). `None` for every other tool and outside search mode.
    pub(super) async fn search_mode_call(
        &self,
        request: &mut CallToolRequestParams,
        served: &mut Served,
    ) -> Option<Result<CallToolResult, ErrorData>> {
        if !search::is_search_tool(&request.name) || !self.in_search_mode() {
            return None;
        }
        if request.name == SEARCH_TOOLS {
            *served = Served::Builtin;
            return Some(Ok(search::search(
                self.hub,
                Router::new(self.hub, self.session)
                    .profile_name()
                    .as_deref(),
                request.arguments.as_ref(),
                self.tool_mode() == ToolMode::Code,
            )
            .await));
        }
        match search::call_arguments(request.arguments.as_ref()) {
            Ok((name, arguments)) => {
                request.name = Cow::Owned(name);
                request.arguments = arguments;
                None
            }
            Err(err) => {
                *served = Served::Builtin;
                Some(Ok(search::bad_argument(CALL_TOOL, &err)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rmcp::model::CallToolResponse;
    use serde_json::{Value, json};

    use super::*;
    use crate::gateway::Gateway;
    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};
    use crate::sessions::ListKind;

    fn config(mode: &str) -> String {
        format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}},"b":{{"command":"{NO_SUCH_COMMAND}"}}}},
                "settings":{{"toolMode":"{mode}","pinnedTools":["a__t"]}}}}"#
        )
    }

    async fn listed_names(gateway: &Gateway) -> Vec<String> {
        let lists = gateway.lister().lists(ListKind::Tools).await.unwrap();
        let tools = gateway
            .search_mode()
            .search_mode_tools(&lists)
            .unwrap_or_else(|| lists.tools(true));
        tools.iter().map(|t| t.name.to_string()).collect()
    }

    async fn call(gateway: &Gateway, name: &str, arguments: Value) -> CallToolResult {
        let request: CallToolRequestParams =
            serde_json::from_value(json!({"name": name, "arguments": arguments})).unwrap();
        let cancel = tokio_util::sync::CancellationToken::new();
        match gateway.forward_call(request, None, &cancel).await.unwrap() {
            CallToolResponse::Complete(result) => result,
            other => panic!("unexpected answer {other:?}"),
        }
    }

    #[tokio::test]
    async fn search_mode_lists_pins_and_search_tools_and_searches_warm_listings() {
        let (_hub, handle) = hub(&config("search")).await;
        listed(&handle, "a", &["t", "weather_forecast"]);
        listed(&handle, "b", &["u"]);
        let merged = Gateway::new(handle.clone(), Scope::Merged);
        let mut expected: Vec<String> = crate::builtin::tools()
            .iter()
            .chain(crate::tool_defs::ToolSet::Search.tools())
            .map(|t| t.name.to_string())
            .collect();
        expected.push("a__t".into());
        assert_eq!(listed_names(&merged).await, expected);
        // The fast path's prepared bytes say the same.
        let bytes = merged
            .prepared_list(crate::catalog::ListResult::Tools { builtin: true })
            .await
            .unwrap()
            .unwrap();
        let json: Value = serde_json::from_slice(&bytes).unwrap();
        let names: Vec<&str> = json["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected);
        let endpoints = handle.endpoints_snapshot();
        assert_eq!(endpoints[0].path, "/mcp");
        assert_eq!(endpoints[0].tool_mode, switchboard_api::ToolMode::Search);
        assert_eq!(endpoints[0].tools, expected.len());

        // Search finds an unlisted tool of a server that is not running.
        let found = call(&merged, SEARCH_TOOLS, json!({"query": "weather forecast"})).await;
        let body = found.structured_content.unwrap();
        assert_eq!(body["tools"][0]["name"], "a__weather_forecast");
        assert_eq!(body["tools"][0]["server"], "a");
        assert_eq!(body["tools"][0]["running"], false);
        assert_eq!(body["tools"][0]["inputSchema"]["type"], "object");
        assert_eq!(
            body["tools"][0]["signature"],
            "tools.a.weather_forecast(args?: Record<string, unknown>): Promise<unknown>"
        );
        assert!(
            handle.running_upstreams().is_empty(),
            "search started nothing"
        );
        let bad = call(&merged, SEARCH_TOOLS, json!({"query": "x", "limit": 99})).await;
        assert_eq!(bad.is_error, Some(true));
        let bad = call(&merged, CALL_TOOL, json!({"arguments": {}})).await;
        assert_eq!(bad.is_error, Some(true));
        // A forwarded call is logged as the tool it names, with its arguments.
        let request: CallToolRequestParams = serde_json::from_value(json!({"name": CALL_TOOL,
            "arguments": {"name": "b__x", "arguments": {"k": 1}}}))
        .unwrap();
        let cancel = tokio_util::sync::CancellationToken::new();
        let _ = merged.forward_call(request, None, &cancel).await;
        // The recorder is not running in this hub: run it until what is queued is written.
        let stop = tokio_util::sync::CancellationToken::new();
        let writer = tokio::spawn(handle.activity().clone().run(stop.clone()));
        stop.cancel();
        writer.await.unwrap();
        let logged = handle.activity().recent(10, None);
        let names: Vec<&str> = logged.iter().map(|e| e.name.as_str()).collect();
        assert!(names.contains(&"b__x"), "{names:?}");
        assert!(names.contains(&SEARCH_TOOLS), "{names:?}");
        assert!(
            !names.contains(&CALL_TOOL) || names.iter().filter(|n| **n == CALL_TOOL).count() == 1,
            "{names:?}"
        );

        // A reload to `all` lists everything again.
        let mut next = crate::config::load(crate::config::Source::text(
            &config("all"),
            std::path::Path::new("t.json"),
        ))
        .unwrap();
        next.settings.listen = handle.settings().listen;
        handle.apply_config(next).await;
        let names = listed_names(&merged).await;
        assert!(
            names.contains(&"a__weather_forecast".to_string()),
            "{names:?}"
        );
        assert!(!names.contains(&SEARCH_TOOLS.to_string()), "{names:?}");
        let endpoints = handle.endpoints_snapshot();
        assert_eq!(endpoints[0].tool_mode, switchboard_api::ToolMode::All);
        assert_eq!(endpoints[0].tools, names.len());
        handle.shutdown();
    }
}
