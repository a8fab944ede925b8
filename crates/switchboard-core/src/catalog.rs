//! The merged, named view of every server's capabilities.
//!
//! A [`Catalog`] is an immutable value rebuilt from the servers' cached
//! [`Capabilities`] whenever one of them changes; the gateway answers every list
//! from it and routes every call through it, so no list fans out to upstreams.
//!
//! Naming rules (tools and prompts):
//! - exposed as `<prefix>__<name>`, where the prefix is the server's
//!   `namespace` or its id; an empty namespace exposes the bare name;
//! - only `[A-Za-z0-9_-]`, at most 64 characters;
//! - a name that had to change (characters replaced, too long) or that collides
//!   with another exposed name gets `_` plus 8 hex digits of a hash of
//!   (server id, original name). Every member of a collision group is suffixed,
//!   so the result does not depend on the order servers were listed in;
//! - except when one member of a collision group was pinned (approved, see
//!   `crate::pins`) strictly before every other: it keeps its plain name and
//!   only the newcomers are suffixed, so a server added later cannot push a
//!   trusted tool aside (the pin times are the hub's history, not the order
//!   of this build);
//! - names on the hub's own prefix `switchboard__` ([`RESERVED_PREFIX`]) are
//!   never a server's: a tool or prompt that would land there (plainly or
//!   hashed) is left out, and [`reserved_notes`] says so for the status;
//! - the mapping back to (server, original name) is exact;
//! - lists are sorted by exposed name, so the merged view does not depend on
//!   the order upstreams list things in;
//! - [`could_expose`] tells, by these same rules, whether a server's prefix
//!   can produce a given name: routing uses it for names of servers that
//!   were never listed.
//!
//! Resources and resource templates keep their URIs, but for MCP Apps' `ui://`
//! ones, which name their server ([`ui_uri`]: `ui://<server>/<rest>`, in tool
//! `_meta` links too), so apps of two servers never shadow each other. When two servers list the
//! same resource URI, the server whose id sorts first owns it and the other
//! copy is not listed. A URI that no server lists is routed by the first
//! template (servers in id order) that matches it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use axum::body::Bytes;
use rmcp::model::{
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Prompt,
    Resource, ResourceTemplate, ServerResult, Tool,
};
use sha2::{Digest, Sha256};

use crate::config::{ServerId, ToolOverride};
use crate::listing::Capabilities;

mod filter;
pub(crate) mod overrides;
pub(crate) mod ui_uri;

/// Longest exposed tool or prompt name.
pub const MAX_NAME_LEN: usize = 64;
const SEPARATOR: &str = "__";
const HASH_HEX: usize = 8;
/// The prefix of Switchboard's own tools (`crate::builtin`): no server's
/// tool or prompt is exposed under it.
pub const RESERVED_PREFIX: &str = "switchboard__";

/// Where an exposed name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub server: ServerId,
    pub name: Arc<str>,
}

/// What one server contributes to the catalog.
#[derive(Debug, Clone)]
pub struct CatalogSource {
    pub server: ServerId,
    pub prefix: String,
    pub disabled_tools: Vec<String>,
    pub capabilities: Arc<Capabilities>,
    /// When each tool (by its name on the server) was pinned as approved;
    /// in a name collision the one pinned first keeps its plain name.
    pub pinned_at: HashMap<String, SystemTime>,
    /// The server's `toolOverrides`, by the tool's name on the server.
    pub tool_overrides: BTreeMap<String, ToolOverride>,
}

impl CatalogSource {
    /// When the tool shown as `shown` (its override's name, or its own) was pinned.
    fn pinned(&self, shown: &str) -> Option<SystemTime> {
        let original = self
            .tool_overrides
            .iter()
            .find(|(_, o)| o.name.as_deref() == Some(shown))
            .map_or(shown, |(tool, _)| tool.as_str());
        self.pinned_at.get(original).copied()
    }
}

/// A counter per merged list, bumped by the hub each time that list changes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CatalogVersions {
    pub tools: u64,
    pub prompts: u64,
    pub resources: u64,
}

impl CatalogVersions {
    /// The versions after a change described by `diff`.
    pub fn bumped(self, diff: CatalogDiff) -> Self {
        Self {
            tools: self.tools + u64::from(diff.tools),
            prompts: self.prompts + u64::from(diff.prompts),
            resources: self.resources + u64::from(diff.resources),
        }
    }
}

