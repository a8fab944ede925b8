//! A guard process per stdio server that ends the server's whole process
//! group when the hub dies, however it dies (a crash, `kill -9`, the OOM
//! killer), so no server, `npx → node` grandchild or server that ignores EOF
//! on stdin outlives the hub.
//!
//! The hub starts `<program> __guard <pgid>` — the program is the hub's own
//! binary (`switchboard`, `switchboard-app`) in its hidden guard mode,
//! registered by its `main` with [`install`] — with a pipe as the guard's stdin, and keeps the pipe's write
//! end open without ever writing to it. The kernel closes that end when the
//! hub process ends, for any reason, so the guard reads EOF: it sends SIGTERM
//! to the group, waits up to [`TERM_GRACE`], sends SIGKILL and exits. A guard
//! also exits on its own once the group is gone, and the hub kills it when it
//! closes the server ([`Guard::stop`]).
//!
//! Why a pipe and not `PR_SET_PDEATHSIG`: the parent-death signal fires when
//! the *thread* that forked the child ends, and the hub forks from tokio
//! worker (or short-lived blocking) threads; a pipe's end closes only when
//! the whole process is gone. The pipe works the same on every Unix,
//! including macOS. On Windows the server runs in a job object instead (see
//! `docs/reliability.md`).
//!
//! Without [`install`] (the core's own tests, other embedders) servers start
//! without a guard; the hub still closes them on every orderly shutdown.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;
#[cfg(unix)]
use std::time::Duration;

/// The hidden first argument that runs the binary as a guard.
pub(crate) const GUARD_ARG: &str = "__guard";
/// How long a server group gets between SIGTERM and SIGKILL once the hub is gone.
#[cfg(unix)]
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(2);
/// How often a guard checks that its group still exists.
#[cfg(unix)]
const CHECK_EVERY: Duration = Duration::from_millis(250);

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Registers the program to run as `<program> __guard <pgid>`; it must call
/// [`run_if_guard`] first thing in `main`. The first registration wins.
pub fn install(program: PathBuf) {
    let _ = PROGRAM.set(program);
}

/// The program registered with [`install`], which the hub also runs as its
/// token counter (`crate::token_count::COUNT_ARG`).
pub(crate) fn program() -> Option<&'static PathBuf> {
    PROGRAM.get()
}

/// If `args` (the whole command line) asks for one of the hidden helper
/// modes, runs it until it is done and returns the exit code; otherwise
/// `None`. The modes: guard (`__guard <pgid>`), the token counter
/// (`__count-tokens`: tool definitions on stdin, one per line, their counts
/// on stdout, see `crate::token_count::serve_counts`), code mode's interpreter
/// (`__run-code`, see `crate::interpreter`) and the sandbox helper
/// (`__sandbox <plan> <command> <args...>`, see `crate::sandbox`), which must
/// run while the process is still single-threaded.
pub fn run_if_guard(args: &[OsString]) -> Option<ExitCode> {
    let mode = args.get(1).and_then(|a| a.to_str());
    if mode == Some(crate::token_count::COUNT_ARG) {
        let served = crate::token_count::serve_counts(
            std::io::stdin().lock(),
            std::io::BufWriter::new(std::io::stdout().lock()),
        );
        return Some(if served.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    if mode == Some(crate::interpreter::RUN_ARG) {
        return Some(crate::interpreter::run_helper());
    }
    if mode == Some(crate::sandbox::HELPER_ARG) {
        return Some(crate::sandbox::run_helper(args));
    }
    if mode != Some(GUARD_ARG) {
        return None;
    }
    let pgid = args
        .get(2)
        .and_then(|a| a.to_str())
        .and_then(|a| a.parse::<i32>().ok())
        .filter(|pgid| *pgid > 1);
    Some(match pgid {
        Some(pgid) => guard_main(pgid),
        None => ExitCode::from(2),
    })
}

#[cfg(unix)]
fn guard_main(pgid: i32) -> ExitCode {
    use std::io::Read as _;
    use std::sync::mpsc::{RecvTimeoutError, channel};

    let (hub_gone, gone) = channel::<()>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 64];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = hub_gone.send(());
    });
    loop {
        match gone.recv_timeout(CHECK_EVERY) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                if !group_exists(pgid) {
                    return ExitCode::SUCCESS;
                }
            }
        }
    }
    let _ = signal_group(pgid, Some(nix::sys::signal::Signal::SIGTERM));
    let deadline = std::time::Instant::now() + TERM_GRACE;
    while group_exists(pgid) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = signal_group(pgid, Some(nix::sys::signal::Signal::SIGKILL));
    ExitCode::SUCCESS
}

#[cfg(not(unix))]
fn guard_main(_pgid: i32) -> ExitCode {
    ExitCode::from(2)
}

#[cfg(unix)]
fn signal_group(pgid: i32, signal: Option<nix::sys::signal::Signal>) -> nix::Result<()> {
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), signal)
}

#[cfg(unix)]
fn group_exists(pgid: i32) -> bool {
    !matches!(signal_group(pgid, None), Err(nix::errno::Errno::ESRCH))
}

/// A running guard; the hub's end of its stdin pipe is `hub_alive`.
pub(crate) struct Guard {
    child: tokio::process::Child,
    /// Never written to: closing it (the hub exiting) is the signal.
    hub_alive: Option<tokio::process::ChildStdin>,
}

impl Guard {
    /// Starts a guard for the process group `pgid`, if a guard program is
    /// installed (Unix only).
    pub(crate) fn spawn(pgid: u32) -> Option<Self> {
        let program = PROGRAM.get()?;
        if !cfg!(unix) {
            return None;
        }
        let mut command = tokio::process::Command::new(program);
        command
            .arg(GUARD_ARG)
            .arg(pgid.to_string())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        // Its own group: a Ctrl-C in the hub's terminal must not end the guard
        // while the hub is still closing servers.
        #[cfg(unix)]
        command.process_group(0);
        match command.spawn() {
            Ok(mut child) => {
                let hub_alive = child.stdin.take();
                Some(Self { child, hub_alive })
            }
            Err(err) => {
                tracing::warn!(program = %program.display(), %err, "cannot start the process guard");
                None
            }
        }
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Ends the guard (its server is gone or being closed) and reaps it.
    pub(crate) async fn stop(mut self) {
        // Killed first: an EOF on its stdin would make it signal the group.
        let _ = self.child.kill().await;
        drop(self.hub_alive.take());
    }
}
