//! Writing files that may hold secrets: the one atomic-write function used by
//! the hub (warm catalog, config edits) and the CLI (import, connect,
//! backups), private directories, and the one check of who else could read
//! or change a file ([`check_exposure`]: the control token, the state
//! directory, the config file and its directory).
//!
//! Rules on Unix (other platforms get the same atomicity, without modes):
//! - directories Switchboard creates are `0700`; an existing directory is never
//!   changed, except Switchboard's own state directory ([`own_dir`]);
//! - a new file is `0600`; [`FileMode::Private`] also takes group and other
//!   bits off an existing file, [`FileMode::Keep`] keeps its mode;
//! - a replaced file keeps its owner and group (when the process may set
//!   them), and a symlink stays a symlink: the link is resolved and its target
//!   is replaced, by a temp file in the target's directory that is written,
//!   given the mode and owner, flushed to disk and renamed over the target.
//!   A reader sees the old or the new content, never a mix.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many symlinks [`resolve_links`] follows before giving up (as the OS does).
const MAX_LINKS: usize = 40;

/// Which mode a written file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileMode {
    /// Readable by the owner only: `0600` when new; an existing file keeps its
    /// owner bits and loses group and other bits. For files Switchboard owns
    /// or fills with copied secrets (warm catalog, token files, backups, a
    /// config written by `import`).
    Private,
    /// The existing file's mode, `0600` when new. For files the person owns
    /// and Switchboard edits (the config on enable/disable, a client's config).
    Keep,
}

/// What a file or directory must keep from other users ([`check_exposure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Reading and writing: no group or other bits (the control token, the
    /// state directory).
    Private,
    /// Writing: no group or other write bit (the config file and its
    /// directory: what they say is run as their owner).
    Unwritable,
}

/// Why a file or directory fails a [`Guard`]. The text completes a sentence
/// whose subject is the file ("the config file …").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Exposure {
    /// Owned by neither this process's user nor root.
    #[error("belongs to another user (uid {uid})")]
    Owner { uid: u32 },
    /// Group or other bits the guard forbids.
    #[error("has mode {mode:03o}, which lets other users {what} it")]
    Mode { mode: u32, what: &'static str },
}

/// Checks that only this process's user (or root, who can do anything
/// anyway) owns the file or directory `meta` describes, and that its mode
/// gives others none of the rights `guard` keeps. Unix only: other
/// platforms' permissions are not modes (see `docs/security.md`).
#[cfg(unix)]
pub fn check_exposure(meta: &fs::Metadata, guard: Guard) -> Result<(), Exposure> {
    use std::os::unix::fs::MetadataExt;
    let uid = meta.uid();
    if uid != nix::unistd::geteuid().as_raw() && uid != 0 {
        return Err(Exposure::Owner { uid });
    }
    let (bits, what) = match guard {
        Guard::Private => (0o077, "read or change"),
        Guard::Unwritable => (0o022, "change"),
    };
    let mode = meta.mode() & 0o7777;
    let mut exposed = mode & bits;
    // Group write through the owner's own private group (a group named
    // like the user, their primary one, with nobody else in it) reaches no
    // other user: what a umask of 002 (Debian's and Fedora's user private
    // groups) gives every file the user makes.
    if matches!(guard, Guard::Unwritable)
        && exposed & 0o020 != 0
        && is_private_group(meta.gid(), uid)
    {
        exposed &= !0o020;
    }
    if exposed != 0 {
        return Err(Exposure::Mode { mode, what });
    }
    Ok(())
}

/// Whether group `gid` is user `uid`'s private group: the user's primary
/// group, named like the user, with no other member. Unknown users or groups
/// are not.
#[cfg(unix)]
fn is_private_group(gid: u32, uid: u32) -> bool {
    use nix::unistd::{Gid, Group, Uid, User};
    let (Ok(Some(user)), Ok(Some(group))) = (
        User::from_uid(Uid::from_raw(uid)),
        Group::from_gid(Gid::from_raw(gid)),
    ) else {
        return false;
    };
    user.gid == group.gid && group.name == user.name && group.mem.iter().all(|m| *m == user.name)
}

