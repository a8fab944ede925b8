//! The downstream MCP server: what AI clients talk to.
//!
//! One [`Gateway`] per downstream session, in one of two scopes:
//! - [`Scope::Merged`] at `/mcp`: every enabled server, tool and prompt names
//!   `<server>__<name>`, lists from the merged [`Catalog`](crate::catalog::Catalog);
//! - [`Scope::Server`] at `/servers/<id>/mcp`: exactly one upstream with its
//!   original names, capabilities, server info and instructions (for clients
//!   that want one server, and for the conformance suite);
//! - [`Scope::Profile`] at `/profiles/<name>/mcp`: merged like `/mcp`, over
//!   the profile's servers only (its catalog, search and routing: a name of
//!   another server is an unknown tool).
//!
//! Every scope shares the same upstream connections, cache and health.
//!
//! Lists never fan out live; calls route to the owning upstream with the call
//! timeout, progress and cancellation forwarded; `logging/setLevel`,
//! `resources/subscribe`/`unsubscribe` and `completion/complete` are forwarded
//! to the upstream(s) concerned. Every failure is a JSON-RPC error whose
//! message names the server and the cause and whose `data` carries
//! `{"server": id, "kind": ...}` for programs.
//!
//! Versions: sessions that `initialize` negotiate up to 2025-11-25 (an offer
//! of 2026-07-28 gets 2025-11-25); 2026-07-28 clients are served statelessly,
//! one fresh handler per request, with `server/discover`, `resultType`,
//! caching hints and `subscriptions/listen` (see `modern`). Upstreams keep
//! whatever version they negotiated: results are re-shaped here for the
//! downstream request's version, whoever answered.

// Logging is deprecated for protocol 2026-07-28 (SEP-2577), but clients on
// 2025-11-25 and earlier use it, and a proxy must forward it.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, Reference, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use serde_json::json;

use crate::activity::{Method, Served};
use crate::hub::HubHandle;

use crate::sessions::{ListKind, Scope, Session};
use crate::upstream::Downstream;

mod approval;
mod call;
mod code_mode;
mod experimental_tasks;
mod input_flow;
mod input_required;
mod lists;
mod modern;
use modern::Completed;
mod record;
mod result_secrets;
mod roots;
mod route;
mod search_mode;
mod task_wait;
mod tasks;

use code_mode::CodeMode;
pub(crate) use experimental_tasks::{METHOD_PREFIX as EXPERIMENTAL_TASK_PREFIX, TASK_METHODS};
use input_flow::InputFlow;
use lists::Lister;
use modern::Endpoint;
use record::CallLog;
use roots::Roots;
pub use route::upstream_error;
pub(crate) use route::{Router, Target};
use search_mode::SearchMode;
use tasks::ClientTasks;

/// One downstream session's handler (the HTTP service makes one per session).
#[derive(Clone)]
pub struct Gateway {
    hub: HubHandle,
    session: Arc<Session>,
    /// Set on the gateway a code mode run makes its calls through: the
    /// run's id, recorded with each call (see `code_mode`).
    run: Option<Arc<str>>,
}

impl Gateway {
    pub fn new(hub: HubHandle, scope: Scope) -> Self {
        Self {
            hub,
            session: Arc::new(Session::new(scope)),
            run: None,
        }
    }

    /// A gateway for an existing session (the HTTP fast path's way in).
    pub(crate) fn for_session(hub: HubHandle, session: Arc<Session>) -> Self {
        Self {
            hub,
            session,
            run: None,
        }
    }

    /// This session's gateway for the calls of code mode run `run`.
    fn for_run(&self, run: Arc<str>) -> Self {
        Self {
            run: Some(run),
            ..self.clone()
        }
    }

