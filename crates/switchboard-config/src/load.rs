//! The one way to get a [`Config`]: [`load`] a [`Source`] — the file at
//! start-up or on a reload, or a text or bytes already read — with the
//! options the caller needs (where `${VAR}` references come from, whether
//! the `SWITCHBOARD_*` overrides apply, whether a refused file means "run
//! with no servers").
//!
//! Reading the file refuses anything but a regular file of at most
//! [`MAX_CONFIG_BYTES`] (`read.rs`, `guard.rs`). Parsing is all-or-nothing
//! (`file.rs` reads the file's shape; validation happens while
//! deserializing, so serde_json attaches the line and column of the
//! offending value to every error).

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de;

use super::expand::Vars;
use super::{Config, ConfigError, ServerConfig};

/// The largest config file read; a bigger one is refused (a config file is a
/// few kilobytes; this bounds what a mistaken path can make the hub read).
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The process environment, as the hub reads `SWITCHBOARD_*` overrides
/// ([`Source::overrides`]) and `${VAR}` references: `std::env::var` of
/// `name`, `None` when unset or not Unicode.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// A lookup of environment variables by name (normally [`process_env`]).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What [`load`] reads and how; built with [`Source::start`],
/// [`Source::reload`], [`Source::text`] or [`Source::bytes`], then options.
/// `O` is what a load gives: a [`Config`], or [`OrEmpty`] after
/// [`Source::or_empty`].
#[must_use = "a source does nothing until it is given to `load`"]
pub struct Source<'a, O = Config> {
    input: Input<'a>,
    /// Where `${VAR}` references are looked up (the process environment
    /// unless [`Source::vars`] or [`Source::shape_only`] says otherwise).
    vars: Vars<'a>,
    /// Where `SWITCHBOARD_*` overrides are read, if they apply at all.
    overrides: Option<Lookup<'a>>,
    out: PhantomData<O>,
}

enum Input<'a> {
    /// The file at `path`; `reload` decides what a missing or empty file means.
    File { path: &'a Path, reload: bool },
    /// A file's text; `label` only names it in errors.
    Text { text: &'a str, label: &'a Path },
    /// A file's bytes (UTF-8 JSON); `label` only names it in errors.
    Bytes { bytes: &'a [u8], label: &'a Path },
}

impl<'a> Source<'a> {
    fn new(input: Input<'a>) -> Self {
        Self {
            input,
            vars: Vars::Lookup(&process_env),
            overrides: None,
            out: PhantomData,
        }
    }

    /// The file at `path` at start-up: a missing or empty file is a config
    /// with no servers (the hub still serves); a non-regular file is refused.
    pub fn start(path: &'a Path) -> Self {
        Self::new(Input::File {
            path,
            reload: false,
        })
    }

    /// The file at `path` to replace a running config: a missing or empty
    /// file is refused too ([`ConfigError::Missing`], [`ConfigError::Empty`]),
    /// so that only a valid file removes servers.
    pub fn reload(path: &'a Path) -> Self {
        Self::new(Input::File { path, reload: true })
    }

    /// The text of a config file; `label` only names it in errors. An empty
    /// text is a config with no servers.
    pub fn text(text: &'a str, label: &'a Path) -> Self {
        Self::new(Input::Text { text, label })
    }

    /// The bytes of a config file (UTF-8 JSON); `label` only names it in errors.
    pub fn bytes(bytes: &'a [u8], label: &'a Path) -> Self {
        Self::new(Input::Bytes { bytes, label })
    }

    /// A refused file or text gives a config with no servers and the default
    /// settings instead of an error, and the refusal beside it ([`OrEmpty`]):
    /// for a caller that runs on until the file is fixed (the desktop app).
    /// A bad `SWITCHBOARD_*` variable is still an error.
    pub fn or_empty(self) -> Source<'a, OrEmpty> {
        Source {
            input: self.input,
            vars: self.vars,
            overrides: self.overrides,
            out: PhantomData,
        }
    }
}

impl<'a, O> Source<'a, O> {
    /// Expands `${VAR}` references from `vars` instead of the process environment.
    pub fn vars(mut self, vars: Vars<'a>) -> Self {
        self.vars = vars;
        self
    }

    /// Checks the syntax of `${VAR}` references without looking them up (an
    /// unset one is no error): whether a definition is well-formed wherever
    /// it will run (import).
    pub fn shape_only(self) -> Self {
        self.vars(Vars::ShapeOnly)
    }

    /// Applies the `SWITCHBOARD_*` overrides read through `env` (normally
    /// [`process_env`]) to the settings: the config a hub runs with. A
    /// refused file is reported before a bad variable.
    pub fn overrides(mut self, env: Lookup<'a>) -> Self {
        self.overrides = Some(env);
        self
    }
}

/// What [`load`] gives for a source made with [`Source::or_empty`].
#[derive(Debug)]
pub struct OrEmpty {
    /// The config read, or one with no servers when it was refused
    /// (overrides applied either way).
    pub config: Config,
    /// Why the file was refused, if it was.
    pub refused: Option<ConfigError>,
}