/// The merged lists and the routes back.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    pub versions: CatalogVersions,
    pub tools: Arc<Vec<Tool>>,
    pub prompts: Arc<Vec<Prompt>>,
    pub resources: Arc<Vec<Resource>>,
    pub resource_templates: Arc<Vec<ResourceTemplate>>,
    tool_routes: HashMap<Arc<str>, Route>,
    prompt_routes: HashMap<Arc<str>, Route>,
    resource_routes: HashMap<String, ServerId>,
    template_routes: Vec<(String, ServerId)>,
    prepared: Prepared,
}

/// A merged list as a JSON-RPC result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListResult {
    /// `tools/list`, with Switchboard's own tools first when they are on.
    Tools {
        builtin: bool,
    },
    Prompts,
    Resources,
    ResourceTemplates,
}

/// The list results of one catalog, serialized on first use: a catalog never
/// changes once it is shared, so every later list of the same version is a copy
/// of these bytes (5,000 tools are about 2 MB of JSON). A clone starts empty,
/// so a catalog changed after cloning never serves the old bytes.
#[derive(Default)]
struct Prepared([OnceLock<Bytes>; 5]);

impl Clone for Prepared {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ready = self.0.iter().filter(|b| b.get().is_some()).count();
        write!(f, "Prepared({ready} of 5 ready)")
    }
}

/// A list result as rmcp sends it to a peer on a protocol before 2026-07-28
/// (all Switchboard negotiates): every item on one page, and the same legacy
/// shaping rmcp's server handler applies (no `resultType`, no non-object tool
/// output schemas).
pub(crate) fn legacy_result_bytes(mut result: ServerResult) -> Bytes {
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    // Serializing plain rmcp types into memory does not fail; if it ever did,
    // the answer would be an empty object rather than malformed JSON.
    Bytes::from(serde_json::to_vec(&result).unwrap_or_else(|_| b"{}".to_vec()))
}

/// Which of the merged lists differ between two catalogs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CatalogDiff {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
}

impl CatalogDiff {
    pub fn any(&self) -> bool {
        self.tools || self.prompts || self.resources
    }
}

