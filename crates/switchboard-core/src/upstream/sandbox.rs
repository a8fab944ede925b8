//! One server's sandbox as its upstream sees it: how a start is wrapped
//! (the command, the environment it loses, a private temp folder), what the
//! helper reported for the start, and the refused accesses the server's
//! stderr names.
//!
//! Owned by the [`Upstream`](super::Upstream); `last` is a std mutex for
//! short reads and writes, never held across an `.await`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use switchboard_api::SandboxStatus;

use super::launch::{self, Launch};
use crate::config::{SandboxMode, ServerConfig};
use crate::sandbox::{self, Host, Machine, Report, policy};

/// The longest stderr line searched for a refused path.
const MAX_DENIAL_LINE: usize = 2048;

/// A server's sandbox: the hub's facts and what its last start got.
#[derive(Debug, Default)]
pub(crate) struct SandboxCell {
    host: Arc<Host>,
    last: Mutex<Option<Started>>,
}

/// What one start of the server got.
#[derive(Debug, Clone)]
struct Started {
    profile: &'static str,
    report: Option<Report>,
    dropped_env: Vec<String>,
    hidden: Vec<PathBuf>,
    last_denial: Option<String>,
}

/// How to start a server: the program and the arguments before the server's
/// own command, and what to change in its environment.
pub(crate) struct Prepared {
    pub(crate) program: OsString,
    pub(crate) prefix: Vec<OsString>,
    pub(crate) env_remove: Vec<String>,
    pub(crate) env_set: Vec<(String, OsString)>,
    /// Removed when the server's process ends (the custom profile's temp).
    pub(crate) private_tmp: Option<tempfile::TempDir>,
}

impl SandboxCell {
    pub(crate) fn new(host: Arc<Host>) -> Self {
        Self {
            host,
            last: Mutex::new(None),
        }
    }

    /// The start of `launch` (the server's resolved command) under this
    /// server's policy; `Err` says why it must not start.
    pub(crate) fn prepare(
        &self,
        config: &ServerConfig,
        mode: SandboxMode,
        launch: &Launch,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&Path>,
    ) -> Result<Prepared, String> {
        let plain = Prepared {
            program: launch.program.clone(),
            prefix: Vec::new(),
            env_remove: Vec::new(),
            env_set: Vec::new(),
            private_tmp: None,
        };
        let Some(policy) = sandbox::effective(config, mode) else {
            self.set(None);
            return Ok(plain);
        };
        let machine = machine();
        let (_, missing) = machine.expect(policy.network == crate::config::NetworkPolicy::None);
        if policy.required
            && let Some(missing) = &missing
        {
            return Err(format!(
                "its sandbox is required (`sandbox.required`) but cannot be enforced here: {missing}"
            ));
        }
        let inherited: Vec<String> = std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .collect();
        let dropped = sandbox::env::dropped(inherited.iter().map(String::as_str), env);
        let private_tmp = if policy.filesystem.is_some() {
            Some(
                tempfile::Builder::new()
                    .prefix("switchboard-sandbox-")
                    .tempdir()
                    .map_err(|e| format!("cannot make its private temp folder: {e}"))?,
            )
        } else {
            None
        };
        let base = cwd
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let path_var = env
            .get("PATH")
            .cloned()
            .or_else(|| {
                launch
                    .path
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned())
            })
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_default();
        let facts = policy::LaunchFacts {
            program: program_paths(&launch.program, &path_var),
            args: args.to_vec(),
            base,
            cwd: cwd.map(Path::to_path_buf),
            path_dirs: std::env::split_paths(&path_var)
                .filter(|p| p.is_absolute())
                .collect(),
            private_tmp: private_tmp.as_ref().map(|t| t.path().to_path_buf()),
        };
        let plan = policy::plan(&self.host, &policy, &facts, &|p| p.exists());
        let mut env_set = Vec::new();
        if let Some(tmp) = &private_tmp {
            for name in ["TMPDIR", "TMP", "TEMP"] {
                if !env.contains_key(name) {
                    env_set.push((name.to_string(), tmp.path().as_os_str().to_owned()));
                }
            }
        }
        self.set(Some(Started {
            profile: plan.profile.as_str(),
            report: None,
            dropped_env: dropped.clone(),
            hidden: plan.hide.clone(),
            last_denial: None,
        }));
        if !dropped.is_empty() {
            tracing::info!(
                server = %config.id,
                dropped = %dropped.join(", "),
                "the sandbox does not pass these inherited variables on; name one in the server's \
                 env to pass it (\"env\": {{\"{0}\": \"${{{0}}}\"}})",
                dropped[0]
            );
        }
        // A program that is not there is started as it is, so the system's
        // own error ("No such file or directory") names it, as without a sandbox.
        let found = !facts.program.is_empty();
        let (program, prefix) = match wrapper(&plan, machine, &launch.program).filter(|_| found) {
            Some(wrapped) => wrapped,
            None => (plain.program, Vec::new()),
        };
        Ok(Prepared {
            program,
            prefix,
            env_remove: dropped,
            env_set,
            private_tmp,
        })
    }

    fn set(&self, started: Option<Started>) {
        if let Ok(mut last) = self.last.lock() {
            *last = started;
        }
    }

    /// Takes the helper's report (the first stderr line of a start).
    pub(crate) fn on_report(&self, server: &crate::config::ServerId, report: Report) {
        if !report.enforced {
            tracing::warn!(
                server = %server,
                missing = report.missing.as_deref().unwrap_or(""),
                "the server runs without its whole sandbox"
            );
        }
        if let Ok(mut last) = self.last.lock()
            && let Some(started) = last.as_mut()
        {
            started.report = Some(report);
        }
    }

    /// A refused access `line` (a stderr line or an error text) names, as a
    /// sentence; logged once per distinct sentence.
    pub(crate) fn on_line(&self, server: &crate::config::ServerId, line: &str) -> Option<String> {
        // An error naming a path is one short line; a flood of long pieces
        // (up to 8 KiB each) is not searched.
        if line.len() > MAX_DENIAL_LINE || !line.contains('/') {
            return None;
        }
        let mut last = self.last.lock().ok()?;
        let started = last.as_mut()?;
        let sentence = sandbox::denial(
            line,
            &started.hidden,
            &self.host.own,
            self.host.home.as_deref(),
        )?;
        if started.last_denial.as_deref() != Some(sentence.as_str()) {
            tracing::warn!(server = %server, "{sentence}");
            started.last_denial = Some(sentence.clone());
        }
        Some(sentence)
    }

    /// The last denial of the current start, if any.
    pub(crate) fn last_denial(&self) -> Option<String> {
        self.last.lock().ok()?.as_ref()?.last_denial.clone()
    }

    /// The status for `config`.
    pub(crate) fn status(&self, config: &ServerConfig, mode: SandboxMode) -> SandboxStatus {
        let expected = sandbox::expected(config, mode, machine());
        let last = self.last.lock().ok().and_then(|l| l.clone());
        let mut status = SandboxStatus {
            profile: expected.profile.to_string(),
            enforced: expected.enforced,
            mechanism: expected.mechanism,
            missing: expected.missing,
            dropped_env: Vec::new(),
            last_denial: None,
        };
        if let Some(started) = last
            && expected.profile != "off"
        {
            status.profile = started.profile.to_string();
            status.dropped_env = started.dropped_env;
            status.last_denial = started.last_denial;
            if let Some(report) = started.report {
                status.enforced = report.enforced;
                status.mechanism = report.mechanism;
                status.missing = report.missing;
            }
        }
        status
    }
}

