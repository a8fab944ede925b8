//! Containment of code mode's interpreter (the `__run-code` helper, see
//! `crate::interpreter`), applied by the helper to itself before it reads a
//! script: no file system and no network at all. The helper needs neither:
//! its binary is loaded, its pipes are open, and QuickJS only computes.
//!
//! On Linux: a network namespace (inside a user namespace when not root)
//! with nothing but a loopback that is down, and a Landlock ruleset that
//! handles every file access and allows none (ABI ≥ 1), refuses TCP
//! (ABI ≥ 4) and scopes signals and abstract sockets (ABI ≥ 6). Elsewhere
//! the helper runs uncontained and says so; its limits (memory, deadline)
//! still hold, as they come from the interpreter and the hub.

use super::Report;

/// Contains this process; what was enforced. Must run while the process is
/// still single-threaded (the user namespace needs it).
pub(crate) fn contain() -> Report {
    imp::contain()
}

#[cfg(target_os = "linux")]
mod imp {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, Ruleset,
        RulesetAttr, RulesetStatus, Scope,
    };
    use nix::sched::{CloneFlags, unshare};

    use super::Report;

    pub(super) fn contain() -> Report {
        let mut parts = Vec::new();
        let mut missing = Vec::new();
        // Root may make a network namespace directly; anyone else in a user
        // namespace of their own.
        let netns = unshare(CloneFlags::CLONE_NEWNET)
            .or_else(|_| unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET));
        match netns {
            Ok(()) => parts.push("network namespace".to_string()),
            Err(err) => missing.push(format!(
                "no network namespace ({})",
                err.desc().to_lowercase()
            )),
        }
        match landlock() {
            Ok(Some(abi)) => {
                parts.push(format!("Landlock ABI {abi} (no file access)"));
                if abi < 4 && netns.is_err() {
                    missing.push(format!(
                        "network not refused (Landlock ABI {abi} has no TCP rules)"
                    ));
                }
            }
            Ok(None) => missing.push("Landlock is not available on this kernel".into()),
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

    /// Every file access handled and none allowed; TCP refused; signals and
    /// abstract sockets scoped. The effective ABI, `None` without Landlock.
    fn landlock() -> Result<Option<u8>, landlock::RulesetError> {
        let used = ABI::V6;
        let status = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(used))?
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)?
            .create()?
            .restrict_self()?;
        let abi = match (status.ruleset, status.landlock) {
            (RulesetStatus::NotEnforced, _) => None,
            (_, LandlockStatus::Available { effective_abi, .. }) => format!("{effective_abi:?}")
                .trim_start_matches('V')
                .parse()
                .ok(),
            _ => None,
        };
        Ok(abi)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Report;

    pub(super) fn contain() -> Report {
        Report {
            enforced: false,
            mechanism: "none".into(),
            missing: Some(
                "the interpreter is contained only on Linux; here it runs with the \
                 hub's access to files and network"
                    .into(),
            ),
        }
    }
}
