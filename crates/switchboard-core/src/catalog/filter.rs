//! A catalog narrowed to some servers: what a profile (`/profiles/<name>/mcp`)
//! serves. The names stay those of the whole merged catalog, so a tool has
//! one name wherever it is listed; the result is a new value with its own
//! prepared list bytes (empty until first used) and versions the caller sets.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Catalog, CatalogVersions, Prepared};
use crate::config::ServerId;

impl Catalog {
    /// This catalog with only what the servers `keep` accepts offer; versions
    /// reset (the caller keeps its own).
    pub fn filtered(&self, keep: impl Fn(&ServerId) -> bool) -> Catalog {
        let tool_routes: HashMap<_, _> = self
            .tool_routes
            .iter()
            .filter(|(_, route)| keep(&route.server))
            .map(|(name, route)| (name.clone(), route.clone()))
            .collect();
        let tools = self
            .tools
            .iter()
            .filter(|t| tool_routes.contains_key(t.name.as_ref()))
            .cloned()
            .collect();
        let prompt_routes: HashMap<_, _> = self
            .prompt_routes
            .iter()
            .filter(|(_, route)| keep(&route.server))
            .map(|(name, route)| (name.clone(), route.clone()))
            .collect();
        let prompts = self
            .prompts
            .iter()
            .filter(|p| prompt_routes.contains_key(p.name.as_str()))
            .cloned()
            .collect();
        let resource_routes: HashMap<_, _> = self
            .resource_routes
            .iter()
            .filter(|(_, server)| keep(server))
            .map(|(uri, server)| (uri.clone(), server.clone()))
            .collect();
        let resources = self
            .resources
            .iter()
            .filter(|r| resource_routes.contains_key(&r.uri))
            .cloned()
            .collect();
        // Templates and their routes were built in the same order.
        let (resource_templates, template_routes): (Vec<_>, Vec<_>) = self
            .resource_templates
            .iter()
            .zip(&self.template_routes)
            .filter(|(_, (_, server))| keep(server))
            .map(|(template, route)| (template.clone(), route.clone()))
            .unzip();
        Catalog {
            versions: CatalogVersions::default(),
            tools: Arc::new(tools),
            prompts: Arc::new(prompts),
            resources: Arc::new(resources),
            resource_templates: Arc::new(resource_templates),
            tool_routes,
            prompt_routes,
            resource_routes,
            template_routes,
            prepared: Prepared::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::catalog::CatalogSource;
    use crate::listing::{Capabilities, RefreshTrigger};

    fn source(id: &str, tools: &[&str]) -> CatalogSource {
        let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
        caps.tools = tools
            .iter()
            .map(|n| {
                serde_json::from_value(json!({"name": n, "inputSchema": {"type": "object"}}))
                    .unwrap()
            })
            .collect();
        caps.prompts = vec![serde_json::from_value(json!({"name": "p"})).unwrap()];
        caps.resources = vec![
            serde_json::from_value(json!({"uri": format!("file:///{id}"), "name": id})).unwrap(),
        ];
        caps.resource_templates = vec![
            serde_json::from_value(json!({"uriTemplate": format!("{id}://{{x}}"), "name": id}))
                .unwrap(),
        ];
        CatalogSource {
            server: ServerId::new(id).unwrap(),
            prefix: id.to_string(),
            disabled_tools: vec![],
            capabilities: Arc::new(caps),
            pinned_at: std::collections::HashMap::new(),
            tool_overrides: Default::default(),
        }
    }

    #[test]
    fn a_filtered_catalog_keeps_only_the_kept_servers_and_their_names() {
        let all = Catalog::build(vec![source("a", &["t", "u"]), source("b", &["t"])]);
        let a = ServerId::new("a").unwrap();
        let only_a = all.filtered(|s| *s == a);
        let names: Vec<&str> = only_a.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, vec!["a__t", "a__u"]);
        assert_eq!(only_a.tool("a__t"), all.tool("a__t"));
        assert_eq!(only_a.tool("b__t"), None);
        assert_eq!(only_a.prompt("b__p"), None);
        assert!(only_a.prompt("a__p").is_some());
        assert_eq!(only_a.resources.len(), 1);
        assert_eq!(only_a.resource_owner("file:///a"), Some(&a));
        assert_eq!(only_a.resource_owner("file:///b"), None);
        assert_eq!(only_a.resource_owner("a://x"), Some(&a));
        assert_eq!(only_a.resource_owner("b://x"), None);
        assert_eq!(only_a.resource_templates.len(), 1);
        // Its own prepared bytes: the whole catalog's are not reused.
        let bytes = only_a.list_result(
            crate::catalog::ListResult::Tools { builtin: false },
            Vec::new,
        );
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(json["tools"].as_array().unwrap().len(), 2);
        assert!(all.filtered(|_| false).tools.is_empty());
    }
}