/// Creates `dir` and any missing parents with mode `0700`; existing
/// directories are left as they are.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// [`private_dir`], and if `dir` already existed with group or other access,
/// takes that away: for directories that are Switchboard's alone (the state
/// directory), never for a shared one such as `~/.config`. A directory that
/// belongs to another user is refused: what it holds could have been put
/// there by them.
pub fn own_dir(dir: &Path) -> io::Result<()> {
    private_dir(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = fs::metadata(dir)?;
        match check_exposure(&meta, Guard::Private) {
            Ok(()) => {}
            Err(Exposure::Mode { mode, .. }) => {
                fs::set_permissions(dir, fs::Permissions::from_mode(mode & 0o700))?;
            }
            Err(exposure @ Exposure::Owner { .. }) => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{} {exposure}", dir.display()),
                ));
            }
        }
    }
    Ok(())
}

/// The file a path stands for: symlinks followed (relative targets are
/// relative to the link's directory), up to the first component that does not
/// exist yet. A path that is not a link is returned as it is.
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Replaces the file at `path` (or the file a symlink at `path` points to)
/// with `contents`, atomically, with the mode `mode` asks for and the old
/// file's owner. Missing parent directories are created `0700`. Returns the
/// path of the file actually written.
pub fn write_atomic(path: &Path, contents: &[u8], mode: FileMode) -> io::Result<PathBuf> {
    let target = resolve_links(path)?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    private_dir(&dir)?;
    let existing = fs::metadata(&target).ok();
    let tmp = temp_path(&dir, &target);
    let result = write_temp(&tmp, contents, mode, existing.as_ref())
        .and_then(|()| fs::rename(&tmp, &target));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result.map(|()| target);
    }
    sync_dir(&dir);
    Ok(target)
}

/// Copies `from` to a new file `to` (which must not exist) with mode `0600`,
/// flushed to disk: for backups of files that may hold secrets.
pub fn copy_private(from: &Path, to: &Path) -> io::Result<()> {
    let contents = fs::read(from)?;
    if let Some(dir) = to.parent() {
        private_dir(dir)?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(to)?;
    let written = file.write_all(&contents).and_then(|()| file.sync_all());
    if written.is_err() {
        drop(file);
        let _ = fs::remove_file(to);
    }
    written
}

/// A fresh temp file name beside `target`, unique within this process.
fn temp_path(dir: &Path, target: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(
        ".{name}.switchboard-{}-{n}.tmp",
        std::process::id()
    ))
}

fn write_temp(
    tmp: &Path,
    contents: &[u8],
    mode: FileMode,
    existing: Option<&fs::Metadata>,
) -> io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(tmp)?;
    file.write_all(contents)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if let Some(old) = existing {
            // Best effort: only a privileged process may give a file away.
            let mine = file.metadata()?;
            if (old.uid(), old.gid()) != (mine.uid(), mine.gid()) {
                let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
            }
        }
        let old_mode = existing.map(|m| m.permissions().mode() & 0o7777);
        let new_mode = match (mode, old_mode) {
            (_, None) => 0o600,
            (FileMode::Keep, Some(old)) => old,
            (FileMode::Private, Some(old)) => old & 0o700,
        };
        // Set after chown, which may clear set-id bits.
        file.set_permissions(fs::Permissions::from_mode(new_mode))?;
    }
    #[cfg(not(unix))]
    {
        let _ = (mode, existing);
    }
    file.sync_all()
}

