//! Routing: which upstream serves a request of this session, and the error
//! a client sees when none does. A [`Router`] is a session's view of the hub
//! (the servers its scope sees now); [`Router::route`] is the one lookup
//! shared by `tools/call`, `prompts/get`, `completion/complete` and the
//! resource requests; it adds no allocation to the call path (the catalog lookup
//! clones `Arc`s only) and awaits only when a name or URI leads to servers
//! never listed (see [`HubHandle::route_tool`](crate::hub::HubHandle::route_tool)).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::json;

use crate::catalog::Route;
use crate::catalog::ui_uri;
use crate::config::ServerId;
use crate::hub::{HubHandle, Unrouted};
use crate::sessions::{Scope, Session};
use crate::upstream::{Upstream, UpstreamError};

/// What a request names, which a server must own.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A tool name as the session sees it.
    Tool(&'a str),
    /// A prompt name as the session sees it.
    Prompt(&'a str),
    /// A resource or resource-template URI (renamed only when it is an MCP
    /// Apps `ui://` URI on a merged scope, see `catalog::ui_uri`).
    Resource(&'a str),
}

/// Which servers one session sees, and which of them serves a request: the
/// hub's lookups read through the session's scope (its route's, or the
/// profile its roots chose). Two references, made per request for free.
#[derive(Clone, Copy)]
pub(crate) struct Router<'a> {
    /// The hub whose catalog, profiles and upstreams are looked in.
    hub: &'a HubHandle,
    /// The session whose scope decides what is seen.
    session: &'a Session,
}

impl<'a> Router<'a> {
    pub(crate) fn new(hub: &'a HubHandle, session: &'a Session) -> Self {
        Self { hub, session }
    }

    /// The servers this session sees now (its route's, or the profile its
    /// roots chose; see `roots`).
    pub(crate) fn scope(&self) -> Cow<'a, Scope> {
        self.session.served()
    }

    /// The profile's name, for a session of a profile's endpoint.
    pub(crate) fn profile_name(&self) -> Option<Arc<str>> {
        match &*self.scope() {
            Scope::Profile(name) => Some(name.clone()),
            _ => None,
        }
    }

    /// Whether `server` is one this session sees.
    pub(crate) fn in_scope(&self, server: &ServerId) -> bool {
        self.hub.sessions().covers(&self.scope(), server)
    }

    /// The upstream of a pass-through session.
    pub(crate) fn single(&self) -> Result<Option<Arc<Upstream>>, ErrorData> {
        match &*self.scope() {
            Scope::Merged | Scope::Profile(_) => Ok(None),
            Scope::Server(id) => self
                .hub
                .upstream(id.as_str())
                .map(Some)
                .ok_or_else(|| removed(id)),
        }
    }

    /// The upstream that serves `target` in this session's scope, and where
    /// the name leads when the upstream knows it by another one (merged
    /// names carry a prefix). A pass-through session's one server serves
    /// everything but its `disabledTools`; on the merged endpoint a name is
    /// routed by its server part, a URI to the server that listed it.
    pub(crate) async fn route(
        &self,
        target: Target<'_>,
    ) -> Result<(Arc<Upstream>, Option<Route>), ErrorData> {
        let routed = self.route_any(target).await?;
        // A server being vetted lists no prompts or resources; a client that
        // names one anyway (a pass-through session, a name kept from before)
        // is refused too. Its tools are held one by one (`is_held`).
        if !matches!(target, Target::Tool(_)) && routed.0.is_held_whole() {
            return Err(vetting(&routed.0.id));
        }
        Ok(routed)
    }

    /// [`Router::route`] before the vetting check.
    async fn route_any(
        &self,
        target: Target<'_>,
    ) -> Result<(Arc<Upstream>, Option<Route>), ErrorData> {
        if let Some(upstream) = self.single()? {
            if let Target::Tool(name) = target {
                if upstream.config().disabled_tools.contains(name) {
                    return Err(tool_disabled(&upstream.id, name));
                }
                if upstream.is_held(name) {
                    return Err(held(name, &upstream.id, name));
                }
            }
            return Ok((upstream, None));
        }
        if let Some(name) = self.profile_name() {
            return self.route_in_profile(&name, target).await;
        }
        self.route_merged(target).await
    }

    /// [`Router::route`] on the merged endpoint (every enabled server).
    async fn route_merged(
        &self,
        target: Target<'_>,
    ) -> Result<(Arc<Upstream>, Option<Route>), ErrorData> {
        let (server, route) = match target {
            Target::Tool(name) => {
                let route = match self.hub.route_tool(name).await {
                    Ok(route) => route,
                    Err(Unrouted::NotListed)
                        if let Some((server, tool)) = self.hub.held_tool(name) =>
                    {
                        return Err(held(name, &server, &tool));
                    }
                    Err(Unrouted::NotListed)
                        if let Some((server, tool)) = disabled_tool(self.hub, name) =>
                    {
                        return Err(tool_disabled(&server, &tool));
                    }
                    Err(why) => return Err(unrouted("tool", name, why)),
                };
                (route.server.clone(), Some(route))
            }
            Target::Prompt(name) => {
                let route = self
                    .hub
                    .route_prompt(name)
                    .await
                    .map_err(|why| unrouted("prompt", name, why))?;
                (route.server.clone(), Some(route))
            }
            Target::Resource(uri) => match self.hub.resource_owner(uri).await {
                Some(server) => {
                    let route = resource_route(&server, uri);
                    (server, route)
                }
                // A `ui://` URI names its server even when no list had it
                // (a tool's UI link to a resource the server does not list).
                None if let Some(server) = ui_named_server(uri, |id| {
                    self.hub
                        .upstream(id.as_str())
                        .is_some_and(|u| u.is_enabled())
                }) =>
                {
                    let route = resource_route(&server, uri);
                    (server, route)
                }
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!("no server offers resource '{uri}'"),
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        let upstream = self
            .hub
            .upstream(server.as_str())
            .ok_or_else(|| removed(&server))?;
        Ok((upstream, route))
    }

    /// [`Router::route`] on a profile's endpoint: its catalog first; a name
    /// it does not list is routed as on `/mcp` only when one of its servers
    /// could own it (never listed yet, held, disabled tools), and otherwise,
    /// or when it leads to a server outside the profile, it is unknown
    /// (the error names the tool, never another server).
    async fn route_in_profile(
        &self,
        name: &str,
        target: Target<'_>,
    ) -> Result<(Arc<Upstream>, Option<Route>), ErrorData> {
        let profile = self
            .hub
            .profile(name)
            .ok_or_else(|| profile_removed(name))?;
        let found = match target {
            Target::Tool(tool) => profile
                .catalog
                .tool(tool)
                .map(|r| (r.server.clone(), Some(r.clone()))),
            Target::Prompt(prompt) => profile
                .catalog
                .prompt(prompt)
                .map(|r| (r.server.clone(), Some(r.clone()))),
            Target::Resource(uri) => profile
                .catalog
                .resource_owner(uri)
                .cloned()
                .or_else(|| ui_named_server(uri, |id| profile.covers(id)))
                .map(|s| {
                    let route = resource_route(&s, uri);
                    (s, route)
                }),
        };
        if let Some((server, route)) = found {
            let upstream = self
                .hub
                .upstream(server.as_str())
                .ok_or_else(|| removed(&server))?;
            return Ok((upstream, route));
        }
        let (what, named) = match target {
            Target::Tool(n) => ("tool", n),
            Target::Prompt(n) => ("prompt", n),
            Target::Resource(uri) => {
                // Its servers never listed may own the URI: list them, look again.
                let owner = match self.hub.profile_for_lists(name).await {
                    Some(p) => p.catalog.resource_owner(uri).cloned(),
                    None => None,
                };
                return match owner.and_then(|s| self.hub.upstream(s.as_str())) {
                    Some(upstream) => {
                        let route = resource_route(&upstream.id, uri);
                        Ok((upstream, route))
                    }
                    None => Err(ErrorData::resource_not_found(
                        format!("no server of profile '{name}' offers resource '{uri}'"),
                        Some(json!({"uri": uri})),
                    )),
                };
            }
        };
        let could_own = self.hub.enabled_upstreams().iter().any(|u| {
            profile.covers(&u.id) && crate::catalog::could_expose(u.config().prefix(), named)
        });
        if !could_own {
            return Err(unknown(what, named));
        }
        match self.route_merged(target).await {
            Ok((upstream, route)) if profile.covers(&upstream.id) => Ok((upstream, route)),
            Ok(_) => Err(unknown(what, named)),
            Err(err) => {
                let server = err
                    .data
                    .as_ref()
                    .and_then(|d| d.get("server"))
                    .and_then(|s| s.as_str())
                    .and_then(|s| ServerId::new(s).ok());
                match server {
                    Some(server) if profile.covers(&server) => Err(err),
                    _ => Err(unknown(what, named)),
                }
            }
        }
    }
}

/// Where an exposed `ui://` URI of `server` leads on the server (its own
/// URI), or `None` for a URI that is not renamed.
fn resource_route(server: &ServerId, uri: &str) -> Option<Route> {
    ui_uri::upstream(server, uri).map(|name| Route {
        server: server.clone(),
        name: Arc::from(name),
    })
}

/// The server an exposed `ui://` URI names, when `known` accepts it.
fn ui_named_server(uri: &str, known: impl Fn(&ServerId) -> bool) -> Option<ServerId> {
    let id = ServerId::new(ui_uri::named_server(uri)?).ok()?;
    known(&id).then_some(id)
}

/// The error for a request of a profile removed by a reload.
pub(super) fn profile_removed(name: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!("profile '{name}' is no longer configured"),
        Some(json!({"profile": name, "kind": "removed"})),
    )
}

/// The error for a prompt or resource of a server being vetted (see
/// `crate::pins::Pins::holds_server`): says so and how to approve it.
fn vetting(server: &ServerId) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "server '{server}' is being vetted: its prompts and resources are served once \
             a person approved its tools (`switchboard approve {server}` or the dashboard)"
        ),
        Some(json!({"server": server.as_str(), "kind": "vetting"})),
    )
}

