//! `switchboard-conformance-client`: the client under test for the official MCP
//! conformance suite's *client* scenarios (`conformance client --command ...`).
//!
//! The suite starts a test MCP server and runs this binary with the server's
//! URL as the last argument and the scenario name in `MCP_CONFORMANCE_SCENARIO`.
//! The binary starts an in-process Switchboard hub (`switchboard_core::Hub`, the
//! engine `switchboard serve` runs) with that URL as its only upstream, server
//! id `target`, `"namespace": ""`. Everything the suite's server sees therefore
//! comes from Switchboard's own upstream client (rmcp, in switchboard-core).
//!
//! What it makes the hub do:
//! 1. `HubHandle::refresh(target, Manual)`: the upstream client connects,
//!    initializes and lists (every scenario; the whole of `initialize`);
//! 2. for scenarios that need a tool call, a downstream rmcp client connects
//!    to the hub's merged `/mcp`, lists tools and calls the scenario's tool
//!    there; the hub forwards the call (and any server→client request, e.g.
//!    elicitation, back to that downstream client, which plays the user).
//!    The calls and their arguments are fixed per scenario, or come from the
//!    suite's `MCP_CONFORMANCE_CONTEXT` (`toolCalls`, `http-custom-headers`);
//!    for `json-schema-2020-12-preservation` the driver sends the focal
//!    tool's `inputSchema`, as the hub lists it, back through the echo tool.
//!
//! ```text
//! switchboard-conformance-client [--scenario NAME] URL
//! ```
//!
//! Exits 0 when the hub did what the scenario needs and got the expected
//! answer; otherwise non-zero with the reason on stderr. Logs go to stderr
//! (`RUST_LOG`, default `warn`); stdout stays empty.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorData, Implementation,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt as _};
use serde_json::{Map, Value, json};
use switchboard_core::RefreshTrigger;
use switchboard_core::{Config, Hub, HubHandle, HubOptions, ServerId, config};
use tracing_subscriber::EnvFilter;

/// The id of the suite's server in the hub's config.
const TARGET: &str = "target";
/// How long the whole scenario may take (the suite kills the client at 30 s).
const SCENARIO_DEADLINE: Duration = Duration::from_secs(25);
/// How long the hub gets to close its upstream at the end.
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);

/// What a scenario needs the hub to do after initializing and listing.
#[derive(Debug)]
enum Action {
    /// Nothing more (`initialize`, `request-metadata`: the start and the
    /// lists are what the scenario checks).
    InitializeOnly,
    /// Call each tool in turn through the hub and check each result's text.
    Calls(Vec<Call>),
    /// Read `tool`'s `inputSchema` as the hub lists it on `/mcp` and send it
    /// back, unchanged, as the `schema` argument of `echo`
    /// (`json-schema-2020-12-preservation`: the suite's server diffs what comes
    /// back against what it listed, so every keyword the hub's catalog drops
    /// or alters shows).
    EchoSchema {
        tool: &'static str,
        echo: &'static str,
    },
}

/// One tool call through the hub.
#[derive(Debug)]
struct Call {
    tool: String,
    arguments: Value,
    /// Text the result must contain (`""`: any result that is not an error).
    expect_text: &'static str,
}

fn call(tool: &str, arguments: Value, expect_text: &'static str) -> Call {
    Call {
        tool: tool.to_owned(),
        arguments,
        expect_text,
    }
}

/// The scenarios this driver runs (every non-auth client scenario of the
/// pinned 0.2.x suite but the extension ones).
pub const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
];

