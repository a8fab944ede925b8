//! Switchboard's own tools on the merged endpoint, so an AI client can see
//! which servers exist, how healthy and fresh they are, and force a refresh:
//! `switchboard__list_servers`, `switchboard__server_status` and
//! `switchboard__refresh`. Turned off with `settings.builtinTools: false`.
//! They take precedence over a configured server that happens to be called
//! `switchboard`. In search mode two more, in [`search`]. On a profile's
//! endpoint they answer about the profile's servers only ([`call`]).

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ErrorData, Tool};
use serde_json::{Value, json};

use std::collections::HashSet;

use crate::config::ServerId;
use crate::hub::HubHandle;
use crate::listing::RefreshTrigger;
use crate::tool_defs::{LIST_SERVERS, REFRESH, SERVER_STATUS, ToolSet};

pub(crate) mod search;

/// The built-in tools, in name order (defined in `crate::tool_defs`).
pub fn tools() -> Vec<Tool> {
    ToolSet::Hub.tools().to_vec()
}

/// Whether `name` is a built-in tool.
pub fn is_builtin(name: &str) -> bool {
    ToolSet::Hub.has(name)
}

fn json_result(value: &Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value.clone());
    result
}

fn requested_id(params: &CallToolRequestParams) -> Option<String> {
    params
        .arguments
        .as_ref()
        .and_then(|a| a.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Runs a built-in tool for a session that sees only the servers in `only`
/// (a profile's; `None`: every server): the others are not listed, and
/// asking about one answers as for an id no server has.
pub async fn call(
    hub: &HubHandle,
    params: &CallToolRequestParams,
    only: Option<&HashSet<ServerId>>,
) -> Result<CallToolResult, ErrorData> {
    let visible = |id: &str| only.is_none_or(|set| set.iter().any(|s| s.as_str() == id));
    // The open view: `/mcp` needs no credential on loopback, and a server's
    // stderr is private (like `/api/v1/logs`); `lastError` names the cause.
    let snapshot = crate::snapshot::open_view(&hub.snapshot());
    let servers: Vec<&crate::snapshot::ServerSnapshot> =
        snapshot.servers.iter().filter(|s| visible(&s.id)).collect();
    let servers = serde_json::to_value(&servers).unwrap_or(Value::Null);
    match params.name.as_ref() {
        LIST_SERVERS => {
            let summary: Vec<Value> = servers
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| {
                    json!({
                        "id": s["id"], "transport": s["transport"], "enabled": s["enabled"],
                        "state": s["state"], "health": s["health"],
                        "tools": s["toolCount"], "prompts": s["promptCount"],
                        "resources": s["resourceCount"], "listedAt": s["listedAt"],
                        "stale": s["stale"], "lastError": s["lastError"],
                    })
                })
                .collect();
            Ok(json_result(&json!({"servers": summary})))
        }
        SERVER_STATUS => {
            let id = requested_id(params)
                .ok_or_else(|| ErrorData::invalid_params("`id` is required", None))?;
            let found = servers
                .as_array()
                .and_then(|all| all.iter().find(|s| s["id"] == id.as_str()).cloned());
            match found {
                Some(server) => Ok(json_result(&server)),
                None => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "no server with id '{id}'"
                ))])),
            }
        }
        REFRESH => {
            let results = match requested_id(params) {
                Some(id) => match hub.upstream(&id).filter(|_| visible(&id)) {
                    Some(upstream) => {
                        vec![(
                            upstream.id.clone(),
                            hub.refresh(&upstream.id, RefreshTrigger::Manual).await,
                        )]
                    }
                    None => {
                        return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                            "no server with id '{id}'"
                        ))]));
                    }
                },
                None => match only {
                    None => hub.refresh_all(RefreshTrigger::Manual).await,
                    Some(set) => {
                        let ids: Vec<ServerId> = hub
                            .enabled_upstreams()
                            .iter()
                            .filter(|u| set.contains(&u.id))
                            .map(|u| u.id.clone())
                            .collect();
                        let refreshed = futures::future::join_all(
                            ids.iter().map(|id| hub.refresh(id, RefreshTrigger::Manual)),
                        )
                        .await;
                        ids.into_iter().zip(refreshed).collect()
                    }
                },
            };
            let failed = results.iter().any(|(_, r)| r.is_err());
            let body: Vec<Value> = results
                .into_iter()
                .map(|(id, r)| match r {
                    Ok(()) => json!({"id": id, "ok": true}),
                    Err(err) => json!({"id": id, "ok": false, "error": err.to_string()}),
                })
                .collect();
            let mut result = json_result(&json!({"servers": body}));
            if failed {
                result.is_error = Some(true);
            }
            Ok(result)
        }
        other => Err(ErrorData::invalid_params(
            format!("unknown tool '{other}'"),
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};

    fn request(name: &str, arguments: Value) -> CallToolRequestParams {
        serde_json::from_value(json!({"name": name, "arguments": arguments})).unwrap()
    }

    #[test]
    fn the_built_in_tools_are_the_ones_listed() {
        let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, vec![LIST_SERVERS, REFRESH, SERVER_STATUS]);
        assert!(names.iter().all(|n| is_builtin(n)));
        assert!(!is_builtin("switchboard__other"));
    }

    #[tokio::test]
    async fn list_status_and_refresh_answer_about_the_configured_servers() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t"]);

        let all = call(&handle, &request(LIST_SERVERS, json!({})), None)
            .await
            .unwrap();
        let servers = &all.structured_content.unwrap()["servers"];
        assert_eq!(servers[0]["id"], "a");
        assert_eq!(servers[0]["tools"], 1);

        let status = call(&handle, &request(SERVER_STATUS, json!({"id": "a"})), None)
            .await
            .unwrap();
        assert_eq!(status.structured_content.unwrap()["id"], "a");
        let unknown = call(&handle, &request(SERVER_STATUS, json!({"id": "zz"})), None)
            .await
            .unwrap();
        assert_eq!(unknown.is_error, Some(true));
        assert!(
            call(&handle, &request(SERVER_STATUS, json!({})), None)
                .await
                .is_err()
        );

        // The server cannot start: the refresh reports it, as a tool error.
        let refreshed = call(&handle, &request(REFRESH, json!({"id": "a"})), None)
            .await
            .unwrap();
        assert_eq!(refreshed.is_error, Some(true));
        let body = refreshed.structured_content.unwrap();
        assert_eq!(body["servers"][0]["ok"], false);
        let unknown = call(&handle, &request(REFRESH, json!({"id": "zz"})), None)
            .await
            .unwrap();
        assert_eq!(unknown.is_error, Some(true));
        handle.shutdown();
    }
}