/// The error for a tool held because its definition changed since it was
/// approved, or because scanning it found text aimed at the model (see
/// `crate::pins`): says so and how to approve it.
fn held(name: &str, server: &ServerId, tool: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "tool '{name}' is held: its definition changed since it was approved, \
             or scanning it found text aimed at the model. \
             Review it and approve it in the dashboard, or run \
             `switchboard approve {server} {tool}`"
        ),
        Some(json!({"tool": name, "server": server.as_str(), "kind": "held"})),
    )
}

/// The server and upstream name of a tool hidden by its server's
/// `disabledTools` that the merged endpoint would expose as `exposed`
/// (`<prefix>__<tool>`, or the bare name for an empty namespace). Asked only
/// after the catalog had no such name, so it costs nothing on a good call.
fn disabled_tool(hub: &crate::hub::HubHandle, exposed: &str) -> Option<(ServerId, String)> {
    hub.enabled_upstreams().into_iter().find_map(|upstream| {
        let config = upstream.config();
        let prefix = config.prefix();
        let tool = if prefix.is_empty() {
            exposed
        } else {
            exposed.strip_prefix(prefix)?.strip_prefix("__")?
        };
        config
            .disabled_tools
            .contains(tool)
            .then(|| (upstream.id.clone(), tool.to_string()))
    })
}