/// What a load gives: a [`Config`] or [`OrEmpty`] (sealed: only these two).
/// A type parameter rather than two functions, so that there is one entry
/// point and a caller that asked for "no servers on refusal" cannot forget
/// to look at the refusal.
pub trait Loaded: Sized + sealed::Sealed {
    /// What a refused file or text becomes: an error ([`Config`]) or an
    /// empty config beside the refusal ([`OrEmpty`]).
    #[doc(hidden)]
    fn settle(
        read: Result<Config, ConfigError>,
    ) -> Result<(Config, Option<ConfigError>), ConfigError>;
    /// The answer, once the overrides are applied.
    #[doc(hidden)]
    fn finish(config: Config, refused: Option<ConfigError>) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Config {}
    impl Sealed for super::OrEmpty {}
}

impl Loaded for Config {
    fn settle(
        read: Result<Config, ConfigError>,
    ) -> Result<(Config, Option<ConfigError>), ConfigError> {
        read.map(|config| (config, None))
    }
    fn finish(config: Config, _refused: Option<ConfigError>) -> Self {
        config
    }
}

impl Loaded for OrEmpty {
    fn settle(
        read: Result<Config, ConfigError>,
    ) -> Result<(Config, Option<ConfigError>), ConfigError> {
        Ok(match read {
            Ok(config) => (config, None),
            Err(err) => (Config::default(), Some(err)),
        })
    }
    fn finish(config: Config, refused: Option<ConfigError>) -> Self {
        Self { config, refused }
    }
}

/// Reads and parses `source`: the one way to get a [`Config`] (every place
/// that loads a config for a hub, checks a definition, or imports one goes
/// through here).
pub fn load<O: Loaded>(source: Source<'_, O>) -> Result<O, ConfigError> {
    let read = match source.input {
        Input::File { path, reload } => read_file(path, reload, &source.vars),
        Input::Text { text, label } => parse_text(text, label, &source.vars),
        Input::Bytes { bytes, label } => parse_bytes(bytes, label, &source.vars),
    };
    let (mut config, refused) = O::settle(read)?;
    if let Some(env) = source.overrides {
        config.settings.apply_env(env)?;
    }
    Ok(O::finish(config, refused))
}

/// The file at `path`; see [`Source::start`] and [`Source::reload`].
fn read_file(path: &Path, reload: bool, vars: &Vars<'_>) -> Result<Config, ConfigError> {
    let Some(bytes) = super::read_config_file(path)? else {
        if reload {
            return Err(ConfigError::Missing {
                path: path.to_path_buf(),
                message: "the config file is missing (deleted or moved away)".into(),
            });
        }
        return Ok(Config::default());
    };
    if reload && bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ConfigError::Empty {
            path: path.to_path_buf(),
            message: "the config file is empty".into(),
        });
    }
    parse_bytes(&bytes, path, vars)
}

fn parse_bytes(bytes: &[u8], path: &Path, vars: &Vars<'_>) -> Result<Config, ConfigError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(text, path, vars),
        Err(err) => {
            let (line, column) = position(&bytes[..err.valid_up_to()]);
            Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                line,
                column,
                message: "the file is not UTF-8 text".into(),
            })
        }
    }
}

fn parse_text(text: &str, path: &Path, vars: &Vars<'_>) -> Result<Config, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Config::default());
    }
    // serde would read a JSON array as the object's fields in order (so
    // `[]` would pass as an empty config); the file is an object or wrong.
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with('{') {
        let (line, column) = position(&text.as_bytes()[..start]);
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            message: "expected a JSON object with `mcpServers` (and optionally `settings`)".into(),
        });
    }
    let invalid = |err: serde_json::Error| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: err.line(),
        column: err.column(),
        message: strip_position(&err.to_string()),
    };
    super::unique::check_unique_keys(text).map_err(invalid)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let raw =
        de::DeserializeSeed::deserialize(super::file::FileSeed(vars), &mut de).map_err(invalid)?;
    de.end().map_err(invalid)?;
    Ok(Config {
        servers: raw.mcp_servers.0,
        settings: raw.settings.0,
        profiles: raw.profiles,
    })
}

impl Config {
    pub fn server(&self, id: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.id.as_str() == id)
    }
}

/// The 1-based line and column just after `valid` (columns count bytes, as
/// serde_json's do).
fn position(valid: &[u8]) -> (usize, usize) {
    let line = 1 + valid.iter().filter(|b| **b == b'\n').count();
    let column = 1 + valid.iter().rev().take_while(|b| **b != b'\n').count();
    (line, column)
}

