//! The `probe` behaviour: a server that tries what a sandbox should refuse —
//! reading or writing a path, listing a folder, connecting to a loopback
//! port, reading an environment variable — and says what happened, so a
//! test can tell the sandbox's refusal from a probe that does not work.
//!
//! A success is a text result (`read: <contents>`, `wrote <path>`, ...); a
//! failure is an `isError` result naming the path and the system's error, and
//! the same words on stderr, as a real server would log them.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

/// How long a `connect` probe waits.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs the probe the arguments ask for.
pub fn call(arguments: &JsonObject) -> CallToolResult {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or("");
    let outcome = match text("op") {
        "read" => std::fs::read_to_string(text("path"))
            .map(|contents| format!("read: {contents}"))
            .map_err(|err| format!("open '{}': {err}", text("path"))),
        "write" => std::fs::write(text("path"), "written by the probe")
            .map(|()| format!("wrote {}", text("path")))
            .map_err(|err| format!("write '{}': {err}", text("path"))),
        "list" => std::fs::read_dir(text("path"))
            .map(|entries| {
                let mut names: Vec<String> = entries
                    .filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                format!("list: {}", names.join(","))
            })
            .map_err(|err| format!("scandir '{}': {err}", text("path"))),
        "connect" => {
            let port = arguments
                .get("port")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(0);
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
                .map(|_| format!("connected to {addr}"))
                .map_err(|err| format!("connect {addr}: {err}"))
        }
        "env" => Ok(match std::env::var_os(text("name")) {
            Some(_) => format!("{} is set", text("name")),
            None => format!("{} is unset", text("name")),
        }),
        other => Err(format!("unknown probe {other:?}")),
    };
    match outcome {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(message) => {
            crate::stderr_line(format_args!("probe failed: {message}"));
            CallToolResult::error(vec![ContentBlock::text(message)])
        }
    }
}

/// `--read-at-start FILE`: reads the file or exits 1 naming it, the way a
/// server that cannot load its credentials dies.
pub fn read_at_start(path: &Path) {
    if let Err(err) = std::fs::read(path) {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(
            stderr,
            "Error: cannot load credentials, open '{}': {err}",
            path.display()
        );
        let _ = stderr.flush();
        std::process::exit(1);
    }
}
