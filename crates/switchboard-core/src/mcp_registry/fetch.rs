//! Fetching a package before its first start, at its exact version, with
//! its own package manager, into the server's own folder for that version
//! ([`packages_dir`]`/<id>/<version>`, [`package_dir`]), and checking its
//! digest:
//! - npm: `npm view <id>@<v> dist.integrity` is what the registry vouches
//!   for; `npm pack` fetches the tarball into the folder's npm cache and
//!   its SHA-512 must be that integrity; `npm install --ignore-scripts`
//!   then puts its dependencies (each checked by npm against its own
//!   `dist.integrity`) in the same cache, so the vetting start runs
//!   offline from it;
//! - PyPI: the release's `sha256` digests from PyPI's JSON API; `uv pip
//!   install --require-hashes --no-deps` fetches the file and refuses one
//!   whose digest is not among them, and `uv tool install` fills the
//!   folder's uv cache with the dependencies for the offline start.
//!
//! One folder per version, so that an update fetched and vetted beside the
//! running version leaves that version's npm or uv cache in place until the
//! update is approved ([`remove_other_versions`] then drops the old one).
//! A digest that differs from the one locked earlier for the same version
//! is refused ([`FetchError::LockedDigest`]). Commands run with a deadline
//! ([`FETCH_TIMEOUT`]); their output tail is kept for the error.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use sha2::{Digest, Sha512};

use super::document::PackageKind;

/// How long one package-manager command may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(300);

/// Why a package could not be fetched or checked.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("`{command}` could not run: {message} (is it installed and on PATH?)")]
    Spawn { command: String, message: String },
    #[error("`{command}` failed ({status}): {tail}")]
    Failed {
        command: String,
        status: String,
        tail: String,
    },
    #[error("`{command}` did not finish within {} s", .after.as_secs())]
    Timeout { command: String, after: Duration },
    #[error("{package}: {message}")]
    Metadata { package: String, message: String },
    #[error(
        "{package}: the fetched file's digest {actual} is not the one its registry publishes ({expected}); nothing was installed"
    )]
    Digest {
        package: String,
        expected: String,
        actual: String,
    },
    #[error(
        "{package}: its registry now gives digest {actual}, but servers.lock.json locked {locked} for this version; \
         refusing it (the package changed under the same version)"
    )]
    LockedDigest {
        package: String,
        locked: String,
        actual: String,
    },
    #[error("cannot prepare {}: {message}", .path.display())]
    Folder { path: PathBuf, message: String },
}

/// Where the servers' own folders are: `SWITCHBOARD_PACKAGES_DIR`, else
/// the OS data dir's `switchboard-packages` (outside the state and config
/// folders, which the sandbox hides from servers).
pub fn packages_dir() -> PathBuf {
    std::env::var_os("SWITCHBOARD_PACKAGES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dirs::data_local_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("switchboard-packages")
        })
}

/// Server `id`'s own folder for package `version`:
/// `<packages>/<id>/<version>` (the version cut to a safe file name). A
/// server fetched before folders were per version has its package in
/// `<packages>/<id>` itself: that folder is used while it has no folder for
/// `version` and holds a fetched package (a tarball or a uv cache).
pub fn package_dir(id: &str, version: Option<&str>) -> PathBuf {
    package_dir_in(&packages_dir(), id, version)
}

fn package_dir_in(root: &Path, id: &str, version: Option<&str>) -> PathBuf {
    let own = root.join(id);
    let Some(version) = version else {
        return own;
    };
    let versioned = own.join(version_folder(version));
    if !versioned.exists() && holds_package(&own) {
        return own;
    }
    versioned
}

/// The folder of package `version` of server `id`, where it is fetched
/// (never the folder of the layout before folders were per version).
pub fn version_dir(id: &str, version: &str) -> PathBuf {
    packages_dir().join(id).join(version_folder(version))
}

/// `version` as one safe path component.
fn version_folder(version: &str) -> String {
    let name: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.chars().all(|c| c == '.') {
        format!("v{name}")
    } else {
        name
    }
}

/// Whether `dir` itself holds a fetched package (the layout before
/// folders were per version).
fn holds_package(dir: &Path) -> bool {
    dir.join("uv").is_dir()
        || std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "tgz"))
        })
}

