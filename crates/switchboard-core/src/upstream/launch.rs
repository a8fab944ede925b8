//! Finding the program a stdio server's `command` names, the way a terminal
//! would, when the hub was started from a desktop (Dock, Start menu, a
//! launcher) with a minimal PATH.
//!
//! - A bare name (`npx`) is looked up on the PATH the server gets (its `env`'s
//!   `PATH`, else the hub's). When it is not there, on macOS and Linux the
//!   user's login shell is asked for its PATH once (`$SHELL -lc`, else
//!   `/bin/sh`, with a [`LOGIN_SHELL_TIMEOUT`]); the answer is cached for the
//!   life of the process, and concurrent first spawns share the one query.
//!   A command found there is started by its full path, and that PATH is
//!   given to the server (so `npx`'s `#!/usr/bin/env node` finds `node`)
//!   unless the server's `env` sets `PATH`.
//! - On Windows a name is tried with each extension of `PATHEXT` (`npx` →
//!   `npx.cmd`) plus `.ps1`. A `.cmd`/`.bat` is started directly: Rust's
//!   standard library (1.77.2 and later) runs it through `cmd.exe /d /c` and
//!   escapes its arguments, refusing ones it cannot pass safely, which is
//!   safer than quoting for `cmd.exe` here. A `.ps1` runs through
//!   `powershell -NoProfile -ExecutionPolicy Bypass -File`.
//!
//! The lookup itself ([`find_program`], [`plan`]) is pure and tested on every
//! platform, Windows rules included; only reading the environment, asking the
//! shell and checking files are platform glue.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the login shell may take to print its PATH.
#[cfg_attr(not(unix), allow(dead_code))] // only Unix has a login shell to ask
pub(super) const LOGIN_SHELL_TIMEOUT: Duration = Duration::from_secs(5);

/// What to start for a server's `command`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Launch {
    /// The program to start.
    pub(super) program: OsString,
    /// Arguments that go before the server's own (the `.ps1` runner's).
    pub(super) prefix: Vec<OsString>,
    /// A PATH to give the server (the login shell's), if it needs one.
    pub(super) path: Option<OsString>,
}

impl Launch {
    fn plain(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            prefix: Vec::new(),
            path: None,
        }
    }
}

/// The rules of one platform, so that Windows rules are testable anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rules {
    Unix,
    Windows,
}

impl Rules {
    pub(super) const fn current() -> Self {
        if cfg!(windows) {
            Self::Windows
        } else {
            Self::Unix
        }
    }

    fn path_separator(self) -> char {
        match self {
            Self::Unix => ':',
            Self::Windows => ';',
        }
    }

    /// Whether `command` names a path rather than a program to look up.
    fn is_path(self, command: &str) -> bool {
        match self {
            Self::Unix => command.contains('/'),
            Self::Windows => command.contains(['/', '\\', ':']),
        }
    }
}

/// The extensions tried for a name on Windows: `PATHEXT`'s (or the usual
/// `.com;.exe;.bat;.cmd`), then `.ps1`.
pub(super) fn extensions(pathext: Option<&str>) -> Vec<String> {
    let mut exts: Vec<String> = pathext
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(".COM;.EXE;.BAT;.CMD")
        .split(';')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| e.starts_with('.') && e.len() > 1)
        .collect();
    if !exts.iter().any(|e| e == ".ps1") {
        exts.push(".ps1".to_string());
    }
    exts
}

/// The files that would run for `name` in `dir`, in order of preference.
pub(super) fn candidates(rules: Rules, dir: &Path, name: &str, exts: &[String]) -> Vec<PathBuf> {
    match rules {
        Rules::Unix => vec![dir.join(name)],
        Rules::Windows => {
            let lower = name.to_ascii_lowercase();
            // A name with a known extension (`npx.cmd`) is tried as it is first.
            let mut out = Vec::new();
            if exts.iter().any(|e| lower.ends_with(e.as_str())) {
                out.push(dir.join(name));
            }
            out.extend(exts.iter().map(|e| dir.join(format!("{name}{e}"))));
            out
        }
    }
}

