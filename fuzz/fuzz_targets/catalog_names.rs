//! The tool-name mapping of `catalog.rs` on arbitrary servers and tool names:
//! every exposed name is `[A-Za-z0-9_-]{1,64}` and unique, maps back exactly
//! to (server id, original name), every original name is exposed, a name that
//! is already valid and unique keeps its plain `<prefix>__<name>` form, and the
//! result does not depend on the order the servers come in.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rmcp::model::Tool;
use switchboard_core::{Capabilities, RefreshTrigger};
use switchboard_core::{Catalog, CatalogSource, MAX_NAME_LEN, is_reserved_name};
use switchboard_core::config::ServerId;

#[derive(Debug, Arbitrary)]
struct Server {
    id: String,
    /// `None`: the id is the prefix (as without `namespace` in the config).
    namespace: Option<String>,
    tools: Vec<String>,
    disabled: Vec<u8>,
}

fn tool(name: &str) -> Tool {
    let schema = serde_json::Map::from_iter([("type".to_string(), "object".into())]);
    Tool::new(name.to_string(), "", Arc::new(schema))
}

fn valid_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn sources(servers: &[Server]) -> Vec<CatalogSource> {
    let mut seen = BTreeSet::new();
    servers
        .iter()
        .take(8)
        .filter_map(|s| {
            let id = ServerId::new(&s.id).ok()?;
            // The config refuses duplicate ids and namespaces with other characters.
            if !seen.insert(id.clone()) {
                return None;
            }
            let prefix = match &s.namespace {
                Some(ns) if ns.chars().all(valid_char) => ns.clone(),
                Some(_) => return None,
                None => s.id.clone(),
            };
            let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
            // Upstreams list each name once (rmcp clients see one tool per name).
            let names: BTreeSet<&String> = s.tools.iter().take(32).collect();
            caps.tools = names.iter().map(|n| tool(n)).collect();
            let disabled = s
                .disabled
                .iter()
                .filter_map(|i| s.tools.get(usize::from(*i)).cloned())
                .collect();
            Some(CatalogSource {
                server: id,
                prefix,
                disabled_tools: disabled,
                capabilities: Arc::new(caps),
                // No pins: in a collision every member gets a suffix.
                pinned_at: Default::default(),
                tool_overrides: Default::default(),
            })
        })
        .collect()
}

fuzz_target!(|servers: Vec<Server>| {
    let sources = sources(&servers);
    let catalog = Catalog::build(sources.clone());

    // What should be exposed: every (server, name) not disabled and not on
    // the hub's own `switchboard__` names.
    let mut wanted = BTreeSet::new();
    for s in &sources {
        for t in &s.capabilities.tools {
            if !s.disabled_tools.iter().any(|d| d == t.name.as_ref())
                && !is_reserved_name(&s.prefix, t.name.as_ref())
            {
                wanted.insert((s.server.as_str().to_string(), t.name.to_string()));
            }
        }
    }
    let mut exposed = BTreeMap::new();
    for t in catalog.tools.iter() {
        let name = t.name.as_ref();
        assert!(!name.is_empty() && name.len() <= MAX_NAME_LEN, "{name:?}");
        assert!(name.chars().all(valid_char), "{name:?}");
        let route = catalog.tool(name).expect("every exposed name routes");
        let back = (route.server.as_str().to_string(), route.name.to_string());
        assert!(
            wanted.contains(&back),
            "{name:?} -> {back:?} was never listed"
        );
        assert!(
            exposed.insert(back.clone(), name.to_string()).is_none(),
            "{back:?} exposed twice"
        );
    }
    assert_eq!(
        exposed.len(),
        catalog.tools.len(),
        "an exposed name is not unique"
    );
    assert_eq!(
        exposed.keys().cloned().collect::<BTreeSet<_>>(),
        wanted,
        "not every tool is exposed"
    );

    // A valid name that collides with nothing keeps its plain form.
    let plain = |s: &CatalogSource, name: &str| {
        if s.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}__{name}", s.prefix)
        }
    };
    let mut plain_counts: BTreeMap<String, usize> = BTreeMap::new();
    for s in &sources {
        for (server, name) in &wanted {
            if server == s.server.as_str() {
                *plain_counts.entry(plain(s, name)).or_default() += 1;
            }
        }
    }
    for s in &sources {
        for ((server, name), got) in &exposed {
            if server != s.server.as_str() {
                continue;
            }
            let p = plain(s, name);
            let valid = !name.is_empty() && name.chars().all(valid_char) && p.len() <= MAX_NAME_LEN;
            if valid && plain_counts.get(&p) == Some(&1) {
                assert_eq!(got, &p, "a valid, unique name was changed");
            }
        }
    }

    // The order servers come in does not matter.
    let mut reversed = sources;
    reversed.reverse();
    let again = Catalog::build(reversed);
    let names = |c: &Catalog| {
        c.tools
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&catalog), names(&again));
});
