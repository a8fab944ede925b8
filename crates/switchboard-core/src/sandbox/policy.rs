//! What a sandboxed stdio server may reach, as plain data: the one table of
//! secret places, Switchboard's own places, and the [`Plan`] a policy turns
//! into for one start of one server.
//!
//! Pure: the caller passes the home directory, the hub's own places and the
//! facts of the launch (the program found, the PATH, which paths exist), so
//! every rule here is tested on every platform. Enforcing a plan is the
//! platform modules' job (`linux`, `seatbelt`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::roots;
use crate::config::{NetworkPolicy, SandboxPolicy};

/// The systems a secret place applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Os {
    Any,
    Linux,
    Mac,
    Windows,
}

impl Os {
    pub(crate) const fn current() -> Self {
        if cfg!(target_os = "macos") {
            Self::Mac
        } else if cfg!(windows) {
            Self::Windows
        } else {
            Self::Linux
        }
    }

    fn includes(self, on: Os) -> bool {
        self == Os::Any || self == on
    }
}

/// One secret place under the home directory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SecretPlace {
    /// Relative to the home directory, `/`-separated.
    pub(crate) path: &'static str,
    pub(crate) os: Os,
    /// What is kept there, for people.
    pub(crate) what: &'static str,
}

const fn place(path: &'static str, os: Os, what: &'static str) -> SecretPlace {
    SecretPlace { path, os, what }
}

/// The secret places of the standard profile (docs/security.md lists the
/// same table).
pub(crate) const SECRET_PLACES: &[SecretPlace] = &[
    place(".ssh", Os::Any, "SSH keys"),
    place(".gnupg", Os::Any, "GnuPG keys"),
    place(".aws", Os::Any, "AWS credentials"),
    place(".azure", Os::Any, "Azure credentials"),
    place(".config/gcloud", Os::Any, "Google Cloud credentials"),
    place(".kube", Os::Any, "Kubernetes credentials"),
    place(".docker/config.json", Os::Any, "Docker registry logins"),
    place(".netrc", Os::Any, "netrc passwords"),
    place(".git-credentials", Os::Any, "Git credentials"),
    place(".config/gh", Os::Any, "GitHub CLI token"),
    place(".password-store", Os::Any, "pass passwords"),
    place(".local/share/keyrings", Os::Linux, "GNOME keyrings"),
    place(".mozilla", Os::Linux, "Firefox profiles"),
    place(".config/google-chrome", Os::Linux, "Chrome profiles"),
    place(".config/chromium", Os::Linux, "Chromium profiles"),
    place(".config/BraveSoftware", Os::Linux, "Brave profiles"),
    place(".config/microsoft-edge", Os::Linux, "Edge profiles"),
    place(".config/vivaldi", Os::Linux, "Vivaldi profiles"),
    place(".config/opera", Os::Linux, "Opera profiles"),
    place("snap/firefox", Os::Linux, "Firefox (snap) profiles"),
    place(
        ".var/app/org.mozilla.firefox",
        Os::Linux,
        "Firefox (Flatpak) profiles",
    ),
    place("Library/Keychains", Os::Mac, "keychains"),
    place(
        "Library/Application Support/Google/Chrome",
        Os::Mac,
        "Chrome profiles",
    ),
    place(
        "Library/Application Support/Chromium",
        Os::Mac,
        "Chromium profiles",
    ),
    place(
        "Library/Application Support/Firefox",
        Os::Mac,
        "Firefox profiles",
    ),
    place(
        "Library/Application Support/BraveSoftware",
        Os::Mac,
        "Brave profiles",
    ),
    place(
        "Library/Application Support/Microsoft Edge",
        Os::Mac,
        "Edge profiles",
    ),
    place("Library/Safari", Os::Mac, "Safari data"),
    place("Library/Cookies", Os::Mac, "cookies"),
    place(
        "AppData/Local/Google/Chrome/User Data",
        Os::Windows,
        "Chrome profiles",
    ),
    place(
        "AppData/Local/Microsoft/Edge/User Data",
        Os::Windows,
        "Edge profiles",
    ),
    place(
        "AppData/Roaming/Mozilla/Firefox",
        Os::Windows,
        "Firefox profiles",
    ),
];