fn action_for(scenario: &str) -> anyhow::Result<Action> {
    Ok(match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => Action::InitializeOnly,
        "json-schema-2020-12-preservation" => Action::EchoSchema {
            tool: "json_schema_2020_12_tool",
            echo: "json_schema_echo",
        },
        // The hub keeps the valid tool beside the malformed one.
        "http-invalid-tool-headers" => Action::Calls(vec![call("valid_tool", json!({}), "")]),
        "tools_call" => Action::Calls(vec![call(
            "add_numbers",
            json!({"a": 5, "b": 3}),
            "The sum of 5 and 3 is 8",
        )]),
        "elicitation-sep1034-client-defaults" => Action::Calls(vec![call(
            "test_client_elicitation_defaults",
            json!({}),
            "Elicitation completed",
        )]),
        "sse-retry" => Action::Calls(vec![call(
            "test_reconnection",
            json!({}),
            "Reconnection test completed successfully",
        )]),
        // The server answers with input-required results; the hub asks the
        // downstream client (an older one) and retries for it.
        "sep-2322-client-request-state" => Action::Calls(vec![
            call("test_mrtr_echo_state", json!({}), "echo-state-ok"),
            call("test_mrtr_unrelated", json!({}), "unrelated-ok"),
            call("test_mrtr_no_state", json!({}), "no-state-ok"),
            call(
                "test_mrtr_no_result_type",
                json!({}),
                "no-result-type-test-ok",
            ),
        ]),
        "http-standard-headers" => Action::Calls(vec![
            call("test_headers", json!({}), ""),
            call("my-hyphenated-tool", json!({}), ""),
        ]),
        // The suite passes the calls to make, with their arguments, in
        // MCP_CONFORMANCE_CONTEXT (`toolCalls`); their values exercise the
        // Mcp-Param-* header encodings.
        "http-custom-headers" => Action::Calls(context_calls()?),
        other => bail!(
            "scenario {other:?} is not supported by this driver (the auth/* scenarios run with \
             switchboard-conformance-auth, scripts/conformance-auth.sh); supported: {}",
            SCENARIOS.join(", ")
        ),
    })
}

/// The tool calls the suite asks for in `MCP_CONFORMANCE_CONTEXT`
/// (`{"toolCalls": [{"name", "arguments"}, ...]}`), each expected to succeed.
fn context_calls() -> anyhow::Result<Vec<Call>> {
    let text = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .context("this scenario needs MCP_CONFORMANCE_CONTEXT (set by the suite)")?;
    let context: Value =
        serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON")?;
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .context("MCP_CONFORMANCE_CONTEXT has no toolCalls list")?;
    calls
        .iter()
        .map(|c| {
            let name = c
                .get("name")
                .and_then(Value::as_str)
                .context("a toolCalls entry has no name")?;
            let arguments = c.get("arguments").cloned().unwrap_or_else(|| json!({}));
            Ok(call(name, arguments, ""))
        })
        .collect()
}

struct Args {
    scenario: String,
    url: String,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").ok();
    let mut url = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(args.next().context("--scenario needs a value")?),
            "-h" | "--help" => {
                bail!("usage: switchboard-conformance-client [--scenario NAME] URL")
            }
            _ if arg.starts_with('-') => bail!("unknown option {arg:?}"),
            _ => url = Some(arg),
        }
    }
    Ok(Args {
        scenario: scenario
            .context("no scenario: set MCP_CONFORMANCE_SCENARIO or pass --scenario")?,
        url: url.context("no server URL given")?,
    })
}

/// The downstream client: declares elicitation and answers every form
/// elicitation like a user who accepts the proposed values (each property's
/// `default`, SEP-1034).
#[derive(Clone, Default)]
struct User;

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("switchboard-conformance-client", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let asked = serde_json::to_value(&params)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        tracing::info!(request = %asked, "elicitation reached the downstream client");
        let mut content = Map::new();
        if let Some(properties) = asked
            .pointer("/requestedSchema/properties")
            .and_then(Value::as_object)
        {
            for (name, schema) in properties {
                if let Some(default) = schema.get("default") {
                    content.insert(name.clone(), default.clone());
                }
            }
        }
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(Value::Object(content));
        Ok(result)
    }
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn hub_config(url: &str) -> anyhow::Result<Config> {
    let text = json!({
        "mcpServers": {
            TARGET: {
                "url": url,
                "namespace": "",
                "timeouts": {"startupSecs": 10, "callSecs": 20},
            },
        },
        "settings": {"listen": "127.0.0.1:0"},
    })
    .to_string();
    config::load(config::Source::text(&text, Path::new("<conformance>")))
        .map_err(|e| anyhow!("config: {e}"))
}