impl Catalog {
    /// Builds the merged view. `sources` may come in any order.
    pub fn build(mut sources: Vec<CatalogSource>) -> Self {
        sources.sort_by(|a, b| a.server.cmp(&b.server));

        let tool_entries = sources.iter().flat_map(|s| {
            s.capabilities
                .tools
                .iter()
                .filter(|t| !s.disabled_tools.iter().any(|d| d == t.name.as_ref()))
                .filter(|t| !is_reserved(&s.prefix, t.name.as_ref()))
                .map(move |t| (s, t.name.as_ref()))
        });
        // Names are assigned to what clients see: an override's name, if any.
        let tool_names = assign_names(tool_entries.clone().map(|(s, original)| {
            (
                s,
                overrides::shown_name(s.tool_overrides.get(original), original),
            )
        }));
        let mut tools = Vec::new();
        let mut tool_routes = HashMap::new();
        for ((source, original), exposed) in tool_entries.zip(tool_names) {
            if let Some(tool) = source
                .capabilities
                .tools
                .iter()
                .find(|t| t.name.as_ref() == original)
            {
                let mut tool = tool.clone();
                if let Some(o) = source.tool_overrides.get(original) {
                    overrides::apply_to_tool(&mut tool, o);
                }
                tool.name = exposed.clone().into();
                ui_uri::expose_tool(&source.server, &mut tool);
                tools.push(tool);
                tool_routes.insert(
                    Arc::from(exposed.as_str()),
                    Route {
                        server: source.server.clone(),
                        name: Arc::from(original),
                    },
                );
            }
        }

        tools.sort_by(|a, b| a.name.cmp(&b.name));

        let prompt_entries = sources.iter().flat_map(|s| {
            s.capabilities
                .prompts
                .iter()
                .filter(|p| !is_reserved(&s.prefix, &p.name))
                .map(move |p| (s, p.name.as_str()))
        });
        let prompt_names = assign_names(prompt_entries.clone());
        let mut prompts = Vec::new();
        let mut prompt_routes = HashMap::new();
        for ((source, original), exposed) in prompt_entries.zip(prompt_names) {
            if let Some(prompt) = source
                .capabilities
                .prompts
                .iter()
                .find(|p| p.name == original)
            {
                let mut prompt = prompt.clone();
                prompt.name = exposed.clone();
                prompts.push(prompt);
                prompt_routes.insert(
                    Arc::from(exposed.as_str()),
                    Route {
                        server: source.server.clone(),
                        name: Arc::from(original),
                    },
                );
            }
        }

        prompts.sort_by(|a, b| a.name.cmp(&b.name));

        let mut resources = Vec::new();
        let mut resource_routes = HashMap::new();
        for source in &sources {
            for resource in &source.capabilities.resources {
                let mut resource = resource.clone();
                ui_uri::expose_resource(&source.server, &mut resource);
                if resource_routes.contains_key(&resource.uri) {
                    tracing::debug!(
                        server = %source.server,
                        uri = %resource.uri,
                        "resource URI already listed by another server; hidden"
                    );
                    continue;
                }
                resource_routes.insert(resource.uri.clone(), source.server.clone());
                resources.push(resource);
            }
        }
        let mut resource_templates = Vec::new();
        let mut template_routes = Vec::new();
        let mut seen_templates = HashSet::new();
        for source in &sources {
            for template in &source.capabilities.resource_templates {
                let mut template = template.clone();
                ui_uri::expose_template(&source.server, &mut template);
                if seen_templates.insert(template.uri_template.clone()) {
                    template_routes.push((template.uri_template.clone(), source.server.clone()));
                    resource_templates.push(template);
                }
            }
        }

        Self {
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

    /// A list as the JSON text of a JSON-RPC `result`, made once per catalog.
    /// `builtin` gives the hub's own tools, listed first when `which` asks
    /// for them (called at most once per catalog).
    pub fn list_result(&self, which: ListResult, builtin: impl FnOnce() -> Vec<Tool>) -> Bytes {
        let slot = match which {
            ListResult::Tools { builtin: false } => 0,
            ListResult::Tools { builtin: true } => 1,
            ListResult::Prompts => 2,
            ListResult::Resources => 3,
            ListResult::ResourceTemplates => 4,
        };
        self.prepared.0[slot]
            .get_or_init(|| {
                legacy_result_bytes(match which {
                    ListResult::Tools {
                        builtin: builtin_first,
                    } => {
                        let mut tools = if builtin_first { builtin() } else { Vec::new() };
                        tools.extend(self.tools.iter().cloned());
                        ServerResult::ListToolsResult(ListToolsResult::with_all_items(tools))
                    }
                    ListResult::Prompts => ServerResult::ListPromptsResult(
                        ListPromptsResult::with_all_items(self.prompts.to_vec()),
                    ),
                    ListResult::Resources => ServerResult::ListResourcesResult(
                        ListResourcesResult::with_all_items(self.resources.to_vec()),
                    ),
                    ListResult::ResourceTemplates => ServerResult::ListResourceTemplatesResult(
                        ListResourceTemplatesResult::with_all_items(
                            self.resource_templates.to_vec(),
                        ),
                    ),
                })
            })
            .clone()
    }

    pub fn tool(&self, exposed: &str) -> Option<&Route> {
        self.tool_routes.get(exposed)
    }

    pub fn prompt(&self, exposed: &str) -> Option<&Route> {
        self.prompt_routes.get(exposed)
    }

    /// The server that owns `uri`: a listed resource first, then a matching template.
    pub fn resource_owner(&self, uri: &str) -> Option<&ServerId> {
        self.resource_routes.get(uri).or_else(|| {
            self.template_routes
                .iter()
                .find(|(template, _)| template_matches(template, uri))
                .map(|(_, server)| server)
        })
    }

    /// Compares the lists clients see.
    pub fn diff(&self, other: &Catalog) -> CatalogDiff {
        CatalogDiff {
            tools: self.tools != other.tools,
            prompts: self.prompts != other.prompts,
            resources: self.resources != other.resources
                || self.resource_templates != other.resource_templates,
        }
    }
}

/// Assigns exposed names to `(source, original)` entries, in the same order.
fn assign_names<'a>(entries: impl Iterator<Item = (&'a CatalogSource, &'a str)>) -> Vec<String> {
    let entries: Vec<(&CatalogSource, &str)> = entries.collect();
    let plain: Vec<Option<String>> = entries
        .iter()
        .map(|(s, name)| plain_name(&s.prefix, name))
        .collect();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, name) in plain.iter().enumerate() {
        if let Some(name) = name {
            groups.entry(name.as_str()).or_default().push(index);
        }
    }
    // Per plain name, the one entry that keeps it: the only one, or the one
    // pinned strictly before every other member of its collision group.
    let keeps: HashSet<usize> = groups
        .values()
        .filter_map(|members| match members.as_slice() {
            [only] => Some(*only),
            _ => senior(members, |i| {
                let (source, name) = entries[i];
                source.pinned(name)
            }),
        })
        .collect();
    let mut taken: HashSet<String> = keeps.iter().filter_map(|&i| plain[i].clone()).collect();
    entries
        .iter()
        .zip(&plain)
        .enumerate()
        .map(|(index, ((source, name), plain))| match plain {
            Some(p) if keeps.contains(&index) => p.clone(),
            _ => {
                let hashed = hashed_name(&source.server, &source.prefix, name, &taken);
                taken.insert(hashed.clone());
                hashed
            }
        })
        .collect()
}