/// The first file `is_program` accepts for `name` on `path`.
pub(super) fn find_program(
    rules: Rules,
    name: &str,
    path: &str,
    exts: &[String],
    is_program: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    path.split(rules.path_separator())
        .filter(|dir| !dir.is_empty())
        .flat_map(|dir| candidates(rules, Path::new(dir.trim_matches('"')), name, exts))
        .find(|candidate| is_program(candidate))
}

/// How to start a program found at `found`: `.ps1` through PowerShell,
/// anything else directly (see the module doc for `.cmd`/`.bat`).
pub(super) fn runner(rules: Rules, found: PathBuf) -> Launch {
    let is_ps1 = rules == Rules::Windows
        && found
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ps1"));
    if is_ps1 {
        let mut prefix: Vec<OsString> = ["-NoProfile", "-ExecutionPolicy", "Bypass", "-File"]
            .iter()
            .map(OsString::from)
            .collect();
        prefix.push(found.into_os_string());
        Launch {
            program: "powershell".into(),
            prefix,
            path: None,
        }
    } else {
        Launch::plain(found)
    }
}

/// Where the lookup of a bare name stands: found, or to be retried on the
/// login shell's PATH.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Plan {
    Ready(Launch),
    AskLoginShell,
}

/// How to start `command` given the PATH the server gets (pure).
pub(super) fn plan(
    rules: Rules,
    command: &str,
    path: Option<&str>,
    pathext: Option<&str>,
    is_program: &dyn Fn(&Path) -> bool,
) -> Plan {
    let exts = extensions(pathext);
    if rules.is_path(command) {
        if rules == Rules::Windows {
            let as_path = Path::new(command);
            let (dir, name) = (
                as_path.parent().unwrap_or(Path::new("")),
                as_path
                    .file_name()
                    .and_then(OsStr::to_str)
                    .unwrap_or(command),
            );
            if let Some(found) = candidates(rules, dir, name, &exts)
                .into_iter()
                .find(|c| is_program(c))
            {
                return Plan::Ready(runner(rules, found));
            }
        }
        return Plan::Ready(Launch::plain(command));
    }
    match path.and_then(|p| find_program(rules, command, p, &exts, is_program)) {
        // On Unix the name is kept as it is: the program sees the same argv[0]
        // as from a terminal.
        Some(_) if rules == Rules::Unix => Plan::Ready(Launch::plain(command)),
        Some(found) => Plan::Ready(runner(rules, found)),
        None if rules == Rules::Unix => Plan::AskLoginShell,
        // Not found: let the system try (and report) it as written.
        None => Plan::Ready(Launch::plain(command)),
    }
}

/// Why a command could not be found anywhere; its text is the message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the command `{command}` was not found on PATH nor on the login shell's PATH{}", reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
pub(super) struct NotFound {
    command: String,
    /// Why the login shell gave no PATH, if it did not.
    reason: Option<String>,
}

/// What to start for `command`, with `server_path` the `PATH` the server's
/// `env` sets, if it does.
pub(super) async fn resolve(command: &str, server_path: Option<&str>) -> Result<Launch, NotFound> {
    let rules = Rules::current();
    let hub_path = std::env::var_os("PATH").map(|p| p.to_string_lossy().into_owned());
    let path = server_path.map(str::to_string).or(hub_path);
    let pathext = std::env::var("PATHEXT").ok();
    match plan(
        rules,
        command,
        path.as_deref(),
        pathext.as_deref(),
        &is_program,
    ) {
        Plan::Ready(launch) => Ok(launch),
        Plan::AskLoginShell => {
            let login = login_shell_path().await;
            let found = login.as_ref().ok().and_then(|login| {
                find_program(rules, command, login, &[], &is_program).map(|f| (f, login))
            });
            match found {
                Some((found, login)) => {
                    tracing::info!(command, program = %found.display(), "found on the login shell's PATH");
                    let mut launch = runner(rules, found);
                    if server_path.is_none() {
                        launch.path = Some(login.into());
                    }
                    Ok(launch)
                }
                None => Err(NotFound {
                    command: command.to_string(),
                    reason: login.as_ref().err().cloned(),
                }),
            }
        }
    }
}

