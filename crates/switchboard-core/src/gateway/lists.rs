//! List requests of a downstream session: the merged catalog or a profile's
//! (prepared JSON bytes on the fast path, typed lists on rmcp's) or, for a
//! pass-through session, its one server's lists; each answer records which version of the
//! list the session was served (see `Session::listed`).

use std::sync::Arc;

use rmcp::model::{ErrorData, Prompt, Resource, ResourceTemplate, Tool};

use super::roots::Roots;
use super::search_mode::SearchMode;
use super::{Router, upstream_error};
use crate::catalog::Catalog;
use crate::hub::HubHandle;
use crate::listing::Capabilities;
use crate::sessions::{ListKind, Scope, Session};

/// What a list request is answered from: one server's lists (pass-through)
/// or the merged catalog.
pub(super) enum Lists {
    Server(Arc<Capabilities>, Vec<Tool>),
    Merged(Arc<Catalog>),
}

impl Lists {
    pub(super) fn tools(self, builtin: bool) -> Vec<Tool> {
        match self {
            Self::Server(_, tools) => tools,
            Self::Merged(catalog) if builtin => {
                let mut tools = crate::builtin::tools();
                tools.extend(catalog.tools.iter().cloned());
                tools
            }
            Self::Merged(catalog) => catalog.tools.as_ref().clone(),
        }
    }

    pub(super) fn prompts(self) -> Vec<Prompt> {
        match self {
            Self::Server(caps, _) => caps.prompts.clone(),
            Self::Merged(catalog) => catalog.prompts.as_ref().clone(),
        }
    }

    pub(super) fn resources(self) -> Vec<Resource> {
        match self {
            Self::Server(caps, _) => caps.resources.clone(),
            Self::Merged(catalog) => catalog.resources.as_ref().clone(),
        }
    }

    pub(super) fn templates(self) -> Vec<ResourceTemplate> {
        match self {
            Self::Server(caps, _) => caps.resource_templates.clone(),
            Self::Merged(catalog) => catalog.resource_templates.as_ref().clone(),
        }
    }
}

/// The list requests of one session: what it is served, and which version
/// of each list it saw. References only, made per request for free.
#[derive(Clone, Copy)]
pub(super) struct Lister<'a> {
    /// The hub whose catalogs and servers' lists are served.
    hub: &'a HubHandle,
    /// The session served (its scope, roots, and the versions it saw).
    session: &'a Arc<Session>,
}

impl<'a> Lister<'a> {
    pub(super) fn new(hub: &'a HubHandle, session: &'a Arc<Session>) -> Self {
        Self { hub, session }
    }

    /// Answers a list request of this session from the prepared catalog
    /// bytes: the JSON text of the `result`. `None` for pass-through sessions,
    /// whose lists come from their one server.
    pub(super) async fn prepared(
        &self,
        which: crate::catalog::ListResult,
    ) -> Option<Result<axum::body::Bytes, ErrorData>> {
        use crate::catalog::ListResult;
        if !self.session.served().is_merged() {
            return None;
        }
        let kind = match which {
            ListResult::Tools { .. } => ListKind::Tools,
            ListResult::Prompts => ListKind::Prompts,
            ListResult::Resources | ListResult::ResourceTemplates => ListKind::Resources,
        };
        match self.lists(kind).await {
            Ok(Lists::Merged(catalog)) if matches!(which, ListResult::Tools { .. }) => {
                let search = SearchMode::new(self.hub, self.session);
                Some(Ok(search.search_mode_list(&catalog).unwrap_or_else(|| {
                    catalog.list_result(which, crate::builtin::tools)
                })))
            }
            Ok(Lists::Merged(catalog)) => {
                Some(Ok(catalog.list_result(which, crate::builtin::tools)))
            }
            // Only pass-through sessions get one server's lists.
            Ok(Lists::Server(..)) => None,
            Err(error) => Some(Err(error)),
        }
    }

