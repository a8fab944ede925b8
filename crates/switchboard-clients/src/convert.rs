//! Turning one client's server entry into a Switchboard server entry.
//!
//! Switchboard's entry is `{"command", "args", "env", "cwd"}` for a stdio
//! server or `{"url", "headers"}` for a remote one (`"type": "sse"` added for a
//! legacy SSE server), plus `enabled`, `disabledTools`, `timeouts` and
//! `description` when the client said something equivalent. Every key of the
//! client's entry is either used or named in a warning; an entry Switchboard
//! could not load is refused with the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::FileFormat;

/// A converted entry, ready for Switchboard's `mcpServers`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Converted {
    pub entry: Value,
    pub key: TransportKey,
    pub warnings: Vec<String>,
}

/// The fields that decide which server an entry reaches. Two entries with the
/// same key are the same server, whatever they are called. The SSE marker
/// (`type`/`transport: sse`) is not part of it: the same URL is the same
/// server, whichever transport reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum TransportKey {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    Remote {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// The transport key of an entry already in Switchboard's format.
pub(crate) fn switchboard_key(entry: &Value) -> Option<TransportKey> {
    let obj = entry.as_object()?;
    let strings = |key: &str| -> BTreeMap<String, String> {
        obj.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), scalar_string(v).unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(command) = obj.get("command").and_then(Value::as_str) {
        return Some(TransportKey::Stdio {
            command: command.to_string(),
            args: obj
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(scalar_string).collect())
                .unwrap_or_default(),
            env: strings("env"),
            cwd: obj.get("cwd").and_then(Value::as_str).map(str::to_string),
        });
    }
    let url = obj.get("url").and_then(Value::as_str)?;
    Some(TransportKey::Remote {
        url: url.to_string(),
        headers: strings("headers"),
    })
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_object(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The keys of one entry, remembering which ones were used.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    used: BTreeSet<&'static str>,
}

impl<'a> Fields<'a> {
    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.insert(key);
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn str(&mut self, key: &'static str) -> Result<Option<&'a str>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(format!(
                "`{key}` is {} instead of a string",
                kind_name(other)
            )),
        }
    }

    fn bool(&mut self, key: &'static str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(format!(
                "`{key}` is {} instead of true/false",
                kind_name(other)
            )),
        }
    }

    fn strings(&mut self, key: &'static str) -> Result<Vec<String>, String> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(format!(
                        "`{key}` holds {} where a string belongs",
                        kind_name(other)
                    )),
                })
                .collect(),
            Some(other) => Err(format!("`{key}` is {} instead of a list", kind_name(other))),
        }
    }

    /// An object of string values, in file order; numbers and booleans are
    /// taken as their text.
    fn string_map(&mut self, key: &'static str) -> Result<Vec<(String, String)>, String> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    scalar_string(v).map(|s| (k.clone(), s)).ok_or_else(|| {
                        format!("`{key}.{k}` is {} instead of a string", kind_name(v))
                    })
                })
                .collect(),
            Some(other) => Err(format!(
                "`{key}` is {} instead of an object",
                kind_name(other)
            )),
        }
    }

    fn seconds(&mut self, key: &'static str, per_second: f64) -> Result<Option<u64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(v) if v >= 0.0 => Ok(Some((v / per_second).ceil() as u64)),
                _ => Err(format!("`{key}` is not a positive number")),
            },
            Some(other) => Err(format!(
                "`{key}` is {} instead of a number",
                kind_name(other)
            )),
        }
    }

    fn unused(&self) -> Vec<&'a String> {
        self.obj
            .keys()
            .filter(|k| !self.used.contains(k.as_str()))
            .collect()
    }
}

enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<String>,
    },
    Remote {
        url: String,
        headers: Vec<(String, String)>,
        sse: bool,
    },
}