/// Removes everything in server `id`'s folder but the folder of package
/// version `keep` (older versions, an abandoned candidate, a package of
/// the layout before folders were per version). Returns what was removed.
pub fn remove_other_versions(id: &str, keep: Option<&str>) -> Vec<PathBuf> {
    remove_other_versions_in(&packages_dir(), id, keep)
}

fn remove_other_versions_in(root: &Path, id: &str, keep: Option<&str>) -> Vec<PathBuf> {
    let own = root.join(id);
    let keep = keep.map(version_folder);
    let Ok(entries) = std::fs::read_dir(&own) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        if keep.as_deref().is_some_and(|k| entry.file_name() == k) {
            continue;
        }
        let path = entry.path();
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        match gone {
            Ok(()) => removed.push(path),
            Err(err) => {
                tracing::warn!(path = %path.display(), %err, "cannot remove a package folder no longer run")
            }
        }
    }
    removed.sort();
    removed
}

/// Removes the folder of package `version` of server `id` (a staged
/// update that was replaced or dropped).
pub fn remove_version(id: &str, version: &str) {
    let dir = version_dir(id, version);
    if let Err(err) = std::fs::remove_dir_all(&dir)
        && err.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(path = %dir.display(), %err, "cannot remove a staged package folder");
    }
}

/// The environment a start from the server's own folder needs (the npm or
/// uv cache there, offline).
pub fn offline_env(kind: &PackageKind, dir: &Path) -> Vec<(String, String)> {
    let path = |p: &str| dir.join(p).to_string_lossy().into_owned();
    match kind {
        PackageKind::Npm => vec![
            ("npm_config_cache".into(), path("npm")),
            ("npm_config_offline".into(), "true".into()),
            ("npm_config_update_notifier".into(), "false".into()),
        ],
        PackageKind::Pypi => vec![
            ("UV_CACHE_DIR".into(), path("uv")),
            ("UV_OFFLINE".into(), "1".into()),
            ("UV_TOOL_DIR".into(), path("uv-tools")),
            ("UV_PYTHON_DOWNLOADS".into(), "never".into()),
        ],
        PackageKind::Remote => Vec::new(),
    }
}

