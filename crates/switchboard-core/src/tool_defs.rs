//! The definitions of Switchboard's own tools, as plain data (layer 1): each
//! tool's name, description, input schema and annotations, grouped by the
//! set it belongs to — the hub tools (`settings.builtinTools`), search
//! mode's two and code mode's one — and [`served_sets`], which sets a merged
//! endpoint serves for given settings and tool mode.
//!
//! Kept here, below the hub, so the hub can count what it serves (its
//! totals and token figures, `hub/tool_mode.rs`, `hub/tokens.rs`) from the
//! same definitions the layers above serve and answer (`builtin`,
//! `gateway`, `codemode`), with no counts pushed down from above. Nothing
//! here runs a tool.
//!
//! Invariant: every set lists its tools in name order, and the sets are
//! served in [`ToolSet::ALL`]'s order, so `tools/list` reads the same on
//! every path (rmcp's and the fast path's prepared bytes).

use std::sync::LazyLock;

use rmcp::model::{JsonObject, Tool};
use serde_json::json;

use crate::config::ToolMode;

pub(crate) const LIST_SERVERS: &str = "switchboard__list_servers";
pub(crate) const SERVER_STATUS: &str = "switchboard__server_status";
pub(crate) const REFRESH: &str = "switchboard__refresh";
pub(crate) const SEARCH_TOOLS: &str = "switchboard__search_tools";
pub(crate) const CALL_TOOL: &str = "switchboard__call_tool";
pub(crate) const RUN_CODE: &str = "switchboard__run_code";

/// One tool's definition.
#[derive(Debug)]
pub(crate) struct ToolDef {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    /// The input schema as JSON text (an object; a test parses every one).
    pub(crate) input_schema: &'static str,
    /// `annotations.readOnlyHint`.
    pub(crate) read_only: bool,
    /// `annotations.openWorldHint`.
    pub(crate) open_world: bool,
}

impl ToolDef {
    /// The tool as `tools/list` serves it.
    fn tool(&self) -> Tool {
        let schema: JsonObject = serde_json::from_str(self.input_schema).unwrap_or_default();
        let mut tool: Tool = serde_json::from_value(json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": schema,
            "annotations": {"readOnlyHint": self.read_only, "openWorldHint": self.open_world},
        }))
        .unwrap_or_else(|_| Tool::new(self.name, self.description, JsonObject::new()));
        tool.name = self.name.into();
        tool
    }
}

/// The hub tools: what servers exist, how they are, refresh one.
const HUB: &[ToolDef] = &[
    ToolDef {
        name: LIST_SERVERS,
        description: "List the MCP servers behind Switchboard with their state, health, tool \
             counts and how fresh their lists are.",
        input_schema: r#"{"type": "object", "properties": {}}"#,
        read_only: true,
        open_world: false,
    },
    ToolDef {
        name: REFRESH,
        description: "Re-list one server's tools, prompts and resources now (or every server \
             when no id is given).",
        input_schema: r#"{"type": "object", "properties": {"id": {"type": "string",
            "description": "The server id; all servers when omitted."}}}"#,
        read_only: false,
        open_world: false,
    },
    ToolDef {
        name: SERVER_STATUS,
        description: "Everything Switchboard knows about one server: state, health, breaker, \
             staleness, last change and last error.",
        input_schema: r#"{"type": "object", "properties": {"id": {"type": "string",
            "description": "The server id, as in list_servers."}}, "required": ["id"]}"#,
        read_only: true,
        open_world: false,
    },
];

/// Search mode's two: find a tool, call a tool by name. The `limit`
/// maximum is the one `builtin::search` enforces (a test there checks).
const SEARCH: &[ToolDef] = &[
    ToolDef {
        name: CALL_TOOL,
        description: "Call any tool of the servers behind Switchboard by its full name (as \
             switchboard__search_tools returns it), with its arguments. Use it for \
             tools that are not listed directly.",
        input_schema: r#"{"type": "object", "properties": {
            "name": {"type": "string",
                "description": "The tool's full name, <server>__<tool>."},
            "arguments": {"type": "object",
                "description": "The tool's arguments, as its inputSchema describes."}},
            "required": ["name"]}"#,
        read_only: true,
        open_world: false,
    },
    ToolDef {
        name: SEARCH_TOOLS,
        description: "Find tools of the servers behind Switchboard for a task, described in \
             plain words; returns the best matches with their input schemas. Call \
             one with switchboard__call_tool.",
        input_schema: r#"{"type": "object", "properties": {
            "query": {"type": "string",
                "description": "What you want to do, in plain words."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50,
                "description": "How many tools to return (default 10, at most 50)."}},
            "required": ["query"]}"#,
        read_only: true,
        open_world: false,
    },
];

/// Code mode's one: run a script. The `timeoutSecs` maximum is the one
/// `codemode` enforces (a test there checks).
const CODE: &[ToolDef] = &[ToolDef {
    name: RUN_CODE,
    description: "Run a short JavaScript program (the body of an async function) that \
        calls the tools behind Switchboard and returns only what you need. \
        `await tools.<server>.<tool>(args)` resolves with the tool's structured result (or \
        its text, parsed when it is JSON) and throws an Error with the tool's message when \
        it fails; `await callTool(\"<server>__<tool>\", args)` gives the raw result; \
        `Promise.all` runs calls in parallel; console.log is captured. Find tools and their \
        TypeScript signatures with switchboard__search_tools. No modules, network, files or \
        timers. Example: const open = await tools.github.list_issues({repo: \"app\", \
        state: \"open\"}); return open.filter(i => i.labels.includes(\"bug\")).map(i => i.title);",
    input_schema: r#"{
        "type": "object",
        "properties": {
            "code": {"type": "string",
                "description": "The body of an async JavaScript function; its return value is the result."},
            "timeoutSecs": {"type": "integer", "minimum": 1, "maximum": 300,
                "description": "How long the script may run (default 60 s)."}
        },
        "required": ["code"]
    }"#,
    read_only: false,
    open_world: true,
}];