/// What is kept at `place` if it is one of the secret places under `home`.
pub(crate) fn what_is(place: &Path, home: &Path) -> Option<&'static str> {
    let relative = place.strip_prefix(home).ok()?;
    SECRET_PLACES
        .iter()
        .find(|p| join_relative(Path::new(""), p.path) == relative)
        .map(|p| p.what)
}

/// Words in a server's command line that say which secret place it needs
/// (a Kubernetes server reads `~/.kube`), with that place.
const NEEDS: &[(&[&str], &str)] = &[
    (&["kubectl", "kubernetes", "k8s", "helm", "kube"], "~/.kube"),
    (&["aws", "awslabs"], "~/.aws"),
    (
        &["gcloud", "gcp", "google-cloud", "bigquery"],
        "~/.config/gcloud",
    ),
    (&["azure", "az"], "~/.azure"),
];

/// The secret places a server probably needs, from its command and
/// arguments: what import and `add` suggest as `sandbox.expose`.
pub fn suggest_expose(command: &str, args: &[String]) -> Vec<&'static str> {
    let words: Vec<String> = std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .flat_map(|part| {
            part.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                .flat_map(|w| w.split('-').map(str::to_string).chain([w.to_string()]))
                .collect::<Vec<_>>()
        })
        .map(|w| w.to_ascii_lowercase())
        .collect();
    NEEDS
        .iter()
        .filter(|(marks, _)| marks.iter().any(|m| words.iter().any(|w| w == m)))
        .map(|(_, place)| *place)
        .collect()
}

/// Package caches a custom profile keeps writable, so `npx` and `uvx` can
/// fetch and unpack what they run.
const PACKAGE_CACHES: &[&str] = &[
    ".npm",
    ".cache/uv",
    ".local/share/uv",
    ".cache/pip",
    ".cache/node-gyp",
];

/// System directories a custom profile keeps readable (and executable).
const SYSTEM_READ: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/nix",
    "/snap", "/run", "/sys", "/proc",
];

/// System paths a custom profile keeps writable (`/dev/null`, terminals).
const SYSTEM_WRITE: &[&str] = &["/dev"];

/// Which profile a plan follows, as status shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Profile {
    Standard,
    Custom,
}

impl Profile {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Custom => "custom",
        }
    }
}

/// The paths a custom profile allows, besides the hidden ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Allow {
    pub(crate) read: Vec<PathBuf>,
    pub(crate) write: Vec<PathBuf>,
}

/// What one start of one server gets: handed to the sandbox helper as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Plan {
    pub(crate) profile: Profile,
    /// Places the server can neither read nor write (those that exist are
    /// covered when it starts).
    pub(crate) hide: Vec<PathBuf>,
    /// The custom profile's allowlist; `None` allows everything not hidden.
    pub(crate) allow: Option<Allow>,
    pub(crate) network: NetworkPolicy,
    /// Refuse to start rather than run without every part enforced.
    pub(crate) required: bool,
}

/// What the hub knows of the machine: the home directory and Switchboard's
/// own files and folders (config, state: control token, catalog, pins,
/// activity log, token store).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Host {
    pub(crate) home: Option<PathBuf>,
    pub(crate) own: Vec<PathBuf>,
    pub(crate) os: Option<Os>,
}

impl Host {
    fn os(&self) -> Os {
        self.os.unwrap_or(Os::current())
    }

    /// The secret places of this system, as absolute paths.
    pub(crate) fn secret_places(&self) -> Vec<(PathBuf, &'static SecretPlace)> {
        let Some(home) = &self.home else {
            return Vec::new();
        };
        let os = self.os();
        SECRET_PLACES
            .iter()
            .filter(|p| p.os.includes(os))
            .map(|p| (join_relative(home, p.path), p))
            .collect()
    }

    /// `~` and `~/x` against the home directory; a relative path against
    /// `base` (the rule profile roots use, `config::roots::normalize`).
    pub(crate) fn resolve(&self, path: &str, base: &Path) -> PathBuf {
        let home = self.home.as_deref();
        roots::normalize(path, home).unwrap_or_else(|| roots::clean(&base.join(path)))
    }
}

