//! The Linux side: the sandbox helper applies a [`Plan`] to itself, then
//! replaces itself with the server (`exec`), so the server and everything it
//! starts inherit the sandbox.
//!
//! 1. A user and mount namespace of its own (unprivileged user namespaces;
//!    the user keeps their own id inside). Each hidden place that exists is
//!    covered: a folder by an empty read-only tmpfs, a file by a read-only
//!    bind of `/dev/null`. `network: none` adds a network namespace: no
//!    interface but a loopback that is down, so every connection fails.
//! 2. Landlock: the custom profile's allowlist (ABI ≥ 1), or, for the
//!    standard profile, every access allowed beneath `/` — a ruleset that
//!    still forbids changing mounts (the covers cannot be removed) and
//!    reading other processes' memory or files through `/proc/<pid>`
//!    (ptrace scoping), and, from ABI 6, signalling processes outside the
//!    sandbox. Without a network namespace, `network: none` falls back to
//!    Landlock's TCP rules (ABI ≥ 4).
//!
//! The helper must be single-threaded for `unshare(CLONE_NEWUSER)`; it runs
//! before anything else in `main` (see `crate::guard::run_if_guard`).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};

use super::Report;
use super::policy::Plan;
use crate::config::NetworkPolicy;

/// The newest Landlock ABI the rules below are written and tested for.
const ABI_USED: ABI = ABI::V6;

/// Applies `plan` to this process; what was enforced and what not.
pub(crate) fn apply(plan: &Plan) -> Report {
    let mut parts: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let want_netns = plan.network == NetworkPolicy::None;
    let mut netns = false;
    match enter_namespaces(want_netns) {
        Ok(()) => {
            let covered = cover(&plan.hide, &mut missing);
            parts.push(format!("mount namespace ({covered} places hidden)"));
            if want_netns {
                parts.push("network namespace".into());
                netns = true;
            }
        }
        Err(err) => missing.push(format!(
            "no user namespace ({}), so secret places are not hidden",
            plain_errno(&err)
        )),
    }
    match landlock(plan, want_netns && !netns) {
        Ok(done) => {
            if let Some(part) = done.part {
                parts.push(part);
            }
            missing.extend(done.missing);
        }
        Err(err) => missing.push(format!("Landlock could not be applied: {err}")),
    }
    Report {
        enforced: missing.is_empty(),
        mechanism: if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" + ")
        },
        missing: (!missing.is_empty()).then(|| missing.join("; ")),
    }
}

fn plain_errno(err: &nix::Error) -> String {
    err.desc().to_lowercase()
}

/// A user and mount namespace (and a network one when asked), with this
/// user's ids mapped to themselves and mounts private to it.
fn enter_namespaces(netns: bool) -> Result<(), nix::Error> {
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    let mut flags = CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS;
    if netns {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags)?;
    let write = |file: &str, text: String| {
        std::fs::write(file, text)
            .map_err(|e| nix::Error::from_raw(e.raw_os_error().unwrap_or(nix::libc::EPERM)))
    };
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )?;
    Ok(())
}

/// Where the cover of hidden files is made: a tmpfs mounted here for a
/// moment (`/tmp` exists everywhere), unmounted once the covers are bound.
const SCRATCH: &str = "/tmp";
/// The cover of hidden files: an empty file nobody may read, on a tmpfs
/// made read-only, so a write fails too.
const COVER_NAME: &str = ".switchboard-cover";

/// Covers each hidden place that exists; returns how many were covered.
/// A place that cannot be covered is reported in `missing`.
fn cover(hide: &[PathBuf], missing: &mut Vec<String>) -> usize {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for place in hide {
        // Through symlinks: the place a link leads to is what must be hidden.
        let Ok(target) = std::fs::canonicalize(place) else {
            continue;
        };
        match std::fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => dirs.push((place, target)),
            Ok(_) => files.push((place, target)),
            Err(_) => {}
        }
    }
    let mut covered = 0;
    if !files.is_empty() {
        covered += cover_files(&files, missing);
    }
    for (place, target) in dirs {
        let result = mount(
            Some("tmpfs"),
            &target,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            Some("size=4k,mode=0555"),
        );
        match result {
            Ok(()) => covered += 1,
            Err(err) => missing.push(cant_hide(place, &err)),
        }
    }
    covered
}

fn cant_hide(place: &Path, err: &nix::Error) -> String {
    format!(
        "{} could not be hidden ({})",
        place.display(),
        plain_errno(err)
    )
}