/// Converts `raw`, an entry of a file in `format`. `disabled_by_list` says the
/// client switched it off outside the entry (Gemini's `mcp.excluded`, Claude
/// Code's `disabledMcpServers`).
pub(crate) fn convert(
    format: FileFormat,
    raw: &Value,
    disabled_by_list: bool,
) -> Result<Converted, String> {
    let Some(obj) = raw.as_object() else {
        return Err(format!("is {} instead of an object", kind_name(raw)));
    };
    if let Some(normal) = super::dialect::normalize(format, raw)? {
        let mut converted = convert(FileFormat::McpServers, &normal.entry, disabled_by_list)?;
        converted.warnings.splice(0..0, normal.warnings);
        if let (Some(secs), Value::Object(entry)) = (normal.call_secs, &mut converted.entry) {
            entry.insert("timeouts".into(), json!({ "callSecs": secs }));
        }
        return Ok(converted);
    }
    let mut f = Fields {
        obj,
        used: BTreeSet::new(),
    };
    let mut warnings = Vec::new();
    let mut transport = transport(format, &mut f, &mut warnings)?;
    placeholders(&transport, &mut warnings);
    // `${NAME}` references stay for the hub to expand; other `$` forms are
    // escaped so they reach the server as the client's file wrote them.
    escape_transport(&mut transport);

    let mut entry = Map::new();
    let key = match &transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            entry.insert("command".into(), json!(command));
            if !args.is_empty() {
                entry.insert("args".into(), json!(args));
            }
            if !env.is_empty() {
                entry.insert("env".into(), string_object(env));
            }
            if let Some(cwd) = cwd {
                entry.insert("cwd".into(), json!(cwd));
            }
            // The client ran it unsandboxed: give back what its command says it needs.
            let expose = switchboard_core::suggest_sandbox_expose(command, args);
            if !expose.is_empty() {
                warnings.push(format!(
                    "its command suggests it needs {}: given back with `sandbox.expose` (the \
                     sandbox hides secret places from servers; remove the entry to hide them)",
                    expose.join(", ")
                ));
                entry.insert("sandbox".into(), json!({ "expose": expose }));
            }
            TransportKey::Stdio {
                command: command.clone(),
                args: args.clone(),
                env: env.iter().cloned().collect(),
                cwd: cwd.clone(),
            }
        }
        Transport::Remote { url, headers, sse } => {
            if *sse {
                entry.insert("type".into(), json!("sse"));
            }
            entry.insert("url".into(), json!(url));
            if !headers.is_empty() {
                entry.insert("headers".into(), string_object(headers));
            }
            TransportKey::Remote {
                url: url.clone(),
                headers: headers.iter().cloned().collect(),
            }
        }
    };

    // Switched off in the client: stays off in Switchboard.
    let enabled = match format {
        FileFormat::Codex => f.bool("enabled")?,
        _ => match (f.bool("enabled")?, f.bool("disabled")?) {
            (Some(e), _) => Some(e),
            (None, Some(d)) => Some(!d),
            (None, None) => None,
        },
    };
    if disabled_by_list || enabled == Some(false) {
        entry.insert("enabled".into(), json!(false));
    }

    let disabled_tools = match format {
        FileFormat::Codex => f.strings("disabled_tools")?,
        FileFormat::Gemini => f.strings("excludeTools")?,
        _ => f.strings("disabledTools")?,
    };
    if !disabled_tools.is_empty() {
        entry.insert("disabledTools".into(), json!(disabled_tools));
    }
    let allow_list = match format {
        FileFormat::Codex => "enabled_tools",
        FileFormat::Gemini => "includeTools",
        _ => "enabledTools",
    };
    if !f.strings(allow_list)?.is_empty() {
        warnings.push(format!(
            "ignored `{allow_list}`: Switchboard has no tool allow-list; hide tools with \
             `disabledTools` instead"
        ));
    }

    let (startup, call) = match format {
        FileFormat::Codex => (
            f.seconds("startup_timeout_sec", 1.0)?,
            f.seconds("tool_timeout_sec", 1.0)?,
        ),
        FileFormat::Gemini => (None, f.seconds("timeout", 1000.0)?),
        _ => (None, None),
    };
    let mut timeouts = Map::new();
    if let Some(s) = startup {
        timeouts.insert("startupSecs".into(), json!(s.max(1)));
    }
    if let Some(s) = call {
        timeouts.insert("callSecs".into(), json!(s.max(1)));
    }
    if !timeouts.is_empty() {
        entry.insert("timeouts".into(), Value::Object(timeouts));
    }
    if let Some(description) = f.str("description")? {
        entry.insert("description".into(), json!(description));
    }

    for key in f.unused() {
        warnings.push(format!("ignored `{key}`: no Switchboard equivalent"));
    }
    let entry = Value::Object(entry);
    validate(&entry)?;
    Ok(Converted {
        entry,
        key,
        warnings,
    })
}

