//! [`ConformanceServer`]: the conformance fixture's `ServerHandler`, written
//! by hand (no macros).
//!
//! One value per MCP session: the HTTP service factory builds a fresh one for
//! each session (so each has its own [`SessionState`]), all sharing the
//! [`ReconnectingSessionManager`] and the options. Lists come from
//! [`super::catalog`]; tool calls run in [`super::tools`]. `get_tool` keeps its
//! default `None`, so rmcp validates no arguments: the tools check their own.
// `logging/setLevel` and `resources/(un)subscribe` are deprecated by SEP-2577
// only from protocol 2026-07-28 on; the conformance scenarios use 2025-11-25.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
        ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation,
        JsonObject, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, PromptMessage, ProtocolVersion,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
        Role, ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
        UnsubscribeRequestParams,
    },
    service::RequestContext,
};
use serde_json::Value;

use super::{
    catalog::{self, PNG_BASE64, PromptName, ToolName},
    completion,
    reconnect::ReconnectingSessionManager,
    session::SessionState,
    tools::{self, ReconnectOptions, ToolContext},
};

/// The `serverInfo.name` advertised on `initialize`.
pub const SERVER_NAME: &str = "switchboard-conformance-fixture";

/// The handler for one session.
#[derive(Debug, Clone)]
pub struct ConformanceServer {
    /// This session's log level and subscriptions.
    session: Arc<SessionState>,
    /// The HTTP session manager, for `test_reconnection`; `None` over stdio.
    reconnect: Option<Arc<ReconnectingSessionManager>>,
    reconnect_options: ReconnectOptions,
}

impl ConformanceServer {
    /// A handler for a new session.
    pub fn new(
        reconnect: Option<Arc<ReconnectingSessionManager>>,
        reconnect_options: ReconnectOptions,
    ) -> Self {
        Self {
            session: Arc::default(),
            reconnect,
            reconnect_options,
        }
    }
}

/// The string argument `name` of a prompt, or an `invalid_params` error.
fn prompt_argument<'a>(arguments: &'a JsonObject, name: &str) -> Result<&'a str, ErrorData> {
    match arguments.get(name) {
        Some(Value::String(value)) => Ok(value),
        _ => Err(ErrorData::invalid_params(
            format!("missing required prompt argument `{name}`"),
            None,
        )),
    }
}

/// The messages of `prompt` for `arguments`.
fn prompt_messages(
    prompt: PromptName,
    arguments: &JsonObject,
) -> Result<Vec<PromptMessage>, ErrorData> {
    Ok(match prompt {
        PromptName::Simple => vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )],
        PromptName::WithArguments => {
            let arg1 = prompt_argument(arguments, "arg1")?;
            let arg2 = prompt_argument(arguments, "arg2")?;
            vec![PromptMessage::new_text(
                Role::User,
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            )]
        }
        PromptName::WithEmbeddedResource => {
            let uri = prompt_argument(arguments, "resourceUri")?;
            vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(
                        ResourceContents::text("Embedded resource content for testing.", uri)
                            .with_mime_type("text/plain"),
                    ),
                ),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ]
        }
        PromptName::WithImage => vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG_BASE64, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ],
    })
}

impl ServerHandler for ConformanceServer {
    /// The versions of the 2025 suite this fixture implements: it answers
    /// `server/discover` without 2026-07-28, so a client offering that falls
    /// back to `initialize` (the hub's fallback is tested against it).
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Implements what the MCP conformance suite's server scenarios call \
                 (tools test_*, prompts test_*, resources test://...).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = ToolName::parse(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let cx = ToolContext {
            request: &context,
            session: &self.session,
            reconnect: self.reconnect.as_deref(),
            reconnect_options: self.reconnect_options,
        };
        tools::call(tool, request.arguments.unwrap_or_default(), cx)
            .await
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(catalog::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(prompt) = PromptName::parse(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt: {}", request.name),
                None,
            ));
        };
        let messages = prompt_messages(prompt, &request.arguments.unwrap_or_default())?;
        Ok(GetPromptResult::new(messages)
            .with_description(prompt.to_prompt().description.unwrap_or_default())
            .into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        completion::complete(
            &request.r#ref,
            &request.argument.name,
            &request.argument.value,
        )
        .map(CompleteResult::new)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(catalog::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog::resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match catalog::read_resource(&request.uri) {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => Err(ErrorData::resource_not_found(
                format!("resource not found: {}", request.uri),
                None,
            )),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !catalog::is_known_resource(&request.uri) {
            return Err(ErrorData::resource_not_found(
                format!("resource not found: {}", request.uri),
                None,
            ));
        }
        self.session.subscribe(&request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.set_min_log_level(request.level);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn advertises_every_capability_the_suite_uses() {
        let info = serde_json::to_value(
            ConformanceServer::new(None, ReconnectOptions::default()).get_info(),
        )
        .unwrap();
        let capabilities = &info["capabilities"];
        for name in ["logging", "completions", "prompts", "resources", "tools"] {
            assert!(capabilities[name].is_object(), "{name}: {capabilities}");
        }
        assert_eq!(capabilities["resources"]["subscribe"], true);
        assert_eq!(info["serverInfo"]["name"], SERVER_NAME);
    }

    #[test]
    fn substitutes_prompt_arguments() {
        let messages = prompt_messages(
            PromptName::WithArguments,
            &args(json!({"arg1": "hello", "arg2": "world"})),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&messages).unwrap(),
            json!([{
                "role": "user",
                "content": {"type": "text", "text": "Prompt with arguments: arg1='hello', arg2='world'"}
            }])
        );
        assert!(prompt_messages(PromptName::WithArguments, &args(json!({"arg1": "x"}))).is_err());
    }

    #[test]
    fn embeds_the_requested_resource_and_the_image() {
        let messages = prompt_messages(
            PromptName::WithEmbeddedResource,
            &args(json!({"resourceUri": "test://example-resource"})),
        )
        .unwrap();
        let value = serde_json::to_value(&messages).unwrap();
        assert_eq!(value[0]["content"]["type"], "resource");
        assert_eq!(
            value[0]["content"]["resource"]["uri"],
            "test://example-resource"
        );
        let image = serde_json::to_value(
            prompt_messages(PromptName::WithImage, &JsonObject::new()).unwrap(),
        )
        .unwrap();
        assert_eq!(image[0]["content"]["type"], "image");
        assert_eq!(image[0]["content"]["mimeType"], "image/png");
    }
}
