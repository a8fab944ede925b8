//! The downstream MCP server: what AI clients talk to.
//!
//! One [`Gateway`] per downstream session, in one of two scopes:
//! - [`Scope::Merged`] at `/mcp`: every enabled server, tool and prompt names
//!   `<server>__<name>`, lists from the merged [`Catalog`](crate::catalog::Catalog);
//! - [`Scope::Server`] at `/servers/<id>/mcp`: exactly one upstream with its
//!   original names, capabilities, server info and instructions (for clients
//!   that want one server, and for the conformance suite). Both scopes share
//!   the same upstream connection, cache and health.
//!
//! Lists never fan out live; calls route to the owning upstream with the call
//! timeout, progress and cancellation forwarded; `logging/setLevel`,
//! `resources/subscribe`/`unsubscribe` and `completion/complete` are forwarded
//! to the upstream(s) concerned. Every failure is a JSON-RPC error whose
//! message names the server and the cause and whose `data` carries
//! `{"server": id, "kind": ...}` for programs.

// Logging is deprecated for protocol 2026-07-28 (SEP-2577), but clients on
// 2025-11-25 and earlier use it, and a proxy must forward it.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorCode,
    ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, Reference, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::model::{Prompt, Resource, ResourceTemplate};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use serde_json::json;

use crate::catalog::Catalog;
use crate::config::ServerId;
use crate::hub::{HubHandle, Unrouted};
use crate::listing::Capabilities;
pub use crate::sessions::Scope;
use crate::sessions::{ListKind, Session};
use crate::upstream::{Downstream, Upstream, UpstreamError};

/// One downstream session's handler (the HTTP service makes one per session).
#[derive(Clone)]
pub struct Gateway {
    hub: HubHandle,
    session: Arc<Session>,
}

impl Gateway {
    pub fn new(hub: HubHandle, scope: Scope) -> Self {
        Self {
            hub,
            session: Arc::new(Session::new(scope)),
        }
    }

    fn scope(&self) -> &Scope {
        self.session.scope()
    }

    /// Remembers the HTTP session id this session's requests carry, so that
    /// the HTTP fast path (see `fast_path`) can find the session.
    fn note_http_session(&self, extensions: &rmcp::model::Extensions) {
        if let Some(parts) = extensions.get::<http::request::Parts>()
            && let Some(id) = parts
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.hub.sessions().bind_http_id(&self.session, id);
        }
    }

    /// Answers a list request of this session from the prepared catalog
    /// bytes: the JSON text of the `result`. `None` for pass-through sessions,
    /// whose lists come from their one server.
    pub(crate) async fn prepared_list(
        &self,
        which: crate::catalog::ListResult,
    ) -> Option<Result<axum::body::Bytes, ErrorData>> {
        use crate::catalog::ListResult;
        if *self.scope() != Scope::Merged {
            return None;
        }
        let kind = match which {
            ListResult::Tools { .. } => ListKind::Tools,
            ListResult::Prompts => ListKind::Prompts,
            ListResult::Resources | ListResult::ResourceTemplates => ListKind::Resources,
        };
        match self.lists(kind).await {
            Ok(Lists::Merged(catalog)) => {
                Some(Ok(catalog.list_result(which, crate::builtin::tools)))
            }
            // Only pass-through sessions get one server's lists.
            Ok(Lists::Server(..)) => None,
            Err(error) => Some(Err(error)),
        }
    }

    /// Routes a `tools/call` to its server (or a built-in tool) and forwards
    /// it; `downstream` receives progress and server→client requests, `cancel`
    /// cancels it upstream. Shared by rmcp's path and the HTTP fast path.
    pub(crate) async fn forward_call(
        &self,
        mut request: CallToolRequestParams,
        downstream: Option<Downstream>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<CallToolResponse, ErrorData> {
        let upstream = match self.single()? {
            Some(upstream) => {
                if upstream
                    .config()
                    .disabled_tools
                    .contains(request.name.as_ref())
                {
                    return Err(unknown("tool", &request.name));
                }
                upstream
            }
            None if self.hub.settings().builtin_tools
                && crate::builtin::is_builtin(&request.name) =>
            {
                return crate::builtin::call(&self.hub, &request)
                    .await
                    .map(CallToolResponse::Complete);
            }
            None => {
                let route = self
                    .hub
                    .route_tool(&request.name)
                    .await
                    .map_err(|why| unrouted("tool", &request.name, why))?;
                request.name = Cow::Owned(route.name.to_string());
                self.hub
                    .upstream(route.server.as_str())
                    .ok_or_else(|| removed(&route.server))?
            }
        };
        upstream
            .call_tool(request, downstream, cancel)
            .await
            .map_err(upstream_error)
    }

    /// A gateway for an existing session (the HTTP fast path's way in).
    pub(crate) fn for_session(hub: HubHandle, session: Arc<Session>) -> Self {
        Self { hub, session }
    }

    /// The upstream of a pass-through session.
    fn single(&self) -> Result<Option<Arc<Upstream>>, ErrorData> {
        match self.scope() {
            Scope::Merged => Ok(None),
            Scope::Server(id) => self
                .hub
                .upstream(id.as_str())
                .map(Some)
                .ok_or_else(|| removed(id)),
        }
    }
}