fn transport(
    format: FileFormat,
    f: &mut Fields<'_>,
    warnings: &mut Vec<String>,
) -> Result<Transport, String> {
    // `transport` is Switchboard's own key (a Switchboard-format file); it
    // must agree with `type` on whether the server is a legacy SSE one.
    let kind = match (f.str("type")?, f.str("transport")?) {
        (Some(t), Some(tr)) if (t == "sse") != (tr == "sse") => {
            return Err(format!(
                "`type` {t:?} and `transport` {tr:?} disagree; keep one"
            ));
        }
        (t, tr) => t.or(tr),
    };
    let command = f.str("command")?;
    // (url, sse?) — `None` for sse means "the `type` decides".
    let url: Option<(&str, Option<bool>)> = match format {
        FileFormat::Windsurf => match (f.str("serverUrl")?, f.str("url")?) {
            (Some(a), Some(b)) if a != b => {
                return Err("has different `serverUrl` and `url`; keep one".into());
            }
            (Some(u), _) | (None, Some(u)) => Some((u, None)),
            (None, None) => None,
        },
        FileFormat::Gemini => match (f.str("httpUrl")?, f.str("url")?) {
            (Some(http), sse) => {
                if sse.is_some() {
                    warnings.push(
                        "ignored `url`: Gemini CLI prefers `httpUrl` when both are set".into(),
                    );
                }
                Some((http, Some(false)))
            }
            (None, Some(sse)) => Some((sse, Some(kind.is_none()))),
            (None, None) => None,
        },
        _ => f.str("url")?.map(|u| (u, None)),
    };
    match (command, url) {
        (Some(_), Some(_)) if format == FileFormat::Gemini => {
            warnings.push("ignored `command`: Gemini CLI prefers the URL when both are set".into());
            f.used.insert("args");
            f.used.insert("env");
            f.used.insert("cwd");
            remote(format, f, kind, url, warnings)
        }
        (Some(_), Some(_)) => {
            Err("has both `command` (a local server) and a URL (a remote one); keep one".into())
        }
        (None, None) => Err(match format {
            FileFormat::Windsurf => "needs `command` or `serverUrl`".into(),
            FileFormat::Gemini => "needs `command`, `httpUrl` or `url`".into(),
            _ => "needs `command` (a local server) or `url` (a remote one)".into(),
        }),
        (Some(command), None) => {
            if let Some(kind) = kind.filter(|k| *k != "stdio") {
                return Err(format!("has `command` but `type` is {kind:?}"));
            }
            if command.trim().is_empty() {
                return Err("`command` is empty".into());
            }
            let args = f.strings("args")?;
            let env = f.string_map("env")?;
            let cwd = f.str("cwd")?.map(str::to_string);
            match format {
                FileFormat::Codex => {
                    let forwarded = f.strings("env_vars")?;
                    if !forwarded.is_empty() {
                        warnings.push(format!(
                            "`env_vars` ({}) are not copied: the server gets them only if \
                             Switchboard itself runs with them set",
                            forwarded.join(", ")
                        ));
                    }
                }
                FileFormat::VsCode => {
                    if let Some(file) = f.str("envFile")? {
                        warnings.push(format!(
                            "`envFile` {file:?} is not read: copy its variables into `env`"
                        ));
                    }
                }
                _ => {}
            }
            Ok(Transport::Stdio {
                command: command.to_string(),
                args,
                env,
                cwd,
            })
        }
        (None, Some(_)) => remote(format, f, kind, url, warnings),
    }
}

fn remote(
    format: FileFormat,
    f: &mut Fields<'_>,
    kind: Option<&str>,
    url: Option<(&str, Option<bool>)>,
    warnings: &mut Vec<String>,
) -> Result<Transport, String> {
    let Some((url, sse_by_key)) = url else {
        return Err("needs a URL".into());
    };
    let sse = match (kind, sse_by_key) {
        (Some("sse"), _) => true,
        (Some("http" | "streamable-http" | "streamableHttp" | "streamable_http"), _) => false,
        (None, by_key) => by_key.unwrap_or(false),
        (Some("stdio"), _) => return Err("has a URL but `type` is \"stdio\"".into()),
        (Some(other), _) => return Err(format!("unsupported transport `type` {other:?}")),
    };
    let headers = match format {
        FileFormat::Codex => {
            let mut headers = f.string_map("http_headers")?;
            for (name, var) in f.string_map("env_http_headers")? {
                warnings.push(format!(
                    "header {name:?} took its value from ${var} in Codex; Switchboard cannot read \
                     header values from the environment: set it in `headers` by hand"
                ));
                headers.retain(|(k, _)| *k != name);
            }
            if let Some(var) = f.str("bearer_token_env_var")? {
                warnings.push(format!(
                    "the bearer token came from ${var} in Codex; Switchboard cannot read it from \
                     the environment: add an `Authorization` header by hand, or leave it out to \
                     sign in with OAuth"
                ));
            }
            headers
        }
        _ => f.string_map("headers")?,
    };
    if !sse && kind.is_none() && sse_by_key.is_none() && looks_like_sse(url) {
        warnings.push(
            "the URL ends in /sse but the client does not say which transport it speaks: it is \
             imported as Streamable HTTP; if it is a legacy SSE server, add \
             `\"transport\": \"sse\"`"
                .into(),
        );
    }
    Ok(Transport::Remote {
        url: url.to_string(),
        headers,
        sse,
    })
}

