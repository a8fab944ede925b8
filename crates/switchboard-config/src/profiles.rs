//! Profiles (`"profiles"` beside `mcpServers` and `settings`, see
//! `docs/search.md`): named merged endpoints over a subset of the servers,
//! each served at `/profiles/<name>/mcp` with its own tool mode and,
//! optionally, a bearer token.
//!
//! ```json
//! "profiles": {"work": {"servers": ["github", "jira"], "toolMode": "search",
//!                       "token": {"keyring": "work-token"}}}
//! ```
//!
//! This module holds the model ([`ProfileConfig`], [`ProfileName`]) and the
//! parsing and checks the loader runs (`load.rs` calls [`parse_profiles`]
//! for the value and [`check_servers`] once `mcpServers` is known). Every
//! error names the profile and the field. Invariants of a parsed profile:
//! its name matches `[A-Za-z0-9_-]{1,64}`; every server id it lists is
//! configured under `mcpServers` (enabled or not), each once; a literal token
//! is at least [`MIN_TOKEN_LEN`] characters. A literal token is a secret: it
//! never shows in `Debug` output, and [`ProfileConfig::secret_values`] gives
//! it to the redaction registry.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::{ConfigValue, ServerConfig, ServerId, ToolMode};

/// Longest profile name accepted.
pub const MAX_PROFILE_NAME_LEN: usize = 64;
/// Shortest literal token accepted (a short token is guessable, and too short
/// to be masked reliably in logs).
pub const MIN_TOKEN_LEN: usize = 16;

/// A profile's name: the key under `profiles`, the `<name>` of its URL.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ProfileName(Arc<str>);

impl ProfileName {
    /// Checks `name` against the rules (`[A-Za-z0-9_-]`, 1 to 64 characters).
    pub fn new(name: &str) -> Result<Self, String> {
        if name.is_empty() {
            return Err("a profile name must not be empty".into());
        }
        if name.len() > MAX_PROFILE_NAME_LEN {
            return Err(format!(
                "profile name {name:?} is longer than {MAX_PROFILE_NAME_LEN} characters"
            ));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(format!(
                "profile name {name:?} contains {bad:?}; only letters, digits, '_' and '-' are \
                 allowed (it is part of the URL)"
            ));
        }
        Ok(Self(Arc::from(name)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name of the unnamed profile `folder`'s project file gives:
    /// `project:<folder>`, which no configured name can be (`:` and `/`).
    pub fn project(folder: &std::path::Path) -> Self {
        Self(Arc::from(format!("project:{}", folder.display())))
    }

    /// Whether this is a project file's profile ([`Self::project`]).
    pub fn is_project(&self) -> bool {
        self.0.starts_with("project:")
    }

    /// The name as a shared string (for scopes and maps).
    pub fn as_arc(&self) -> &Arc<str> {
        &self.0
    }
}

impl fmt::Display for ProfileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One profile as configured.
#[derive(Clone, PartialEq, Eq)]
pub struct ProfileConfig {
    pub name: ProfileName,
    /// The servers it serves, in the order given.
    pub servers: Vec<ServerId>,
    /// Its tool mode; `None` means `settings.toolMode`.
    pub tool_mode: Option<ToolMode>,
    /// The bearer token its requests must carry, literal or in the keyring.
    pub token: Option<ConfigValue>,
    /// Project folders (`~/work/acme`, absolute or under `~`, as written): a
    /// client on `/mcp` whose roots lie inside one is served this profile
    /// (see `config::roots`).
    pub roots: Vec<String>,
}

impl fmt::Debug for ProfileConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let token = match &self.token {
            None => "none".to_string(),
            Some(ConfigValue::Literal(_)) => switchboard_util::redact::MASK.to_string(),
            Some(ConfigValue::Keyring(name)) => format!("keyring:{name}"),
        };
        f.debug_struct("ProfileConfig")
            .field("name", &self.name)
            .field("servers", &self.servers)
            .field("tool_mode", &self.tool_mode)
            .field("token", &token)
            .field("roots", &self.roots)
            .finish()
    }
}

impl ProfileConfig {
    /// The literal token, if any: a secret to mask wherever it could show.
    pub fn secret_values(&self) -> Vec<String> {
        match &self.token {
            Some(ConfigValue::Literal(token)) => vec![token.clone()],
            _ => Vec::new(),
        }
    }

