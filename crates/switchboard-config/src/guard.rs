//! Who may change the config file: only its owner. The file names commands
//! the hub runs as the user it runs as, so a file (or a directory holding
//! it) that another user can write gives that user this account.
//!
//! [`check_file`] runs on every read of the file (`read_config_file`: at
//! start-up, on every reload, before an edit), on the metadata of the file as
//! opened, so the file checked is the file read. A refusal is
//! [`ConfigError::Unsafe`] naming the file or directory and its mode or
//! owner; on a reload the last good config keeps running.
//!
//! Unix: the file (symlinks followed), the directory named in the path, and,
//! when the path is a symlink, the directory of the file it leads to must
//! belong to this user or root and have no group or other write bit: the
//! rule of [`switchboard_util::files::check_exposure`] (which also guards the
//! control token, for reading). Directories further up are not checked.
//! Other platforms: not checked (their permissions are ACLs, not modes; see
//! `docs/security.md`).

use std::path::Path;

use super::ConfigError;

/// Refuses the config file at `path` (whose opened file `opened` describes)
/// when someone else could change it or the directory it is in.
#[cfg(unix)]
pub(super) fn check_file(path: &Path, opened: &std::fs::Metadata) -> Result<(), ConfigError> {
    use switchboard_util::files::{Exposure, Guard, check_exposure, resolve_links};

    let refuse = |what: String, fix: &str, exposure: &Exposure| ConfigError::Unsafe {
        path: path.to_path_buf(),
        message: format!(
            "{what} {exposure}; Switchboard runs the commands a config names, so only \
             you may be able to change it ({})",
            match exposure {
                Exposure::Mode { .. } => format!("`chmod go-w {fix}`"),
                Exposure::Owner { .. } => "it must belong to you or root".into(),
            }
        ),
    };
    let shown = path.display().to_string();
    check_exposure(opened, Guard::Unwritable)
        .map_err(|exposure| refuse("the config file".into(), &shown, &exposure))?;

    let dir_of = |file: &Path| match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut dirs = vec![dir_of(path)];
    if let Ok(target) = resolve_links(path)
        && target != path
    {
        dirs.push(dir_of(&target));
    }
    for dir in dirs {
        let meta = std::fs::metadata(&dir).map_err(|err| ConfigError::Read {
            path: path.to_path_buf(),
            message: format!("cannot check its directory {}: {err}", dir.display()),
        })?;
        let dir_shown = dir.display().to_string();
        check_exposure(&meta, Guard::Unwritable).map_err(|exposure| {
            refuse(
                format!("the config file's directory {dir_shown}"),
                &dir_shown,
                &exposure,
            )
        })?;
    }
    Ok(())
}

/// Other platforms: nothing is checked yet (see the module doc).
#[cfg(not(unix))]
pub(super) fn check_file(path: &Path, opened: &std::fs::Metadata) -> Result<(), ConfigError> {
    let _ = (path, opened);
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use crate::{Source, load};
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn set_mode(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A 0755 directory with a 0644 config file in it.
    fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("conf");
        fs::create_dir(&dir).unwrap();
        set_mode(&dir, 0o755);
        let path = dir.join("config.json");
        fs::write(&path, r#"{"mcpServers": {"a": {"command": "x"}}}"#).unwrap();
        set_mode(&path, 0o644);
        // A group other users can be in (`nogroup`), so group write counts;
        // the owner's private group is the case of its own test below.
        if nix::unistd::geteuid().is_root() {
            for p in [dir.as_path(), path.as_path()] {
                std::os::unix::fs::chown(p, None, Some(65534)).unwrap();
            }
        }
        (root, path)
    }

    #[test]
    fn group_write_through_the_owners_private_group_is_read() {
        // Root's `root` group is its private group here (primary, named like
        // it, no other member): what a umask of 002 gives a user's files.
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let (_root, path) = setup();
        let dir = path.parent().unwrap();
        for p in [dir, path.as_path()] {
            std::os::unix::fs::chown(p, None, Some(0)).unwrap();
        }
        set_mode(&path, 0o664);
        set_mode(dir, 0o775);
        assert_eq!(load(Source::reload(&path)).unwrap().servers.len(), 1);
        // Others still may not write.
        set_mode(&path, 0o666);
        unsafe_message(load(Source::reload(&path)).unwrap_err());
    }

    fn unsafe_message(err: ConfigError) -> String {
        match err {
            ConfigError::Unsafe { message, .. } => message,
            other => panic!("not refused as unsafe: {other:?}"),
        }
    }

    #[test]
    fn a_file_only_its_owner_can_change_is_read() {
        let (_root, path) = setup();
        assert_eq!(load(Source::start(&path)).unwrap().servers.len(), 1);
        set_mode(&path, 0o600);
        set_mode(path.parent().unwrap(), 0o700);
        assert_eq!(load(Source::reload(&path)).unwrap().servers.len(), 1);
    }

    #[test]
    fn a_group_or_world_writable_file_is_refused_at_start_and_on_reload() {
        let (_root, path) = setup();
        for mode in [0o666, 0o664, 0o646] {
            set_mode(&path, mode);
            let err = load(Source::start(&path)).unwrap_err();
            assert!(
                err.to_string().starts_with(&format!(
                    "{}: the config file has mode {mode:o}, which lets other users change it;",
                    path.display()
                )),
                "{err}"
            );
            let message = unsafe_message(load(Source::reload(&path)).unwrap_err());
            assert!(
                message.ends_with(&format!("(`chmod go-w {}`)", path.display())),
                "{message}"
            );
        }
    }

    #[test]
    fn a_writable_directory_is_refused_and_named() {
        let (_root, path) = setup();
        let dir = path.parent().unwrap();
        for mode in [0o777, 0o775, 0o1777] {
            set_mode(dir, mode);
            let message = unsafe_message(load(Source::start(&path)).unwrap_err());
            assert!(
                message.starts_with(&format!(
                    "the config file's directory {} has mode {mode:o}, which lets other users change it;",
                    dir.display()
                )),
                "{message}"
            );
        }
    }

    #[test]
    fn a_link_is_refused_when_the_file_it_leads_to_is_in_a_writable_directory() {
        let (root, path) = setup();
        let link = root.path().join("link.json");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        set_mode(root.path(), 0o755);
        assert!(load(Source::start(&link)).is_ok());
        set_mode(path.parent().unwrap(), 0o777);
        let message = unsafe_message(load(Source::start(&link)).unwrap_err());
        assert!(message.contains("directory"), "{message}");
        // A writable file behind the link is refused too.
        set_mode(path.parent().unwrap(), 0o755);
        set_mode(&path, 0o666);
        let message = unsafe_message(load(Source::start(&link)).unwrap_err());
        assert!(
            message.starts_with("the config file has mode 666"),
            "{message}"
        );
    }

    #[test]
    fn a_file_of_another_user_is_refused() {
        if !nix::unistd::geteuid().is_root() {
            return; // Only root can give a file away.
        }
        let (_root, path) = setup();
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        let message = unsafe_message(load(Source::start(&path)).unwrap_err());
        assert!(
            message.starts_with("the config file belongs to another user (uid 65534);"),
            "{message}"
        );
        assert!(
            message.ends_with("(it must belong to you or root)"),
            "{message}"
        );
    }

    #[test]
    fn a_missing_file_is_still_no_servers_at_start() {
        let (_root, path) = setup();
        fs::remove_file(&path).unwrap();
        set_mode(path.parent().unwrap(), 0o777);
        assert!(load(Source::start(&path)).unwrap().servers.is_empty());
    }
}