    /// The lists this session sees, recording which version of `kind` it was
    /// served (so it is told about changes only when it saw something else).
    pub(super) async fn lists(&self, kind: ListKind) -> Result<Lists, ErrorData> {
        let index = match kind {
            ListKind::Tools => 0,
            ListKind::Prompts => 1,
            ListKind::Resources => 2,
        };
        self.session.roots_settled(super::roots::ROOTS_WAIT).await;
        Roots::new(self.hub, self.session).recheck_projects();
        if let Some(upstream) = Router::new(self.hub, self.session).single()? {
            let caps = self
                .hub
                .server_lists(&upstream)
                .await
                .map_err(upstream_error)?;
            let config = upstream.config();
            let disabled = &config.disabled_tools;
            self.session
                .listed(kind, caps.pass_through_versions(disabled)[index]);
            let tools = caps.visible_tools(disabled);
            return Ok(Lists::Server(caps, tools));
        }
        let catalog = match &*self.session.served() {
            Scope::Profile(name) => self
                .hub
                .profile_for_lists(name)
                .await
                .map(|p| p.catalog.clone())
                .ok_or_else(|| super::route::profile_removed(name))?,
            _ => self.hub.merged_catalog().await,
        };
        let versions = catalog.versions;
        self.session.listed(
            kind,
            [versions.tools, versions.prompts, versions.resources][index],
        );
        Ok(Lists::Merged(catalog))
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::config::ServerId;
    use crate::gateway::Gateway;
    use crate::hub::testing::{NO_SUCH_COMMAND, hub, listed};

    fn names(tools: &[Tool]) -> Vec<String> {
        tools.iter().map(|t| t.name.to_string()).collect()
    }

    #[tokio::test]
    async fn a_pass_through_session_sees_its_server_without_disabled_tools() {
        let (_hub, handle) = hub(&format!(
            r#"{{"mcpServers":{{"a":{{"command":"{NO_SUCH_COMMAND}","disabledTools":["hidden"]}},
                "b":{{"command":"{NO_SUCH_COMMAND}"}}}}}}"#
        ))
        .await;
        listed(&handle, "a", &["t", "hidden"]);
        listed(&handle, "b", &["u"]);
        let single = Gateway::new(handle.clone(), Scope::Server(ServerId::new("a").unwrap()));
        let tools = single
            .lister()
            .lists(ListKind::Tools)
            .await
            .unwrap()
            .tools(true);
        assert_eq!(names(&tools), vec!["t".to_string()]);
        // Pass-through sessions get no prepared merged bytes.
        assert!(
            single
                .prepared_list(crate::catalog::ListResult::Prompts)
                .await
                .is_none()
        );

        let merged = Gateway::new(handle.clone(), Scope::Merged);
        let tools = merged
            .lister()
            .lists(ListKind::Tools)
            .await
            .unwrap()
            .tools(false);
        assert_eq!(names(&tools), vec!["a__t".to_string(), "b__u".to_string()]);
        let with_builtin = merged
            .lister()
            .lists(ListKind::Tools)
            .await
            .unwrap()
            .tools(true);
        assert_eq!(
            names(&with_builtin),
            names(&crate::builtin::tools())
                .into_iter()
                .chain(["a__t".to_string(), "b__u".to_string()])
                .collect::<Vec<_>>()
        );
        let prompts = merged
            .lister()
            .lists(ListKind::Prompts)
            .await
            .unwrap()
            .prompts();
        assert_eq!(
            prompts
                .iter()
                .map(|p| p.name.to_string())
                .collect::<Vec<_>>(),
            vec!["a__p".to_string(), "b__p".to_string()]
        );
        let bytes = merged
            .prepared_list(crate::catalog::ListResult::Tools { builtin: false })
            .await
            .unwrap()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(json["tools"][1]["name"], "b__u");
        handle.shutdown();
    }
}