/// serde_json appends " at line L column C"; we report those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// The default config file: `<OS config dir>/switchboard/config.json`.
pub fn default_config_path() -> PathBuf {
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("switchboard")
        .join("config.json")
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::time::Duration;

    use super::*;
    use crate::*;
    use pretty_assertions::assert_eq;

    /// `text` with `${VAR}` references looked up in `vars`.
    fn load_with_vars(text: &str, label: &Path, vars: &Vars<'_>) -> Result<Config, ConfigError> {
        load(Source::text(text, label).vars(*vars))
    }

    /// `text` with `${VAR}` references checked but not looked up.
    fn load_shape(text: &str, label: &Path) -> Result<Config, ConfigError> {
        load(Source::text(text, label).shape_only())
    }

    fn parse(text: &str) -> Result<Config, ConfigError> {
        load(Source::text(text, Path::new("cfg.json")))
    }

    #[test]
    fn parses_claude_desktop_style_file() {
        let cfg = parse(
            r#"{
              "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
                "remote": {"type": "http", "url": "https://example.com/mcp",
                           "headers": {"X-Key": "1"}, "enabled": false,
                           "disabledTools": ["drop"]}
              },
              "settings": {"cacheTtlSecs": 10, "listen": "127.0.0.1:0"},
              "globalShortcut": "ignored"
            }"#,
        )
        .unwrap();
        assert_eq!(cfg.servers.len(), 2);
        assert_eq!(cfg.servers[0].id.as_str(), "fs");
        assert_eq!(
            cfg.servers[0].transport,
            TransportConfig::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "srv".into()],
                env: BTreeMap::from([("K".into(), "v".into())]),
                cwd: None,
            }
        );
        assert!(cfg.servers[0].enabled);
        assert!(!cfg.servers[1].enabled);
        assert_eq!(
            cfg.servers[1].disabled_tools,
            BTreeSet::from(["drop".to_string()])
        );
        assert_eq!(cfg.settings.cache_ttl, Duration::from_secs(10));
        assert_eq!(cfg.settings.listen.port(), 0);
        assert_eq!(cfg.settings.poll_interval, Duration::from_secs(300));
    }

    #[test]
    fn variable_references_are_expanded_where_they_apply() {
        let env = |name: &str| match name {
            "GITHUB_TOKEN" => Some("ghp-secret-1".to_string()),
            "BIN" => Some("/opt/bin".to_string()),
            "HOST" => Some("127.0.0.1:9".to_string()),
            _ => None,
        };
        let vars = Vars::Lookup(&env);
        let cfg = load_with_vars(
            r#"{"mcpServers": {
                "cli": {"command": "${BIN}/srv", "args": ["--k", "${GITHUB_TOKEN}", "$${LIT}"],
                        "env": {"T": "${GITHUB_TOKEN}", "D": "${NOPE:-dflt}",
                                "K": {"keyring": "name"}}, "cwd": "${BIN:-/x}/w"},
                "web": {"url": "http://${HOST}/mcp",
                        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}}"#,
            Path::new("cfg.json"),
            &vars,
        )
        .unwrap();
        let TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } = &cfg.servers[0].transport
        else {
            panic!("stdio expected")
        };
        assert_eq!(command, "/opt/bin/srv");
        assert_eq!(args, &["--k", "ghp-secret-1", "${LIT}"]);
        assert_eq!(env["T"], ConfigValue::from("ghp-secret-1"));
        assert_eq!(env["D"], ConfigValue::from("dflt"));
        assert_eq!(env["K"], ConfigValue::Keyring("name".into()));
        assert_eq!(cwd.as_deref(), Some(Path::new("/opt/bin/w")));
        assert!(
            cfg.servers[0]
                .secret_values()
                .contains(&"ghp-secret-1".to_string())
        );
        let TransportConfig::Http { url, headers, .. } = &cfg.servers[1].transport else {
            panic!("http expected")
        };
        assert_eq!(url, "http://127.0.0.1:9/mcp");
        assert_eq!(
            headers["Authorization"],
            ConfigValue::from("Bearer ghp-secret-1")
        );

        let err = load_with_vars(
            r#"{"mcpServers": {"github": {"url": "https://h/mcp",
                "headers": {"Authorization": "Bearer ${MISSING_TOKEN}"}}}}"#,
            Path::new("cfg.json"),
            &vars,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains(
                "server \"github\": headers.Authorization uses ${MISSING_TOKEN}, which is not set"
            ),
            "{err}"
        );
        let bad = load_with_vars(
            r#"{"mcpServers": {"a": {"command": "x", "args": ["${GITHUB_TOKEN"]}}}"#,
            Path::new("cfg.json"),
            &vars,
        )
        .unwrap_err();
        assert!(
            bad.to_string()
                .contains("args[0] has a malformed reference"),
            "{bad}"
        );
        assert!(!bad.to_string().contains("ghp-secret-1"), "{bad}");
        // Import's check: the shape is right even where the variable is unset.
        load_shape(
            r#"{"mcpServers": {"a": {"url": "${BASE:-https://h}/mcp",
                "headers": {"A": "${UNSET}"}}}}"#,
            Path::new("cfg.json"),
        )
        .unwrap();
    }

    #[test]
    fn header_values_may_live_in_the_keyring() {
        let cfg = parse(
            r#"{"mcpServers": {"web": {"url": "https://h/mcp",
                "headers": {"X-Api-Key": {"keyring": "web-key"}, "Accept": "text/plain"}}}}"#,
        )
        .unwrap();
        let TransportConfig::Http { headers, .. } = &cfg.servers[0].transport else {
            panic!("http expected")
        };
        assert_eq!(headers["X-Api-Key"], ConfigValue::Keyring("web-key".into()));
        assert_eq!(headers["Accept"], ConfigValue::from("text/plain"));
        // Only literal values are remembered as secrets; a keyring one is when read.
        assert!(cfg.servers[0].secret_values().is_empty());
        let bad = parse(
            r#"{"mcpServers": {"web": {"url": "https://h/mcp",
                "headers": {"X-Api-Key": {"keyring": "no spaces"}}}}}"#,
        )
        .unwrap_err();
        assert!(bad.to_string().contains("secret name"), "{bad}");
        let bad = parse(
            r#"{"mcpServers": {"web": {"url": "https://h/mcp",
                "headers": {"X-Api-Key": "line\nbreak-secret"}}}}"#,
        )
        .unwrap_err();
        assert!(bad.to_string().contains("header \"X-Api-Key\""), "{bad}");
        assert!(!bad.to_string().contains("break-secret"), "{bad}");
    }

    #[test]
    fn secret_values_and_bad_urls_in_errors() {
        let cfg = parse(
            r#"{"mcpServers": {
                "web": {"url": "https://me:pw-123456@h/mcp?token=tok-123456&page=1",
                        "headers": {"X-Api-Key": "key-123456", "Accept": "text/plain"}},
                "cli": {"command": "srv", "args": ["--db", "postgres://u:dbpass-1@h/x"],
                        "env": {"GITHUB_TOKEN": "env-123456", "NODE_ENV": "production"}}
            }}"#,
        )
        .unwrap();
        let web = cfg.servers[0].secret_values();
        for value in ["pw-123456", "tok-123456", "key-123456"] {
            assert!(web.iter().any(|v| v == value), "{value} in {web:?}");
        }
        assert!(
            !web.iter().any(|v| v == "text/plain" || v == "1"),
            "{web:?}"
        );
        let cli = cfg.servers[1].secret_values();
        for value in ["dbpass-1", "env-123456"] {
            assert!(cli.iter().any(|v| v == value), "{value} in {cli:?}");
        }
        assert!(!cli.iter().any(|v| v == "production"), "{cli:?}");

        let err = parse(r#"{"mcpServers": {"a": {"url": "ftp://u:hidden@h/?key=k9"}}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("ftp://***@h/?key=***"), "{err}");
        assert!(!err.contains("hidden") && !err.contains("k9"), "{err}");
    }

    #[test]
    fn empty_text_is_empty_config() {
        assert_eq!(parse("  \n").unwrap(), Config::default());
    }

    #[test]
    fn syntax_error_reports_line_and_column() {
        let err =
            parse("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}").unwrap_err();
        let ConfigError::Invalid {
            line,
            column,
            message,
            ..
        } = err
        else {
            panic!("wrong error {err:?}")
        };
        assert_eq!(line, 3);
        assert!(column > 20, "column {column}");
        assert!(message.contains("trailing comma"), "{message}");
    }

    /// A value of the wrong shape is described the way the file's reader
    /// knows it, never by the name of a type in the code.
    #[test]
    fn wrong_shapes_are_described_in_the_files_words() {
        for (text, expected) in [
            (
                r#"{"mcpServers": {"a": 5}}"#,
                "expected a server definition (an object with `command` or `url`)",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "timeouts": 5}}}"#,
                "expected an object of timeouts (`timeouts`)",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "oauth": 5}}}"#,
                "expected an object of OAuth settings (`oauth`)",
            ),
            (
                "[]",
                "expected a JSON object with `mcpServers` (and optionally `settings`)",
            ),
            (
                "\n  5",
                "expected a JSON object with `mcpServers` (and optionally `settings`)",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "oauth": {"redirectPort": 70000}}}}"#,
                "expected `oauth.redirectPort`: a port number from 0 to 65535",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "oauth": {"redirectPort": "x"}}}}"#,
                "expected `oauth.redirectPort`: a port number from 0 to 65535",
            ),
            (
                r#"{"settings": [], "mcpServers": {}}"#,
                "expected an object of settings (`settings`)",
            ),
            (
                r#"{"settings": {"cacheMaxEntries": -1}, "mcpServers": {}}"#,
                "`settings.cacheMaxEntries` must not be negative (got -1)",
            ),
        ] {
            let message = parse(text).unwrap_err().to_string();
            assert!(message.contains(expected), "{text}: {message}");
            assert!(!message.contains("Raw"), "{text}: {message}");
            assert!(
                !message.contains("u16") && !message.contains("u64"),
                "{text}: {message}"
            );
        }
    }

    #[test]
    fn bad_server_id_is_refused_with_location() {
        let err = parse("{\"mcpServers\": {\n\"my server\": {\"command\": \"x\"}}}").unwrap_err();
        assert_eq!(err.to_string().split(": ").next(), Some("cfg.json:2:11"));
        assert!(err.to_string().contains("contains ' '"), "{err}");
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let err =
            parse(r#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#).unwrap_err();
        assert!(err.to_string().contains("\"a\" is defined twice"), "{err}");
    }

    #[test]
    fn server_needs_exactly_one_transport() {
        let none = parse(r#"{"mcpServers": {"a": {"args": []}}}"#).unwrap_err();
        assert!(none.to_string().contains("needs `command`"), "{none}");
        let both =
            parse(r#"{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}"#).unwrap_err();
        assert!(both.to_string().contains("both"), "{both}");
        let scheme = parse(r#"{"mcpServers": {"a": {"url": "ftp://h/"}}}"#).unwrap_err();
        assert!(scheme.to_string().contains("http://"), "{scheme}");
    }

    #[test]
    fn transport_and_type_choose_streamable_http_or_legacy_sse() {
        let kind = |entry: &str| -> Result<&'static str, String> {
            parse(&format!(r#"{{"mcpServers": {{"s": {entry}}}}}"#))
                .map(|cfg| cfg.servers[0].transport.kind())
                .map_err(|err| err.to_string())
        };
        assert_eq!(kind(r#"{"url": "http://h/mcp"}"#), Ok("http"));
        assert_eq!(
            kind(r#"{"url": "http://h/sse", "transport": "sse"}"#),
            Ok("sse")
        );
        assert_eq!(kind(r#"{"url": "http://h/sse", "type": "sse"}"#), Ok("sse"));
        for streamable in ["http", "streamable-http", "streamableHttp"] {
            assert_eq!(
                kind(&format!(
                    r#"{{"url": "http://h/mcp", "transport": "{streamable}"}}"#
                )),
                Ok("http")
            );
            assert_eq!(
                kind(&format!(
                    r#"{{"url": "http://h/mcp", "type": "{streamable}"}}"#
                )),
                Ok("http")
            );
        }
        assert_eq!(
            kind(r#"{"url": "http://h/sse", "type": "sse", "transport": "sse"}"#),
            Ok("sse")
        );
        assert_eq!(
            kind(r#"{"command": "x", "transport": "stdio"}"#),
            Ok("stdio")
        );
        let unknown = kind(r#"{"url": "http://h/ws", "transport": "websocket"}"#).unwrap_err();
        assert!(
            unknown.contains(r#"server "s": unknown `transport` "websocket""#),
            "{unknown}"
        );
        let clash =
            kind(r#"{"url": "http://h/", "type": "http", "transport": "sse"}"#).unwrap_err();
        assert!(
            clash.contains(r#"server "s": `type` "http" and `transport` "sse" disagree"#),
            "{clash}"
        );
        let stdio = kind(r#"{"command": "x", "transport": "sse"}"#).unwrap_err();
        assert!(
            stdio.contains("has `command` but `transport` is \"sse\""),
            "{stdio}"
        );
        let url_stdio = kind(r#"{"url": "http://h/", "transport": "stdio"}"#).unwrap_err();
        assert!(
            url_stdio.contains("has `url` but `transport` is \"stdio\""),
            "{url_stdio}"
        );
    }

    #[test]
    fn legacy_sse_changes_the_fingerprint_and_streamable_http_keeps_it() {
        let server = |entry: &str| {
            parse(&format!(r#"{{"mcpServers": {{"s": {entry}}}}}"#))
                .unwrap()
                .servers[0]
                .clone()
        };
        let plain = server(r#"{"url": "http://h/mcp"}"#);
        let explicit = server(r#"{"url": "http://h/mcp", "transport": "streamable-http"}"#);
        let sse = server(r#"{"url": "http://h/mcp", "transport": "sse"}"#);
        assert_eq!(
            serde_json::to_value(&plain.transport).unwrap(),
            serde_json::json!({"type": "http", "url": "http://h/mcp", "headers": {}})
        );
        assert_eq!(plain, explicit);
        assert_eq!(
            serde_json::to_value(&sse.transport).unwrap(),
            serde_json::json!({"type": "http", "url": "http://h/mcp", "headers": {}, "sse": true})
        );
    }

    #[test]
    fn unknown_server_keys_are_refused() {
        let err =
            parse(r#"{"mcpServers": {"a": {"command": "x", "disabledtools": []}}}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `disabledtools`"),
            "{err}"
        );
    }

    #[test]
    fn env_overrides_settings() {
        let mut s = Settings::default();
        s.apply_env(|name| match name {
            "SWITCHBOARD_CACHE_TTL_SECS" => Some("7".into()),
            "SWITCHBOARD_LISTEN" => Some("127.0.0.1:9999".into()),
            "SWITCHBOARD_POLL_INTERVAL_SECS" => Some("0".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s.cache_ttl, Duration::from_secs(7));
        assert_eq!(s.listen.port(), 9999);
        assert_eq!(s.poll_interval, Duration::ZERO);
        let err = s
            .apply_env(|n| (n == "SWITCHBOARD_CACHE_MAX_ENTRIES").then(|| "lots".into()))
            .unwrap_err();
        assert!(
            err.to_string().contains("SWITCHBOARD_CACHE_MAX_ENTRIES"),
            "{err}"
        );
    }

    #[test]
    fn allow_remote_from_the_file_and_the_environment() {
        assert!(!Settings::default().allow_remote);
        let cfg = parse(r#"{"settings": {"allowRemote": true}}"#).unwrap();
        assert!(cfg.settings.allow_remote);
        let mut s = Settings::default();
        s.apply_env(|n| (n == "SWITCHBOARD_ALLOW_REMOTE").then(|| "1".into()))
            .unwrap();
        assert!(s.allow_remote);
        let err = s
            .apply_env(|n| (n == "SWITCHBOARD_ALLOW_REMOTE").then(|| "maybe".into()))
            .unwrap_err();
        assert!(
            err.to_string().contains("SWITCHBOARD_ALLOW_REMOTE"),
            "{err}"
        );
    }

    #[test]
    fn parses_oauth_settings_and_keyring_values() {
        let cfg = parse(
            r#"{"mcpServers": {
                "gh": {"url": "https://example.com/mcp",
                       "oauth": {"clientId": "abc", "clientSecret": {"keyring": "gh-secret"},
                                 "scopes": ["repo"], "redirectPort": 7777}},
                "fs": {"command": "x", "env": {"PLAIN": "v", "KEY": {"keyring": "API_KEY"}}}
              },
              "settings": {"tokenStore": "memory"}}"#,
        )
        .unwrap();
        assert_eq!(
            cfg.servers[0].oauth,
            Some(OAuthConfig {
                client_id: Some("abc".into()),
                client_secret: Some(ConfigValue::Keyring("gh-secret".into())),
                scopes: vec!["repo".into()],
                redirect_port: Some(7777),
                client_metadata_url: None,
                grant: crate::model::OAuthGrant::AuthorizationCode,
                signing_key: None,
                signing_algorithm: None,
                identity_provider: None,
            })
        );
        let TransportConfig::Stdio { env, .. } = &cfg.servers[1].transport else {
            panic!("stdio")
        };
        assert_eq!(env["PLAIN"], ConfigValue::Literal("v".into()));
        assert_eq!(env["KEY"], ConfigValue::Keyring("API_KEY".into()));
        assert_eq!(cfg.settings.token_store, TokenStoreChoice::Memory);
    }

    #[test]
    fn a_machine_client_may_sign_with_a_private_key() {
        let cfg = parse(
            r#"{"mcpServers": {"m": {"url": "https://example.com/mcp", "oauth": {
                "clientId": "bot", "grant": "clientCredentials",
                "signingKey": {"keyring": "bot-key"}, "signingAlgorithm": "ES256"}}}}"#,
        )
        .unwrap();
        let oauth = cfg.servers[0].oauth.clone().unwrap();
        assert_eq!(
            oauth.signing_key,
            Some(ConfigValue::Keyring("bot-key".into()))
        );
        assert_eq!(
            oauth.signing_algorithm,
            Some(crate::model::SigningAlgorithm::ES256)
        );
        assert_eq!(oauth.client_secret, None);
    }

    #[test]
    fn parses_a_cross_app_access_client() {
        let cfg = parse(
            r#"{"mcpServers": {"m": {"url": "https://example.com/mcp", "oauth": {
                "clientId": "mcp-client", "clientSecret": {"keyring": "as-secret"},
                "grant": "crossAppAccess", "identityProvider": {
                    "issuer": "https://idp.example", "tokenEndpoint": "https://idp.example/token",
                    "clientId": "idp-client", "idToken": {"keyring": "id-token"}}}}}}"#,
        )
        .unwrap();
        let oauth = cfg.servers[0].oauth.clone().unwrap();
        assert_eq!(oauth.grant, crate::model::OAuthGrant::CrossAppAccess);
        assert_eq!(
            oauth.identity_provider,
            Some(crate::IdentityProvider {
                issuer: "https://idp.example".into(),
                token_endpoint: "https://idp.example/token".into(),
                client_id: "idp-client".into(),
                client_secret: None,
                id_token: ConfigValue::Keyring("id-token".into()),
            })
        );
        let idp = r#"{"issuer": "https://i", "tokenEndpoint": "https://i/t", "clientId": "c", "idToken": "t"}"#;
        for (oauth, expected) in [
            (format!(r#"{{"clientId": "c", "identityProvider": {idp}}}"#), "applies only to `oauth.grant: \"crossAppAccess\"`"),
            (r#"{"clientId": "c", "grant": "crossAppAccess"}"#.to_string(), "needs `oauth.identityProvider`"),
            (format!(r#"{{"grant": "crossAppAccess", "identityProvider": {idp}}}"#), "needs `oauth.clientId`"),
            (r#"{"clientId": "c", "grant": "crossAppAccess", "identityProvider": {"issuer": "https://i"}}"#.to_string(), "missing field"),
            (r#"{"clientId": "c", "grant": "crossAppAccess", "identityProvider": {"issuer": "", "tokenEndpoint": "https://i/t", "clientId": "c", "idToken": "t"}}"#.to_string(), "non-empty `issuer`"),
        ] {
            let text = format!(r#"{{"mcpServers": {{"a": {{"url": "http://h/", "oauth": {oauth}}}}}}}"#);
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.contains(expected), "{oauth}: {err}");
        }
    }

    #[test]
    fn bad_oauth_and_keyring_values_are_refused() {
        for (text, expected) in [
            (
                r#"{"mcpServers": {"a": {"command": "x", "oauth": {}}}}"#,
                "only to remote servers",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientSecret": "s"}}}}"#,
                "needs `oauth.clientId`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientid": "s"}}}}"#,
                "unknown field `clientid`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientMetadataUrl": "http://h/c.json"}}}}"#,
                "must be an https URL with a path",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientMetadataUrl": "https://h/"}}}}"#,
                "must be an https URL with a path",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientId": "c", "signingKey": "k"}}}}"#,
                "`oauth.signingKey` applies only to `oauth.grant: \"clientCredentials\"`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientId": "c", "grant": "clientCredentials", "clientSecret": "s", "signingKey": "k"}}}}"#,
                "either `oauth.clientSecret` or `oauth.signingKey`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientId": "c", "grant": "clientCredentials", "clientSecret": "s", "signingAlgorithm": "ES256"}}}}"#,
                "`oauth.signingAlgorithm` needs `oauth.signingKey`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"clientId": "c", "grant": "clientCredentials", "signingKey": "k", "signingAlgorithm": "HS256"}}}}"#,
                "unknown variant `HS256`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"grant": "clientCredentials", "clientId": "c"}}}}"#,
                "needs `oauth.clientId` and `oauth.clientSecret`",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "http://h/", "oauth": {"grant": "password"}}}}"#,
                "unknown variant `password`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": {"keyring": "a b"}}}}}"#,
                "contains ' '",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": {"vault": "k"}}}}}"#,
                "unexpected key \"vault\"",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#,
                "a string or {\"keyring\"",
            ),
            (
                r#"{"settings": {"tokenStore": "file"}}"#,
                "unknown variant `file`",
            ),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn durations_up_to_the_maximum_are_accepted() {
        let cfg = parse(
            r#"{"mcpServers": {"a": {"command": "x", "timeouts": {"startupSecs": 2592000, "callSecs": 1}}},
                "settings": {"cacheTtlSecs": 2592000, "pollIntervalSecs": 0, "idleShutdownSecs": null,
                             "startupTimeoutSecs": 0, "coldListTimeoutMs": 2592000000}}"#,
        )
        .unwrap();
        assert_eq!(cfg.settings.cache_ttl, MAX_DURATION);
        assert_eq!(cfg.settings.poll_interval, Duration::ZERO);
        assert_eq!(
            cfg.settings.idle_shutdown,
            Settings::default().idle_shutdown
        );
        assert_eq!(cfg.settings.startup_timeout, Duration::from_secs(1));
        assert_eq!(cfg.settings.cold_list_timeout, MAX_DURATION);
        assert_eq!(cfg.servers[0].timeouts.startup, Some(MAX_DURATION));
        assert_eq!(cfg.servers[0].timeouts.call, Some(Duration::from_secs(1)));
    }

    #[test]
    fn durations_out_of_range_are_refused_with_key_and_position() {
        for (text, line, expected) in [
            (
                "{\"settings\": {\n  \"cacheTtlSecs\": 99999999999}}",
                2,
                "`settings.cacheTtlSecs`: 99999999999 is more than the maximum 2592000 (30 days)",
            ),
            (
                "{\"settings\": {\"pollIntervalSecs\": 18446744073709551615}}",
                1,
                "`settings.pollIntervalSecs`: 18446744073709551615 is more than the maximum",
            ),
            (
                "{\"settings\": {\"idleShutdownSecs\": 1e300}}",
                1,
                "`settings.idleShutdownSecs`: 1e300 is more than the maximum 2592000",
            ),
            (
                "{\"settings\": {\"idleShutdownSecs\": 99999999999999999999999}}",
                1,
                "`settings.idleShutdownSecs`: 1e23 is more than the maximum",
            ),
            (
                "{\"settings\": {\"coldListTimeoutMs\": 2592000001}}",
                1,
                "`settings.coldListTimeoutMs`: 2592000001 is more than the maximum 2592000000",
            ),
            (
                "{\"settings\": {\"callTimeoutSecs\": -1}}",
                1,
                "`settings.callTimeoutSecs` must not be negative (got -1)",
            ),
            (
                "{\"settings\": {\"startupTimeoutSecs\": 1.5}}",
                1,
                "`settings.startupTimeoutSecs` must be a whole number of seconds (got 1.5)",
            ),
            (
                "{\"settings\": {\"cacheTtlSecs\": \"300\"}}",
                1,
                "expected `settings.cacheTtlSecs`: a whole number of seconds",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"timeouts\": {\"callSecs\": 2592001}}}}",
                2,
                "`timeouts.callSecs`: 2592001 is more than the maximum 2592000",
            ),
            (
                "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"timeouts\": {\"startupSecs\": 0}}}}",
                1,
                "`timeouts.startupSecs` must be at least 1",
            ),
        ] {
            let err = parse(text).unwrap_err();
            let ConfigError::Invalid {
                line: got_line,
                message,
                ..
            } = &err
            else {
                panic!("{text}: wrong error {err:?}")
            };
            assert_eq!(*got_line, line, "{text}: {err}");
            assert!(message.contains(expected), "{text}: {message}");
            assert!(
                err.to_string().starts_with(&format!("cfg.json:{line}:")),
                "{err}"
            );
        }
    }

    #[test]
    fn env_durations_are_limited_and_name_the_variable() {
        for (name, ok, too_big) in [
            ("SWITCHBOARD_CACHE_TTL_SECS", "2592000", "2592001"),
            (
                "SWITCHBOARD_POLL_INTERVAL_SECS",
                "2592000",
                "18446744073709551615",
            ),
            ("SWITCHBOARD_STARTUP_TIMEOUT_SECS", "2592000", "2592001"),
            ("SWITCHBOARD_CALL_TIMEOUT_SECS", "2592000", "2592001"),
            (
                "SWITCHBOARD_COLD_LIST_TIMEOUT_MS",
                "2592000000",
                "2592000001",
            ),
            (
                "SWITCHBOARD_IDLE_SHUTDOWN_SECS",
                "2592000",
                "18446744073709551614",
            ),
        ] {
            let mut s = Settings::default();
            s.apply_env(|n| (n == name).then(|| ok.to_string()))
                .unwrap();
            assert!(
                [
                    s.cache_ttl,
                    s.poll_interval,
                    s.startup_timeout,
                    s.call_timeout,
                    s.cold_list_timeout,
                    s.idle_shutdown
                ]
                .contains(&MAX_DURATION),
                "{name}"
            );
            let err = s
                .apply_env(|n| (n == name).then(|| too_big.to_string()))
                .unwrap_err();
            assert_eq!(
                err,
                ConfigError::Env {
                    name: name.to_string(),
                    value: too_big.to_string(),
                    message: format!(
                        "{too_big} is more than the maximum {} (30 days)",
                        if name.ends_with("_MS") {
                            "2592000000"
                        } else {
                            "2592000"
                        }
                    ),
                }
            );
        }
    }

    #[test]
    fn reload_refuses_missing_and_empty_files_that_start_up_accepts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        assert_eq!(load(Source::start(&path)).unwrap(), Config::default());
        assert!(matches!(
            load(Source::reload(&path)),
            Err(ConfigError::Missing { .. })
        ));
        std::fs::write(&path, " \n\t").unwrap();
        assert_eq!(load(Source::start(&path)).unwrap(), Config::default());
        let err = load(Source::reload(&path)).unwrap_err();
        assert_eq!(
            err,
            ConfigError::Empty {
                path: path.clone(),
                message: "the config file is empty".into()
            }
        );
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(load(Source::reload(&path)).unwrap(), Config::default());
    }

    #[test]
    fn non_utf8_text_is_refused_at_its_position() {
        let err = load(Source::bytes(b"{\n  \"a\xff\": 1}", Path::new("cfg.json"))).unwrap_err();
        assert_eq!(err.to_string(), "cfg.json:2:5: the file is not UTF-8 text");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_directory_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        // No writer ever opens it: a blocking open would hang this test.
        for result in [load(Source::start(&fifo)), load(Source::reload(&fifo))] {
            let err = result.unwrap_err();
            assert!(matches!(err, ConfigError::NotAFile { .. }), "{err:?}");
            assert!(err.to_string().contains("a FIFO (named pipe)"), "{err}");
        }
        let err = load(Source::start(dir.path())).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[test]
    fn files_over_the_size_limit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_CONFIG_BYTES + 1).unwrap();
        let err = load(Source::start(&path)).unwrap_err();
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(err.to_string().contains("at most 16777216 bytes"), "{err}");
    }

    #[test]
    fn server_ids_are_checked() {
        assert!(ServerId::new("ok_id-1").is_ok());
        assert!(ServerId::new("").is_err());
        assert!(ServerId::new("a.b").is_err());
        assert!(ServerId::new("ü").is_err());
        assert!(ServerId::new(&"x".repeat(41)).is_err());
    }

    #[test]
    fn the_effective_config_is_the_file_with_the_environment_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let env = |name: &str| (name == "SWITCHBOARD_MAX_SESSIONS").then(|| "7".to_string());
        let bad_env = |name: &str| (name == "SWITCHBOARD_MAX_SESSIONS").then(|| "x".to_string());

        // No file: at start-up no servers, overrides applied; on a reload refused.
        let config = load(Source::start(&path).overrides(&env)).unwrap();
        assert_eq!(config.servers, vec![]);
        assert_eq!(config.settings.max_sessions, 7);
        assert!(matches!(
            load(Source::reload(&path).overrides(&env)),
            Err(ConfigError::Missing { .. })
        ));

        std::fs::write(
            &path,
            r#"{"mcpServers": {"a": {"command": "x"}}, "settings": {"maxSessions": 3, "cacheMaxEntries": 9}}"#,
        )
        .unwrap();
        for source in [Source::start, Source::reload] {
            let config = load(source(&path).overrides(&env)).unwrap();
            assert_eq!(config.servers.len(), 1);
            assert_eq!(config.settings.max_sessions, 7, "the variable wins");
            assert_eq!(
                config.settings.cache_max_entries, 9,
                "the file over the default"
            );
            assert!(matches!(
                load(source(&path).overrides(&bad_env)),
                Err(ConfigError::Env { .. })
            ));
        }
        let OrEmpty { config, refused } =
            load(Source::start(&path).overrides(&env).or_empty()).unwrap();
        assert_eq!((config.servers.len(), refused), (1, None));

        // A refused file is reported before a bad variable; the app's variant
        // runs on with no servers and the overrides.
        std::fs::write(&path, r#"{"mcpServers": 5}"#).unwrap();
        assert!(matches!(
            load(Source::start(&path).overrides(&bad_env)),
            Err(ConfigError::Invalid { .. })
        ));
        let OrEmpty { config, refused } =
            load(Source::start(&path).overrides(&env).or_empty()).unwrap();
        assert!(matches!(refused, Some(ConfigError::Invalid { .. })));
        assert_eq!(config.servers, vec![]);
        assert_eq!(config.settings.max_sessions, 7);
        assert!(matches!(
            load(Source::start(&path).overrides(&bad_env).or_empty()),
            Err(ConfigError::Env { .. })
        ));
    }

    #[test]
    fn redacted_errors_hide_secret_variables_and_quoted_secrets() {
        let env = ConfigError::Env {
            name: "SWITCHBOARD_TOKEN".into(),
            value: "tok-123456".into(),
            message: "expected a whole number".into(),
        };
        assert_eq!(
            env.redacted(),
            ConfigError::Env {
                name: "SWITCHBOARD_TOKEN".into(),
                value: "***".into(),
                message: "expected a whole number".into(),
            }
        );
        let plain = ConfigError::Env {
            name: "SWITCHBOARD_MAX_SESSIONS".into(),
            value: "lots".into(),
            message: "expected a whole number".into(),
        };
        assert_eq!(plain.clone().redacted(), plain);
        let invalid = ConfigError::Invalid {
            path: "c.json".into(),
            line: 3,
            column: 9,
            message: "`url` \"https://me:pw-123456@h/mcp\" is not valid".into(),
        };
        let ConfigError::Invalid { message, line, .. } = invalid.redacted() else {
            panic!("kind changed");
        };
        assert_eq!(line, 3);
        assert!(!message.contains("pw-123456"), "{message}");
        assert!(message.contains("https://***@h/mcp"), "{message}");
    }
}