    /// Which servers this session sees, and which serves a request.
    fn router(&self) -> Router<'_> {
        Router::new(&self.hub, &self.session)
    }

    /// Where this session's calls are recorded.
    fn log(&self) -> CallLog<'_> {
        CallLog::new(&self.hub, &self.session, self.run.as_ref())
    }

    /// The tasks this session's client was given.
    fn tasks(&self) -> ClientTasks<'_> {
        ClientTasks::new(&self.hub, &self.session)
    }

    /// This session's list requests.
    fn lister(&self) -> Lister<'_> {
        Lister::new(&self.hub, &self.session)
    }

    /// This session's tool mode and search mode's tools.
    fn search_mode(&self) -> SearchMode<'_> {
        SearchMode::new(&self.hub, &self.session)
    }

    /// Code mode for this session (a script's own calls cannot run one).
    fn code_mode(&self) -> CodeMode<'_> {
        CodeMode::new(&self.hub, &self.session, self.run.is_some())
    }

    /// This session's roots and the profile they choose.
    fn roots(&self) -> Roots<'_> {
        Roots::new(&self.hub, &self.session)
    }

    /// This session's endpoint as its client sees it.
    fn endpoint(&self) -> Endpoint<'_> {
        Endpoint::new(&self.hub, &self.session)
    }

    /// The input the client's request `context` may be asked for.
    fn input<'a>(&'a self, context: &'a RequestContext<RoleServer>) -> InputFlow<'a> {
        InputFlow::new(self.router(), context)
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
    /// bytes (the HTTP fast path's lists; see [`Lister`]).
    pub(crate) async fn prepared_list(
        &self,
        which: crate::catalog::ListResult,
    ) -> Option<Result<axum::body::Bytes, ErrorData>> {
        self.lister().prepared(which).await
    }
}

