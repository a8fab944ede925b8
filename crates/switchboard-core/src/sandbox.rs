//! Containment of stdio servers: what a sandboxed server may reach, how each
//! system enforces it, and what the status says about it.
//!
//! - `policy`: the pure part — the one table of secret places, Switchboard's
//!   own places, and the [`Plan`](policy::Plan) a server's policy becomes
//!   for one start;
//! - `env`: which inherited environment variables look secret;
//! - `linux`: the helper that applies a plan to itself (namespaces, covers,
//!   Landlock) and then becomes the server;
//! - `seatbelt`: the macOS profile text for `sandbox-exec`;
//! - `machine`: what this machine can enforce, read once without side effects.
//!
//! On Linux the hub starts `<program> __sandbox <plan> <command> <args...>`
//! (the program is the hub's own binary, registered with
//! `crate::guard::install`); the helper writes one [`Report`] line to stderr
//! (`switchboard-sandbox: {...}`) and replaces itself with the server. The
//! upstream reads that line as the first of the run and keeps it out of the
//! stderr log. On macOS the hub starts `sandbox-exec -p <profile>` instead;
//! on Windows nothing is enforced yet and the status says so.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

use crate::config::{NetworkPolicy, SandboxMode, SandboxPolicy, ServerConfig, TransportConfig};

pub(crate) mod env;
pub(crate) mod interpreter;
#[cfg(target_os = "linux")]
mod linux;
mod machine;
pub(crate) mod policy;
pub(crate) mod seatbelt;

pub(crate) use machine::Machine;
pub(crate) use policy::{Host, Plan};

/// The hidden first argument that runs the binary as the sandbox helper.
pub(crate) const HELPER_ARG: &str = "__sandbox";
/// The start of the one line the helper writes to stderr before the server
/// starts.
pub(crate) const REPORT_PREFIX: &str = "switchboard-sandbox: ";
/// The helper's exit code when a required sandbox cannot be enforced.
pub(crate) const EXIT_NOT_ENFORCED: u8 = 126;

/// What a start of a server got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Report {
    pub(crate) enforced: bool,
    pub(crate) mechanism: String,
    pub(crate) missing: Option<String>,
}

impl Report {
    /// The report's line, as the helper writes it.
    pub(crate) fn line(&self) -> String {
        format!(
            "{REPORT_PREFIX}{}",
            serde_json::to_string(self).unwrap_or_default()
        )
    }

    /// The report in a stderr line the helper wrote, if it is one.
    pub(crate) fn parse(line: &str) -> Option<Self> {
        serde_json::from_str(line.strip_prefix(REPORT_PREFIX)?).ok()
    }
}

/// Runs the sandbox helper (`<program> __sandbox <plan> <command> <args...>`):
/// applies the plan, reports, and becomes the server. Returns only on failure.
pub(crate) fn run_helper(args: &[OsString]) -> ExitCode {
    let plan = args
        .get(2)
        .and_then(|a| a.to_str())
        .and_then(|a| serde_json::from_str::<Plan>(a).ok());
    let (Some(plan), Some(program)) = (plan, args.get(3)) else {
        eprintln!("switchboard: the sandbox helper needs a plan and a command");
        return ExitCode::from(2);
    };
    let report = apply(&plan);
    eprintln!("{}", report.line());
    if plan.required && !report.enforced {
        eprintln!(
            "switchboard: the sandbox is required but cannot be enforced: {}",
            report.missing.as_deref().unwrap_or("unknown reason")
        );
        return ExitCode::from(EXIT_NOT_ENFORCED);
    }
    exec(program, &args[4..])
}

#[cfg(target_os = "linux")]
fn apply(plan: &Plan) -> Report {
    linux::apply(plan)
}

#[cfg(not(target_os = "linux"))]
fn apply(_plan: &Plan) -> Report {
    Report {
        enforced: false,
        mechanism: "none".into(),
        missing: Some("the sandbox helper enforces only on Linux".into()),
    }
}

#[cfg(unix)]
fn exec(program: &OsString, args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt as _;
    let err = std::process::Command::new(program).args(args).exec();
    eprintln!(
        "switchboard: cannot start {}: {err}",
        Path::new(program).display()
    );
    ExitCode::from(127)
}

#[cfg(not(unix))]
fn exec(program: &OsString, _args: &[OsString]) -> ExitCode {
    eprintln!(
        "switchboard: the sandbox helper cannot start {} on this system",
        Path::new(program).display()
    );
    ExitCode::from(2)
}

/// Switchboard's own places for a hub: the state directory, the folders of
/// its files, the config file and, when it is Switchboard's own folder, the
/// config's folder.
pub(crate) fn own_places(config: Option<&Path>, files: &[Option<&Path>]) -> Vec<PathBuf> {
    let mut own = vec![crate::persist::state_dir()];
    for file in files.iter().flatten() {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            own.push(dir.to_path_buf());
        }
    }
    let default = crate::config::default_config_path();
    for config in config.into_iter().chain([default.as_path()]) {
        match config.parent() {
            Some(dir) if dir.file_name().is_some_and(|n| n == "switchboard") => {
                own.push(dir.to_path_buf());
            }
            _ => own.push(config.to_path_buf()),
        }
    }
    let mut seen = std::collections::HashSet::new();
    own.retain(|p| seen.insert(p.clone()));
    own
}

/// What the status says of a server's sandbox, before or after a start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    pub(crate) profile: &'static str,
    pub(crate) enforced: bool,
    pub(crate) mechanism: String,
    pub(crate) missing: Option<String>,
}

