//! Project files in the hub: each folder's `.switchboard.json`
//! (`config::project`) as an unnamed profile, `project:<folder>`, served to
//! the sessions of `/mcp` whose roots name that folder.
//!
//! Consulted, not watched: a folder's file is looked at (one `lstat`) when a
//! session's roots are settled (its `roots/list` answer, a roots change, the
//! stdio bridge's working directory) and again before each list request of
//! such a session; it is read again only when its stamp changed (new,
//! changed, removed, chmod). Why not a watcher: the folders are whatever
//! clients declare, any number, coming and going with sessions; a watch per
//! folder would live on after its session and cost an inotify watch each,
//! while the consult costs one `lstat` per root per list request of the
//! sessions that have roots, and a change is seen by the next request that
//! could show it. A change that alters what some session is served is
//! announced with `list_changed` (to every session whose set changed).
//!
//! Only folders that are some session's declared root are consulted, and only
//! the file directly in them: no file outside a client's roots is read. A
//! project profile is chosen only for a session that names its folder as a
//! root (deeper folders win, as for `profiles.<name>.roots`); entries are
//! kept per folder while the hub runs (a folder without a file keeps none).
//! A refused or invalid file is logged once per version of it, as a warning
//! naming the file and why, and serves nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::HubHandle;
use crate::config::project::{self, ProjectRead, Stamp};
use crate::config::{ProfileConfig, ProfileName, ServerId};

/// One folder's project file as last consulted.
struct Entry {
    /// The stamp it had when read.
    stamp: Stamp,
    /// False once a reload asked for it to be read again.
    current: bool,
    /// The profile it gives; `None` for a refused or invalid file.
    config: Option<ProfileConfig>,
}

/// The folders consulted so far, by folder.
#[derive(Default)]
pub(crate) struct Projects {
    entries: Mutex<HashMap<PathBuf, Entry>>,
}

impl Projects {
    /// The profiles the project files give, by folder.
    pub(super) fn configs(&self) -> Vec<(ProfileConfig, PathBuf)> {
        let Ok(entries) = self.entries.lock() else {
            return Vec::new();
        };
        let mut configs: Vec<(ProfileConfig, PathBuf)> = entries
            .iter()
            .filter_map(|(folder, e)| Some((e.config.clone()?, folder.clone())))
            .collect();
        configs.sort_by(|a, b| a.1.cmp(&b.1));
        configs
    }

    /// Marks every file to be read again on its next consult (a reload may
    /// have added or removed the servers it names); what they give stays
    /// served until then.
    pub(super) fn forget(&self) {
        if let Ok(mut entries) = self.entries.lock() {
            for entry in entries.values_mut() {
                entry.current = false;
            }
        }
    }
}

impl HubHandle {
    /// Whether clients' roots can choose what they are served: some profile
    /// has `roots`, or project files are on (`settings.projectFiles`).
    pub(crate) fn roots_choose(&self) -> bool {
        self.settings().project_files || self.profiles_have_roots()
    }

    /// Consults the project files of `folders` (a session's roots); when one
    /// is new, changed or gone, the profiles are recomputed, every session
    /// whose choice changed is switched (and told), and this says true.
    pub(crate) fn consult_projects(&self, folders: &[PathBuf]) -> bool {
        if !self.settings().project_files || folders.is_empty() {
            return false;
        }
        let mut changed = false;
        let mut known: Option<HashSet<ServerId>> = None;
        for folder in folders {
            let stamp = project::stamp(folder);
            {
                let Ok(entries) = self.inner.profiles.projects.entries.lock() else {
                    return false;
                };
                match (entries.get(folder), stamp) {
                    (None, None) => continue,
                    (Some(entry), Some(now)) if entry.current && entry.stamp == now => continue,
                    _ => {}
                }
            }
            let config = match stamp {
                None => None,
                Some(_) => {
                    let known = known.get_or_insert_with(|| {
                        let all = self.inner.registry.all();
                        all.iter().map(|u| u.id.clone()).collect()
                    });
                    read(folder, known)
                }
            };
            let Ok(mut entries) = self.inner.profiles.projects.entries.lock() else {
                return false;
            };
            let before = entries.get(folder).and_then(|e| e.config.clone());
            changed |= before != config;
            match stamp {
                Some(stamp) => {
                    let current = true;
                    entries.insert(
                        folder.clone(),
                        Entry {
                            stamp,
                            config,
                            current,
                        },
                    );
                }
                None => {
                    tracing::info!(folder = %folder.display(), "a project file was removed");
                    entries.remove(folder);
                }
            }
        }
        if changed {
            self.refresh_profiles();
            self.rechoose_sessions();
            self.publish_snapshot();
        }
        changed
    }

    /// Chooses again for every session of `/mcp` that knows its roots (a
    /// project profile came, changed or went); tells those whose set changed.
    pub(crate) fn rechoose_sessions(&self) {
        let sessions = self.sessions();
        sessions.rechoose(|folders| self.profile_for_roots(folders), self.tasks());
    }
}

/// `folder`'s project file as a profile config; refusals and warnings logged.
fn read(folder: &Path, known: &HashSet<ServerId>) -> Option<ProfileConfig> {
    match project::read(folder, known) {
        ProjectRead::Missing => None,
        ProjectRead::Refused(why) | ProjectRead::Invalid(why) => {
            tracing::warn!("{why}");
            None
        }
        ProjectRead::Loaded(project) => {
            for warning in &project.warnings {
                tracing::warn!("{warning}");
            }
            tracing::info!(
                folder = %folder.display(),
                servers = project.servers.len(),
                "a project file was read"
            );
            Some(ProfileConfig {
                name: ProfileName::project(folder),
                servers: project.servers,
                tool_mode: project.tool_mode,
                token: None,
                roots: vec![folder.display().to_string()],
            })
        }
    }
}