fn downstream(context: &RequestContext<RoleServer>) -> Option<Downstream> {
    Some(Downstream {
        peer: context.peer.clone(),
        request_id: context.id.clone(),
        progress_token: context.meta.get_progress_token(),
        collect: None,
        capabilities: None,
        task: None,
        related_task: None,
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
        // MCP Apps pass through, their `ui://` URIs renamed per server;
        // tasks (SEP-2663) with ids mapped per server and client.
        "extensions": {
            crate::catalog::ui_uri::EXTENSION_ID: {},
            rmcp::model::TASKS_EXTENSION_ID: {},
        },
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
                 `<server>__<name>`; resources keep their URIs, but MCP Apps' \
                 `ui://` ones, which become `ui://<server>/...`.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        // 2026-07-28 clients are served statelessly by rmcp; an `initialize`
        // offering 2026-07-28 is answered with 2025-11-25, the newest version
        // that has the handshake.
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        self.note_http_session(&context.extensions);
        self.endpoint()
            .discover_result(
                self.supported_protocol_versions().into_owned(),
                self.get_info(),
            )
            .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(modern::accepted_filter(requested, &merged_capabilities()))
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.endpoint().listen_until_closed(context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.session.set_client_name(&request.client_info.name);
        let client = format!(
            "{} {}",
            request.client_info.name, request.client_info.version
        );
        self.hub
            .sessions()
            .add(self.session.clone(), context.peer.clone(), client);
        // The session's id, from the hub's session manager: known from here on,
        // so its use is counted and it shows in the status at once.
        if let Some(key) = context.extensions.get::<crate::sessions::HttpSessionKey>() {
            self.hub
                .sessions()
                .bind_http_id(&self.session, key.0.as_ref());
        }
        self.roots()
            .roots_at_initialize(&request, &context.extensions);
        self.hub.publish_snapshot();
        let result = self.negotiate_initialize(&request)?;
        // A pass-through session looks like the server itself.
        self.endpoint().endpoint_info(result).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.note_http_session(&context.extensions);
        self.roots().ask_roots();
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.note_http_session(&context.extensions);
        self.roots().ask_roots();
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.note_http_session(&context.extensions);
        let lists = self.lister().lists(ListKind::Tools).await?;
        let tools = match self.search_mode().search_mode_tools(&lists) {
            Some(tools) => tools,
            None => lists.tools(self.hub.settings().builtin_tools),
        };
        let mut result = ListToolsResult::with_all_items(tools);
        if modern::is_modern(&context) {
            let hint = self.endpoint().cache_hint();
            result.ttl_ms = Some(hint.ttl_ms);
            result.cache_scope = Some(hint.scope);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        modern::note_client(&self.session, &context);
        let result = if modern::is_modern(&context) {
            self.modern_call(request, &context).await
        } else {
            self.legacy_call(request, &context).await
        };
        result.map(|r| r.for_request(&context))
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        self.note_http_session(&context.extensions);
        match request.method.strip_prefix(EXPERIMENTAL_TASK_PREFIX) {
            Some(method) => {
                self.experimental_task_request(method, request.params, &context)
                    .await
            }
            None => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            )),
        }
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        modern::note_client(&self.session, &context);
        self.tasks().forward_get_task(request, &context).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        modern::note_client(&self.session, &context);
        self.tasks().forward_update_task(request, &context).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        modern::note_client(&self.session, &context);
        self.tasks().forward_cancel_task(request, &context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.note_http_session(&context.extensions);
        let mut result = ListPromptsResult::with_all_items(
            self.lister().lists(ListKind::Prompts).await?.prompts(),
        );
        if modern::is_modern(&context) {
            let hint = self.endpoint().cache_hint();
            result.ttl_ms = Some(hint.ttl_ms);
            result.cache_scope = Some(hint.scope);
        }
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        modern::note_client(&self.session, &context);
        let started = self
            .log()
            .begin(Method::Prompt, &request.name, request.arguments.as_ref());
        let mut served = Served::Nobody;
        let result = async {
            let (upstream, route) = self.router().route(Target::Prompt(&request.name)).await?;
            served = Served::Server(upstream.id.clone());
            // The server's own name for it; messages keep the client's.
            let upstream_name = route.map(|route| route.name.to_string());
            let prepare = |mut request: GetPromptRequestParams| {
                if let Some(name) = &upstream_name {
                    request.name.clone_from(name);
                }
                request
            };
            self.input(&context)
                .forward_asking(&upstream, request, prepare)
                .await
        }
        .await;
        self.log().end(started, served, &result, &context.ct);
        result.map(|r| r.for_request(&context))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.note_http_session(&context.extensions);
        let mut result = ListResourcesResult::with_all_items(
            self.lister().lists(ListKind::Resources).await?.resources(),
        );
        if modern::is_modern(&context) {
            let hint = self.endpoint().cache_hint();
            result.ttl_ms = Some(hint.ttl_ms);
            result.cache_scope = Some(hint.scope);
        }
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.note_http_session(&context.extensions);
        let mut result = ListResourceTemplatesResult::with_all_items(
            self.lister().lists(ListKind::Resources).await?.templates(),
        );
        if modern::is_modern(&context) {
            let hint = self.endpoint().cache_hint();
            result.ttl_ms = Some(hint.ttl_ms);
            result.cache_scope = Some(hint.scope);
        }
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        modern::note_client(&self.session, &context);
        let started = self.log().begin(Method::Resource, &request.uri, None);
        let mut served = Served::Nobody;
        let result = async {
            let (upstream, route) = self.router().route(Target::Resource(&request.uri)).await?;
            served = Served::Server(upstream.id.clone());
            // A `ui://` URI renamed for the merged scope: the server's own
            // URI on the way down, the exposed one in the answer.
            let upstream_uri = route.map(|route| route.name.to_string());
            let prepare = |mut request: ReadResourceRequestParams| {
                if let Some(uri) = &upstream_uri {
                    request.uri.clone_from(uri);
                }
                request
            };
            let mut answer = self
                .input(&context)
                .forward_asking(&upstream, request, prepare)
                .await?;
            if upstream_uri.is_some()
                && let ReadResourceResponse::Complete(result) = &mut answer
            {
                crate::catalog::ui_uri::expose_contents(&upstream.id, result);
            }
            Ok(answer)
        }
        .await;
        self.log().end(started, served, &result, &context.ct);
        result.map(|r| r.for_request(&context))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (upstream, route) = self.router().route(Target::Resource(&request.uri)).await?;
        let upstream_uri = route.map_or_else(|| request.uri.clone(), |r| r.name.to_string());
        upstream
            .subscribe(&upstream_uri)
            .await
            .map_err(upstream_error)?;
        // Kept by the client's URI: updates are matched in the session's form.
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
            let uri = match &*self.router().scope() {
                Scope::Server(_) => None,
                _ => crate::catalog::ui_uri::upstream(&server, &request.uri),
            };
            upstream
                .unsubscribe(uri.as_deref().unwrap_or(&request.uri))
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
        let upstreams = match self.router().single()? {
            Some(upstream) => vec![upstream],
            None => self
                .hub
                .running_upstreams()
                .into_iter()
                .filter(|u| self.router().in_scope(&u.id))
                .collect(),
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
        let (upstream, route) = match &request.r#ref {
            Reference::Prompt(prompt) => self.router().route(Target::Prompt(&prompt.name)).await?,
            Reference::Resource(resource) => {
                self.router().route(Target::Resource(&resource.uri)).await?
            }
            other => match self.router().single()? {
                Some(upstream) => (upstream, None),
                None => {
                    return Err(ErrorData::invalid_params(
                        format!(
                            "unsupported completion reference {}",
                            other.reference_type()
                        ),
                        None,
                    ));
                }
            },
        };
        if let Some(route) = route {
            request.r#ref = match &request.r#ref {
                Reference::Resource(_) => Reference::for_resource(route.name.to_string()),
                _ => Reference::for_prompt(route.name.to_string()),
            };
        }
        upstream
            .complete(request, downstream(&context), &context.ct)
            .await
            .map_err(upstream_error)
            .map(|r| r.for_request(&context))
    }
}