/// The error for a call to a tool its server's `disabledTools` hides.
fn tool_disabled(server: &ServerId, tool: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("tool '{tool}' of server '{server}' is disabled in the config (`disabledTools`)"),
        Some(json!({"tool": tool, "server": server.as_str(), "kind": "toolDisabled"})),
    )
}

pub(super) fn removed(id: &ServerId) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!("server '{id}' is no longer configured"),
        Some(json!({"server": id.as_str(), "kind": "removed"})),
    )
}

/// A JSON-RPC error for an upstream failure, naming the server and cause.
pub fn upstream_error(err: UpstreamError) -> ErrorData {
    let data = Some(json!({"server": err.server().as_str(), "kind": err.kind()}));
    match err {
        // The server's own error keeps its code; the message says who answered.
        UpstreamError::Rpc { server, error } => ErrorData::new(
            error.code,
            format!("server '{server}': {}", error.message),
            error.data.or(data),
        ),
        other => ErrorData::new(ErrorCode::INTERNAL_ERROR, other.to_string(), data),
    }
}

/// The error for a name that leads to no server: "unknown tool" (-32602)
/// with the reason, or the error of the server it belongs to when that server
/// could not be started or listed.
fn unrouted(what: &str, name: &str, why: Unrouted) -> ErrorData {
    let (reason, kind) = match why {
        Unrouted::Failed(err) => return upstream_error(err),
        Unrouted::NotListed => return unknown(what, name),
        Unrouted::Disabled(servers) => {
            let list: Vec<String> = servers.iter().map(|s| format!("'{s}'")).collect();
            let verb = if list.len() == 1 { "is" } else { "are" };
            (
                format!("server {} {verb} disabled", list.join(" and ")),
                "disabled",
            )
        }
        Unrouted::NoServer {
            renamed: Some((id, prefix)),
        } => (
            format!("server '{id}' names its {what}s '{prefix}__<name>'"),
            "noSuchServer",
        ),
        Unrouted::NoServer { renamed: None } => match name.split_once("__") {
            Some((part, _)) if !part.is_empty() => {
                (format!("no server '{part}' is configured"), "noSuchServer")
            }
            _ => (
                format!("{what} names are '<server>__<{what}>'"),
                "noSuchServer",
            ),
        },
    };
    ErrorData::invalid_params(
        format!("unknown {what} '{name}': {reason}"),
        Some(json!({what: name, "kind": kind})),
    )
}