/// The installations of the interpreters the package's environments in
/// `dir` run on (a uv tool environment links to its base Python): the
/// vetting sandbox must let the server read and run them.
pub fn interpreters(kind: &PackageKind, dir: &Path) -> Vec<String> {
    if *kind != PackageKind::Pypi {
        return Vec::new();
    }
    let Ok(envs) = std::fs::read_dir(dir.join("uv-tools")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for env in envs.flatten() {
        let Ok(python) = std::fs::canonicalize(env.path().join("bin").join("python")) else {
            continue;
        };
        // `<root>/bin/python3.11` → `<root>`.
        if let Some(root) = python.parent().and_then(Path::parent) {
            let root = root.to_string_lossy().into_owned();
            if !out.contains(&root) {
                out.push(root);
            }
        }
    }
    out
}

/// Why the package fetched into `dir` at install is not there or not the
/// one locked (`integrity`); `None` when it is. npm: a tarball in `dir`
/// whose SHA-512 is the integrity; PyPI: the uv cache uv filled.
pub fn verify_fetched(kind: &PackageKind, dir: &Path, integrity: Option<&str>) -> Option<String> {
    match kind {
        PackageKind::Npm => {
            let integrity = integrity?;
            let found = std::fs::read_dir(dir).ok().is_some_and(|entries| {
                entries.flatten().any(|e| {
                    e.path().extension().is_some_and(|x| x == "tgz")
                        && std::fs::read(e.path()).is_ok_and(|bytes| {
                            format!(
                                "sha512-{}",
                                base64::engine::general_purpose::STANDARD
                                    .encode(Sha512::digest(&bytes))
                            ) == integrity
                        })
                })
            });
            (!found).then(|| {
                format!(
                    "the package fetched at install ({}) is missing or is not the one servers.lock.json locks ({integrity})",
                    dir.display()
                )
            })
        }
        PackageKind::Pypi => (!dir.join("uv").is_dir()).then(|| {
            format!(
                "the package fetched at install ({}) is missing",
                dir.display()
            )
        }),
        PackageKind::Remote => None,
    }
}

/// Fetches `identifier` at `version` into `dir` and returns its checked
/// digest; `locked` is the digest locked earlier for this version.
pub async fn fetch(
    http: &reqwest::Client,
    kind: &PackageKind,
    identifier: &str,
    version: &str,
    dir: &Path,
    locked: Option<&str>,
) -> Result<String, FetchError> {
    std::fs::create_dir_all(dir).map_err(|err| FetchError::Folder {
        path: dir.to_path_buf(),
        message: err.to_string(),
    })?;
    let digest = match kind {
        PackageKind::Npm => fetch_npm(identifier, version, dir).await?,
        PackageKind::Pypi => fetch_pypi(http, identifier, version, dir).await?,
        PackageKind::Remote => return Ok(String::new()),
    };
    if let Some(locked) = locked
        && locked != digest
    {
        return Err(FetchError::LockedDigest {
            package: format!("{identifier} {version}"),
            locked: locked.to_string(),
            actual: digest,
        });
    }
    Ok(digest)
}

async fn fetch_npm(identifier: &str, version: &str, dir: &Path) -> Result<String, FetchError> {
    let spec = format!("{identifier}@{version}");
    let cache = dir.join("npm");
    let cache = cache.to_string_lossy();
    let package = || spec.clone();
    let view = run(
        "npm",
        &["view", &spec, "dist.integrity", "--json", "--cache", &cache],
        dir,
        &[],
    )
    .await?;
    let expected: String = serde_json::from_str(view.trim()).map_err(|_| FetchError::Metadata {
        package: package(),
        message: format!("npm gave no integrity for this version ({})", view.trim()),
    })?;
    let packed = run(
        "npm",
        &[
            "pack",
            &spec,
            "--json",
            "--pack-destination",
            &dir.to_string_lossy(),
            "--cache",
            &cache,
        ],
        dir,
        &[],
    )
    .await?;
    let filename = serde_json::from_str::<serde_json::Value>(&packed)
        .ok()
        .and_then(|v| v.get(0)?.get("filename")?.as_str().map(str::to_string))
        .ok_or_else(|| FetchError::Metadata {
            package: package(),
            message: "npm pack named no file".into(),
        })?;
    let tarball = dir.join(filename);
    let bytes = std::fs::read(&tarball).map_err(|err| FetchError::Folder {
        path: tarball.clone(),
        message: err.to_string(),
    })?;
    let actual = format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(&bytes))
    );
    if actual != expected {
        return Err(FetchError::Digest {
            package: package(),
            expected,
            actual,
        });
    }
    let prefix = dir.join("install");
    run(
        "npm",
        &[
            "install",
            "--prefix",
            &prefix.to_string_lossy(),
            "--cache",
            &cache,
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--no-save",
            &spec,
        ],
        dir,
        &[],
    )
    .await?;
    Ok(expected)
}

async fn fetch_pypi(
    http: &reqwest::Client,
    identifier: &str,
    version: &str,
    dir: &Path,
) -> Result<String, FetchError> {
    let package = || format!("{identifier}=={version}");
    let base =
        std::env::var("SWITCHBOARD_PYPI_URL").unwrap_or_else(|_| "https://pypi.org".to_string());
    let url = format!(
        "{}/pypi/{}/json",
        base.trim_end_matches('/'),
        super::encode(identifier)
    );
    let metadata = |message: String| FetchError::Metadata {
        package: package(),
        message,
    };
    let answer: serde_json::Value = http
        .get(&url)
        .timeout(super::REQUEST_TIMEOUT)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|err| metadata(format!("PyPI: {}", crate::util::error_chain(&err))))?
        .json()
        .await
        .map_err(|err| metadata(format!("PyPI answered no JSON: {err}")))?;
    let files = answer
        .get("releases")
        .and_then(|r| r.get(version))
        .and_then(serde_json::Value::as_array)
        .filter(|files| !files.is_empty())
        .ok_or_else(|| metadata("PyPI has no files for this version".into()))?;
    let digests: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| {
            Some((
                f.get("filename")?.as_str()?.to_string(),
                f.get("digests")?.get("sha256")?.as_str()?.to_string(),
            ))
        })
        .collect();
    let requirement = std::iter::once(package())
        .chain(digests.iter().map(|(_, d)| format!("--hash=sha256:{d}")))
        .collect::<Vec<_>>()
        .join(" ");
    let requirements = dir.join("requirements.txt");
    std::fs::write(&requirements, format!("{requirement}\n")).map_err(|err| {
        FetchError::Folder {
            path: requirements.clone(),
            message: err.to_string(),
        }
    })?;
    let env = offline_env(&PackageKind::Pypi, dir);
    let online: Vec<(String, String)> =
        env.into_iter().filter(|(k, _)| k != "UV_OFFLINE").collect();
    run(
        "uv",
        &[
            "pip",
            "install",
            "--no-deps",
            "--require-hashes",
            "-r",
            &requirements.to_string_lossy(),
            "--target",
            &dir.join("checked").to_string_lossy(),
            "-q",
        ],
        dir,
        &online,
    )
    .await?;
    let mut with_bin = online.clone();
    with_bin.push((
        "UV_TOOL_BIN_DIR".into(),
        dir.join("bin").to_string_lossy().into_owned(),
    ));
    run("uv", &["tool", "install", "-q", &package()], dir, &with_bin).await?;
    // The wheel's digest (what uv installs when there is one), else the first file's.
    let chosen = digests
        .iter()
        .find(|(name, _)| name.ends_with(".whl"))
        .or_else(|| digests.first())
        .map(|(_, d)| format!("sha256:{d}"))
        .unwrap_or_default();
    Ok(chosen)
}