async fn run_scenario(hub: &HubHandle, action: Action) -> anyhow::Result<()> {
    let target = ServerId::new(TARGET).map_err(|e| anyhow!(e))?;
    // Initialize + list through the upstream client.
    hub.refresh(&target, RefreshTrigger::Manual)
        .await
        .context("the hub could not initialize and list the server")?;
    if let Some(upstream) = hub.upstream(TARGET) {
        let info = upstream.server_info().await?;
        let tools = upstream
            .capabilities()
            .map(|c| {
                c.tools
                    .iter()
                    .map(|t| t.name.to_string())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        tracing::info!(
            protocol = %info.protocol_version,
            server = ?info.server_info,
            ?tools,
            "upstream initialized and listed"
        );
    }
    if matches!(action, Action::InitializeOnly) {
        return Ok(());
    }

    // A downstream client on the merged endpoint makes the hub forward the calls.
    let client = User
        .serve(StreamableHttpClientTransport::from_uri(
            hub.endpoint().to_string(),
        ))
        .await
        .context("cannot connect to the hub's /mcp")?;
    let outcome = async {
        let listed = client.peer().list_all_tools().await?;
        let calls = match action {
            Action::InitializeOnly => Vec::new(),
            Action::Calls(calls) => calls,
            Action::EchoSchema { tool, echo } => {
                let schema = listed
                    .iter()
                    .find(|t| t.name == tool)
                    .map(|t| Value::Object((*t.input_schema).clone()))
                    .with_context(|| format!("the hub does not list {tool:?}"))?;
                tracing::info!(%tool, %schema, "inputSchema as the hub lists it");
                vec![call(echo, json!({ "schema": schema }), "")]
            }
        };
        for Call {
            tool,
            arguments,
            expect_text,
        } in calls
        {
            if !listed.iter().any(|t| t.name == tool) {
                bail!(
                    "the hub does not list {tool:?}; it lists {:?}",
                    listed.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>()
                );
            }
            let mut params = CallToolRequestParams::new(tool.clone());
            params.arguments = arguments.as_object().cloned();
            let result = client
                .peer()
                .call_tool(params)
                .await
                .with_context(|| format!("calling {tool} through the hub failed"))?;
            let text = text_of(&result);
            tracing::info!(%tool, %text, is_error = ?result.is_error, "tool result");
            if result.is_error == Some(true) {
                bail!("{tool} returned a tool error: {text}");
            }
            if !text.contains(expect_text) {
                bail!("{tool} returned {text:?}, expected it to contain {expect_text:?}");
            }
        }
        Ok(())
    }
    .await;
    let _ = client.cancel().await;
    outcome
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args = parse_args()?;
    let action = action_for(&args.scenario)?;
    tracing::info!(scenario = %args.scenario, url = %args.url, ?action, "starting");

    let hub = Hub::bind(hub_config(&args.url)?, HubOptions::default()).await?;
    let handle = hub.handle();
    let stop = tokio_util::sync::CancellationToken::new();
    let stopped = stop.clone();
    let running = tokio::spawn(hub.run(async move { stopped.cancelled().await }));

    let outcome = match tokio::time::timeout(SCENARIO_DEADLINE, run_scenario(&handle, action)).await
    {
        Ok(outcome) => outcome,
        Err(_) => Err(anyhow!(
            "scenario {} did not finish within {SCENARIO_DEADLINE:?}",
            args.scenario
        )),
    };

    stop.cancel();
    match tokio::time::timeout(SHUTDOWN_DEADLINE, running).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(err))) => tracing::warn!(%err, "hub stopped with an error"),
        Ok(Err(err)) => tracing::warn!(%err, "hub task failed"),
        Err(_) => tracing::warn!("hub did not stop within {SHUTDOWN_DEADLINE:?}"),
    }
    outcome.with_context(|| format!("scenario {}", args.scenario))
}