/// The member pinned strictly first, if one was (ties and unpinned
/// members give none: then every member is suffixed).
fn senior(members: &[usize], pinned_at: impl Fn(usize) -> Option<SystemTime>) -> Option<usize> {
    let mut times: Vec<(SystemTime, usize)> = members
        .iter()
        .filter_map(|&i| pinned_at(i).map(|t| (t, i)))
        .collect();
    times.sort();
    match times.as_slice() {
        [(first, index), rest @ ..] if rest.first().is_none_or(|(next, _)| next > first) => {
            Some(*index)
        }
        _ => None,
    }
}

/// Whether a server's tool or prompt `name`, exposed with `prefix`, would
/// land on the hub's own [`RESERVED_PREFIX`] (plainly, or hashed: a hashed
/// name keeps at least 55 characters of the sanitized `<prefix>__<name>`).
pub fn is_reserved(prefix: &str, name: &str) -> bool {
    join(prefix, &sanitize(name)).starts_with(RESERVED_PREFIX)
}

/// For the status: a sentence per tool or prompt of `caps` left out of the
/// merged catalog because its name would land on [`RESERVED_PREFIX`].
pub fn reserved_notes(prefix: &str, caps: &Capabilities) -> Vec<String> {
    let tools = caps.tools.iter().map(|t| ("tool", t.name.as_ref()));
    let prompts = caps.prompts.iter().map(|p| ("prompt", p.name.as_str()));
    tools
        .chain(prompts)
        .filter(|(_, name)| is_reserved(prefix, name))
        .map(|(kind, name)| {
            format!(
                "{kind} '{name}' is not served on the merged endpoint: its name would be '{}', and names starting with '{RESERVED_PREFIX}' are Switchboard's own (give the server a \"namespace\")",
                join(prefix, name)
            )
        })
        .collect()
}

/// Whether a server whose names carry `prefix` could expose a tool or prompt
/// as `exposed`, by the naming rules above: a plain `<prefix>__<name>`, a
/// hashed name that starts the same way, or a 64-character hashed name cut
/// inside `<prefix>__`. An empty prefix (bare names) could expose anything
/// but a name on [`RESERVED_PREFIX`].
/// Routing uses it to tell which servers a name can belong to before they
/// were ever listed.
pub fn could_expose(prefix: &str, exposed: &str) -> bool {
    if exposed.starts_with(RESERVED_PREFIX) {
        return false;
    }
    if prefix.is_empty() {
        return true;
    }
    let head = format!("{prefix}{SEPARATOR}");
    if exposed.starts_with(&head) {
        return true;
    }
    // `hashed_name` cut `<prefix>__<name>` to fit its suffix: the result is
    // exactly MAX_NAME_LEN long and ends in `_` plus lowercase hex digits.
    exposed.len() == MAX_NAME_LEN
        && exposed.rsplit_once('_').is_some_and(|(cut, hex)| {
            hex.len() >= HASH_HEX
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                && !cut.is_empty()
                && head.starts_with(cut)
        })
}

/// The names a server's tool or prompt `name` is exposed under when no other
/// name collides with it: the plain `<prefix>__<name>` if that is valid, and
/// the hashed form [`Catalog::build`] gives otherwise (or on a collision).
/// Used to recognise a name that is not in the catalog, such as a held tool's.
pub fn names_alone(server: &ServerId, prefix: &str, name: &str) -> [Option<String>; 2] {
    [
        plain_name(prefix, name),
        Some(hashed_name(server, prefix, name, &HashSet::new())),
    ]
}

/// `<prefix>__<name>` when that is already a valid name, else `None`.
fn plain_name(prefix: &str, name: &str) -> Option<String> {
    let joined = join(prefix, name);
    (joined.len() <= MAX_NAME_LEN && !name.is_empty() && sanitize(name) == name).then_some(joined)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}{SEPARATOR}{name}")
    }
}

