//! The process group of a stdio server: signalling it as a whole, so that
//! grandchildren (`npx → node`) end with the server, and its death guard
//! ([`guard`]), which ends the group when the hub dies without closing it.

pub mod guard;

#[derive(Clone, Copy)]
pub(super) enum Signal {
    Term,
    Kill,
}

/// Signals the whole process group led by `pid` (grandchildren such as
/// `npx → node` included). The group id equals the leader's pid.
pub(super) fn signal_process_group(pid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal as Sig, killpg};
        use nix::unistd::Pid;
        let sig = match signal {
            Signal::Term => Sig::SIGTERM,
            Signal::Kill => Sig::SIGKILL,
        };
        if let Ok(raw) = i32::try_from(pid) {
            match killpg(Pid::from_raw(raw), sig) {
                Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
                Err(err) => tracing::debug!(pid, %err, "killpg failed"),
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

/// Kills whatever is left of the process group led by `pid`.
pub(super) fn kill_process_group(pid: u32) {
    signal_process_group(pid, Signal::Kill);
}
