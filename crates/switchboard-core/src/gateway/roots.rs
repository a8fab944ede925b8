//! Tool sets by project: a session of `/mcp` is served the profile its
//! roots choose (`profiles.<name>.roots`, rule in `config::roots`).
//!
//! Project files (`.switchboard.json` in a root folder, `hub/projects.rs`)
//! are unnamed profiles chosen the same way; they are consulted when the
//! roots are settled and before each list request.
//!
//! When some profile has roots (or `settings.projectFiles` is on, the
//! default), a client that declared the `roots`
//! capability is asked `roots/list` after `initialized`, and again on each
//! `notifications/roots/list_changed`. A client without the capability may
//! name one folder in the `X-Switchboard-Cwd` header of its `initialize`
//! (the stdio bridge sends its working directory there); that is settled at
//! `initialize`. While the answer is awaited, the session's list requests
//! wait (at most [`ROOTS_WAIT`]), so the first `tools/list` already shows
//! the chosen set. A switch after the session listed sends it
//! `list_changed` for each list it has listed.
//!
//! Sessions of a hub with no roots in any profile never get here: their
//! call path reads one atomic more ([`Session::served`]), nothing else.

// Roots are deprecated in 2026-07-28 (SEP-2577); sessions on 2025-11-25 and
// earlier (the only ones with a session to choose for) use them.
#![allow(deprecated)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::InitializeRequestParams;

use crate::hub::HubHandle;
use crate::sessions::{Scope, Session};

/// How long a list request waits for the client's roots, and how long the
/// client has to answer `roots/list`.
pub(crate) const ROOTS_WAIT: Duration = Duration::from_secs(5);

/// The header in which a client names its working directory.
pub(crate) const CWD_HEADER: &str = "x-switchboard-cwd";

/// The roots of one session and the profile they choose for it.
/// References only, made per request for free.
#[derive(Clone, Copy)]
pub(super) struct Roots<'a> {
    /// The hub whose profiles and project files the roots choose from.
    hub: &'a HubHandle,
    /// The session whose root folders and chosen set are kept.
    session: &'a Arc<Session>,
}

impl<'a> Roots<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Arc<Session>) -> Self {
        Self { hub, session }
    }

    /// At `initialize`: marks the session as waiting for its roots when the
    /// client declared them, or chooses by the working directory it named.
    pub(super) fn roots_at_initialize(
        &self,
        request: &InitializeRequestParams,
        extensions: &rmcp::model::Extensions,
    ) {
        if *self.session.scope() != Scope::Merged || !self.hub.roots_choose() {
            return;
        }
        if request.capabilities.roots.is_some() {
            self.session.set_roots_pending(true);
            return;
        }
        let cwd = extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get(CWD_HEADER))
            .and_then(|value| value.to_str().ok())
            .and_then(|path| crate::config::roots::normalize(path, None));
        if let Some(cwd) = cwd {
            let folders = vec![cwd];
            self.session.set_root_folders(folders.clone());
            if !self.hub.consult_projects(&folders) {
                self.session.choose(self.hub.profile_for_roots(&folders));
            }
        }
    }

    /// Before a list request of a session whose roots are known: consults
    /// their project files again (one `lstat` each), so a new, changed or
    /// removed file is served from this request on.
    pub(super) fn recheck_projects(&self) {
        let folders = self.session.root_folders();
        if !folders.is_empty() {
            self.hub.consult_projects(&folders);
        }
    }

    /// Asks the client for its roots (after `initialized`, or when they
    /// changed) in a task of its own, and switches the session's set.
    pub(super) fn ask_roots(&self) {
        if *self.session.scope() != Scope::Merged {
            return;
        }
        if !self.hub.roots_choose() {
            // A reload took every `roots` away since `initialize`: nothing
            // to wait for, and nothing chosen any more.
            self.session.set_roots_pending(false);
            if self.session.choose(None) {
                self.hub.sessions().switched(self.session, self.hub.tasks());
            }
            return;
        }
        let declared = self
            .session
            .peer()
            .and_then(|peer| peer.peer_info())
            .is_some_and(|info| info.capabilities.roots.is_some());
        let Some(peer) = self.session.peer().cloned().filter(|_| declared) else {
            self.session.set_roots_pending(false);
            return;
        };
        self.session.set_roots_pending(true);
        let (hub, session) = (self.hub.clone(), self.session.clone());
        self.hub.spawn(async move {
            let folders = match tokio::time::timeout(ROOTS_WAIT, peer.list_roots()).await {
                Ok(Ok(answer)) => Some(
                    answer
                        .roots
                        .iter()
                        .filter_map(|root| crate::config::roots::root_folder(&root.uri))
                        .collect::<Vec<PathBuf>>(),
                ),
                Ok(Err(error)) => {
                    tracing::info!(%error, "roots/list failed; serving the whole hub");
                    None
                }
                Err(_) => {
                    tracing::info!("the client did not answer roots/list in time");
                    None
                }
            };
            let folders = folders.unwrap_or_default();
            session.set_root_folders(folders.clone());
            // A new or changed project file chooses again for every session
            // naming its folder, this one included.
            hub.consult_projects(&folders);
            let profile = hub.profile_for_roots(&folders);
            if let Some(name) = &profile {
                tracing::debug!(profile = %name, "the client's roots chose a profile");
            }
            let switched = session.choose(profile);
            session.set_roots_pending(false);
            if switched {
                hub.sessions().switched(&session, hub.tasks());
            }
        });
    }
}