/// Replaces every character outside `[A-Za-z0-9_-]` with `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A valid, length-limited name ending in a hash of (server, original name).
fn hashed_name(server: &ServerId, prefix: &str, name: &str, taken: &HashSet<String>) -> String {
    let digest = Sha256::new()
        .chain_update(server.as_str().as_bytes())
        .chain_update([0u8])
        .chain_update(name.as_bytes())
        .finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let base = join(prefix, &sanitize(name));
    let mut width = HASH_HEX;
    loop {
        let suffix = &hex[..width];
        let keep = MAX_NAME_LEN - suffix.len() - 1;
        // `base` is ASCII after sanitizing, so byte slicing is on char boundaries.
        let head = &base[..base.len().min(keep)];
        let candidate = format!("{head}_{suffix}");
        if !taken.contains(&candidate) || width >= hex.len() {
            return candidate;
        }
        width += 2;
    }
}

/// Whether `uri` matches an RFC 6570 level-1 template such as `file:///{path}`.
/// Each `{var}` matches one or more characters other than `/` (`{+var}` and
/// `{/var*}` style operators match anything, including `/`).
pub fn template_matches(template: &str, uri: &str) -> bool {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return template == uri;
        };
        let var = &rest[open + 1..open + close];
        pieces.push(Piece::Literal(&rest[..open]));
        let greedy = var.starts_with('+') || var.starts_with('/') || var.ends_with('*');
        pieces.push(Piece::Var { greedy });
        rest = &rest[open + close + 1..];
    }
    pieces.push(Piece::Literal(rest));
    matches_pieces(&pieces, uri)
}

enum Piece<'a> {
    Literal(&'a str),
    Var { greedy: bool },
}