/// Warns about `${...}` and `$NAME` placeholders that clients expand and
/// Whether a URL's path ends in `/sse`, the usual address of a legacy SSE
/// server's stream.
fn looks_like_sse(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.trim_end_matches('/').ends_with("/sse")
}

/// Switchboard passes on literally (`${input:..}`, `${env:..}`, `$NAME`);
/// `${NAME}` and `${NAME:-default}` are kept unwarned: the hub expands them.
fn placeholders(t: &Transport, warnings: &mut Vec<String>) {
    let mut found: Vec<String> = Vec::new();
    let mut scan = |s: &str| {
        let mut rest = s;
        while let Some(at) = rest.find('$') {
            let tail = &rest[at..];
            let end = if tail[1..].starts_with('{') {
                tail.find('}').map_or(tail.len(), |e| e + 1)
            } else if tail[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                1 + tail[1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len() - 1)
            } else {
                1
            };
            // Switchboard expands `${NAME}` and `${NAME:-default}` itself
            // (and `$$` is its escape): those stay as written, unwarned.
            let own = tail.starts_with("$$")
                || (tail.starts_with("${")
                    && switchboard_core::config::expand_vars(
                        &tail[..end],
                        &switchboard_core::config::Vars::ShapeOnly,
                    )
                    .is_ok());
            if end > 1 && !own {
                found.push(tail[..end].to_string());
            }
            rest = &tail[end..];
        }
    };
    match t {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            scan(command);
            args.iter().for_each(|a| scan(a));
            env.iter().for_each(|(_, v)| scan(v));
            if let Some(cwd) = cwd {
                scan(cwd);
            }
        }
        Transport::Remote { url, headers, .. } => {
            scan(url);
            headers.iter().for_each(|(_, v)| scan(v));
        }
    }
    if !found.is_empty() {
        found.sort_unstable();
        found.dedup();
        warnings.push(format!(
            "contains {} which the client expands but Switchboard passes on as written: \
             replace with the real value",
            found.join(", ")
        ));
    }
}

/// Every value of `t` through [`switchboard_core::config::escape_foreign`].
fn escape_transport(t: &mut Transport) {
    let escape = |text: &mut String| {
        if text.contains('$') {
            *text = switchboard_core::config::escape_foreign(text);
        }
    };
    match t {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            escape(command);
            args.iter_mut().for_each(escape);
            env.iter_mut().for_each(|(_, v)| escape(v));
            if let Some(cwd) = cwd {
                escape(cwd);
            }
        }
        Transport::Remote { url, headers, .. } => {
            escape(url);
            headers.iter_mut().for_each(|(_, v)| escape(v));
        }
    }
}