/// Flushes a rename to disk (best effort; not every platform can open a directory).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn new_files_are_private_in_private_dirs() {
        let root = tempfile::tempdir().unwrap();
        fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let path = root.path().join("a/b/file.json");
        let written = write_atomic(&path, b"{}", FileMode::Keep).unwrap();
        assert_eq!(written, path);
        assert_eq!(fs::read(&path).unwrap(), b"{}");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&root.path().join("a/b")), 0o700);
        // The existing parent is not touched.
        assert_eq!(mode(root.path()), 0o755);
        // No temp file is left behind.
        assert_eq!(fs::read_dir(root.path().join("a/b")).unwrap().count(), 1);
    }

    #[test]
    fn keep_keeps_the_mode_and_private_narrows_it() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("config.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"new", FileMode::Keep).unwrap();
        assert_eq!(mode(&path), 0o640);
        write_atomic(&path, b"newer", FileMode::Private).unwrap();
        assert_eq!(mode(&path), 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o400)).unwrap();
        write_atomic(&path, b"newest", FileMode::Private).unwrap();
        assert_eq!(mode(&path), 0o400);
        assert_eq!(fs::read_to_string(&path).unwrap(), "newest");
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_is_written() {
        let root = tempfile::tempdir().unwrap();
        let real_dir = root.path().join("dotfiles");
        fs::create_dir(&real_dir).unwrap();
        let target = real_dir.join("switchboard.json");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        let link = root.path().join("config.json");
        std::os::unix::fs::symlink("dotfiles/switchboard.json", &link).unwrap();
        let written = write_atomic(&link, b"new", FileMode::Keep).unwrap();
        assert_eq!(written, root.path().join("dotfiles/switchboard.json"));
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(mode(&target), 0o600);
        // A chain of links and a dangling link resolve too.
        let chain = root.path().join("chain.json");
        std::os::unix::fs::symlink(&link, &chain).unwrap();
        assert_eq!(resolve_links(&chain).unwrap(), written);
        let dangling = root.path().join("dangling.json");
        std::os::unix::fs::symlink("missing/new.json", &dangling).unwrap();
        let made = write_atomic(&dangling, b"x", FileMode::Keep).unwrap();
        assert_eq!(made, root.path().join("missing/new.json"));
        assert_eq!(fs::read_to_string(&dangling).unwrap(), "x");
        // A loop is an error, not a hang.
        let a = root.path().join("loop-a");
        let b = root.path().join("loop-b");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        assert!(write_atomic(&a, b"x", FileMode::Keep).is_err());
    }

    #[test]
    fn own_dir_narrows_only_the_given_dir() {
        let root = tempfile::tempdir().unwrap();
        fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let state = root.path().join("state");
        fs::create_dir(&state).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o755)).unwrap();
        own_dir(&state).unwrap();
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(root.path()), 0o755);
        private_dir(root.path()).unwrap();
        assert_eq!(mode(root.path()), 0o755);
    }

    #[test]
    fn exposure_names_the_owner_or_the_mode_each_guard_forbids() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("f");
        fs::write(&path, "x").unwrap();
        let check = |m: u32, guard: Guard| {
            fs::set_permissions(&path, fs::Permissions::from_mode(m)).unwrap();
            check_exposure(&fs::metadata(&path).unwrap(), guard)
        };
        assert_eq!(check(0o600, Guard::Private), Ok(()));
        assert_eq!(check(0o644, Guard::Unwritable), Ok(()));
        assert_eq!(check(0o755, Guard::Unwritable), Ok(()));
        let err = check(0o640, Guard::Private).unwrap_err();
        assert_eq!(
            err.to_string(),
            "has mode 640, which lets other users read or change it"
        );
        // Group write is exposure unless the group is the owner's private one
        // (root's `root` group here is; `nogroup` never is).
        let private = is_private_group(
            fs::metadata(&path).unwrap().gid(),
            nix::unistd::geteuid().as_raw(),
        );
        assert_eq!(check(0o664, Guard::Unwritable).is_ok(), private);
        if nix::unistd::geteuid().is_root() {
            std::os::unix::fs::chown(&path, None, Some(65534)).unwrap();
            assert!(!is_private_group(65534, 0));
        }
        for (m, shown) in [(0o666, "666"), (0o602, "602"), (0o1777, "1777")]
            .into_iter()
            .chain(nix::unistd::geteuid().is_root().then_some((0o620, "620")))
        {
            let err = check(m, Guard::Unwritable).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("has mode {shown}, which lets other users change it")
            );
        }
        // Another owner (only root can make one here).
        if nix::unistd::geteuid().is_root() {
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
            std::os::unix::fs::chown(&path, Some(65534), None).unwrap();
            let err = check_exposure(&fs::metadata(&path).unwrap(), Guard::Unwritable);
            assert_eq!(err, Err(Exposure::Owner { uid: 65534 }));
            assert_eq!(
                err.unwrap_err().to_string(),
                "belongs to another user (uid 65534)"
            );
        }
    }

    #[test]
    fn backups_are_private_and_never_overwrite() {
        let root = tempfile::tempdir().unwrap();
        let source = root.path().join("client.json");
        fs::write(&source, "tokens").unwrap();
        fs::set_permissions(&source, fs::Permissions::from_mode(0o644)).unwrap();
        let backup = root.path().join("client.json.bak");
        copy_private(&source, &backup).unwrap();
        assert_eq!(mode(&backup), 0o600);
        assert_eq!(fs::read_to_string(&backup).unwrap(), "tokens");
        assert!(copy_private(&source, &backup).is_err());
    }
}