fn matches_pieces(pieces: &[Piece<'_>], input: &str) -> bool {
    match pieces.split_first() {
        None => input.is_empty(),
        Some((Piece::Literal(lit), rest)) => input
            .strip_prefix(lit)
            .is_some_and(|tail| matches_pieces(rest, tail)),
        Some((Piece::Var { greedy }, rest)) => {
            for (i, c) in input.char_indices() {
                if !greedy && c == '/' {
                    return false;
                }
                let end = i + c.len_utf8();
                if matches_pieces(rest, &input[end..]) {
                    return true;
                }
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::{Capabilities, RefreshTrigger};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// Stands in for the hub's built-in tools.
    fn builtin_tools() -> Vec<Tool> {
        vec![tool("switchboard__list_servers")]
    }

    fn tool(name: &str) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}})).unwrap()
    }

    fn prompt(name: &str) -> Prompt {
        serde_json::from_value(json!({"name": name})).unwrap()
    }

    fn source(id: &str, tools: &[&str]) -> CatalogSource {
        let mut caps = Capabilities::empty(RefreshTrigger::FirstUse);
        caps.tools = tools.iter().map(|n| tool(n)).collect();
        caps.prompts = tools.iter().map(|n| prompt(n)).collect();
        CatalogSource {
            server: ServerId::new(id).unwrap(),
            prefix: id.to_string(),
            disabled_tools: vec![],
            capabilities: Arc::new(caps),
            pinned_at: HashMap::new(),
            tool_overrides: Default::default(),
        }
    }

    fn names(c: &Catalog) -> Vec<String> {
        c.tools.iter().map(|t| t.name.to_string()).collect()
    }

    #[test]
    fn a_name_alone_is_the_name_the_catalog_gives_it() {
        let long = "a".repeat(80);
        let c = Catalog::build(vec![source("srv", &["short", long.as_str(), "bad name"])]);
        let id = ServerId::new("srv").unwrap();
        let listed = names(&c);
        for original in ["short", long.as_str(), "bad name"] {
            let alone = names_alone(&id, "srv", original);
            assert!(
                alone.iter().flatten().any(|n| listed.contains(n)),
                "{original}: {alone:?} not in {listed:?}"
            );
        }
        assert_eq!(
            names_alone(&id, "srv", "short")[0].as_deref(),
            Some("srv__short")
        );
        assert_eq!(names_alone(&id, "srv", long.as_str())[0], None);
    }

    #[test]
    fn plain_names_are_prefixed() {
        let c = Catalog::build(vec![source("b", &["y"]), source("a", &["x", "x-2"])]);
        assert_eq!(names(&c), vec!["a__x", "a__x-2", "b__y"]);
        assert_eq!(
            c.tool("b__y"),
            Some(&Route {
                server: ServerId::new("b").unwrap(),
                name: Arc::from("y")
            })
        );
        assert_eq!(c.prompt("a__x").map(|r| r.name.as_ref()), Some("x"));
        assert!(c.tool("y").is_none());
    }

    #[test]
    fn odd_names_are_sanitized_and_hashed_and_map_back_exactly() {
        let originals = ["get.weather", "größe", "a b", "emoji🙂", "get_weather"];
        let c = Catalog::build(vec![source("srv", &originals)]);
        let exposed = names(&c);
        let mut back: Vec<&str> = Vec::new();
        for name in &exposed {
            assert!(name.len() <= MAX_NAME_LEN, "{name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            );
            back.push(c.tool(name).unwrap().name.as_ref());
        }
        let mut expected = originals.to_vec();
        expected.sort();
        back.sort();
        assert_eq!(back, expected);
        let exposed_for = |original: &str| {
            exposed
                .iter()
                .find(|n| c.tool(n).unwrap().name.as_ref() == original)
                .unwrap()
                .clone()
        };
        assert_eq!(exposed_for("get_weather"), "srv__get_weather");
        let dotted = exposed_for("get.weather");
        assert!(dotted.starts_with("srv__get_weather_"), "{dotted}");
        assert_eq!(dotted.len(), "srv__get_weather_".len() + 8);
        // deterministic across builds
        assert_eq!(
            names(&Catalog::build(vec![source("srv", &originals)])),
            exposed
        );
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let long = "t".repeat(100);
        let c = Catalog::build(vec![source("server", &[&long, &format!("{long}2")])]);
        let exposed = names(&c);
        assert_eq!(exposed[0].len(), MAX_NAME_LEN);
        assert_eq!(exposed[1].len(), MAX_NAME_LEN);
        assert_ne!(exposed[0], exposed[1]);
        let mut back: Vec<String> = exposed
            .iter()
            .map(|n| c.tool(n).unwrap().name.to_string())
            .collect();
        back.sort();
        assert_eq!(back, vec![long.clone(), format!("{long}2")]);
    }

    #[test]
    fn collisions_across_servers_hash_every_member_in_any_order() {
        // server "a" tool "b__c" and server "a__b" tool "c" both want "a__b__c".
        let one = Catalog::build(vec![source("a", &["b__c"]), source("a__b", &["c"])]);
        let two = Catalog::build(vec![source("a__b", &["c"]), source("a", &["b__c"])]);
        let mut n1 = names(&one);
        let mut n2 = names(&two);
        n1.sort();
        n2.sort();
        assert_eq!(n1, n2);
        assert!(n1.iter().all(|n| n != "a__b__c"));
        assert_eq!(n1.len(), 2);
        let routes: Vec<_> = n1.iter().map(|n| one.tool(n).unwrap().clone()).collect();
        assert!(
            routes
                .iter()
                .any(|r| r.server.as_str() == "a" && &*r.name == "b__c")
        );
        assert!(
            routes
                .iter()
                .any(|r| r.server.as_str() == "a__b" && &*r.name == "c")
        );
    }

    #[test]
    fn names_on_the_reserved_prefix_are_never_a_servers() {
        let mut bare = source(
            "evil",
            &[
                "switchboard__list_servers",
                "switchboard__call_tool",
                "switchboard..x",
                "fine",
            ],
        );
        bare.prefix = String::new();
        // A server whose id is the hub's own prefix lands every name there.
        let named = source("switchboard", &["read"]);
        let c = Catalog::build(vec![bare.clone(), named.clone()]);
        assert_eq!(names(&c), vec!["fine"]);
        let prompts: Vec<&str> = c.prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(prompts, vec!["fine"]);
        assert!(c.tool("switchboard__call_tool").is_none());
        assert!(c.prompt("switchboard__list_servers").is_none());
        assert!(!could_expose("", "switchboard__call_tool"));
        assert!(!could_expose("switchboard", "switchboard__read"));
        let notes = reserved_notes(&bare.prefix, &bare.capabilities);
        assert_eq!(notes.len(), 6, "{notes:?}");
        assert!(
            notes[0].starts_with("tool 'switchboard__list_servers' is not served")
                && notes[0].contains("\"namespace\""),
            "{notes:?}"
        );
        assert_eq!(
            reserved_notes(&named.prefix, &named.capabilities)[1],
            "prompt 'read' is not served on the merged endpoint: its name would be \
             'switchboard__read', and names starting with 'switchboard__' are Switchboard's \
             own (give the server a \"namespace\")"
        );
        assert!(reserved_notes("ok", &named.capabilities).is_empty());
    }

    #[test]
    fn in_a_collision_the_tool_pinned_first_keeps_its_name() {
        let t0 = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000);
        let later = t0 + std::time::Duration::from_secs(60);
        let mut fp = source("fp", &["read"]);
        fp.pinned_at = HashMap::from([("read".to_string(), t0)]);
        let mut newcomer = source("zz", &["fp__read"]);
        newcomer.prefix = String::new();
        newcomer.pinned_at = HashMap::from([("fp__read".to_string(), later)]);
        for sources in [
            vec![fp.clone(), newcomer.clone()],
            vec![newcomer.clone(), fp.clone()],
        ] {
            let c = Catalog::build(sources);
            assert_eq!(c.tool("fp__read").unwrap().server.as_str(), "fp");
            let other: Vec<String> = names(&c).into_iter().filter(|n| n != "fp__read").collect();
            assert_eq!(other.len(), 1);
            assert!(other[0].starts_with("fp__read_"), "{other:?}");
            assert_eq!(c.tool(&other[0]).unwrap().server.as_str(), "zz");
        }
        // Not pinned (a newcomer not approved yet) or pinned at the same
        // time: no one is senior, every member is suffixed.
        for pinned in [
            HashMap::new(),
            HashMap::from([("fp__read".to_string(), t0)]),
        ] {
            newcomer.pinned_at = pinned;
            let mut unpinned = fp.clone();
            if newcomer.pinned_at.is_empty() {
                unpinned.pinned_at = HashMap::new();
            }
            let c = Catalog::build(vec![unpinned, newcomer.clone()]);
            assert!(c.tool("fp__read").is_none(), "{:?}", names(&c));
            assert_eq!(names(&c).len(), 2);
        }
    }

    #[test]
    fn could_expose_follows_the_naming_rules() {
        // Every name a catalog assigns is one its server's prefix could expose,
        // and no other server's prefix claims it unless the names overlap.
        let long_prefix = "p".repeat(60);
        let sources = vec![
            source("a", &["x", "get.weather", &"t".repeat(100)]),
            source("a__b", &["c"]),
            source("ab", &["x"]),
            {
                let mut s = source("long", &["tool", "x.y"]);
                s.prefix = long_prefix.clone();
                s
            },
        ];
        let prefixes: Vec<String> = sources.iter().map(|s| s.prefix.clone()).collect();
        let c = Catalog::build(sources);
        for tool in c.tools.iter() {
            let route = c.tool(&tool.name).unwrap();
            let own = if route.server.as_str() == "long" {
                long_prefix.as_str()
            } else {
                route.server.as_str()
            };
            assert!(could_expose(own, &tool.name), "{} from {own}", tool.name);
        }
        // Names cut inside a 60-character prefix still point at it.
        let cut: Vec<_> = c
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .filter(|n| !n.starts_with(&format!("{long_prefix}__")))
            .filter(|n| n.starts_with(&long_prefix[..10]))
            .collect();
        assert_eq!(cut.len(), 2, "{:?}", names(&c));
        assert!(cut.iter().all(|n| could_expose(&long_prefix, n)));
        assert!(cut.iter().all(|n| !could_expose("a", n)));
        // Ids with `_` and `__`: "a__b__c" could be server "a" or server "a__b".
        assert!(could_expose("a", "a__b__c") && could_expose("a__b", "a__b__c"));
        assert!(!could_expose("ab", "a__b__c"));
        assert!(!could_expose("a", "ab__x"));
        assert!(!could_expose("nosuchserver", "a__x"));
        assert!(!could_expose("a", "a_x"));
        assert!(could_expose("", "anything"));
        // A 64-character name ending in hex but cut elsewhere is not the prefix's.
        let other = format!("{}_{}", "q".repeat(55), "0123abcd");
        assert_eq!(other.len(), MAX_NAME_LEN);
        assert!(!could_expose(&long_prefix, &other));
        assert!(prefixes.iter().all(|p| !could_expose(p, "zzz__x")));
    }

    #[test]
    fn empty_namespace_exposes_bare_names() {
        let mut s = source("conf", &["test_simple_text"]);
        s.prefix = String::new();
        let c = Catalog::build(vec![s, source("other", &["x"])]);
        assert_eq!(names(&c), vec!["other__x", "test_simple_text"]);
    }

    #[test]
    fn disabled_tools_are_hidden() {
        let mut s = source("a", &["keep", "drop"]);
        s.disabled_tools = vec!["drop".into()];
        let c = Catalog::build(vec![s]);
        assert_eq!(names(&c), vec!["a__keep"]);
        assert!(c.tool("a__drop").is_none());
    }

    #[test]
    fn resources_route_to_owner_and_first_id_wins() {
        let mut a = Capabilities::empty(RefreshTrigger::FirstUse);
        a.resources = vec![Resource::new("file:///x", "x")];
        a.resource_templates = vec![
            serde_json::from_value(json!({"uriTemplate": "a://items/{id}", "name": "t"})).unwrap(),
        ];
        let mut b = Capabilities::empty(RefreshTrigger::FirstUse);
        b.resources = vec![
            Resource::new("file:///x", "x"),
            Resource::new("file:///y", "y"),
        ];
        let src = |id: &str, caps: Capabilities| CatalogSource {
            server: ServerId::new(id).unwrap(),
            prefix: id.into(),
            disabled_tools: vec![],
            capabilities: Arc::new(caps),
            pinned_at: HashMap::new(),
            tool_overrides: Default::default(),
        };
        let c = Catalog::build(vec![src("b", b), src("a", a)]);
        assert_eq!(c.resources.len(), 2);
        assert_eq!(c.resource_owner("file:///x").unwrap().as_str(), "a");
        assert_eq!(c.resource_owner("file:///y").unwrap().as_str(), "b");
        assert_eq!(c.resource_owner("a://items/42").unwrap().as_str(), "a");
        assert!(c.resource_owner("a://items/4/2").is_none());
        assert!(c.resource_owner("nope://z").is_none());
    }

    #[test]
    fn templates_match_level_one_expressions() {
        assert!(template_matches(
            "test://template/{id}/data",
            "test://template/7/data"
        ));
        assert!(!template_matches(
            "test://template/{id}/data",
            "test://template//data"
        ));
        assert!(template_matches("file:///{+path}", "file:///a/b/c.txt"));
        assert!(!template_matches("file:///{path}", "file:///a/b"));
        assert!(template_matches("plain://x", "plain://x"));
    }

    #[test]
    fn diff_detects_changes_per_list() {
        let a = Catalog::build(vec![source("a", &["x"])]);
        let same = Catalog::build(vec![source("a", &["x"])]);
        assert!(!a.diff(&same).any());
        let b = Catalog::build(vec![source("a", &["x", "y"])]);
        let d = a.diff(&b);
        assert!(d.tools && d.prompts && !d.resources);
    }

    #[test]
    fn prepared_list_results_are_what_rmcp_would_serialize() {
        let c = Catalog::build(vec![source("b", &["y"]), source("a", &["x"])]);
        let parsed = |which| -> serde_json::Value {
            serde_json::from_slice(&c.list_result(which, builtin_tools)).unwrap()
        };
        // What rmcp's server handler sends a peer on 2025-11-25 or earlier.
        let legacy = |mut result: ServerResult| {
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
            serde_json::to_value(result).unwrap()
        };
        let tools = parsed(ListResult::Tools { builtin: false });
        assert_eq!(
            tools,
            legacy(ServerResult::ListToolsResult(
                ListToolsResult::with_all_items(c.tools.to_vec())
            ))
        );
        assert_eq!(tools["resultType"], serde_json::Value::Null);
        assert_eq!(tools["tools"][0]["name"], "a__x");
        let mut with_builtin = builtin_tools();
        with_builtin.extend(c.tools.iter().cloned());
        assert_eq!(
            parsed(ListResult::Tools { builtin: true }),
            legacy(ServerResult::ListToolsResult(
                ListToolsResult::with_all_items(with_builtin)
            ))
        );
        assert_eq!(
            parsed(ListResult::Prompts),
            legacy(ServerResult::ListPromptsResult(
                ListPromptsResult::with_all_items(c.prompts.to_vec())
            ))
        );
        assert_eq!(
            parsed(ListResult::Resources),
            serde_json::json!({"resources": []})
        );
        assert_eq!(
            parsed(ListResult::ResourceTemplates),
            serde_json::json!({"resourceTemplates": []})
        );
        // Made once: a second request gets the very same bytes.
        let first = c.list_result(ListResult::Prompts, Vec::new);
        assert_eq!(
            first.as_ptr(),
            c.list_result(ListResult::Prompts, Vec::new).as_ptr()
        );
        // A clone starts without them (it may be changed before it is shared).
        assert_eq!(
            c.clone()
                .prepared
                .0
                .iter()
                .filter(|p| p.get().is_some())
                .count(),
            0
        );
    }
}
