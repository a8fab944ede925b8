//! Which transport a server entry with `url` asks for: its `transport` key
//! (`streamable-http`, `http`, `sse`) and the `type` key other clients write
//! (`"type": "sse"` in Claude Code's files). The loader (`load.rs`) calls it;
//! the result is the `sse` flag of the HTTP transport.

/// Whether a server with `url` uses the legacy HTTP+SSE transport, from its
/// `type` (other clients' key) and `transport`; they must agree when both are set.
pub(super) fn remote_is_sse(kind: Option<&str>, transport: Option<&str>) -> Result<bool, String> {
    fn parse(key: &str, value: Option<&str>) -> Result<Option<bool>, String> {
        match value {
            None => Ok(None),
            Some("sse") => Ok(Some(true)),
            Some("http" | "streamable-http" | "streamableHttp") => Ok(Some(false)),
            Some("stdio") => Err(format!("has `url` but `{key}` is \"stdio\"")),
            Some(other) => Err(format!(
                "unknown `{key}` {other:?}; a server with `url` takes \"streamable-http\" \
                 (or \"http\") or \"sse\" (the legacy HTTP+SSE transport)"
            )),
        }
    }
    match (parse("type", kind)?, parse("transport", transport)?) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "`type` {:?} and `transport` {:?} disagree; keep one",
            kind.unwrap_or_default(),
            transport.unwrap_or_default()
        )),
        (a, b) => Ok(b.or(a).unwrap_or(false)),
    }
}