/// Whether an environment variable named `name` is the PATH (its name is
/// case-insensitive on Windows).
pub(super) fn is_path_variable(name: &str) -> bool {
    if cfg!(windows) {
        name.eq_ignore_ascii_case("PATH")
    } else {
        name == "PATH"
    }
}

/// Whether `path` is a file this process could run.
pub(super) fn is_program(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The login shell's PATH, asked once per process.
static LOGIN_PATH: tokio::sync::OnceCell<Result<String, String>> =
    tokio::sync::OnceCell::const_new();

/// The login shell's PATH, or why there is none; the first caller asks the
/// shell, concurrent callers wait for that answer, later ones get it cached.
async fn login_shell_path() -> &'static Result<String, String> {
    LOGIN_PATH
        .get_or_init(|| async {
            let result = ask_login_shell().await;
            match &result {
                Ok(path) => tracing::info!(path = %path, "the login shell's PATH, used for commands not on the hub's PATH"),
                Err(reason) => tracing::warn!(%reason, "no PATH from the login shell"),
            }
            result
        })
        .await
}

/// Markers around the PATH in the shell's output (startup files may print
/// other things). Each is printed in two pieces, so that a shell echoing its
/// command line cannot produce it.
#[cfg_attr(not(unix), allow(dead_code))] // only Unix has a login shell to ask
const BEGIN: (&str, &str) = ("__SWITCHBOARD_PATH", "_BEGIN__");
#[cfg_attr(not(unix), allow(dead_code))] // only Unix has a login shell to ask
const END: (&str, &str) = ("__SWITCHBOARD_PATH", "_END__");

#[cfg(unix)]
async fn ask_login_shell() -> Result<String, String> {
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| s.starts_with('/'))
        .unwrap_or_else(|| "/bin/sh".to_string());
    let script = format!(
        "printf '%s%s%s%s%s' '{}' '{}' \"$PATH\" '{}' '{}'",
        BEGIN.0, BEGIN.1, END.0, END.1
    );
    let child = tokio::process::Command::new(&shell)
        .arg("-lc")
        .arg(script)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("the login shell {shell} could not be started: {err}"))?;
    let output = tokio::time::timeout(LOGIN_SHELL_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "the login shell {shell} did not answer within {}",
                crate::util::humanize(LOGIN_SHELL_TIMEOUT)
            )
        })?
        .map_err(|err| format!("the login shell {shell} failed: {err}"))?;
    parse_marked(&String::from_utf8_lossy(&output.stdout))
        .ok_or_else(|| format!("the login shell {shell} printed no PATH"))
}

#[cfg(not(unix))]
async fn ask_login_shell() -> Result<String, String> {
    Err("there is no login shell on this system".to_string())
}

