//! Search mode's two built-in tools (see `docs/search.md`):
//! `switchboard__search_tools` ranks every enabled server's last known tools
//! (the merged catalog, warm after a restart) for a request and never starts
//! a server, except that servers never listed are listed first as any merged
//! list does (bounded by the cold-list deadline); `switchboard__call_tool`
//! names a tool and its arguments, which the gateway forwards like a direct
//! call. Both are listed, and answered, only when `toolMode` is `search`
//! or `code`. Each hit carries its `signature`: the TypeScript declaration
//! of the tool as a code mode script calls it (`crate::codemode::signature`);
//! in search mode also its whole `inputSchema`, which code mode leaves out.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::{Value, json};

use crate::hub::HubHandle;
use crate::tool_defs::ToolSet;

pub(crate) use crate::tool_defs::{CALL_TOOL, SEARCH_TOOLS};

/// How many results a search returns unless asked.
pub const DEFAULT_LIMIT: usize = 10;
/// The most results a search returns (the `limit` schema's maximum in
/// `crate::tool_defs`; a test checks they agree).
pub const MAX_LIMIT: usize = 50;

/// Whether `name` is one of search mode's tools.
pub fn is_search_tool(name: &str) -> bool {
    ToolSet::Search.has(name)
}

/// A bad argument: what is wrong, for the tool error the client sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadArgument(String);

/// The arguments of `switchboard__search_tools`, checked.
pub fn search_arguments(arguments: Option<&JsonObject>) -> Result<(String, usize), BadArgument> {
    let query = match arguments.and_then(|a| a.get("query")) {
        Some(Value::String(q)) if !q.trim().is_empty() => q.clone(),
        Some(Value::String(_)) => return Err(BadArgument("`query` is empty".into())),
        Some(_) => return Err(BadArgument("`query` must be a string".into())),
        None => return Err(BadArgument("`query` is required".into())),
    };
    let limit = match arguments.and_then(|a| a.get("limit")) {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(value) => match value.as_u64() {
            Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => n as usize,
            _ => {
                return Err(BadArgument(format!(
                    "`limit` must be a whole number from 1 to {MAX_LIMIT}"
                )));
            }
        },
    };
    Ok((query, limit))
}

/// The arguments of `switchboard__call_tool`, checked: the tool's name and
/// its arguments.
pub fn call_arguments(
    arguments: Option<&JsonObject>,
) -> Result<(String, Option<JsonObject>), BadArgument> {
    let name = match arguments.and_then(|a| a.get("name")) {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        Some(Value::String(_)) => return Err(BadArgument("`name` is empty".into())),
        Some(_) => return Err(BadArgument("`name` must be a string".into())),
        None => return Err(BadArgument("`name` is required".into())),
    };
    if is_search_tool(&name) {
        return Err(BadArgument(format!(
            "`name` must be a server's tool, not {name}"
        )));
    }
    let inner = match arguments.and_then(|a| a.get("arguments")) {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(_) => return Err(BadArgument("`arguments` must be an object".into())),
    };
    Ok((name, inner))
}

/// A tool error for a bad argument.
pub fn bad_argument(tool: &str, err: &BadArgument) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("{tool}: {err}"))])
}

/// Runs `switchboard__search_tools` over the merged catalog, or over a
/// profile's (`profile`: its name) when it is called on a profile's endpoint.
/// In code mode (`code_mode`) a hit carries its `signature` instead of its
/// `inputSchema`: a script needs the declaration, not the whole schema.
pub async fn search(
    hub: &HubHandle,
    profile: Option<&str>,
    arguments: Option<&JsonObject>,
    code_mode: bool,
) -> CallToolResult {
    let (query, limit) = match search_arguments(arguments) {
        Ok(checked) => checked,
        Err(err) => return bad_argument(SEARCH_TOOLS, &err),
    };
    // Lists servers never listed (bounded by the cold-list deadline); starts
    // nothing that has a listing, warm or live.
    let index = match profile {
        None => {
            let catalog = hub.merged_catalog().await;
            hub.search_index(&catalog)
        }
        Some(name) => match hub.profile_for_lists(name).await {
            Some(profile) => profile.search_index(),
            None => {
                return CallToolResult::error(vec![ContentBlock::text(format!(
                    "{SEARCH_TOOLS}: profile '{name}' is no longer configured"
                ))]);
            }
        },
    };
    let running: std::collections::HashSet<String> = hub
        .running_upstreams()
        .iter()
        .map(|u| u.id.to_string())
        .collect();
    let hits = index.index.search(&query, limit);
    if hub.settings().warm_on_search {
        warm_best_hit(hub, &index, &hits, &running);
    }
    let tools: Vec<Value> = hits
        .into_iter()
        .filter_map(|hit| Some((index.route(hit.doc)?, hit.matched)))
        .map(|((tool, route), matched)| {
            let mut hit = json!({
                "name": tool.name,
                "description": tool.description.as_deref().unwrap_or_default(),
                "signature": crate::codemode::signature::signature(
                    &tool.name,
                    &tool.input_schema,
                    tool.output_schema.as_deref(),
                ),
                "server": route.server.as_str(),
                "running": running.contains(route.server.as_str()),
                "matched": matched.as_str(),
            });
            if !code_mode {
                hit["inputSchema"] = Value::Object((*tool.input_schema).clone());
            }
            hit
        })
        .collect();
    super::json_result(&json!({ "tools": tools }))
}

