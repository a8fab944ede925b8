//! Tool sets by project: which profile a client's roots choose.
//!
//! Pure functions, no I/O: the hub passes the home directory in. A profile's
//! `roots` are folders written as `/abs/path` or `~/path`; a client's roots
//! are `file://` URIs (from its `roots/list` answer) or, for the stdio
//! bridge, its working directory. Both are normalized the same way (`~`
//! expanded, `.` and `..` resolved lexically, no trailing `/`), and a root
//! lies inside a folder when the folder's components are a prefix of the
//! root's (`/w/acme` holds `/w/acme/app`, not `/w/acme2`).
//!
//! The rule ([`choose`]): the deepest folder holding any of the client's
//! roots wins; when two profiles have folders of that depth holding them
//! it is a tie, and the client gets the whole hub (the caller logs it).
//! No roots or no folder holding one: the whole hub.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Whether `folder` can be a profile's root folder: absolute, or `~` / `~/…`.
pub fn is_folder(folder: &str) -> bool {
    folder == "~" || folder.starts_with("~/") || Path::new(folder).is_absolute()
}

/// `path` with `~` expanded against `home`, `.` and `..` resolved; `None`
/// when it is not absolute (or uses `~` with no home known).
pub fn normalize(path: &str, home: Option<&Path>) -> Option<PathBuf> {
    let expanded = match path.strip_prefix('~') {
        Some("") => home?.to_path_buf(),
        Some(rest) if rest.starts_with('/') => home?.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(path),
    };
    if !expanded.is_absolute() {
        return None;
    }
    Some(clean(&expanded))
}

/// `path` with `.` and `..` resolved without touching the disk.
pub fn clean(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean
}

/// The folder a root URI names: `file:///path` or `file://localhost/path`,
/// percent-decoded and normalized. Other schemes and hosts name no folder.
pub fn root_folder(uri: &str) -> Option<PathBuf> {
    let rest = uri
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("file://"))
        .map(|_| &uri[7..])?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    normalize(&percent_decode(path)?, None)
}

/// `%XX` escapes decoded; `None` for a bad escape or text that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What a client's roots choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// No folder holds a root: the whole hub.
    Whole,
    /// This profile's folder is the deepest holding a root.
    Profile(Arc<str>),
    /// These profiles (sorted) have folders of the same, deepest depth
    /// holding roots: the whole hub, and the caller logs the tie.
    Tie(Vec<Arc<str>>),
}

/// The profile `roots` choose among `folders` (each profile's normalized
/// folders); see the module docs for the rule.
pub fn choose(folders: &[(Arc<str>, Vec<PathBuf>)], roots: &[PathBuf]) -> Choice {
    let mut best = 0;
    let mut winners: Vec<Arc<str>> = Vec::new();
    for (profile, dirs) in folders {
        for dir in dirs {
            if !roots.iter().any(|root| root.starts_with(dir)) {
                continue;
            }
            let depth = dir.components().count();
            if depth > best {
                best = depth;
                winners.clear();
            }
            if depth == best && !winners.contains(profile) {
                winners.push(profile.clone());
            }
        }
    }
    winners.sort();
    match winners.len() {
        0 => Choice::Whole,
        1 => winners.pop().map_or(Choice::Whole, Choice::Profile),
        _ => Choice::Tie(winners),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn home() -> Option<&'static Path> {
        Some(Path::new("/home/u"))
    }

    fn folders(list: &[(&str, &[&str])]) -> Vec<(Arc<str>, Vec<PathBuf>)> {
        list.iter()
            .map(|(name, dirs)| {
                let dirs = dirs.iter().filter_map(|d| normalize(d, home())).collect();
                (Arc::from(*name), dirs)
            })
            .collect()
    }

    fn roots(uris: &[&str]) -> Vec<PathBuf> {
        uris.iter().filter_map(|u| root_folder(u)).collect()
    }

    #[test]
    fn tilde_and_dots_are_normalized() {
        assert_eq!(normalize("~", home()), Some(PathBuf::from("/home/u")));
        assert_eq!(
            normalize("~/work/acme/", home()),
            Some(PathBuf::from("/home/u/work/acme"))
        );
        assert_eq!(normalize("/w/./a/../b", None), Some(PathBuf::from("/w/b")));
        // `~user` is not expanded, a relative path is no folder, nor is `~`
        // without a home.
        assert_eq!(normalize("~bob/x", home()), None);
        assert_eq!(normalize("work", home()), None);
        assert_eq!(normalize("~/x", None), None);
        assert!(is_folder("~") && is_folder("~/a") && is_folder("/a"));
        assert!(!is_folder("a") && !is_folder("~bob"));
    }

    #[test]
    fn only_file_uris_name_folders() {
        assert_eq!(
            root_folder("file:///home/u/my%20app/"),
            Some(PathBuf::from("/home/u/my app"))
        );
        assert_eq!(
            root_folder("FILE://localhost/w/a/../b"),
            Some(PathBuf::from("/w/b"))
        );
        assert_eq!(root_folder("file://server/share"), None);
        assert_eq!(root_folder("https://example.com/w"), None);
        assert_eq!(root_folder("file:///bad%zz"), None);
        assert_eq!(root_folder("/w/a"), None);
    }

    #[test]
    fn the_deepest_folder_wins_and_a_tie_is_the_whole_hub() {
        let f = folders(&[
            ("work", &["~/work"]),
            ("acme", &["~/work/acme", "/srv/acme"]),
            ("other", &["/srv/acme"]),
        ]);
        let choice = |uris: &[&str]| choose(&f, &roots(uris));
        assert_eq!(
            choice(&["file:///home/u/work/acme/app"]),
            Choice::Profile("acme".into())
        );
        assert_eq!(
            choice(&["file:///home/u/work/beta"]),
            Choice::Profile("work".into())
        );
        // The folder itself is inside; a sibling with a longer name is not.
        assert_eq!(
            choice(&["file:///home/u/work/acme"]),
            Choice::Profile("acme".into())
        );
        assert_eq!(choice(&["file:///home/u/work2"]), Choice::Whole);
        // Several roots: the deepest folder over all of them.
        assert_eq!(
            choice(&["file:///home/u/work/x", "file:///home/u/work/acme/y"]),
            Choice::Profile("acme".into())
        );
        // Same folder in two profiles: a tie.
        assert_eq!(
            choice(&["file:///srv/acme/x"]),
            Choice::Tie(vec!["acme".into(), "other".into()])
        );
        assert_eq!(choice(&["file:///elsewhere"]), Choice::Whole);
        assert_eq!(choice(&[]), Choice::Whole);
    }
}