/// Binds an unreadable empty file over each hidden file. The targets are
/// opened first (`O_PATH`), so a target under the scratch folder is still
/// reached through `/proc/self/fd` while the scratch tmpfs covers it.
fn cover_files(files: &[(&PathBuf, PathBuf)], missing: &mut Vec<String>) -> usize {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let opened: Vec<(&PathBuf, std::fs::File)> = files
        .iter()
        .filter_map(|(place, target)| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(nix::libc::O_PATH)
                .open(target)
                .ok()
                .map(|f| (*place, f))
        })
        .collect();
    let scratch = Path::new(SCRATCH);
    let cover = scratch.join(COVER_NAME);
    let made = mount(
        Some("tmpfs"),
        scratch,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        Some("size=4k,mode=0700"),
    )
    .and_then(|()| {
        std::fs::write(&cover, b"").map_err(io_errno)?;
        std::fs::set_permissions(&cover, std::os::unix::fs::PermissionsExt::from_mode(0o000))
            .map_err(io_errno)?;
        // Read-only for good: every bind of the cover shares this superblock.
        mount(
            None::<&str>,
            scratch,
            None::<&str>,
            MsFlags::MS_REMOUNT
                | MsFlags::MS_RDONLY
                | MsFlags::MS_NOSUID
                | MsFlags::MS_NODEV
                | MsFlags::MS_NOEXEC,
            Some("size=4k,mode=0700"),
        )
    });
    if let Err(err) = made {
        for (place, _) in &opened {
            missing.push(cant_hide(place, &err));
        }
        return 0;
    }
    let mut covered = 0;
    for (place, file) in &opened {
        let target = format!("/proc/self/fd/{}", file.as_raw_fd());
        let bound = mount(
            Some(&cover),
            target.as_str(),
            None::<&str>,
            MsFlags::MS_BIND,
            None::<&str>,
        );
        match bound {
            Ok(()) => covered += 1,
            Err(err) => missing.push(cant_hide(place, &err)),
        }
    }
    // The binds keep the cover alive; the scratch folder is itself again.
    if let Err(err) = nix::mount::umount2(scratch, nix::mount::MntFlags::MNT_DETACH) {
        missing.push(format!(
            "{SCRATCH} could not be restored ({})",
            plain_errno(&err)
        ));
    }
    covered
}

fn io_errno(err: std::io::Error) -> nix::Error {
    nix::Error::from_raw(err.raw_os_error().unwrap_or(nix::libc::EIO))
}

/// What the Landlock step enforced.
struct Landlocked {
    part: Option<String>,
    missing: Vec<String>,
}

fn landlock(plan: &Plan, tcp_rules: bool) -> Result<Landlocked, String> {
    landlock_rules(plan, tcp_rules).map_err(|e| e.to_string())
}

fn landlock_rules(plan: &Plan, tcp_rules: bool) -> Result<Landlocked, landlock::RulesetError> {
    let all = AccessFs::from_all(ABI_USED);
    let read = AccessFs::from_read(ABI_USED);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)?
        .scope(Scope::Signal)?;
    if tcp_rules {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    let mut created = ruleset.create()?;
    let mut missing = Vec::new();
    match &plan.allow {
        None => {
            if let Some(rule) = rule_for(Path::new("/"), all) {
                created = created.add_rule(rule)?;
            }
        }
        Some(allow) => {
            for path in &allow.read {
                if let Some(rule) = rule_for(path, read) {
                    created = created.add_rule(rule)?;
                }
            }
            for path in &allow.write {
                if let Some(rule) = rule_for(path, all) {
                    created = created.add_rule(rule)?;
                }
            }
        }
    }
    let status = created.restrict_self()?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => Some(effective_abi),
        _ => None,
    };
    let part = match (status.ruleset, abi) {
        (RulesetStatus::NotEnforced, _) | (_, None) => {
            missing.push("Landlock is not available on this kernel".into());
            None
        }
        (_, Some(abi)) => {
            let n = format!("{abi:?}").trim_start_matches('V').to_string();
            if tcp_rules && abi < ABI::V4 {
                missing.push(format!(
                    "network not refused (no network namespace, and Landlock ABI {n} has no TCP rules)"
                ));
            } else if tcp_rules {
                missing.push(
                    "only TCP is refused (no network namespace for UDP and other sockets)".into(),
                );
            }
            Some(format!("Landlock ABI {n}"))
        }
    };
    Ok(Landlocked { part, missing })
}

/// A rule for `path` if it exists; a file gets only the rights a file can have.
fn rule_for(path: &Path, access: landlock::BitFlags<AccessFs>) -> Option<PathBeneath<PathFd>> {
    let meta = std::fs::metadata(path).ok()?;
    let access = if meta.is_dir() {
        access
    } else {
        access & AccessFs::from_file(ABI_USED)
    };
    Some(PathBeneath::new(PathFd::new(path).ok()?, access))
}