/// The policy a server runs under (`None`: unsandboxed or not a stdio server).
pub(crate) fn effective(config: &ServerConfig, mode: SandboxMode) -> Option<SandboxPolicy> {
    match config.transport {
        TransportConfig::Stdio { .. } => config.sandbox.effective(mode),
        TransportConfig::Http { .. } => None,
    }
}

/// What this machine is expected to enforce for a server, before its helper
/// has reported.
pub(crate) fn expected(config: &ServerConfig, mode: SandboxMode, machine: &Machine) -> Expected {
    if !matches!(config.transport, TransportConfig::Stdio { .. }) {
        return Expected {
            profile: "off",
            enforced: false,
            mechanism: "not applicable".into(),
            missing: None,
        };
    }
    let Some(policy) = config.sandbox.effective(mode) else {
        return Expected {
            profile: "off",
            enforced: false,
            mechanism: "none".into(),
            missing: Some(
                "this server runs unsandboxed (`sandbox: false` or settings.sandbox is off)".into(),
            ),
        };
    };
    let profile = if policy.is_custom() {
        "custom"
    } else {
        "standard"
    };
    let (mechanism, missing) = machine.expect(policy.network == NetworkPolicy::None);
    Expected {
        profile,
        enforced: missing.is_none(),
        mechanism,
        missing,
    }
}

/// The sentence for a refused path a server's stderr or error names.
pub(crate) fn denial(
    line: &str,
    hidden: &[PathBuf],
    own: &[PathBuf],
    home: Option<&Path>,
) -> Option<String> {
    let place = hidden
        .iter()
        .filter(|p| !p.as_os_str().is_empty())
        .find(|p| line.contains(&*p.to_string_lossy()))?;
    // The path as the line names it, from the hidden place to the next quote or blank.
    let text = place.to_string_lossy();
    let start = line.find(&*text).unwrap_or(0);
    let named: String = line[start..]
        .chars()
        .take_while(|c| !matches!(c, '\'' | '"' | ' ' | ',' | ')' | '`'))
        .collect();
    let shown = match home {
        Some(home) => match Path::new(&named).strip_prefix(home) {
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => named.clone(),
        },
        None => named.clone(),
    };
    let lower = line.to_ascii_lowercase();
    let op = if ["erofs", "read-only", "write", "mkdir", "unlink", "rename"]
        .iter()
        .any(|w| lower.contains(w))
    {
        "write"
    } else {
        "read"
    };
    let what = home
        .and_then(|home| policy::what_is(place, home))
        .map(|what| format!(" ({what})"))
        .unwrap_or_default();
    let way_back = if own.iter().any(|o| place.starts_with(o)) {
        "Switchboard's own files are never given to servers"
    } else {
        "give it back with `sandbox.expose`"
    };
    Some(format!(
        "{op} of {shown}{what} refused by the sandbox; {way_back}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_line_round_trips() {
        let report = Report {
            enforced: false,
            mechanism: "Landlock ABI 7".into(),
            missing: Some("no user namespace".into()),
        };
        assert_eq!(Report::parse(&report.line()), Some(report));
        assert_eq!(Report::parse("switchboard-sandbox: nonsense"), None);
        assert_eq!(Report::parse("hello"), None);
    }

    #[test]
    fn a_denial_names_the_path_and_the_way_back() {
        let hidden = vec![
            PathBuf::from("/home/ann/.aws"),
            PathBuf::from("/home/ann/.ssh"),
            PathBuf::from("/home/ann/.cache/switchboard"),
        ];
        let own = vec![PathBuf::from("/home/ann/.cache/switchboard")];
        let home = Some(Path::new("/home/ann"));
        let line = "Error: ENOENT: no such file or directory, open '/home/ann/.aws/config'";
        assert_eq!(
            denial(line, &hidden, &own, home).as_deref(),
            Some(
                "read of ~/.aws/config (AWS credentials) refused by the sandbox; give it back with `sandbox.expose`"
            )
        );
        let line = "EROFS: read-only file system, open \"/home/ann/.ssh/known_hosts\"";
        assert_eq!(
            denial(line, &hidden, &own, home).as_deref(),
            Some(
                "write of ~/.ssh/known_hosts (SSH keys) refused by the sandbox; give it back with `sandbox.expose`"
            )
        );
        let line = "open '/home/ann/.cache/switchboard/control-token': No such file";
        assert_eq!(
            denial(line, &hidden, &own, home).as_deref(),
            Some(
                "read of ~/.cache/switchboard/control-token refused by the sandbox; Switchboard's own files are never given to servers"
            )
        );
        assert_eq!(denial("all good", &hidden, &own, home), None);
    }

    #[test]
    fn own_places_cover_the_state_dir_and_the_config() {
        let own = own_places(
            Some(Path::new("/home/ann/.config/switchboard/config.json")),
            &[Some(Path::new("/srv/sb/catalog.json")), None],
        );
        assert!(own.contains(&crate::persist::state_dir()));
        assert!(own.contains(&PathBuf::from("/srv/sb")));
        assert!(own.contains(&PathBuf::from("/home/ann/.config/switchboard")));
        let own = own_places(Some(Path::new("/work/project/mcp.json")), &[]);
        assert!(own.contains(&PathBuf::from("/work/project/mcp.json")));
        assert!(!own.contains(&PathBuf::from("/work/project")));
    }
}