/// `settings.warmOnSearch`: starts the server of the best hit when it is
/// not running, in the background (one server per search, never more; a
/// start already under way is joined, not repeated).
fn warm_best_hit(
    hub: &HubHandle,
    index: &crate::hub::SearchIndex,
    hits: &[crate::search::Hit],
    running: &std::collections::HashSet<String>,
) {
    let Some((_, route)) = hits.first().and_then(|hit| index.route(hit.doc)) else {
        return;
    };
    if running.contains(route.server.as_str()) {
        return;
    }
    let Some(upstream) = hub.upstream(route.server.as_str()) else {
        return;
    };
    if !upstream.is_enabled() {
        return;
    }
    hub.spawn(async move { upstream.warm().await });
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn args(value: Value) -> JsonObject {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn search_arguments_default_and_bound_the_limit() {
        assert_eq!(
            search_arguments(Some(&args(json!({"query": "read a file"})))),
            Ok(("read a file".to_string(), DEFAULT_LIMIT))
        );
        assert_eq!(
            search_arguments(Some(&args(json!({"query": "x", "limit": 50})))),
            Ok(("x".to_string(), 50))
        );
        for bad in [
            json!({"query": "x", "limit": 51}),
            json!({"query": "x", "limit": 0}),
            json!({"query": "x", "limit": -1}),
            json!({"query": "x", "limit": 2.5}),
            json!({"query": "x", "limit": "5"}),
        ] {
            let err = search_arguments(Some(&args(bad))).unwrap_err();
            assert!(err.to_string().contains("`limit`"), "{err}");
        }
        for (bad, says) in [
            (json!({}), "`query` is required"),
            (json!({"query": " "}), "`query` is empty"),
            (json!({"query": 3}), "`query` must be a string"),
        ] {
            assert_eq!(
                search_arguments(Some(&args(bad))).unwrap_err().to_string(),
                says
            );
        }
        assert!(search_arguments(None).is_err());
    }

    #[test]
    fn call_arguments_need_a_server_tool_name_and_object_arguments() {
        assert_eq!(
            call_arguments(Some(&args(json!({"name": "a__t", "arguments": {"x": 1}})))),
            Ok(("a__t".to_string(), Some(args(json!({"x": 1})))))
        );
        assert_eq!(
            call_arguments(Some(&args(json!({"name": "a__t"})))),
            Ok(("a__t".to_string(), None))
        );
        for (bad, says) in [
            (json!({}), "`name` is required"),
            (json!({"name": ""}), "`name` is empty"),
            (json!({"name": 1}), "`name` must be a string"),
            (
                json!({"name": "a__t", "arguments": [1]}),
                "`arguments` must be an object",
            ),
            (
                json!({"name": CALL_TOOL}),
                "`name` must be a server's tool, not switchboard__call_tool",
            ),
        ] {
            assert_eq!(
                call_arguments(Some(&args(bad))).unwrap_err().to_string(),
                says
            );
        }
    }

    #[test]
    fn the_limit_schema_allows_what_the_checks_allow() {
        let search = ToolSet::Search
            .tools()
            .iter()
            .find(|t| t.name == SEARCH_TOOLS)
            .unwrap();
        let limit = &search.input_schema["properties"]["limit"];
        assert_eq!(limit["maximum"], json!(MAX_LIMIT));
        assert_eq!(limit["minimum"], json!(1));
        assert!(is_search_tool(CALL_TOOL) && is_search_tool(SEARCH_TOOLS));
        assert!(!is_search_tool("switchboard__list_servers"));
    }
}
