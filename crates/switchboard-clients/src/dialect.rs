//! Client dialects that differ from the `mcpServers` shape only in spelling:
//! each entry is rewritten into that shape (`command`/`args`/`env`/`cwd` or
//! `url`/`headers`, `type`, `enabled`/`disabled`, `disabledTools`) before the
//! one converter ([`convert`](super::convert)) reads it.
//!
//! A dialect's quirks are read where they carry meaning (opencode's command
//! arrays, Goose's `cmd`/`envs`/`uri`, Jan's `active`, timeouts in seconds or
//! milliseconds) and named in a warning where Switchboard has no equivalent
//! (auto-approve lists, tool allow-lists, keys read from the environment).
//! Nothing here writes: `connect` only adds its own entry, so every quirk of
//! the other entries stays in the file as it was.

use serde_json::{Map, Value, json};

use super::FileFormat;

/// An entry rewritten into the `mcpServers` shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Normal {
    pub entry: Value,
    pub warnings: Vec<String>,
    /// A call timeout the dialect gave, in whole seconds.
    pub call_secs: Option<u64>,
}

/// `Ok(None)` for dialects the converter reads as they are.
pub(crate) fn normalize(format: FileFormat, raw: &Value) -> Result<Option<Normal>, String> {
    let Some(obj) = raw.as_object() else {
        return Ok(None);
    };
    let mut e = obj.clone();
    let mut warnings = Vec::new();
    let call_secs = match format {
        FileFormat::Cline => {
            for key in ["autoApprove", "alwaysAllow"] {
                if let Some(list) = e.remove(key) {
                    approve_warning(key, &list, &mut warnings);
                }
            }
            seconds(&mut e, "timeout", 1.0)?
        }
        FileFormat::Zed => {
            e.remove("source");
            if let Some(Value::Object(command)) = e.get("command").cloned() {
                // The older form: `"command": {"path", "args", "env"}`.
                e.remove("command");
                for (from, to) in [("path", "command"), ("args", "args"), ("env", "env")] {
                    if let Some(v) = command.get(from) {
                        e.insert(to.into(), v.clone());
                    }
                }
            }
            if !e.contains_key("command") && !e.contains_key("url") && e.contains_key("settings") {
                return Err("is a server a Zed extension provides (only `settings`, no \
                            command): add it to Switchboard by hand"
                    .into());
            }
            if e.remove("remote").and_then(|v| v.as_bool()) == Some(true) {
                warnings.push(
                    "Zed ran it on the remote host of a project; Switchboard runs it here".into(),
                );
            }
            None
        }
        FileFormat::OpenCode => {
            match e.remove("type").as_ref().and_then(Value::as_str) {
                None | Some("local" | "remote") => {}
                Some(other) => return Err(format!("unsupported opencode `type` {other:?}")),
            }
            if let Some(command) = e.remove("command") {
                let Value::Array(parts) = command else {
                    return Err(
                        "`command` is not a list (opencode writes the command and its \
                                arguments as one list)"
                            .into(),
                    );
                };
                let mut parts = parts.into_iter();
                let Some(program) = parts.next() else {
                    return Err("`command` is an empty list".into());
                };
                e.insert("command".into(), program);
                e.insert("args".into(), Value::Array(parts.collect()));
            }
            rename(&mut e, "environment", "env");
            seconds(&mut e, "timeout", 1000.0)?
        }
        FileFormat::Crush => {
            rename(&mut e, "disabled_tools", "disabledTools");
            seconds(&mut e, "timeout", 1.0)?
        }
        FileFormat::CopilotCli => {
            if e.get("type").and_then(Value::as_str) == Some("local") {
                e.insert("type".into(), json!("stdio"));
            }
            match e.remove("tools") {
                None => {}
                Some(Value::Array(tools)) if tools.iter().all(|t| t == "*") => {}
                Some(tools) => warnings.push(format!(
                    "ignored `tools` {tools}: Switchboard has no tool allow-list; hide tools \
                     with `disabledTools` instead"
                )),
            }
            seconds(&mut e, "timeout", 1000.0)?
        }
        FileFormat::Jan => {
            // An HTTP entry carries an empty `command` and `args` (what
            // Jan's older releases require): they say nothing.
            if e.contains_key("url") && e.get("command").is_some_and(|c| c == "") {
                e.remove("command");
                if e.get("args")
                    .is_some_and(|a| a.as_array().is_some_and(Vec::is_empty))
                {
                    e.remove("args");
                }
            }
            if let Some(active) = e.remove("active") {
                match active {
                    Value::Bool(on) => {
                        e.entry("enabled").or_insert(Value::Bool(on));
                    }
                    other => return Err(format!("`active` is {other} instead of true/false")),
                }
            }
            None
        }
        FileFormat::Continue => {
            e.remove("name");
            if let Some(options) = e.remove("requestOptions") {
                let mut options = match options {
                    Value::Object(map) => map,
                    _ => return Err("`requestOptions` is not an object".into()),
                };
                if let Some(headers) = options.remove("headers") {
                    e.insert("headers".into(), headers);
                }
                if !options.is_empty() {
                    let keys: Vec<&String> = options.keys().collect();
                    warnings.push(format!(
                        "ignored `requestOptions` {keys:?}: no Switchboard equivalent"
                    ));
                }
            }
            None
        }
        FileFormat::Goose => goose(&mut e, &mut warnings)?,
        _ => return Ok(None),
    };
    Ok(Some(Normal {
        entry: Value::Object(e),
        warnings,
        call_secs,
    }))
}

