//! Process-level test hooks: scripted exits and a grandchild process.
//!
//! These simulate broken upstreams (`--exit-at-start`, `--exit-after-ms`) and
//! `npx → node`-style process trees (`--spawn-grandchild`), so tests can check
//! Switchboard's restart policy and that it kills whole process groups.

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::Duration,
};

use anyhow::Context as _;

use crate::{files, stderr_line};

/// Exit code used by `--exit-after-ms`.
pub const EXIT_AFTER_CODE: i32 = 4;

/// Exits at once with `code`, saying so on stderr.
pub fn exit_at_start(code: i32) -> ! {
    stderr_line(format_args!("fixture exiting at start with code {code}"));
    std::process::exit(code)
}

/// Exits 1 naming `name` when that environment variable is not set or
/// empty, as a server that checks for its key before it starts does.
pub fn require_env(name: &str) {
    if std::env::var_os(name).is_none_or(|v| v.is_empty()) {
        stderr_line(format_args!("Error: {name} is not set; exiting"));
        std::process::exit(1);
    }
}

/// Exits the process with [`EXIT_AFTER_CODE`] once `delay` has passed.
pub fn exit_after(delay: Duration) {
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        stderr_line(format_args!(
            "fixture exiting after {} ms with code {EXIT_AFTER_CODE}",
            delay.as_millis()
        ));
        std::process::exit(EXIT_AFTER_CODE)
    });
}

/// Starts `sleep 1000` in this process's own process group (no new group, no
/// `setsid`) and writes its pid to `pidfile`.
///
/// Its standard streams are `/dev/null`, so it cannot hold the fixture's
/// protocol or stderr pipes open. The caller keeps the returned [`Child`] for
/// the life of the process and never waits on it: when the fixture dies, the
/// grandchild lives on unless its process group is killed.
pub fn spawn_grandchild(pidfile: &Path) -> anyhow::Result<Child> {
    let child = Command::new("sleep")
        .arg("1000")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("spawning the grandchild `sleep 1000`")?;
    files::write_atomic(pidfile, format!("{}\n", child.id()).as_bytes())
        .context("writing the grandchild pid file")?;
    Ok(child)
}
