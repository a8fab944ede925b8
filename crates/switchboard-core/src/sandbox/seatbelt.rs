//! The macOS side: a plan as a Seatbelt profile (SBPL) for `sandbox-exec -p`.
//!
//! The standard profile allows everything, then denies reading and writing
//! the hidden places; a custom profile denies file access by default and
//! allows the system, the runtime and the listed paths; `network: none`
//! denies outbound and inbound network use. Later rules win in SBPL, so the
//! denials of hidden places come last.
//!
//! Pure text generation, tested on every platform; running it needs macOS
//! (docs/platforms.md says what is checked where).

use std::fmt::Write as _;
use std::path::Path;

use super::policy::Plan;
use crate::config::NetworkPolicy;

/// Where `sandbox-exec` lives on every macOS.
pub(crate) const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// System paths a custom profile keeps readable on macOS.
const SYSTEM_READ: &[&str] = &[
    "/System",
    "/Library",
    "/usr",
    "/bin",
    "/sbin",
    "/opt",
    "/private/etc",
    "/private/var/db",
    "/private/var/select",
    "/etc",
    "/var",
    "/Applications/Xcode.app",
    "/Library/Developer/CommandLineTools",
];

/// The SBPL profile for `plan`.
pub(crate) fn profile(plan: &Plan) -> String {
    let mut out = String::from("(version 1)\n(allow default)\n");
    if let Some(allow) = &plan.allow {
        out.push_str("(deny file-read* file-write*)\n");
        // Reading a path's metadata on the way down (realpath, stat) must
        // keep working everywhere, or nothing resolves its own location.
        out.push_str("(allow file-read-metadata)\n");
        let read: Vec<&Path> = SYSTEM_READ
            .iter()
            .map(Path::new)
            .chain(allow.read.iter().map(|p| p.as_path()))
            .collect();
        rule(&mut out, "allow file-read*", &read);
        let write: Vec<&Path> = allow.write.iter().map(|p| p.as_path()).collect();
        rule(&mut out, "allow file-read* file-write*", &write);
        out.push_str("(allow file-read* file-write* (literal \"/dev/null\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\"))\n");
    }
    if plan.network == NetworkPolicy::None {
        out.push_str("(deny network-outbound)\n(deny network-inbound)\n(deny network-bind)\n");
    }
    let hide: Vec<&Path> = plan.hide.iter().map(|p| p.as_path()).collect();
    rule(&mut out, "deny file-read* file-write*", &hide);
    out
}

/// One rule over `paths` (as `subpath`s), if there are any.
fn rule(out: &mut String, action: &str, paths: &[&Path]) {
    if paths.is_empty() {
        return;
    }
    let _ = write!(out, "({action}");
    for path in paths {
        let _ = write!(out, " (subpath {})", quote(&path.to_string_lossy()));
    }
    out.push_str(")\n");
}

/// An SBPL string literal.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::sandbox::policy::{Allow, Profile};

    fn plan(allow: Option<Allow>, network: NetworkPolicy) -> Plan {
        Plan {
            profile: if allow.is_some() {
                Profile::Custom
            } else {
                Profile::Standard
            },
            hide: vec![
                PathBuf::from("/Users/ann/.ssh"),
                PathBuf::from("/Users/ann/Library/Keychains"),
            ],
            allow,
            network,
            required: false,
        }
    }

    #[test]
    fn the_standard_profile_allows_all_but_the_hidden_places() {
        let text = profile(&plan(None, NetworkPolicy::Any));
        assert_eq!(
            text,
            "(version 1)\n(allow default)\n(deny file-read* file-write* (subpath \"/Users/ann/.ssh\") (subpath \"/Users/ann/Library/Keychains\"))\n"
        );
    }

    #[test]
    fn a_custom_profile_denies_files_by_default_and_hides_last() {
        let allow = Allow {
            read: vec![PathBuf::from("/Users/ann/docs")],
            write: vec![PathBuf::from("/Users/ann/.npm")],
        };
        let text = profile(&plan(Some(allow), NetworkPolicy::None));
        let deny_all = text
            .find("(deny file-read* file-write*)")
            .expect("deny all");
        let read = text.find("(subpath \"/Users/ann/docs\")").expect("docs");
        let write = text
            .find("(allow file-read* file-write* (subpath \"/Users/ann/.npm\"))")
            .expect("npm");
        let hide = text.rfind("(subpath \"/Users/ann/.ssh\")").expect("ssh");
        assert!(deny_all < read && read < write && write < hide, "{text}");
        assert!(text.contains("(subpath \"/System\")"));
        assert!(text.contains("(deny network-outbound)"));
    }

    #[test]
    fn quotes_are_escaped() {
        assert_eq!(quote(r#"/a "b"\c"#), r#""/a \"b\"\\c""#);
    }
}