fn unknown(what: &str, name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown {what} '{name}'"),
        Some(json!({what: name})),
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;
    use rmcp::model::Tool;

    use super::*;
    use crate::config;
    use crate::gateway::Gateway;
    use crate::hub::{Hub, HubHandle, HubOptions};
    use crate::listing::{Capabilities, RefreshTrigger};
    use crate::sessions::Scope;

    fn id(id: &str) -> ServerId {
        ServerId::new(id).unwrap()
    }

    /// A hub (not serving) with `listed` (tool `t`, warm listing), `renamed`
    /// (namespace `x`, tool `t`, `disabledTools: ["hidden"]`), `off`
    /// (disabled) and `broken` (a command that cannot start).
    async fn hub() -> (Hub, HubHandle) {
        let mut config = config::load(config::Source::text(
            r#"{"mcpServers":{
                "listed":{"command":"switchboard-test-no-such-command"},
                "renamed":{"command":"switchboard-test-no-such-command","namespace":"x",
                           "disabledTools":["hidden"]},
                "off":{"command":"switchboard-test-no-such-command","enabled":false},
                "broken":{"command":"switchboard-test-no-such-command","timeouts":{"startupSecs":5}}
            }}"#,
            Path::new("t.json"),
        ))
        .unwrap();
        config.settings.listen = "127.0.0.1:0".parse().unwrap();
        let hub = Hub::bind(config, HubOptions::default()).await.unwrap();
        let handle = hub.handle();
        for server in ["listed", "renamed"] {
            let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
            caps.tools = ["t", "hidden"]
                .into_iter()
                .map(|name| -> Tool {
                    serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}}))
                        .unwrap()
                })
                .collect();
            handle.upstream(server).unwrap().set_warm_listing(caps);
        }
        handle.rebuild_catalog();
        (hub, handle)
    }

    async fn route_of(
        gateway: &Gateway,
        target: Target<'_>,
    ) -> Result<(String, Option<String>), ErrorData> {
        gateway
            .router()
            .route(target)
            .await
            .map(|(upstream, route)| (upstream.id.to_string(), route.map(|r| r.name.to_string())))
    }

    /// The message and `data.kind` of an error.
    fn said(result: Result<(String, Option<String>), ErrorData>) -> (String, Option<String>) {
        let err = result.unwrap_err();
        let kind = err
            .data
            .as_ref()
            .and_then(|d| d.get("kind"))
            .and_then(|k| k.as_str())
            .map(String::from);
        (err.message.to_string(), kind)
    }

    #[tokio::test]
    async fn a_listed_name_leads_to_its_server_and_upstream_name() {
        let (_hub, handle) = hub().await;
        let merged = Gateway::new(handle.clone(), Scope::Merged);
        assert_eq!(
            route_of(&merged, Target::Tool("listed__t")).await.unwrap(),
            ("listed".into(), Some("t".into()))
        );
        assert_eq!(
            route_of(&merged, Target::Tool("x__t")).await.unwrap(),
            ("renamed".into(), Some("t".into()))
        );
        handle.shutdown();
    }

    #[tokio::test]
    async fn names_of_no_server_or_of_a_disabled_one_are_unknown() {
        let (_hub, handle) = hub().await;
        let merged = Gateway::new(handle.clone(), Scope::Merged);
        assert_eq!(
            said(route_of(&merged, Target::Tool("nobody__t")).await),
            (
                "unknown tool 'nobody__t': no server 'nobody' is configured".into(),
                Some("noSuchServer".into())
            )
        );
        assert_eq!(
            said(route_of(&merged, Target::Prompt("off__p")).await),
            (
                "unknown prompt 'off__p': server 'off' is disabled".into(),
                Some("disabled".into())
            )
        );
        assert_eq!(
            said(route_of(&merged, Target::Tool("renamed__t")).await),
            (
                "unknown tool 'renamed__t': server 'renamed' names its tools 'x__<name>'".into(),
                Some("noSuchServer".into())
            )
        );
        assert_eq!(
            said(route_of(&merged, Target::Tool("plain")).await).0,
            "unknown tool 'plain': tool names are '<server>__<tool>'"
        );
        // Listed, and no such tool: plain "unknown tool".
        assert_eq!(
            said(route_of(&merged, Target::Tool("listed__nope")).await),
            ("unknown tool 'listed__nope'".into(), None)
        );
        handle.shutdown();
    }

    #[tokio::test]
    async fn a_server_that_cannot_start_answers_with_its_own_error() {
        let (_hub, handle) = hub().await;
        let merged = Gateway::new(handle.clone(), Scope::Merged);
        let (message, kind) = said(route_of(&merged, Target::Tool("broken__t")).await);
        assert!(message.starts_with("server 'broken'"), "{message}");
        assert_ne!(kind, Some("noSuchServer".into()));
        // No server offers the URI (the broken one was tried once more).
        let Err(err) = merged
            .router()
            .route(Target::Resource("file:///nothing"))
            .await
        else {
            panic!("a URI no server offers was routed");
        };
        assert_eq!(err.code, ErrorCode::RESOURCE_NOT_FOUND);
        handle.shutdown();
    }

    #[tokio::test]
    async fn a_pass_through_session_routes_to_its_server_but_not_its_disabled_tools() {
        let (_hub, handle) = hub().await;
        let single = Gateway::new(handle.clone(), Scope::Server(id("renamed")));
        assert_eq!(
            route_of(&single, Target::Tool("t")).await.unwrap(),
            ("renamed".into(), None)
        );
        assert_eq!(
            route_of(&single, Target::Resource("file:///any"))
                .await
                .unwrap(),
            ("renamed".into(), None)
        );
        assert_eq!(
            said(route_of(&single, Target::Tool("hidden")).await),
            (
                "tool 'hidden' of server 'renamed' is disabled in the config (`disabledTools`)"
                    .into(),
                Some("toolDisabled".into())
            )
        );
        // The merged endpoint says the same for its exposed name.
        let merged = Gateway::new(handle.clone(), Scope::Merged);
        assert_eq!(
            said(route_of(&merged, Target::Tool("x__hidden")).await),
            (
                "tool 'hidden' of server 'renamed' is disabled in the config (`disabledTools`)"
                    .into(),
                Some("toolDisabled".into())
            )
        );
        let gone = Gateway::new(handle.clone(), Scope::Server(id("gone")));
        assert_eq!(
            said(route_of(&gone, Target::Prompt("p")).await),
            (
                "server 'gone' is no longer configured".into(),
                Some("removed".into())
            )
        );
        handle.shutdown();
    }

    #[test]
    fn an_upstream_rpc_error_keeps_its_code_and_names_the_server() {
        let err = upstream_error(UpstreamError::Rpc {
            server: id("a"),
            error: ErrorData::invalid_params("bad x", None),
        });
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(err.message, "server 'a': bad x");
        assert_eq!(
            err.data,
            Some(json!({"server": "a", "kind": "upstreamError"}))
        );
    }

    #[test]
    fn several_disabled_servers_are_named_together() {
        let err = unrouted("tool", "a__t", Unrouted::Disabled(vec![id("a"), id("a-b")]));
        assert_eq!(
            err.message,
            "unknown tool 'a__t': server 'a' and 'a-b' are disabled"
        );
    }

    #[tokio::test]
    async fn a_profile_sees_lists_routes_and_searches_only_its_servers() {
        use crate::hub::testing::{NO_SUCH_COMMAND, hub as test_hub, listed};
        use crate::sessions::ListKind;
        let config = |profiles: &str| {
            format!(
                r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}},"b":{{"command":"{NO_SUCH_COMMAND}"}}}},
                    "profiles":{profiles}}}"#
            )
        };
        let (_hub, handle) = test_hub(&config(
            r#"{"p":{"servers":["a"]},"s":{"servers":["a"],"toolMode":"search"}}"#,
        ))
        .await;
        listed(&handle, "a", &["t", "weather_forecast"]);
        listed(&handle, "b", &["u", "weather_report"]);
        let profile = Gateway::new(handle.clone(), Scope::Profile("p".into()));
        let names: Vec<String> = profile
            .lister()
            .lists(ListKind::Tools)
            .await
            .unwrap()
            .tools(false)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, vec!["a__t", "a__weather_forecast"]);
        assert_eq!(
            route_of(&profile, Target::Tool("a__t")).await.unwrap(),
            ("a".into(), Some("t".into()))
        );
        // Another server's tool, or no server's: unknown, naming only the tool.
        for name in ["b__u", "nobody__x", "a__nope"] {
            assert_eq!(
                said(route_of(&profile, Target::Tool(name)).await),
                (format!("unknown tool '{name}'"), None)
            );
        }
        assert!(
            route_of(&profile, Target::Prompt("b__p")).await.is_err(),
            "another server's prompt"
        );
        // Search mode searches the profile's servers only.
        let search = Gateway::new(handle.clone(), Scope::Profile("s".into()));
        let found = crate::builtin::search::search(
            &handle,
            Some("s"),
            Some(&serde_json::from_value(json!({"query": "weather"})).unwrap()),
            false,
        )
        .await;
        let found: Vec<String> = found.structured_content.unwrap()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        // Best first; the semantic ranking adds the profile's other tools
        // after it, never another server's.
        assert_eq!(
            found.first().map(String::as_str),
            Some("a__weather_forecast")
        );
        assert!(
            found.iter().all(|name| name.starts_with("a__")),
            "{found:?}"
        );
        assert!(search.search_mode().in_search_mode());
        assert!(!profile.search_mode().in_search_mode());
        // The built-in tools answer about the profile's servers only.
        let builtin = |name: &str, arguments: serde_json::Value| {
            serde_json::from_value::<rmcp::model::CallToolRequestParams>(
                json!({"name": name, "arguments": arguments}),
            )
            .unwrap()
        };
        let cancel = tokio_util::sync::CancellationToken::new();
        let rmcp::model::CallToolResponse::Complete(listed) = profile
            .forward_call(
                builtin("switchboard__list_servers", json!({})),
                None,
                &cancel,
            )
            .await
            .unwrap()
        else {
            panic!("no result");
        };
        let ids: Vec<&str> = listed.structured_content.as_ref().unwrap()["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, vec!["a"]);
        let rmcp::model::CallToolResponse::Complete(other) = profile
            .forward_call(
                builtin("switchboard__server_status", json!({"id": "b"})),
                None,
                &cancel,
            )
            .await
            .unwrap()
        else {
            panic!("no result");
        };
        assert_eq!(other.is_error, Some(true));

        // A reload drops `p`: its sessions' requests fail, naming the profile.
        let mut next = config::load(config::Source::text(
            &config(r#"{"s":{"servers":["a","b"]}}"#),
            Path::new("t.json"),
        ))
        .unwrap();
        next.settings.listen = handle.settings().listen;
        handle.apply_config(next).await;
        assert!(handle.profile("p").is_none());
        let (message, kind) = said(route_of(&profile, Target::Tool("a__t")).await);
        assert_eq!(message, "profile 'p' is no longer configured");
        assert_eq!(kind, Some("removed".into()));
        // `s` now sees both servers (and is no longer in search mode).
        assert_eq!(
            route_of(&search, Target::Tool("b__u")).await.unwrap(),
            ("b".into(), Some("u".into()))
        );
        assert!(!search.search_mode().in_search_mode());
        // The snapshot lists `/mcp` and the profile, never a token.
        let endpoints = handle.endpoints_snapshot();
        let paths: Vec<&str> = endpoints.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, vec!["/mcp", "/profiles/s/mcp"]);
        // Its four tools and the three built-in tools its `tools/list` adds.
        assert_eq!(endpoints[1].tools, 4 + 3);
        assert_eq!(
            endpoints[1].profile,
            Some(switchboard_api::EndpointProfile {
                name: "s".into(),
                servers: vec!["a".into(), "b".into()],
                has_token: false,
                project: None,
            })
        );
        handle.shutdown();
    }
}