/// The facts of one launch the allowlist of a custom profile needs.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaunchFacts {
    /// The program as found (absolute when it was found on PATH), and where
    /// its symlinks lead.
    pub(crate) program: Vec<PathBuf>,
    pub(crate) args: Vec<String>,
    /// The server's `cwd`, else the hub's working directory: relative
    /// paths are resolved against it.
    pub(crate) base: PathBuf,
    pub(crate) cwd: Option<PathBuf>,
    /// The directories of the PATH the server gets.
    pub(crate) path_dirs: Vec<PathBuf>,
    /// The server's private temporary directory (custom profile).
    pub(crate) private_tmp: Option<PathBuf>,
}

/// The plan for a server under `policy`. `exists` tells which paths named in
/// the arguments are files or folders (only those are allowed).
pub(crate) fn plan(
    host: &Host,
    policy: &SandboxPolicy,
    launch: &LaunchFacts,
    exists: &dyn Fn(&Path) -> bool,
) -> Plan {
    let named: Vec<PathBuf> = policy
        .filesystem
        .iter()
        .flat_map(|fs| fs.read.iter().chain(&fs.write))
        .map(|p| host.resolve(p, &launch.base))
        .collect();
    let exposed: Vec<PathBuf> = policy
        .expose
        .iter()
        .map(|p| host.resolve(p, &launch.base))
        .collect();
    let mut hide: Vec<PathBuf> = host
        .secret_places()
        .into_iter()
        .map(|(path, _)| path)
        .filter(|secret| {
            let given_back = exposed
                .iter()
                .any(|e| e.starts_with(secret) || secret.starts_with(e))
                || named.iter().any(|n| n.starts_with(secret));
            !given_back
        })
        .collect();
    for own in &host.own {
        let own = roots::clean(own);
        if !hide.iter().any(|h| own.starts_with(h)) {
            hide.push(own);
        }
    }
    let allow = policy
        .filesystem
        .as_ref()
        .map(|fs| allowlist(host, fs, launch, exists));
    Plan {
        profile: if policy.is_custom() {
            Profile::Custom
        } else {
            Profile::Standard
        },
        hide,
        allow,
        network: policy.network,
        required: policy.required,
    }
}

fn allowlist(
    host: &Host,
    fs: &crate::config::FilesystemPolicy,
    launch: &LaunchFacts,
    exists: &dyn Fn(&Path) -> bool,
) -> Allow {
    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
    let mut write: Vec<PathBuf> = SYSTEM_WRITE.iter().map(PathBuf::from).collect();
    for program in &launch.program {
        if let Some(root) = installation(program) {
            read.push(root);
        }
    }
    read.extend(launch.path_dirs.iter().cloned());
    read.extend(launch.cwd.iter().cloned());
    for arg in &launch.args {
        for candidate in path_like(arg) {
            let path = host.resolve(candidate, &launch.base);
            if exists(&path) {
                read.push(path);
            }
        }
    }
    if let Some(home) = &host.home {
        write.extend(PACKAGE_CACHES.iter().map(|c| join_relative(home, c)));
    }
    write.extend(launch.private_tmp.iter().cloned());
    read.extend(fs.read.iter().map(|p| host.resolve(p, &launch.base)));
    write.extend(fs.write.iter().map(|p| host.resolve(p, &launch.base)));
    dedupe(&mut read);
    dedupe(&mut write);
    Allow { read, write }
}

/// Where a program is installed: the folder above its `bin` folder
/// (`~/.nvm/versions/node/v22/bin/node` → `.../v22`), else its own folder.
fn installation(program: &Path) -> Option<PathBuf> {
    let dir = program.parent()?;
    if dir.as_os_str().is_empty() {
        return None;
    }
    let root = if dir.file_name().is_some_and(|n| n == "bin") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    Some(roots::clean(root))
}

/// The parts of an argument that may name a path: the argument itself, and
/// the value of an `--option=value` form.
fn path_like(arg: &str) -> Vec<&str> {
    let looks = |s: &str| {
        s.starts_with('/')
            || s.starts_with("~/")
            || s == "~"
            || s.starts_with("./")
            || s.starts_with("../")
            || (s.contains('/') && !s.contains("://") && !s.starts_with('@') && !s.starts_with('-'))
    };
    let mut out = Vec::new();
    if looks(arg) {
        out.push(arg);
    }
    if let Some((_, value)) = arg.split_once('=')
        && looks(value)
    {
        out.push(value);
    }
    out
}