    /// Its tool mode, given the global one.
    pub fn mode(&self, global: ToolMode) -> ToolMode {
        self.tool_mode.unwrap_or(global)
    }
}

/// Parses the `profiles` object (already read as JSON): every error names the
/// profile and the field. Server ids are checked later ([`check_servers`]).
pub fn parse_profiles(value: Value) -> Result<Vec<ProfileConfig>, String> {
    let Value::Object(entries) = value else {
        return Err("`profiles` must be an object of profiles by name".into());
    };
    let mut profiles = Vec::with_capacity(entries.len());
    for (name, body) in entries {
        let checked = ProfileName::new(&name).map_err(|err| format!("`profiles`: {err}"))?;
        profiles.push(parse_profile(checked, body)?);
    }
    profiles.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(profiles)
}

fn parse_profile(name: ProfileName, body: Value) -> Result<ProfileConfig, String> {
    let field = |key: &str| format!("`profiles.{name}.{key}`");
    let Value::Object(body) = body else {
        return Err(format!(
            "`profiles.{name}` must be an object with `servers` (and optionally `toolMode`, `token`, `roots`)"
        ));
    };
    let mut servers = None;
    let mut tool_mode = None;
    let mut token = None;
    let mut roots = Vec::new();
    for (key, value) in body {
        match key.as_str() {
            "servers" => {
                let Value::Array(items) = value else {
                    return Err(format!(
                        "{} must be an array of server ids",
                        field("servers")
                    ));
                };
                let mut ids: Vec<ServerId> = Vec::with_capacity(items.len());
                for item in items {
                    let Value::String(id) = item else {
                        return Err(format!(
                            "{} must be an array of server ids (got {item})",
                            field("servers")
                        ));
                    };
                    let id =
                        ServerId::new(&id).map_err(|err| format!("{}: {err}", field("servers")))?;
                    if ids.contains(&id) {
                        return Err(format!("{} lists {id:?} twice", field("servers")));
                    }
                    ids.push(id);
                }
                servers = Some(ids);
            }
            "toolMode" => {
                let mode = match &value {
                    Value::String(text) => text.parse::<ToolMode>().ok(),
                    _ => None,
                };
                tool_mode = Some(mode.ok_or_else(|| {
                    format!(
                        "{} must be \"all\", \"search\" or \"code\" (got {value})",
                        field("toolMode")
                    )
                })?);
            }
            "token" => {
                let value: ConfigValue = serde_json::from_value(value).map_err(|err| {
                    format!(
                        "{} must be a string or {{\"keyring\": \"<secret name>\"}}: {err}",
                        field("token")
                    )
                })?;
                if let ConfigValue::Literal(text) = &value
                    && text.trim().chars().count() < MIN_TOKEN_LEN
                {
                    return Err(format!(
                        "{} must be at least {MIN_TOKEN_LEN} characters long \
                         (or {{\"keyring\": \"<secret name>\"}})",
                        field("token")
                    ));
                }
                token = Some(value);
            }
            "roots" => {
                roots = parse_roots(value).map_err(|err| format!("{}{err}", field("roots")))?
            }
            other => {
                return Err(format!(
                    "`profiles.{name}` has an unknown key {other:?} (expected `servers`, \
                     `toolMode`, `token`, `roots`)"
                ));
            }
        }
    }
    let servers = servers.ok_or_else(|| format!("{} is required", field("servers")))?;
    Ok(ProfileConfig {
        name,
        servers,
        tool_mode,
        token,
        roots,
    })
}

/// A profile's `roots`: folders, each absolute or under `~`. The error
/// completes a sentence whose subject is the field.
fn parse_roots(value: Value) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(" must be an array of folders".into());
    };
    let mut roots = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(folder) = item else {
            return Err(format!(" must be an array of folders (got {item})"));
        };
        if !super::roots::is_folder(&folder) {
            return Err(format!(
                ": {folder:?} is not an absolute folder (write `/…` or `~/…`)"
            ));
        }
        roots.push(folder);
    }
    Ok(roots)
}