/// Refuses entries Switchboard's own config loader would refuse.
fn validate(entry: &Value) -> Result<(), String> {
    let text = json!({ "mcpServers": { "imported": entry } }).to_string();
    match switchboard_core::config::load(
        switchboard_core::config::Source::text(&text, Path::new("import")).shape_only(),
    ) {
        Ok(_) => Ok(()),
        Err(switchboard_core::ConfigError::Invalid { message, .. }) => Err(message
            .strip_prefix("server \"imported\": ")
            .unwrap_or(&message)
            .to_string()),
        Err(other) => Err(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn codex_http_server_keeps_headers_and_timeouts() {
        let raw = json!({
            "url": "https://h/mcp", "http_headers": {"X-A": "1"},
            "tool_timeout_sec": 12.5, "enabled": false
        });
        let c = convert(FileFormat::Codex, &raw, false).unwrap();
        assert_eq!(
            c.entry,
            json!({"url": "https://h/mcp", "headers": {"X-A": "1"}, "enabled": false,
                   "timeouts": {"callSecs": 13}})
        );
        assert_eq!(c.warnings, Vec::<String>::new());
    }

    #[test]
    fn gemini_url_is_sse_and_http_url_is_streamable() {
        let sse = convert(FileFormat::Gemini, &json!({"url": "http://h/sse"}), false).unwrap();
        assert_eq!(sse.entry, json!({"type": "sse", "url": "http://h/sse"}));
        let http = convert(
            FileFormat::Gemini,
            &json!({"httpUrl": "http://h/mcp"}),
            true,
        )
        .unwrap();
        assert_eq!(http.entry, json!({"url": "http://h/mcp", "enabled": false}));
    }

    #[test]
    fn malformed_entries_get_reasons() {
        let reason = |v: Value| convert(FileFormat::McpServers, &v, false).unwrap_err();
        assert_eq!(reason(json!("npx")), "is a string instead of an object");
        assert_eq!(
            reason(json!({"args": []})),
            "needs `command` (a local server) or `url` (a remote one)"
        );
        assert_eq!(
            reason(json!({"command": "x", "args": "y"})),
            "`args` is a string instead of a list"
        );
        assert_eq!(
            reason(json!({"type": "ws", "url": "http://h"})),
            "unsupported transport `type` \"ws\""
        );
        assert!(reason(json!({"url": "ftp://h"})).contains("http://"));
    }

    #[test]
    fn sse_entries_stay_sse_in_every_format_that_marks_them() {
        let sse = json!({"type": "sse", "url": "https://h/sse", "headers": {"X-K": "1"}});
        for format in [
            FileFormat::ClaudeCode,
            FileFormat::VsCode,
            FileFormat::McpServers,
        ] {
            let c = convert(format, &sse, false).unwrap();
            assert_eq!(c.entry, sse, "{format:?}");
            assert_eq!(c.warnings, Vec::<String>::new(), "{format:?}");
        }
        // Switchboard's own key, in a Switchboard-format file.
        let own = convert(
            FileFormat::McpServers,
            &json!({"transport": "sse", "url": "https://h/sse"}),
            false,
        )
        .unwrap();
        assert_eq!(own.entry, json!({"type": "sse", "url": "https://h/sse"}));
        assert_eq!(own.warnings, Vec::<String>::new());
        let streamable = convert(
            FileFormat::ClaudeCode,
            &json!({"type": "http", "url": "https://h/mcp"}),
            false,
        )
        .unwrap();
        assert_eq!(streamable.entry, json!({"url": "https://h/mcp"}));
        let clash = convert(
            FileFormat::McpServers,
            &json!({"type": "http", "transport": "sse", "url": "https://h/sse"}),
            false,
        )
        .unwrap_err();
        assert_eq!(
            clash,
            "`type` \"http\" and `transport` \"sse\" disagree; keep one"
        );
    }

    #[test]
    fn an_unmarked_url_ending_in_sse_is_streamable_with_a_hint() {
        // Cursor and Windsurf write no transport: the hub cannot know, so it
        // does not guess, and says what to add.
        for (format, raw) in [
            (FileFormat::McpServers, json!({"url": "https://h/sse"})),
            (
                FileFormat::Windsurf,
                json!({"serverUrl": "https://h/sse/?k=1"}),
            ),
        ] {
            let c = convert(format, &raw, false).unwrap();
            assert!(c.entry.get("type").is_none(), "{format:?}: {}", c.entry);
            assert_eq!(c.warnings.len(), 1, "{format:?}");
            assert!(
                c.warnings[0].contains("\"transport\": \"sse\""),
                "{:?}",
                c.warnings
            );
        }
        let plain = convert(
            FileFormat::McpServers,
            &json!({"url": "https://h/mcp"}),
            false,
        )
        .unwrap();
        assert_eq!(plain.warnings, Vec::<String>::new());
    }

    #[test]
    fn keys_ignore_names_and_sse_flag() {
        let a = switchboard_key(&json!({"type": "sse", "url": "http://h"})).unwrap();
        let b = switchboard_key(&json!({"url": "http://h", "headers": {}})).unwrap();
        assert_eq!(a, b);
    }
}