/// Runs `program args` in `dir` with `env` added; its stdout on success.
async fn run(
    program: &str,
    args: &[&str],
    dir: &Path,
    env: &[(String, String)],
) -> Result<String, FetchError> {
    let command = format!("{program} {}", args.first().copied().unwrap_or_default());
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(FETCH_TIMEOUT, cmd.output())
        .await
        .map_err(|_| FetchError::Timeout {
            command: command.clone(),
            after: FETCH_TIMEOUT,
        })?
        .map_err(|err| FetchError::Spawn {
            command: command.clone(),
            message: err.to_string(),
        })?;
    if !output.status.success() {
        let text = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = text.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(FetchError::Failed {
            command,
            status: output.status.to_string(),
            tail: crate::util::redact::text(&tail.join(" | ")),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetched_tarball_is_checked_against_the_locked_integrity() {
        let dir = tempfile::tempdir().unwrap();
        let kind = PackageKind::Npm;
        let integrity = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(Sha512::digest(b"package"))
        );
        assert!(
            verify_fetched(&kind, dir.path(), Some(&integrity)).is_some(),
            "missing"
        );
        std::fs::write(dir.path().join("p-1.0.0.tgz"), b"package").unwrap();
        assert_eq!(verify_fetched(&kind, dir.path(), Some(&integrity)), None);
        std::fs::write(dir.path().join("p-1.0.0.tgz"), b"changed").unwrap();
        let why = verify_fetched(&kind, dir.path(), Some(&integrity)).unwrap();
        assert!(
            why.contains("is not the one servers.lock.json locks"),
            "{why}"
        );
    }

    #[test]
    fn each_version_has_its_own_folder_and_only_the_kept_one_stays() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let old = package_dir_in(root, "mem", Some("1.0.0"));
        assert_eq!(old, root.join("mem").join("1.0.0"));
        assert_eq!(
            package_dir_in(root, "mem", Some("../x")),
            root.join("mem").join(".._x")
        );
        assert_eq!(
            package_dir_in(root, "mem", Some("..")),
            root.join("mem").join("v..")
        );
        std::fs::create_dir_all(old.join("npm")).unwrap();
        let new = package_dir_in(root, "mem", Some("2.0.0"));
        std::fs::create_dir_all(new.join("npm")).unwrap();
        assert_eq!(
            remove_other_versions_in(root, "mem", Some("2.0.0")),
            vec![old.clone()]
        );
        assert!(!old.exists() && new.join("npm").is_dir());
        assert!(remove_other_versions_in(root, "other", None).is_empty());
    }

    #[test]
    fn a_package_fetched_before_folders_were_per_version_is_still_found_then_removed() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let own = root.join("mem");
        std::fs::create_dir_all(own.join("npm")).unwrap();
        std::fs::write(own.join("x-mem-1.0.0.tgz"), b"package").unwrap();
        assert_eq!(package_dir_in(root, "mem", Some("1.0.0")), own);
        // Once the version has its own folder, that one is used …
        let new = own.join("2.0.0");
        std::fs::create_dir_all(&new).unwrap();
        assert_eq!(package_dir_in(root, "mem", Some("2.0.0")), new);
        // … and the old layout's files go when the new version is kept.
        assert_eq!(
            remove_other_versions_in(root, "mem", Some("2.0.0")),
            vec![own.join("npm"), own.join("x-mem-1.0.0.tgz")]
        );
        assert_eq!(package_dir_in(root, "mem", Some("2.0.0")), new);
    }
}
