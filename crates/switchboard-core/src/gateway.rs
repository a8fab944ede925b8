//! The downstream MCP server: what AI clients talk to at `/mcp`.
//!
//! Lists are answered from the merged [`Catalog`](crate::catalog::Catalog),
//! never by a live fan-out; calls are routed by name (tools, prompts) or URI
//! (resources) to the owning upstream, with the call timeout, progress and
//! cancellation forwarded. Every failure is a JSON-RPC error whose message
//! names the server and the cause and whose `data` carries
//! `{"server": id, "kind": ...}` for programs.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, ErrorData, GetPromptRequestParams,
    GetPromptResponse, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

use crate::hub::HubHandle;
use crate::sessions::{ListKind, Session};
use crate::upstream::UpstreamError;

/// One downstream session's handler (the HTTP service makes one per session).
#[derive(Clone)]
pub struct Gateway {
    hub: HubHandle,
    session: Arc<Session>,
}

impl Gateway {
    pub fn new(hub: HubHandle) -> Self {
        Self {
            hub,
            session: Arc::new(Session::default()),
        }
    }
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

impl ServerHandler for Gateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .build(),
        )
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
            .inner
            .sessions
            .add(self.session.clone(), context.peer.clone(), client);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let catalog = self.hub.merged_catalog().await;
        self.session.listed(ListKind::Tools, catalog.versions.tools);
        Ok(ListToolsResult::with_all_items(
            catalog.tools.as_ref().clone(),
        ))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(route) = self.hub.route_tool(&request.name).await else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool '{}'", request.name),
                Some(json!({"tool": request.name})),
            ));
        };
        let upstream = self.hub.upstream(route.server.as_str()).ok_or_else(|| {
            ErrorData::internal_error(format!("server '{}' was removed", route.server), None)
        })?;
        request.name = Cow::Owned(route.name.to_string());
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (context.peer.clone(), token));
        upstream
            .call_tool(request, progress, &context.ct)
            .await
            .map_err(upstream_error)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let catalog = self.hub.merged_catalog().await;
        self.session
            .listed(ListKind::Prompts, catalog.versions.prompts);
        Ok(ListPromptsResult::with_all_items(
            catalog.prompts.as_ref().clone(),
        ))
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(route) = self.hub.route_prompt(&request.name).await else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt '{}'", request.name),
                Some(json!({"prompt": request.name})),
            ));
        };
        let upstream = self.hub.upstream(route.server.as_str()).ok_or_else(|| {
            ErrorData::internal_error(format!("server '{}' was removed", route.server), None)
        })?;
        request.name = route.name.to_string();
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (context.peer.clone(), token));
        upstream
            .get_prompt(request, progress, &context.ct)
            .await
            .map_err(upstream_error)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let catalog = self.hub.merged_catalog().await;
        self.session
            .listed(ListKind::Resources, catalog.versions.resources);
        Ok(ListResourcesResult::with_all_items(
            catalog.resources.as_ref().clone(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let catalog = self.hub.merged_catalog().await;
        self.session
            .listed(ListKind::Resources, catalog.versions.resources);
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog.resource_templates.as_ref().clone(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(server) = self.hub.resource_owner(&request.uri).await else {
            return Err(ErrorData::resource_not_found(
                format!("no server offers resource '{}'", request.uri),
                Some(json!({"uri": request.uri})),
            ));
        };
        let upstream = self.hub.upstream(server.as_str()).ok_or_else(|| {
            ErrorData::internal_error(format!("server '{server}' was removed"), None)
        })?;
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (context.peer.clone(), token));
        upstream
            .read_resource(request, progress, &context.ct)
            .await
            .map_err(upstream_error)
    }
}