fn join_relative(base: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .filter(|part| !part.is_empty())
        .fold(base.to_path_buf(), |path, part| path.join(part))
}

fn dedupe(paths: &mut Vec<PathBuf>) {
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(p.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FilesystemPolicy;

    fn host() -> Host {
        Host {
            home: Some(PathBuf::from("/home/ann")),
            own: vec![
                PathBuf::from("/home/ann/.cache/switchboard"),
                PathBuf::from("/home/ann/.config/switchboard"),
            ],
            os: Some(Os::Linux),
        }
    }

    fn facts() -> LaunchFacts {
        LaunchFacts {
            program: vec![PathBuf::from("/home/ann/.nvm/versions/node/v22/bin/npx")],
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/home/ann/notes".into(),
                "--root=./data".into(),
                "https://example.com/x".into(),
            ],
            base: PathBuf::from("/home/ann/work"),
            cwd: None,
            path_dirs: vec![PathBuf::from("/usr/bin")],
            private_tmp: Some(PathBuf::from("/tmp/sb-1")),
        }
    }

    #[test]
    fn the_standard_profile_hides_every_secret_place_and_switchboards_own() {
        let planned = plan(&host(), &SandboxPolicy::default(), &facts(), &|_| true);
        assert_eq!(planned.profile, Profile::Standard);
        assert!(planned.allow.is_none());
        for place in [
            "/home/ann/.ssh",
            "/home/ann/.aws",
            "/home/ann/.docker/config.json",
            "/home/ann/.config/gcloud",
            "/home/ann/.local/share/keyrings",
            "/home/ann/.mozilla",
            "/home/ann/.cache/switchboard",
            "/home/ann/.config/switchboard",
        ] {
            assert!(planned.hide.contains(&PathBuf::from(place)), "{place}");
        }
        assert!(
            !planned
                .hide
                .iter()
                .any(|p| p.starts_with("/home/ann/Library"))
        );
    }

    #[test]
    fn expose_gives_back_only_what_it_names() {
        let policy = SandboxPolicy {
            expose: vec!["~/.kube".into(), "~/.aws/config".into()],
            ..Default::default()
        };
        let planned = plan(&host(), &policy, &facts(), &|_| true);
        assert!(!planned.hide.contains(&PathBuf::from("/home/ann/.kube")));
        assert!(!planned.hide.contains(&PathBuf::from("/home/ann/.aws")));
        assert!(planned.hide.contains(&PathBuf::from("/home/ann/.ssh")));
        // Switchboard's own places are never given back.
        let policy = SandboxPolicy {
            expose: vec!["~".into()],
            ..Default::default()
        };
        let planned = plan(&host(), &policy, &facts(), &|_| true);
        assert!(!planned.hide.contains(&PathBuf::from("/home/ann/.ssh")));
        assert!(
            planned
                .hide
                .contains(&PathBuf::from("/home/ann/.config/switchboard"))
        );
    }

    #[test]
    fn a_custom_profile_allows_the_runtime_the_named_paths_and_its_lists() {
        let policy = SandboxPolicy {
            filesystem: Some(FilesystemPolicy {
                read: vec!["~/docs".into(), "~".into()],
                write: vec!["${OUT}".into(), "out".into()],
            }),
            network: NetworkPolicy::None,
            ..Default::default()
        };
        let exists = |p: &Path| p != Path::new("/home/ann/work/data");
        let planned = plan(&host(), &policy, &facts(), &exists);
        assert_eq!(planned.profile, Profile::Custom);
        assert_eq!(planned.network, NetworkPolicy::None);
        let allow = planned.allow.expect("an allowlist");
        for read in [
            "/usr",
            "/etc",
            "/home/ann/.nvm/versions/node/v22",
            "/usr/bin",
            "/home/ann/notes",
            "/home/ann/docs",
            "/home/ann",
        ] {
            assert!(allow.read.contains(&PathBuf::from(read)), "{read}");
        }
        // Not a file (exists says no), not a URL, not a package name.
        assert!(!allow.read.iter().any(|p| p.ends_with("data")));
        assert!(
            !allow
                .read
                .iter()
                .any(|p| p.to_string_lossy().contains("example"))
        );
        for write in ["/dev", "/home/ann/.npm", "/tmp/sb-1", "/home/ann/work/out"] {
            assert!(allow.write.contains(&PathBuf::from(write)), "{write}");
        }
        // Listing the home directory does not give back what is inside it.
        assert!(planned.hide.contains(&PathBuf::from("/home/ann/.ssh")));
    }

    #[test]
    fn a_custom_list_that_names_a_secret_place_gives_it_back() {
        let policy = SandboxPolicy {
            filesystem: Some(FilesystemPolicy {
                read: vec!["~/.aws/config".into()],
                write: Vec::new(),
            }),
            ..Default::default()
        };
        let planned = plan(&host(), &policy, &facts(), &|_| true);
        assert!(!planned.hide.contains(&PathBuf::from("/home/ann/.aws")));
        assert!(planned.hide.contains(&PathBuf::from("/home/ann/.ssh")));
    }

    #[test]
    fn paths_resolve_against_home_and_base() {
        let host = host();
        let base = Path::new("/srv/app");
        assert_eq!(host.resolve("~", base), PathBuf::from("/home/ann"));
        assert_eq!(host.resolve("~/a/../b", base), PathBuf::from("/home/ann/b"));
        assert_eq!(
            host.resolve("data/x", base),
            PathBuf::from("/srv/app/data/x")
        );
        assert_eq!(host.resolve("/abs", base), PathBuf::from("/abs"));
    }

    #[test]
    fn the_places_a_command_line_suggests() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            suggest_expose("npx", &args(&["-y", "mcp-server-kubernetes"])),
            vec!["~/.kube"]
        );
        assert_eq!(
            suggest_expose(
                "uvx",
                &args(&["awslabs.aws-documentation-mcp-server@latest"])
            ),
            vec!["~/.aws"]
        );
        // `docker run` of a public image needs no registry login.
        assert!(suggest_expose("docker", &args(&["run", "-i", "mcp/fetch"])).is_empty());
        assert!(
            suggest_expose(
                "npx",
                &args(&[
                    "-y",
                    "@modelcontextprotocol/server-filesystem",
                    "/home/ann/laws"
                ])
            )
            .is_empty()
        );
        assert!(suggest_expose("node", &args(&["/srv/mcp/maze.js"])).is_empty());
    }

    #[test]
    fn installation_roots() {
        assert_eq!(
            installation(Path::new("/opt/node/bin/node")),
            Some(PathBuf::from("/opt/node"))
        );
        assert_eq!(
            installation(Path::new("/srv/tools/server")),
            Some(PathBuf::from("/srv/tools"))
        );
        assert_eq!(installation(Path::new("npx")), None);
    }

    /// docs/security.md lists the same places, each with what is kept there.
    #[test]
    fn the_documented_table_is_this_table() {
        let docs = include_str!("../../../../docs/security.md");
        for place in SECRET_PLACES {
            let row_start = format!("| `~/{}` |", place.path);
            let row = docs
                .lines()
                .find(|l| l.starts_with(&row_start))
                .unwrap_or_else(|| panic!("docs/security.md has no row for ~/{}", place.path));
            assert!(row.ends_with(&format!("| {} |", place.what)), "{row}");
        }
        let rows = docs.lines().filter(|l| l.starts_with("| `~/")).count();
        assert_eq!(
            rows,
            SECRET_PLACES.len(),
            "a documented place is not in the table"
        );
    }

    #[test]
    fn other_systems_have_their_own_places() {
        let mac = Host {
            home: Some(PathBuf::from("/Users/ann")),
            own: Vec::new(),
            os: Some(Os::Mac),
        };
        let places: Vec<PathBuf> = mac.secret_places().into_iter().map(|(p, _)| p).collect();
        assert!(places.contains(&PathBuf::from("/Users/ann/Library/Keychains")));
        assert!(places.contains(&PathBuf::from("/Users/ann/.ssh")));
        assert!(!places.iter().any(|p| p.ends_with(".mozilla")));
    }
}