/// This machine's sandbox features, read once per process.
fn machine() -> &'static Machine {
    static MACHINE: std::sync::OnceLock<Machine> = std::sync::OnceLock::new();
    MACHINE.get_or_init(|| Machine::probe(super::guard::program().is_some()))
}

/// The program and the arguments that put a server in its sandbox on this
/// system, before its own program; `None` where nothing can wrap it.
fn wrapper(
    plan: &sandbox::Plan,
    machine: &Machine,
    program: &OsString,
) -> Option<(OsString, Vec<OsString>)> {
    use crate::sandbox::policy::Os;
    if !machine.helper {
        return None;
    }
    match machine.os {
        Os::Linux => {
            let helper = super::guard::program()?;
            let plan = serde_json::to_string(plan).ok()?;
            Some((
                helper.as_os_str().to_owned(),
                vec![sandbox::HELPER_ARG.into(), plan.into(), program.clone()],
            ))
        }
        Os::Mac => Some((
            sandbox::seatbelt::SANDBOX_EXEC.into(),
            vec![
                "-p".into(),
                sandbox::seatbelt::profile(plan).into(),
                program.clone(),
            ],
        )),
        Os::Windows | Os::Any => None,
    }
}

/// The program as found on `path_var`, and where its symlinks lead.
fn program_paths(program: &OsString, path_var: &str) -> Vec<PathBuf> {
    let program = Path::new(program);
    let found = if program.is_absolute() {
        program.is_file().then(|| program.to_path_buf())
    } else if program.components().count() > 1 {
        // Relative to the server's `cwd`: left for the system to find.
        Some(program.to_path_buf())
    } else {
        // The lookup the launch itself uses (`launch.rs`).
        program.to_str().and_then(|name| {
            launch::find_program(
                launch::Rules::current(),
                name,
                path_var,
                &[],
                &launch::is_program,
            )
        })
    };
    let mut out = Vec::new();
    if let Some(found) = found {
        if let Ok(real) = std::fs::canonicalize(&found)
            && real != found
        {
            out.push(real);
        }
        out.push(found);
    }
    out
}