/// The non-empty text between the markers in `output`.
#[cfg_attr(not(unix), allow(dead_code))] // only Unix has a login shell to ask
pub(super) fn parse_marked(output: &str) -> Option<String> {
    let begin = format!("{}{}", BEGIN.0, BEGIN.1);
    let end = format!("{}{}", END.0, END.1);
    let start = output.rfind(&begin)? + begin.len();
    let len = output[start..].find(&end)?;
    let path = output[start..start + len].trim();
    (!path.is_empty()).then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn files(list: &[&str]) -> impl Fn(&Path) -> bool {
        let set: BTreeSet<PathBuf> = list.iter().map(PathBuf::from).collect();
        move |p: &Path| set.contains(p)
    }

    #[test]
    fn unix_keeps_a_name_found_on_path_and_asks_the_shell_otherwise() {
        let exists = files(&["/usr/bin/node"]);
        assert_eq!(
            plan(Rules::Unix, "node", Some("/bin:/usr/bin"), None, &exists),
            Plan::Ready(Launch::plain("node"))
        );
        assert_eq!(
            plan(Rules::Unix, "npx", Some("/bin:/usr/bin"), None, &exists),
            Plan::AskLoginShell
        );
        assert_eq!(
            plan(Rules::Unix, "npx", None, None, &exists),
            Plan::AskLoginShell
        );
        // A path is never looked up.
        assert_eq!(
            plan(Rules::Unix, "./bin/npx", Some("/bin"), None, &exists),
            Plan::Ready(Launch::plain("./bin/npx"))
        );
    }

    #[test]
    fn finds_the_first_directory_in_order() {
        let exists = files(&["/b/tool", "/c/tool"]);
        assert_eq!(
            find_program(Rules::Unix, "tool", "/a::/b:/c", &[], &exists),
            Some(PathBuf::from("/b/tool"))
        );
    }

    #[test]
    fn windows_tries_pathext_then_ps1() {
        let exts = extensions(Some(".COM;.EXE;.BAT;.CMD"));
        assert_eq!(exts, [".com", ".exe", ".bat", ".cmd", ".ps1"]);
        assert_eq!(
            candidates(Rules::Windows, Path::new("C:/n"), "npx", &exts),
            ["npx.com", "npx.exe", "npx.bat", "npx.cmd", "npx.ps1"]
                .map(|n| Path::new("C:/n").join(n))
        );
        // An explicit known extension is tried as written first.
        assert_eq!(
            candidates(Rules::Windows, Path::new("C:/n"), "npx.CMD", &exts)[0],
            Path::new("C:/n").join("npx.CMD")
        );
        // No PATHEXT: the usual list.
        assert_eq!(extensions(None), exts);
        assert_eq!(extensions(Some(" ")), exts);
    }

    #[test]
    fn windows_resolves_shims_and_runs_ps1_through_powershell() {
        let exists = files(&["C:/node/npx.cmd", "C:/node/npx", "C:/tools/uvx.ps1"]);
        let path = Some("C:/empty;\"C:/node\";C:/tools");
        let Plan::Ready(npx) = plan(Rules::Windows, "npx", path, None, &exists) else {
            panic!("npx not resolved");
        };
        // The extensionless `npx` (a shell script for Git Bash) is skipped.
        assert_eq!(npx, Launch::plain(Path::new("C:/node").join("npx.cmd")));
        let Plan::Ready(uvx) = plan(Rules::Windows, "uvx", path, None, &exists) else {
            panic!("uvx not resolved");
        };
        assert_eq!(uvx.program, "powershell");
        assert_eq!(
            uvx.prefix,
            [
                OsString::from("-NoProfile"),
                "-ExecutionPolicy".into(),
                "Bypass".into(),
                "-File".into(),
                Path::new("C:/tools").join("uvx.ps1").into_os_string()
            ]
        );
        // A path without extension gets one too.
        let Plan::Ready(direct) = plan(Rules::Windows, "C:/node/npx", None, None, &exists) else {
            panic!("path not resolved");
        };
        assert_eq!(direct.program, Path::new("C:/node").join("npx.cmd"));
        // Not found: started as written, so the system reports it.
        assert_eq!(
            plan(Rules::Windows, "nothere", path, None, &exists),
            Plan::Ready(Launch::plain("nothere"))
        );
    }

    #[test]
    fn the_path_is_read_between_markers() {
        let out = "Welcome!\n__SWITCHBOARD_PATH_BEGIN__/opt/x:/usr/bin__SWITCHBOARD_PATH_END__bye";
        assert_eq!(parse_marked(out).as_deref(), Some("/opt/x:/usr/bin"));
        assert_eq!(parse_marked("no markers"), None);
        assert_eq!(
            parse_marked("__SWITCHBOARD_PATH_BEGIN____SWITCHBOARD_PATH_END__"),
            None
        );
    }

    #[test]
    fn the_not_found_message_names_the_command() {
        let err = NotFound {
            command: "npx".into(),
            reason: Some("the login shell /bin/sh printed no PATH".into()),
        };
        assert_eq!(
            err.to_string(),
            "the command `npx` was not found on PATH nor on the login shell's PATH \
             (the login shell /bin/sh printed no PATH)"
        );
    }
}
