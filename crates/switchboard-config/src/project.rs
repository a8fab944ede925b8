//! Project files: a `.switchboard.json` in a folder is an unnamed profile
//! for that folder (`{"servers": ["jira", "pg"], "toolMode": "search"}`),
//! chosen by a client's roots like `profiles.<name>.roots` (the hub side is
//! `hub/projects.rs`).
//!
//! This module reads one folder's file and says what it holds; it reads
//! nothing else. Only the file directly in the folder named is read (never a
//! parent's: the folder is a client's declared root, and the hub reads no
//! file outside a client's roots), it is opened without following a symlink
//! in its last component, and only when it passes the config file's rule
//! (`guard.rs`): it and its folder belong to this user or root and no
//! one else can write them (the owner's private group aside). Otherwise it
//! is [`ProjectRead::Refused`] with a sentence naming the file and why.
//!
//! [`stamp`] is what the hub compares to notice a new, changed or removed
//! file without reading it again (`lstat`: device, inode, size, mtime,
//! mode, owner).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{ServerId, ToolMode};

/// The project file's name, in the project's folder.
pub const PROJECT_FILE: &str = ".switchboard.json";

/// Largest project file read.
const MAX_PROJECT_BYTES: u64 = 64 * 1024;

/// What identifies one version of a folder's project file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
    mode: u32,
    uid: u32,
}

/// The stamp of `folder`'s project file, `None` when there is none (`lstat`:
/// a symlink is stamped as itself, and later refused).
pub fn stamp(folder: &Path) -> Option<Stamp> {
    let meta = std::fs::symlink_metadata(folder.join(PROJECT_FILE)).ok()?;
    #[cfg(unix)]
    let (dev, ino, mode, uid) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino(), meta.mode(), meta.uid())
    };
    #[cfg(not(unix))]
    let (dev, ino, mode, uid) = (0, 0, 0, 0);
    Some(Stamp {
        dev,
        ino,
        len: meta.len(),
        modified: meta.modified().ok(),
        mode,
        uid,
    })
}

/// A project file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The folder it is in (normalized, as the client's root named it).
    pub folder: PathBuf,
    /// The configured servers it lists, in its order.
    pub servers: Vec<ServerId>,
    /// Its tool mode; `None`: `settings.toolMode`.
    pub tool_mode: Option<ToolMode>,
    /// What was left out (unknown server ids, unknown keys), one sentence each.
    pub warnings: Vec<String>,
}

/// What reading a folder's project file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectRead {
    /// The folder has no project file.
    Missing,
    /// The file was not read: someone else could change it, or it is no
    /// plain file. The sentence names the file and why.
    Refused(String),
    /// The file was read but is not a project file (bad JSON, wrong types).
    Invalid(String),
    Loaded(Project),
}

/// Reads `folder`'s project file; `known` are the configured server ids.
pub fn read(folder: &Path, known: &HashSet<ServerId>) -> ProjectRead {
    let path = folder.join(PROJECT_FILE);
    let shown = path.display();
    let mut file = match open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return ProjectRead::Missing,
        Err(err) => {
            return ProjectRead::Refused(format!(
                "the project file {shown} is ignored: it cannot be opened ({err}; a symlink \
                 is not followed)"
            ));
        }
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(err) => {
            return ProjectRead::Refused(format!("the project file {shown} is ignored: {err}"));
        }
    };
    if !meta.is_file() {
        return ProjectRead::Refused(format!(
            "the project file {shown} is ignored: it is not a plain file"
        ));
    }
    if let Err(why) = check_owner_and_mode(&path, folder, &meta) {
        return ProjectRead::Refused(why);
    }
    if meta.len() > MAX_PROJECT_BYTES {
        return ProjectRead::Invalid(format!(
            "the project file {shown} is ignored: it is larger than {MAX_PROJECT_BYTES} bytes"
        ));
    }
    let mut text = String::new();
    if let Err(err) = (&mut file)
        .take(MAX_PROJECT_BYTES + 1)
        .read_to_string(&mut text)
    {
        return ProjectRead::Invalid(format!(
            "the project file {shown} is ignored: it cannot be read as text ({err})"
        ));
    }
    match parse(&text, known) {
        Ok((servers, tool_mode, warnings)) => ProjectRead::Loaded(Project {
            folder: folder.to_path_buf(),
            servers,
            tool_mode,
            warnings: warnings
                .into_iter()
                .map(|w| format!("the project file {shown}: {w}"))
                .collect(),
        }),
        Err(why) => ProjectRead::Invalid(format!("the project file {shown} is ignored: {why}")),
    }
}