/// A set of Switchboard's own tools, served together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ToolSet {
    /// `switchboard__list_servers`, `__refresh`, `__server_status`.
    Hub,
    /// `switchboard__call_tool`, `__search_tools`.
    Search,
    /// `switchboard__run_code`.
    Code,
}

impl ToolSet {
    /// Every set, in the order a merged `tools/list` serves them.
    pub(crate) const ALL: [ToolSet; 3] = [ToolSet::Hub, ToolSet::Search, ToolSet::Code];

    /// The set's definitions, in name order.
    pub(crate) fn defs(self) -> &'static [ToolDef] {
        match self {
            ToolSet::Hub => HUB,
            ToolSet::Search => SEARCH,
            ToolSet::Code => CODE,
        }
    }

    /// The set's tools as served, built once per process: a list request
    /// only clones them.
    pub(crate) fn tools(self) -> &'static [Tool] {
        static BUILT: LazyLock<[Vec<Tool>; 3]> = LazyLock::new(|| {
            ToolSet::ALL.map(|set| set.defs().iter().map(ToolDef::tool).collect())
        });
        &BUILT[self.index()]
    }

    /// Whether `name` is one of the set's tools.
    pub(crate) fn has(self, name: &str) -> bool {
        self.defs().iter().any(|def| def.name == name)
    }

    /// The set's place in [`ToolSet::ALL`].
    pub(crate) fn index(self) -> usize {
        match self {
            ToolSet::Hub => 0,
            ToolSet::Search => 1,
            ToolSet::Code => 2,
        }
    }

    /// Whether a merged endpoint in `mode` serves this set, with the hub
    /// tools on or off (`settings.builtinTools`).
    pub(crate) fn served(self, builtin_tools: bool, mode: ToolMode) -> bool {
        match self {
            ToolSet::Hub => builtin_tools,
            // Code mode lists search mode's tools too.
            ToolSet::Search => matches!(mode, ToolMode::Search | ToolMode::Code),
            ToolSet::Code => mode == ToolMode::Code,
        }
    }
}

/// The sets a merged endpoint in `mode` serves, in serving order.
pub(crate) fn served_sets(builtin_tools: bool, mode: ToolMode) -> impl Iterator<Item = ToolSet> {
    ToolSet::ALL
        .into_iter()
        .filter(move |set| set.served(builtin_tools, mode))
}

/// Switchboard's own tools a merged endpoint in `mode` lists, before the
/// servers' tools.
pub(crate) fn served(builtin_tools: bool, mode: ToolMode) -> Vec<Tool> {
    served_sets(builtin_tools, mode)
        .flat_map(|set| set.tools().iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// Every tool as `tools/list` served it before these definitions moved
    /// here, one compact JSON per line: the definitions serve the same bytes
    /// (and so the same token counts).
    const SERVED_BEFORE: &str = include_str!("tool_defs/served.jsonl");

    #[test]
    fn the_definitions_serve_the_same_json_as_before() {
        let served: Vec<String> = ToolSet::ALL
            .into_iter()
            .flat_map(|set| set.tools().iter())
            .map(|tool| serde_json::to_string(tool).unwrap())
            .collect();
        let before: Vec<&str> = SERVED_BEFORE.lines().collect();
        assert_eq!(served, before);
    }

    #[test]
    fn every_schema_parses_and_every_set_is_in_name_order() {
        for set in ToolSet::ALL {
            for def in set.defs() {
                let schema: Result<JsonObject, _> = serde_json::from_str(def.input_schema);
                assert!(schema.is_ok(), "{}: {schema:?}", def.name);
                assert!(set.has(def.name));
            }
            let names: Vec<&str> = set.defs().iter().map(|d| d.name).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            assert_eq!(names, sorted);
        }
        assert!(!ToolSet::Hub.has(SEARCH_TOOLS));
    }

    #[test]
    fn each_mode_serves_its_sets_in_order() {
        let names = |builtin, mode| -> Vec<String> {
            served(builtin, mode)
                .iter()
                .map(|t| t.name.to_string())
                .collect()
        };
        let hub = vec![LIST_SERVERS, REFRESH, SERVER_STATUS];
        let search = vec![CALL_TOOL, SEARCH_TOOLS];
        assert_eq!(names(true, ToolMode::All), hub);
        assert_eq!(names(false, ToolMode::All), Vec::<String>::new());
        assert_eq!(
            names(true, ToolMode::Search),
            [&hub[..], &search[..]].concat()
        );
        assert_eq!(names(false, ToolMode::Search), search);
        assert_eq!(
            names(true, ToolMode::Code),
            [&hub[..], &search[..], &[RUN_CODE][..]].concat()
        );
        assert_eq!(
            names(false, ToolMode::Code),
            [&search[..], &[RUN_CODE][..]].concat()
        );
    }
}