/// Checks that every server a profile lists is configured.
pub fn check_servers(profiles: &[ProfileConfig], servers: &[ServerConfig]) -> Result<(), String> {
    for profile in profiles {
        for id in &profile.servers {
            if !servers.iter().any(|s| s.id == *id) {
                return Err(format!(
                    "`profiles.{}.servers`: no server {:?} is configured under `mcpServers`",
                    profile.name,
                    id.as_str()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::{Config, ConfigError, Source, load};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        load(Source::text(text, Path::new("t.json")))
    }

    fn message(text: &str) -> String {
        match parse(text).unwrap_err() {
            ConfigError::Invalid { message, .. } => message,
            other => panic!("unexpected error {other:?}"),
        }
    }

    const SERVERS: &str = r#""mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}"#;

    #[test]
    fn profiles_parse_with_defaults_and_tokens() {
        let cfg = parse(&format!(
            r#"{{"profiles": {{
                 "work": {{"servers": ["b", "a"], "toolMode": "search",
                          "token": "0123456789abcdef-secret",
                          "roots": ["~/work", "/srv/w"]}},
                 "home": {{"servers": ["a"], "token": {{"keyring": "home-token"}}}},
                 "open": {{"servers": []}}}},
                {SERVERS}}}"#
        ))
        .unwrap();
        let names: Vec<&str> = cfg.profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec!["home", "open", "work"]);
        let work = &cfg.profiles[2];
        assert_eq!(
            work.servers,
            vec![ServerId::new("b").unwrap(), ServerId::new("a").unwrap()]
        );
        assert_eq!(work.tool_mode, Some(ToolMode::Search));
        assert_eq!(work.roots, vec!["~/work", "/srv/w"]);
        assert!(cfg.profiles[0].roots.is_empty());
        assert_eq!(work.mode(ToolMode::All), ToolMode::Search);
        assert_eq!(cfg.profiles[1].mode(ToolMode::Search), ToolMode::Search);
        assert_eq!(cfg.profiles[1].tool_mode, None);
        assert_eq!(
            cfg.profiles[0].token,
            Some(ConfigValue::Keyring("home-token".into()))
        );
        assert_eq!(work.secret_values(), vec!["0123456789abcdef-secret"]);
        assert!(cfg.profiles[0].secret_values().is_empty());
        // The literal token never shows in debug output.
        let debug = format!("{cfg:?}");
        assert!(!debug.contains("0123456789abcdef-secret"), "{debug}");
        assert!(debug.contains("keyring:home-token"), "{debug}");
        // No `profiles` key: no profiles.
        assert!(
            parse(&format!("{{{SERVERS}}}"))
                .unwrap()
                .profiles
                .is_empty()
        );
    }

    #[test]
    fn bad_profiles_are_refused_naming_the_profile_and_field() {
        for (profiles, says) in [
            (
                r#"{"w": {"servers": ["a", "nope"]}}"#,
                "`profiles.w.servers`: no server \"nope\" is configured under `mcpServers`",
            ),
            (
                r#"{"my profile": {"servers": []}}"#,
                "`profiles`: profile name \"my profile\" contains ' '",
            ),
            (r#"{"w/x": {"servers": []}}"#, "contains '/'"),
            (
                r#"{"w": {"servers": ["a"], "toolMode": "some"}}"#,
                "`profiles.w.toolMode` must be \"all\", \"search\" or \"code\" (got \"some\")",
            ),
            (
                r#"{"w": {"servers": ["a"], "toolMode": 1}}"#,
                "`profiles.w.toolMode` must be \"all\", \"search\" or \"code\" (got 1)",
            ),
            (
                r#"{"w": {"toolMode": "all"}}"#,
                "`profiles.w.servers` is required",
            ),
            (
                r#"{"w": {"servers": "a"}}"#,
                "`profiles.w.servers` must be an array of server ids",
            ),
            (
                r#"{"w": {"servers": ["a", "a"]}}"#,
                "`profiles.w.servers` lists",
            ),
            (
                r#"{"w": {"servers": [], "token": "short"}}"#,
                "`profiles.w.token` must be at least 16 characters long",
            ),
            (
                r#"{"w": {"servers": [], "token": {"vault": "x"}}}"#,
                "`profiles.w.token` must be a string or {\"keyring\"",
            ),
            (
                r#"{"w": {"servers": [], "tokens": "x"}}"#,
                "`profiles.w` has an unknown key \"tokens\"",
            ),
            (
                r#"{"w": {"servers": [], "roots": "~/a"}}"#,
                "`profiles.w.roots` must be an array of folders",
            ),
            (
                r#"{"w": {"servers": [], "roots": ["work/acme"]}}"#,
                "`profiles.w.roots`: \"work/acme\" is not an absolute folder",
            ),
            (
                r#"{"w": {"servers": [], "roots": [1]}}"#,
                "`profiles.w.roots` must be an array of folders (got 1)",
            ),
            (r#"{"w": []}"#, "`profiles.w` must be an object"),
            (r#"[]"#, "`profiles` must be an object"),
        ] {
            let got = message(&format!(r#"{{{SERVERS}, "profiles": {profiles}}}"#));
            assert!(got.contains(says), "{profiles}: {got}");
        }
        // The server check does not depend on the order of the keys.
        let got = message(&format!(
            r#"{{"profiles": {{"w": {{"servers": ["c"]}}}}, {SERVERS}}}"#
        ));
        assert!(got.contains("no server \"c\""), "{got}");
        // A literal token is never quoted in an error.
        let got = message(&format!(
            r#"{{{SERVERS}, "profiles": {{"w": {{"servers": ["zz"], "token": "0123456789abcdef-secret"}}}}}}"#
        ));
        assert!(!got.contains("0123456789abcdef"), "{got}");
    }

    #[test]
    fn names_are_url_safe() {
        assert!(ProfileName::new("work_2-x").is_ok());
        assert!(ProfileName::new("").is_err());
        assert!(ProfileName::new(&"a".repeat(65)).is_err());
        assert!(ProfileName::new("a.b").is_err());
        assert!(ProfileName::new("é").is_err());
    }
}