/// Opens `path` for reading without following a symlink in its last
/// component (or blocking on a FIFO).
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The config file's rule for the opened file and its folder.
#[cfg(unix)]
fn check_owner_and_mode(
    path: &Path,
    folder: &Path,
    opened: &std::fs::Metadata,
) -> Result<(), String> {
    use switchboard_util::files::{Exposure, Guard, check_exposure};
    let why = |what: String, exposure: Exposure| {
        let fix = match exposure {
            Exposure::Mode { .. } => "`chmod go-w` it",
            Exposure::Owner { .. } => "it must belong to you or root",
        };
        format!(
            "the project file {} is ignored: {what} {exposure}; a project file chooses the \
             tools your clients get, so only you may be able to change it ({fix})",
            path.display()
        )
    };
    check_exposure(opened, Guard::Unwritable).map_err(|e| why("it".into(), e))?;
    let dir = std::fs::metadata(folder).map_err(|err| {
        format!(
            "the project file {} is ignored: its folder cannot be checked ({err})",
            path.display()
        )
    })?;
    check_exposure(&dir, Guard::Unwritable)
        .map_err(|e| why(format!("its folder {}", folder.display()), e))
}

/// Other platforms: not checked (as the config file, see `guard.rs`).
#[cfg(not(unix))]
fn check_owner_and_mode(_: &Path, _: &Path, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

type Parsed = (Vec<ServerId>, Option<ToolMode>, Vec<String>);

/// The file's text: its known servers, tool mode and what was left out.
fn parse(text: &str, known: &HashSet<ServerId>) -> Result<Parsed, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|err| format!("it is not valid JSON ({err})"))?;
    let Value::Object(body) = value else {
        return Err("it must be an object with `servers` (and optionally `toolMode`)".into());
    };
    let mut servers = Vec::new();
    let mut tool_mode = None;
    let mut warnings = Vec::new();
    let mut has_servers = false;
    for (key, value) in body {
        match key.as_str() {
            "servers" => {
                has_servers = true;
                let Value::Array(items) = value else {
                    return Err("`servers` must be an array of server ids".into());
                };
                for item in items {
                    let id = match &item {
                        Value::String(id) => ServerId::new(id).ok(),
                        _ => None,
                    };
                    match id {
                        Some(id) if known.contains(&id) => {
                            if !servers.contains(&id) {
                                servers.push(id);
                            }
                        }
                        _ => warnings.push(format!(
                            "`servers` names {item}, which is no configured server; it is left out"
                        )),
                    }
                }
            }
            "toolMode" => {
                let mode = value.as_str().and_then(|t| t.parse::<ToolMode>().ok());
                tool_mode = Some(mode.ok_or_else(|| {
                    format!("`toolMode` must be \"all\", \"search\" or \"code\" (got {value})")
                })?);
            }
            other => warnings.push(format!("the key {other:?} is unknown and left out")),
        }
    }
    if !has_servers {
        return Err("it has no `servers` list".into());
    }
    Ok((servers, tool_mode, warnings))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn known() -> HashSet<ServerId> {
        ["jira", "pg"]
            .iter()
            .map(|s| ServerId::new(s).unwrap())
            .collect()
    }

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(dir.path(), mode).unwrap();
        }
        dir
    }

    fn write(dir: &Path, text: &str, mode: u32) {
        let path = dir.join(PROJECT_FILE);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }

    #[test]
    fn a_safe_file_is_read_and_unknown_ids_are_left_out_with_a_warning() {
        let dir = folder();
        assert_eq!(read(dir.path(), &known()), ProjectRead::Missing);
        assert_eq!(stamp(dir.path()), None);
        write(
            dir.path(),
            r#"{"servers": ["pg", "nope", "jira", 3], "toolMode": "search", "x": 1}"#,
            0o644,
        );
        let ProjectRead::Loaded(project) = read(dir.path(), &known()) else {
            panic!("not loaded");
        };
        assert_eq!(
            project.servers,
            vec![ServerId::new("pg").unwrap(), ServerId::new("jira").unwrap()]
        );
        assert_eq!(project.tool_mode, Some(ToolMode::Search));
        assert_eq!(project.warnings.len(), 3, "{:?}", project.warnings);
        assert!(
            project.warnings[0].contains("\"nope\""),
            "{:?}",
            project.warnings
        );
        assert!(project.warnings[0].contains(PROJECT_FILE));
        assert!(stamp(dir.path()).is_some());
    }

    #[test]
    fn bad_content_is_invalid_and_named() {
        let dir = folder();
        for (text, says) in [
            ("{", "not valid JSON"),
            ("[]", "must be an object"),
            (r#"{"toolMode": "all"}"#, "no `servers`"),
            (r#"{"servers": "pg"}"#, "array"),
            (r#"{"servers": [], "toolMode": "some"}"#, "toolMode"),
        ] {
            write(dir.path(), text, 0o644);
            match read(dir.path(), &known()) {
                ProjectRead::Invalid(why) => {
                    assert!(
                        why.contains(says) && why.contains(PROJECT_FILE),
                        "{text}: {why}"
                    )
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// The consult's cost per root and list request (`cargo test -p
    /// switchboard-core --lib project::tests::stamp_cost -- --ignored
    /// --nocapture`): one `lstat`, with and without a file.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn stamp_cost() {
        let dir = folder();
        write(dir.path(), r#"{"servers": []}"#, 0o644);
        let none = folder();
        for (what, path) in [("a file", dir.path()), ("no file", none.path())] {
            let n = 100_000u32;
            let start = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(stamp(path));
            }
            println!("stamp, {what}: {:?} per consult", start.elapsed() / n);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_can_change_or_a_symlink_is_refused() {
        let dir = folder();
        write(dir.path(), r#"{"servers": ["pg"]}"#, 0o666);
        let ProjectRead::Refused(why) = read(dir.path(), &known()) else {
            panic!("a world-writable file was read");
        };
        assert!(
            why.contains("mode 666") && why.contains(PROJECT_FILE),
            "{why}"
        );
        let before = stamp(dir.path());
        write(dir.path(), r#"{"servers": ["pg"]}"#, 0o644);
        assert_ne!(stamp(dir.path()), before, "a mode change is a new stamp");
        assert!(matches!(read(dir.path(), &known()), ProjectRead::Loaded(_)));

        // A symlink to a file elsewhere is not followed.
        let elsewhere = folder();
        write(elsewhere.path(), r#"{"servers": ["pg"]}"#, 0o644);
        let link = folder();
        std::os::unix::fs::symlink(
            elsewhere.path().join(PROJECT_FILE),
            link.path().join(PROJECT_FILE),
        )
        .unwrap();
        assert!(matches!(
            read(link.path(), &known()),
            ProjectRead::Refused(_)
        ));

        // A folder others can write to: refused too.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let ProjectRead::Refused(why) = read(dir.path(), &known()) else {
            panic!("a file in a world-writable folder was read");
        };
        assert!(why.contains("its folder"), "{why}");
    }
}
