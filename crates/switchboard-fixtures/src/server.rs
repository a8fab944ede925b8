//! [`FixtureServer`]: the fixture's `ServerHandler`, written by hand (no macros).
//!
//! One value per session (HTTP clones it for each), all sharing one
//! [`FixtureState`]. It answers from the live catalog, registers each session's
//! peer on `initialize`, and counts the requests `--counter-file` reports, just
//! before the answer is returned (so a client that has its answer sees the
//! count). `get_tool` keeps its default `None`: arguments are not validated.
//! `resources/subscribe` is accepted and changes nothing: only floods
//! ([`crate::flood`]) send `resources/updated`.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
        GetPromptResult, Implementation, InitializeRequestParams, InitializeResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        PaginatedRequestParams, PromptMessage, ProtocolVersion, ReadResourceRequestParams,
        ReadResourceResponse, ReadResourceResult, ResourceContents, Role, ServerCapabilities,
        ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
    },
    service::{NotificationContext, RequestContext},
};
use serde_json::Value;

use crate::{
    counter::CountedRequest, flood::Flood, spec::Behavior, state::FixtureState, tools, uri_template,
};

/// MIME type of resource contents whose spec gives none.
const DEFAULT_MIME_TYPE: &str = "text/plain";

/// The handler for one session.
#[derive(Debug, Clone)]
pub struct FixtureServer {
    /// The `serverInfo.name` advertised on `initialize`.
    name: Arc<str>,
    state: Arc<FixtureState>,
    /// Sent to each session once it is initialized (`--flood`).
    flood: Option<Flood>,
}

impl FixtureServer {
    pub fn new(name: impl Into<Arc<str>>, state: Arc<FixtureState>) -> Self {
        Self {
            name: name.into(),
            state,
            flood: None,
        }
    }

    /// Floods every session once it is initialized.
    pub fn with_flood(mut self, flood: Flood) -> Self {
        self.flood = Some(flood);
        self
    }

    fn count(&self, request: CountedRequest) {
        self.state.counter.record(request);
    }
}

impl ServerHandler for FixtureServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        if let Some(resources) = capabilities.resources.as_mut() {
            // Accepted and remembered nowhere: only floods send updates.
            resources.subscribe = Some(true);
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.name.as_ref(),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request);
        if result.is_ok() {
            self.state.peers.register(context.peer.clone());
        }
        self.count(CountedRequest::Initialize);
        result
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(flood) = self.flood {
            let peer = context.peer;
            tokio::spawn(async move {
                crate::flood::send(&peer, flood, None).await;
            });
        }
    }

    /// A flooding server (`--flood`) sends notifications unasked, which only
    /// the protocols with a session allow: it speaks up to 2025-11-25.
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        let newest = if self.flood.is_some() {
            &ProtocolVersion::V_2025_11_25
        } else {
            &ProtocolVersion::V_2026_07_28
        };
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(newest))
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        // Counted as a connection start, like `initialize`.
        self.count(CountedRequest::Initialize);
        Ok(rmcp::model::DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        self.state.peers.register_listener(sink.clone());
        context.cancelled().await;
        self.state.peers.remove_listener(&sink);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.state.read(|spec| {
            spec.listed_twice
                .iter()
                .chain(&spec.tools)
                .map(|tool| tool.to_tool())
                .collect()
        });
        self.count(CountedRequest::ToolsList);
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.count(CountedRequest::ToolsCallStarted);
        let behavior = self
            .state
            .read(|spec| spec.tool(&request.name).map(|tool| tool.behavior));
        if behavior == Some(Behavior::Data) {
            let responses = self.state.read(|spec| {
                spec.tool(&request.name)
                    .map(|tool| tool.responses.clone())
                    .unwrap_or_default()
            });
            self.count(CountedRequest::ToolsCall);
            let arguments = request.arguments.unwrap_or_default();
            return Ok(tools::data(&responses, &arguments).into());
        }
        if behavior == Some(Behavior::Ask) {
            self.count(CountedRequest::ToolsCall);
            return crate::ask::call(&request, &context).await;
        }
        let result = match behavior {
            Some(behavior) => {
                tools::call(behavior, request.arguments.unwrap_or_default(), &context).await
            }
            None => Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            )),
        };
        self.count(CountedRequest::ToolsCall);
        result.map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = self.state.read(|spec| spec.prompts.clone());
        self.count(CountedRequest::PromptsList);
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == crate::ask::PROMPT
            && self.state.read(|spec| spec.prompt(&request.name).is_some())
        {
            return crate::ask::prompt(&request, &context).await;
        }
        let Some(description) = self
            .state
            .read(|spec| spec.prompt(&request.name).map(|p| p.description.clone()))
        else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt: {}", request.name),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let message =
            PromptMessage::new_text(Role::User, format!("prompt {}: {arguments}", request.name));
        let mut result = GetPromptResult::new(vec![message]);
        if let Some(description) = description {
            result = result.with_description(description);
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self.state.read(|spec| {
            spec.resources
                .iter()
                .map(|resource| resource.to_resource())
                .collect()
        });
        self.count(CountedRequest::ResourcesList);
        Ok(ListResourcesResult::with_all_items(resources))
    }

    #[allow(deprecated)] // resources/subscribe is legacy-only for protocol 2026-07-28
    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    #[allow(deprecated)] // resources/unsubscribe is legacy-only for protocol 2026-07-28
    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = self.state.read(|spec| spec.resource_templates.clone());
        self.count(CountedRequest::ResourceTemplatesList);
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == crate::ask::RESOURCE
            && self
                .state
                .read(|spec| spec.resource(&request.uri).is_some())
        {
            return crate::ask::resource(&request, &context).await;
        }
        let uri = request.uri;
        let contents = self.state.read(|spec| {
            if let Some(resource) = spec.resource(&uri) {
                let mime_type = resource.mime_type.as_deref().unwrap_or(DEFAULT_MIME_TYPE);
                return Some(
                    ResourceContents::text(resource.text.clone(), uri.clone())
                        .with_mime_type(mime_type),
                );
            }
            spec.resource_templates
                .iter()
                .find(|template| {
                    uri_template::match_template(&template.uri_template, &uri).is_some()
                })
                .map(|template| {
                    let mime_type = template.mime_type.as_deref().unwrap_or(DEFAULT_MIME_TYPE);
                    ResourceContents::text(format!("template {uri}"), uri.clone())
                        .with_mime_type(mime_type)
                })
        });
        match contents {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => Err(ErrorData::resource_not_found(
                format!("resource not found: {uri}"),
                None,
            )),
        }
    }
}
