//! What this machine can enforce, read from the kernel's settings
//! without side effects (the hub is multi-threaded and must not enter a
//! namespace itself). The helper's own [`Report`](super::Report) replaces
//! this expectation once a server has started.

use std::path::Path;

/// The sandbox features of this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Machine {
    /// `None` when unprivileged user namespaces work, else why not.
    pub(crate) userns: Option<String>,
    /// `None` when Landlock is (or may be) available, else why not.
    pub(crate) landlock: Option<String>,
    /// Whether a sandbox helper program is registered (Linux) or
    /// `sandbox-exec` exists (macOS).
    pub(crate) helper: bool,
    pub(crate) os: super::policy::Os,
}

impl Machine {
    /// This machine, read from the kernel's settings; `linux_helper` says
    /// whether a sandbox helper program is registered (the upstream layer
    /// knows it, and keeps the result for the life of the process).
    pub(crate) fn probe(linux_helper: bool) -> Machine {
        let os = super::policy::Os::current();
        Machine {
            userns: userns_refusal(Path::new("/proc/sys"), is_root()),
            landlock: landlock_refusal(Path::new("/sys/kernel/security/lsm")),
            helper: match os {
                super::policy::Os::Mac => Path::new(super::seatbelt::SANDBOX_EXEC).exists(),
                super::policy::Os::Linux => linux_helper,
                super::policy::Os::Windows | super::policy::Os::Any => false,
            },
            os,
        }
    }

    /// The mechanism and what is missing for a sandboxed server here.
    pub(crate) fn expect(&self, no_network: bool) -> (String, Option<String>) {
        use super::policy::Os;
        match self.os {
            Os::Mac if self.helper => ("sandbox-exec (Seatbelt)".into(), None),
            Os::Mac => (
                "none".into(),
                Some(format!("{} is missing", super::seatbelt::SANDBOX_EXEC)),
            ),
            Os::Windows | Os::Any => (
                "none".into(),
                Some("servers are not sandboxed on Windows yet".into()),
            ),
            Os::Linux => {
                if !self.helper {
                    return (
                        "none".into(),
                        Some("no sandbox helper program is registered".into()),
                    );
                }
                let mut parts = Vec::new();
                let mut missing = Vec::new();
                match &self.userns {
                    None => {
                        parts.push("mount namespace".to_string());
                        if no_network {
                            parts.push("network namespace".to_string());
                        }
                    }
                    Some(why) => missing.push(format!("{why}, so secret places are not hidden")),
                }
                match &self.landlock {
                    None => parts.push("Landlock".to_string()),
                    Some(why) => missing.push(why.clone()),
                }
                (
                    if parts.is_empty() {
                        "none".into()
                    } else {
                        parts.join(" + ")
                    },
                    (!missing.is_empty()).then(|| missing.join("; ")),
                )
            }
        }
    }
}

#[cfg(unix)]
fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

/// Why unprivileged user namespaces do not work, from the sysctls under
/// `proc_sys` (`/proc/sys`); `None` when they do.
pub(crate) fn userns_refusal(proc_sys: &Path, root: bool) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("user namespaces are a Linux feature".into());
    }
    let read = |name: &str| {
        std::fs::read_to_string(proc_sys.join(name))
            .ok()
            .map(|s| s.trim().to_string())
    };
    if read("user/max_user_namespaces").as_deref() == Some("0") {
        return Some("user namespaces are turned off (user.max_user_namespaces = 0)".into());
    }
    if root {
        return None;
    }
    if read("kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Some(
            "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone = 0)"
                .into(),
        );
    }
    if read("kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Some(
            "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"
                .into(),
        );
    }
    None
}

/// Why Landlock is not available, from the kernel's list of active security
/// modules; `None` when it is, or when the list cannot be read (the helper
/// then reports what it found).
pub(crate) fn landlock_refusal(lsm: &Path) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("Landlock is a Linux feature".into());
    }
    let list = std::fs::read_to_string(lsm).ok()?;
    if list.split(',').any(|m| m.trim() == "landlock") {
        None
    } else {
        Some("Landlock is not enabled in this kernel".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn sysctls_that_turn_user_namespaces_off() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("user")).unwrap();
        std::fs::create_dir_all(dir.path().join("kernel")).unwrap();
        assert_eq!(userns_refusal(dir.path(), false), None);
        std::fs::write(
            dir.path()
                .join("kernel/apparmor_restrict_unprivileged_userns"),
            "1\n",
        )
        .unwrap();
        assert!(
            userns_refusal(dir.path(), false)
                .unwrap()
                .contains("AppArmor")
        );
        assert_eq!(userns_refusal(dir.path(), true), None);
        std::fs::write(dir.path().join("user/max_user_namespaces"), "0\n").unwrap();
        assert!(userns_refusal(dir.path(), true).is_some());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn landlock_from_the_lsm_list() {
        let dir = tempfile::tempdir().unwrap();
        let lsm = dir.path().join("lsm");
        std::fs::write(&lsm, "lockdown,capability,landlock,yama").unwrap();
        assert_eq!(landlock_refusal(&lsm), None);
        std::fs::write(&lsm, "capability,apparmor").unwrap();
        assert!(landlock_refusal(&lsm).is_some());
        assert_eq!(landlock_refusal(&dir.path().join("missing")), None);
    }

    #[test]
    fn what_each_system_expects() {
        let linux = Machine {
            userns: None,
            landlock: None,
            helper: true,
            os: super::super::policy::Os::Linux,
        };
        assert_eq!(
            linux.expect(true),
            (
                "mount namespace + network namespace + Landlock".into(),
                None
            )
        );
        let restricted = Machine {
            userns: Some("AppArmor restricts unprivileged user namespaces".into()),
            ..linux.clone()
        };
        let (mechanism, missing) = restricted.expect(false);
        assert_eq!(mechanism, "Landlock");
        assert!(missing.unwrap().contains("not hidden"));
        let windows = Machine {
            os: super::super::policy::Os::Windows,
            ..linux
        };
        assert!(windows.expect(false).1.unwrap().contains("Windows"));
    }
}