fn removed(id: &ServerId) -> ErrorData {
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

fn downstream(context: &RequestContext<RoleServer>) -> Option<Downstream> {
    Some(Downstream {
        peer: context.peer.clone(),
        request_id: context.id.clone(),
        progress_token: context.meta.get_progress_token(),
    })
}

/// What the merged endpoint offers.
fn merged_capabilities() -> ServerCapabilities {
    serde_json::from_value(json!({
        "tools": {"listChanged": true},
        "prompts": {"listChanged": true},
        "resources": {"listChanged": true, "subscribe": true},
        "logging": {},
        "completions": {},
    }))
    .unwrap_or_default()
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(merged_capabilities())
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Switchboard merges several MCP servers. Tool and prompt names are \
                 `<server>__<name>`; resources keep their URIs.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let client = format!(
            "{} {}",
            request.client_info.name, request.client_info.version
        );
        self.hub
            .sessions()
            .add(self.session.clone(), context.peer.clone(), client);
        // The session's id, from the hub's session manager: known from here on,
        // so its use is counted and it shows in the status at once.
        if let Some(key) = context
            .extensions
            .get::<crate::http_sessions::HttpSessionKey>()
        {
            self.hub
                .sessions()
                .bind_http_id(&self.session, key.0.as_ref());
        }
        self.hub.publish_snapshot();
        let mut result = self.negotiate_initialize(&request)?;
        if let Some(upstream) = self.single()? {
            // A pass-through session looks like the server itself.
            let info = upstream.server_info().await.map_err(upstream_error)?;
            let mut capabilities = info.capabilities.clone();
            // Switchboard announces list changes itself (after its own re-list).
            if let Some(tools) = capabilities.tools.as_mut() {
                tools.list_changed = Some(true);
            }
            if let Some(prompts) = capabilities.prompts.as_mut() {
                prompts.list_changed = Some(true);
            }
            if let Some(resources) = capabilities.resources.as_mut() {
                resources.list_changed = Some(true);
            }
            result.capabilities = capabilities;
            if let Some(server_info) = &info.server_info {
                result.server_info = server_info.clone();
            }
            result.instructions = info.instructions.clone();
        }
        Ok(result)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.note_http_session(&context.extensions);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.note_http_session(&context.extensions);
        Ok(ListToolsResult::with_all_items(
            self.lists(ListKind::Tools)
                .await?
                .tools(self.hub.settings().builtin_tools),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.forward_call(request, downstream(&context), &context.ct)
            .await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.note_http_session(&context.extensions);
        Ok(ListPromptsResult::with_all_items(
            self.lists(ListKind::Prompts).await?.prompts(),
        ))
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let upstream = match self.single()? {
            Some(upstream) => upstream,
            None => {
                let route = self
                    .hub
                    .route_prompt(&request.name)
                    .await
                    .map_err(|why| unrouted("prompt", &request.name, why))?;
                request.name = route.name.to_string();
                self.hub
                    .upstream(route.server.as_str())
                    .ok_or_else(|| removed(&route.server))?
            }
        };
        upstream
            .get_prompt(request, downstream(&context), &context.ct)
            .await
            .map_err(upstream_error)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.note_http_session(&context.extensions);
        Ok(ListResourcesResult::with_all_items(
            self.lists(ListKind::Resources).await?.resources(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.note_http_session(&context.extensions);
        Ok(ListResourceTemplatesResult::with_all_items(
            self.lists(ListKind::Resources).await?.templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let upstream = self.resource_upstream(&request.uri).await?;
        upstream
            .read_resource(request, downstream(&context), &context.ct)
            .await
            .map_err(upstream_error)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let upstream = self.resource_upstream(&request.uri).await?;
        upstream
            .subscribe(&request.uri)
            .await
            .map_err(upstream_error)?;
        self.session.subscribe(&request.uri, upstream.id.clone());
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(server) = self.session.unsubscribe(&request.uri)
            && let Some(upstream) = self.hub.upstream(server.as_str())
        {
            upstream
                .unsubscribe(&request.uri)
                .await
                .map_err(upstream_error)?;
        }
        Ok(())
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.set_log_level(request.level);
        let upstreams = match self.single()? {
            Some(upstream) => vec![upstream],
            None => self.hub.running_upstreams(),
        };
        // Forwarded to every running server in scope that supports logging;
        // the connection is shared, so the most recent request wins upstream,
        // and each session still only receives what its own level allows.
        for upstream in upstreams {
            if let Err(err) = upstream.set_level(request.level).await {
                tracing::debug!(server = %upstream.id, error = %err, "setLevel not forwarded");
            }
        }
        Ok(())
    }

    async fn complete(
        &self,
        mut request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let upstream = match (self.single()?, &request.r#ref) {
            (Some(upstream), _) => upstream,
            (None, Reference::Prompt(prompt)) => {
                let route = self
                    .hub
                    .route_prompt(&prompt.name)
                    .await
                    .map_err(|why| unrouted("prompt", &prompt.name, why))?;
                request.r#ref = Reference::for_prompt(route.name.to_string());
                self.hub
                    .upstream(route.server.as_str())
                    .ok_or_else(|| removed(&route.server))?
            }
            (None, Reference::Resource(resource)) => {
                let uri = resource.uri.clone();
                self.resource_upstream(&uri).await?
            }
            (None, other) => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unsupported completion reference {}",
                        other.reference_type()
                    ),
                    None,
                ));
            }
        };
        upstream
            .complete(request, downstream(&context), &context.ct)
            .await
            .map_err(upstream_error)
    }
}

/// What a list request is answered from: one server's lists (pass-through)
/// or the merged catalog.
enum Lists {
    Server(Arc<Capabilities>, Vec<Tool>),
    Merged(Arc<Catalog>),
}

impl Lists {
    fn tools(self, builtin: bool) -> Vec<Tool> {
        match self {
            Self::Server(_, tools) => tools,
            Self::Merged(catalog) if builtin => {
                let mut tools = crate::builtin::tools();
                tools.extend(catalog.tools.iter().cloned());
                tools
            }
            Self::Merged(catalog) => catalog.tools.as_ref().clone(),
        }
    }

    fn prompts(self) -> Vec<Prompt> {
        match self {
            Self::Server(caps, _) => caps.prompts.clone(),
            Self::Merged(catalog) => catalog.prompts.as_ref().clone(),
        }
    }

    fn resources(self) -> Vec<Resource> {
        match self {
            Self::Server(caps, _) => caps.resources.clone(),
            Self::Merged(catalog) => catalog.resources.as_ref().clone(),
        }
    }

    fn templates(self) -> Vec<ResourceTemplate> {
        match self {
            Self::Server(caps, _) => caps.resource_templates.clone(),
            Self::Merged(catalog) => catalog.resource_templates.as_ref().clone(),
        }
    }
}

impl Gateway {
    /// The lists this session sees, recording which version of `kind` it was
    /// served (so it is told about changes only when it saw something else).
    async fn lists(&self, kind: ListKind) -> Result<Lists, ErrorData> {
        let index = match kind {
            ListKind::Tools => 0,
            ListKind::Prompts => 1,
            ListKind::Resources => 2,
        };
        if let Some(upstream) = self.single()? {
            let caps = self
                .hub
                .server_lists(&upstream)
                .await
                .map_err(upstream_error)?;
            let config = upstream.config();
            let disabled = &config.disabled_tools;
            self.session
                .listed(kind, caps.pass_through_versions(disabled)[index]);
            let tools = caps.visible_tools(disabled);
            return Ok(Lists::Server(caps, tools));
        }
        let catalog = self.hub.merged_catalog().await;
        let versions = catalog.versions;
        self.session.listed(
            kind,
            [versions.tools, versions.prompts, versions.resources][index],
        );
        Ok(Lists::Merged(catalog))
    }

    /// The upstream that serves `uri` (a resource or template URI).
    async fn resource_upstream(&self, uri: &str) -> Result<Arc<Upstream>, ErrorData> {
        if let Some(upstream) = self.single()? {
            return Ok(upstream);
        }
        let Some(server) = self.hub.resource_owner(uri).await else {
            return Err(ErrorData::resource_not_found(
                format!("no server offers resource '{uri}'"),
                Some(json!({"uri": uri})),
            ));
        };
        self.hub
            .upstream(server.as_str())
            .ok_or_else(|| removed(&server))
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