fn goose(e: &mut Map<String, Value>, warnings: &mut Vec<String>) -> Result<Option<u64>, String> {
    let kind = e
        .remove("type")
        .and_then(|t| t.as_str().map(str::to_string));
    match kind.as_deref() {
        None | Some("stdio") => {}
        Some("streamable_http") => {
            e.insert("type".into(), json!("http"));
        }
        Some("sse") => {
            e.insert("type".into(), json!("sse"));
        }
        Some(other @ ("builtin" | "platform" | "frontend" | "inline_python")) => {
            return Err(format!(
                "is a Goose {other} extension, which runs inside Goose, not an MCP server \
                 Switchboard can start"
            ));
        }
        Some(other) => return Err(format!("unsupported Goose extension `type` {other:?}")),
    }
    rename(e, "cmd", "command");
    rename(e, "envs", "env");
    rename(e, "uri", "url");
    for key in ["name", "display_name", "bundled"] {
        e.remove(key);
    }
    if let Some(Value::Array(keys)) = e.remove("env_keys")
        && !keys.is_empty()
    {
        let names: Vec<String> = keys
            .iter()
            .filter_map(|k| k.as_str().map(str::to_string))
            .collect();
        warnings.push(format!(
            "`env_keys` ({}) came from Goose's secret store: set them in `env` by hand (or \
             with `switchboard secret set`)",
            names.join(", ")
        ));
    }
    if let Some(Value::Array(tools)) = e.remove("available_tools")
        && !tools.is_empty()
    {
        warnings.push(
            "ignored `available_tools`: Switchboard has no tool allow-list; hide tools with \
             `disabledTools` instead"
                .into(),
        );
    }
    seconds(e, "timeout", 1.0)
}

fn rename(e: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(v) = e.remove(from) {
        e.insert(to.into(), v);
    }
}

fn approve_warning(key: &str, list: &Value, warnings: &mut Vec<String>) {
    let names: Vec<&str> = list
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !names.is_empty() {
        warnings.push(format!(
            "`{key}` ({}) is not carried over: the client approves calls itself, and still \
             does for the tools it reaches through Switchboard",
            names.join(", ")
        ));
    }
}

/// Removes `key` and reads it as a duration (`per_second` units a second).
fn seconds(e: &mut Map<String, Value>, key: &str, per_second: f64) -> Result<Option<u64>, String> {
    match e.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(v) if v > 0.0 => Ok(Some(((v / per_second).ceil() as u64).max(1))),
            _ => Err(format!("`{key}` is not a positive number")),
        },
        Some(other) => Err(format!("`{key}` is {other} instead of a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn normal(format: FileFormat, raw: Value) -> Normal {
        normalize(format, &raw).unwrap().unwrap()
    }

    #[test]
    fn opencode_command_lists_become_command_and_args() {
        let n = normal(
            FileFormat::OpenCode,
            json!({"type": "local", "command": ["npx", "-y", "x"], "environment": {"K": "v"},
                   "enabled": false, "timeout": 2500}),
        );
        assert_eq!(
            n.entry,
            json!({"enabled": false, "command": "npx", "args": ["-y", "x"], "env": {"K": "v"}})
        );
        assert_eq!(n.call_secs, Some(3));
    }

    #[test]
    fn goose_keys_and_types() {
        let n = normal(
            FileFormat::Goose,
            json!({"name": "gh", "type": "streamable_http", "uri": "https://h/mcp",
                   "enabled": true, "timeout": 300, "env_keys": ["TOKEN"]}),
        );
        assert_eq!(
            n.entry,
            json!({"enabled": true, "type": "http", "url": "https://h/mcp"})
        );
        assert_eq!(n.call_secs, Some(300));
        assert_eq!(n.warnings.len(), 1);
        let err = normalize(
            FileFormat::Goose,
            &json!({"type": "builtin", "name": "developer"}),
        )
        .unwrap_err();
        assert!(err.contains("builtin"), "{err}");
    }

    #[test]
    fn zed_old_command_object_and_jan_active() {
        let n = normal(
            FileFormat::Zed,
            json!({"source": "custom", "command": {"path": "uvx", "args": ["a"], "env": {}}}),
        );
        assert_eq!(n.entry, json!({"command": "uvx", "args": ["a"], "env": {}}));
        let j = normal(FileFormat::Jan, json!({"command": "x", "active": false}));
        assert_eq!(j.entry, json!({"command": "x", "enabled": false}));
        // An HTTP entry as Jan writes it: the empty command and args go.
        let h = normal(
            FileFormat::Jan,
            json!({"type": "http", "url": "https://x/mcp", "command": "", "args": [], "active": true}),
        );
        assert_eq!(
            h.entry,
            json!({"type": "http", "url": "https://x/mcp", "enabled": true})
        );
    }
}
