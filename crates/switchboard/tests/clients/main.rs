//! Import from and connect to AI clients' config files, against fixture files
//! written from each client's documented format (with awkward cases: comments,
//! unknown keys, malformed entries, name collisions, placeholders, headers).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use switchboard::clients;

use std::fs;
use std::path::{Path, PathBuf};

use clients::{
    Bases, Client, ClientError, ConnectRequest, DisableMethod, EntryChange, ImportPlan,
    ImportRequest, ImportSource, SkipReason, apply_import, connect, import, snippet,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const ENDPOINT: &str = "http://127.0.0.1:8420/mcp";
const EXE: &str = "/opt/switchboard/bin/switchboard";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients")
        .join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixture_for(client: Client) -> &'static str {
    match client {
        Client::ClaudeDesktop => "claude_desktop_config.json",
        Client::ClaudeCode => "claude.json",
        Client::Cursor => "cursor_mcp.json",
        Client::VsCode => "vscode_mcp.json",
        Client::Windsurf => "windsurf_mcp_config.json",
        Client::Codex => "codex_config.toml",
        Client::Gemini => "gemini_settings.json",
    }
}

/// A fake machine: a home, a config dir, a project and Switchboard's config.
struct Machine {
    dir: tempfile::TempDir,
    bases: Bases,
    config: PathBuf,
}

impl Machine {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let mut bases = Bases::new(&home, home.join(".config"));
        bases.project_dir = Some(dir.path().join("project"));
        let config = dir.path().join("switchboard").join("config.json");
        Self { dir, bases, config }
    }

    /// With Switchboard's config from the `switchboard.json` fixture.
    fn with_config() -> Self {
        let m = Self::new();
        write(&m.config, &fixture("switchboard.json"));
        m
    }

    fn install(&self, client: Client) -> PathBuf {
        let path = client.config_path(&self.bases);
        write(&path, &fixture(fixture_for(client)));
        path
    }

    fn install_all(&self) {
        for client in Client::ALL {
            self.install(client);
        }
        let project = self.bases.project_dir.as_ref().unwrap();
        write(&project.join(".mcp.json"), &fixture("project.mcp.json"));
    }

    fn plan(&self, source: ImportSource) -> ImportPlan {
        import(&ImportRequest {
            source,
            bases: self.bases.clone(),
            config_path: self.config.clone(),
            endpoint: Some(ENDPOINT.into()),
        })
        .unwrap()
    }

    fn connect(
        &self,
        client: Client,
        dry_run: bool,
        disable_imported: bool,
    ) -> clients::ConnectReport {
        connect(&ConnectRequest {
            client,
            bases: self.bases.clone(),
            endpoint: ENDPOINT.into(),
            exe: EXE.into(),
            dry_run,
            disable_imported,
            config_path: self.config.clone(),
        })
        .unwrap()
    }

    /// Replaces the temp dir in `text` with `$T`, so paths can be asserted.
    fn anon(&self, text: &str) -> String {
        text.replace(&self.dir.path().display().to_string(), "$T")
    }

    /// Every file under the temp dir, with its content.
    fn snapshot(&self) -> Vec<(String, String)> {
        fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push((
                        path.display().to_string(),
                        fs::read_to_string(&path).unwrap(),
                    ));
                }
            }
        }
        let mut out = Vec::new();
        walk(self.dir.path(), &mut out);
        out.sort();
        out
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Files beside `path` whose names start with `path`'s name and `infix`.
fn siblings(path: &Path, infix: &str) -> Vec<PathBuf> {
    let prefix = format!("{}{infix}", path.file_name().unwrap().to_string_lossy());
    let mut found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&prefix)
        })
        .collect();
    found.sort();
    found
}

// ---------------------------------------------------------------------------
// import

#[test]
fn import_from_all_clients_converts_every_entry() {
    let m = Machine::with_config();
    m.install_all();
    let plan = m.plan(ImportSource::AllClients);

    let added: Vec<(&str, &Value)> = plan
        .added
        .iter()
        .map(|a| (a.id.as_str(), &a.entry))
        .collect();
    assert_eq!(
        added,
        vec![
            (
                "github",
                &json!({"command": "docker",
                "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN",
                         "ghcr.io/github/github-mcp-server"],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}})
            ),
            (
                "weather-server",
                &json!({"command": "uv",
                "args": ["--directory", "/srv/weather", "run", "weather.py"]})
            ),
            ("sentry", &json!({"url": "https://mcp.sentry.dev/mcp"})),
            (
                "asana",
                &json!({"type": "sse", "url": "https://mcp.asana.com/sse"})
            ),
            (
                "linear",
                &json!({"url": "https://mcp.linear.app/mcp",
                "headers": {"Authorization": "Bearer ${LINEAR_TOKEN}"}})
            ),
            (
                "filesystem-2",
                &json!({"command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/app"]})
            ),
            (
                "db",
                &json!({"command": "npx",
                "args": ["-y", "@bytebase/dbhub", "--dsn", "postgres://localhost/app"],
                "enabled": false})
            ),
            (
                "playwright",
                &json!({"command": "npx", "args": ["@playwright/mcp@latest"]})
            ),
            (
                "context7",
                &json!({"url": "https://mcp.context7.com/mcp",
                "headers": {"CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}"}})
            ),
            (
                "notes",
                &json!({"command": "node", "args": ["/opt/notes/server.js"],
                "env": {"NOTES_DIR": "/home/me/notes", "DEBUG": "1"}})
            ),
            (
                "perplexity",
                &json!({"command": "npx", "args": ["-y", "server-perplexity-ask"],
                "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}})
            ),
            (
                "fetch",
                &json!({"command": "uvx", "args": ["mcp-server-fetch"]})
            ),
            (
                "github-2",
                &json!({"url": "https://api.githubcopilot.com/mcp/"})
            ),
            (
                "remote-sse",
                &json!({"type": "sse", "url": "http://localhost:3001/sse",
                "headers": {"X-Api-Key": "abc"}})
            ),
            (
                "figma",
                &json!({"url": "https://mcp.figma.com/mcp",
                "headers": {"Authorization": "Bearer ${env:FIGMA_TOKEN}"}})
            ),
            (
                "puppeteer",
                &json!({"command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-puppeteer"], "enabled": false})
            ),
            (
                "docs",
                &json!({"command": "npx", "args": ["-y", "mcp-docs"],
                "env": {"DOCS_ROOT": "/home/me/docs"},
                "timeouts": {"startupSecs": 20, "callSecs": 120}})
            ),
            (
                "figma-2",
                &json!({"url": "https://mcp.figma.com/mcp",
                "headers": {"X-Figma-Region": "us-east-1"}})
            ),
            ("my-server", &json!({"command": "my-server"})),
            (
                "pythonTools",
                &json!({"command": "python", "args": ["-m", "my_mcp_server"],
                "env": {"DATABASE_URL": "$DB_CONNECTION_STRING"}, "cwd": "./mcp-servers/python",
                "timeouts": {"callSecs": 15}})
            ),
            (
                "githubCopilot",
                &json!({"url": "https://api.githubcopilot.com/mcp/",
                "headers": {"Authorization": "Bearer token"}, "disabledTools": ["delete_repo"]})
            ),
            (
                "events",
                &json!({"type": "sse", "url": "http://localhost:8080/sse"})
            ),
            ("slow", &json!({"command": "slow-server", "enabled": false})),
        ]
    );

    let renamed: Vec<(&str, &str, &str)> = plan
        .renamed()
        .map(|a| {
            (
                a.id.as_str(),
                a.from.name.as_str(),
                a.renamed.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        renamed,
        vec![
            (
                "weather-server",
                "weather server",
                "\"weather server\" is not a valid id (letters, digits, '_' and '-', at most 40)"
            ),
            (
                "filesystem-2",
                "filesystem",
                "id \"filesystem\" is taken by a different server"
            ),
            (
                "github-2",
                "github",
                "id \"github\" is taken by a different server"
            ),
            (
                "figma-2",
                "figma",
                "id \"figma\" is taken by a different server"
            ),
            (
                "my-server",
                "my.server",
                "\"my.server\" is not a valid id (letters, digits, '_' and '-', at most 40)"
            ),
        ]
    );

    let skipped: Vec<(Option<Client>, &str, &SkipReason)> = plan
        .skipped
        .iter()
        .map(|s| (s.from.client, s.from.name.as_str(), &s.reason))
        .collect();
    let dup = |of: &str, in_config: bool| SkipReason::Duplicate {
        of: of.into(),
        in_config,
    };
    assert_eq!(
        skipped,
        vec![
            (
                Some(Client::ClaudeDesktop),
                "filesystem",
                &dup("filesystem", true)
            ),
            (Some(Client::ClaudeCode), "github", &dup("github", false)),
            (Some(Client::Cursor), "filesystem", &dup("filesystem", true)),
            (
                Some(Client::Cursor),
                "switchboard",
                &SkipReason::Switchboard
            ),
            (Some(Client::Windsurf), "fetch", &dup("fetch", false)),
            (Some(Client::Codex), "sentry", &dup("sentry", false)),
        ]
    );

    let invalid: Vec<(&str, &str)> = plan
        .invalid
        .iter()
        .map(|i| (i.from.name.as_str(), i.reason.as_str()))
        .collect();
    assert_eq!(
        invalid,
        vec![
            (
                "broken",
                "needs `command` (a local server) or `url` (a remote one)"
            ),
            (
                "shared-api",
                "`url` \"${API_BASE:-https://api.example.com}/mcp\" is not a valid \
                            URL: relative URL without a base"
            ),
            ("bad-args", "`args` is a string instead of a list"),
            ("ws", "unsupported transport `type` \"websocket\""),
            (
                "nothing",
                "needs `command` (a local server) or `url` (a remote one)"
            ),
            ("empty", "needs `command`, `httpUrl` or `url`"),
        ]
    );

    let warnings = |id: &str| -> Vec<String> {
        plan.added
            .iter()
            .find(|a| a.id == id)
            .unwrap()
            .warnings
            .clone()
    };
    assert_eq!(
        warnings("perplexity"),
        vec![
            "contains ${input:perplexity-key} which the client expands but Switchboard passes \
              on as written: replace with the real value"
        ]
    );
    assert_eq!(
        warnings("figma-2"),
        vec![
            "the bearer token came from $FIGMA_OAUTH_TOKEN in Codex; Switchboard cannot read \
              it from the environment: add an `Authorization` header by hand, or leave it out \
              to sign in with OAuth"
        ]
    );
    assert_eq!(
        warnings("my-server"),
        vec![
            "ignored `enabled_tools`: Switchboard has no tool allow-list; hide tools with \
              `disabledTools` instead"
        ]
    );
    assert_eq!(
        warnings("pythonTools"),
        vec![
            "contains $DB_CONNECTION_STRING which the client expands but Switchboard passes on \
             as written: replace with the real value",
            "ignored `trust`: no Switchboard equivalent",
        ]
    );
    assert!(warnings("github").is_empty());

    // Every file was looked at, the project's .mcp.json included.
    let files: Vec<(Option<Client>, String)> = plan
        .files
        .iter()
        .map(|f| (f.client, m.anon(&f.path.display().to_string())))
        .collect();
    assert_eq!(files.len(), 8);
    assert!(files.contains(&(Some(Client::ClaudeCode), "$T/project/.mcp.json".into())));
}

#[test]
fn import_twice_adds_nothing() {
    let m = Machine::with_config();
    m.install_all();
    let original = fs::read_to_string(&m.config).unwrap();

    let plan = m.plan(ImportSource::AllClients);
    let outcome = apply_import(&m.config, &plan).unwrap();
    assert_eq!(outcome.added.len(), 23);
    let backup = outcome.backup.clone().unwrap();
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);
    assert!(
        backup
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("config.json.bak-"),
        "{}",
        backup.display()
    );

    // Everything else in the file is kept, and the hub accepts the result.
    let merged = read_json(&m.config);
    assert_eq!(merged["settings"], json!({"cacheTtlSecs": 120}));
    let ids: Vec<&String> = merged["mcpServers"].as_object().unwrap().keys().collect();
    let mut expected = vec!["filesystem".to_string(), "weather".to_string()];
    expected.extend(plan.added.iter().map(|a| a.id.clone()));
    assert_eq!(ids, expected.iter().collect::<Vec<_>>());
    let text = fs::read_to_string(&m.config).unwrap();
    switchboard_core::Config::parse(&text, &m.config).unwrap();
    assert!(text.starts_with(&original[..original.find("\n    \"weather\"").unwrap()]));

    // Second run: every server is already there.
    let again = m.plan(ImportSource::AllClients);
    assert_eq!(again.added, vec![]);
    assert_eq!(again.skipped.len(), plan.skipped.len() + plan.added.len());
    assert!(again.skipped.iter().all(|s| matches!(
        s.reason,
        SkipReason::Duplicate {
            in_config: true,
            ..
        } | SkipReason::Switchboard
    )));
    let outcome = apply_import(&m.config, &again).unwrap();
    assert_eq!((outcome.added.len(), outcome.backup), (0, None));
    assert_eq!(fs::read_to_string(&m.config).unwrap(), text);
    // Applying the first plan again is harmless too.
    assert_eq!(
        apply_import(&m.config, &plan).unwrap().added,
        Vec::<String>::new()
    );
    assert_eq!(siblings(&m.config, ".bak-").len(), 1);
}

#[test]
fn apply_creates_a_missing_config() {
    let m = Machine::new();
    m.install(Client::Windsurf);
    let plan = m.plan(ImportSource::Client(Client::Windsurf));
    let outcome = apply_import(&m.config, &plan).unwrap();
    assert_eq!(outcome.backup, None);
    assert_eq!(outcome.added, vec!["figma", "fetch", "puppeteer"]);
    assert_eq!(
        fs::read_to_string(&m.config).unwrap(),
        r#"{
  "mcpServers": {
    "figma": {
      "url": "https://mcp.figma.com/mcp",
      "headers": {
        "Authorization": "Bearer ${env:FIGMA_TOKEN}"
      }
    },
    "fetch": {
      "command": "uvx",
      "args": [
        "mcp-server-fetch"
      ],
      "disabledTools": [
        "fetch_raw"
      ]
    },
    "puppeteer": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-puppeteer"
      ],
      "enabled": false
    }
  }
}
"#
    );
}

#[test]
fn apply_refuses_when_the_config_changed_since_planning() {
    let m = Machine::with_config();
    m.install(Client::Cursor);
    let plan = m.plan(ImportSource::Client(Client::Cursor));
    let mut changed = read_json(&m.config);
    changed["mcpServers"]["notes"] = json!({"command": "other"});
    write(&m.config, &serde_json::to_string_pretty(&changed).unwrap());
    let before = m.snapshot();
    let err = apply_import(&m.config, &plan).unwrap_err();
    assert!(
        matches!(err, ClientError::Conflict { ref id, .. } if id == "notes"),
        "{err}"
    );
    assert_eq!(m.snapshot(), before);
}

#[test]
fn import_codex_plan_as_json() {
    let m = Machine::new();
    m.install(Client::Codex);
    let plan = m.plan(ImportSource::Client(Client::Codex));
    let value: Value =
        serde_json::from_str(&m.anon(&serde_json::to_string(&plan).unwrap())).unwrap();
    let file = "$T/home/.codex/config.toml";
    let from = |name: &str| json!({"client": "codex", "file": file, "scope": null, "name": name});
    assert_eq!(
        value,
        json!({
            "configPath": "$T/switchboard/config.json",
            "files": [{"client": "codex", "path": file, "format": "codex",
                       "status": "read", "servers": 5}],
            "added": [
                {"id": "docs", "from": from("docs"), "renamed": null, "warnings": [],
                 "entry": {"command": "npx", "args": ["-y", "mcp-docs"],
                           "env": {"DOCS_ROOT": "/home/me/docs"},
                           "timeouts": {"startupSecs": 20, "callSecs": 120}}},
                {"id": "figma", "from": from("figma"), "renamed": null,
                 "warnings": ["the bearer token came from $FIGMA_OAUTH_TOKEN in Codex; \
                    Switchboard cannot read it from the environment: add an `Authorization` \
                    header by hand, or leave it out to sign in with OAuth"],
                 "entry": {"url": "https://mcp.figma.com/mcp",
                           "headers": {"X-Figma-Region": "us-east-1"}}},
                {"id": "sentry", "from": from("sentry"), "renamed": null, "warnings": [],
                 "entry": {"url": "https://mcp.sentry.dev/mcp", "enabled": false}},
                {"id": "my-server", "from": from("my.server"),
                 "renamed": "\"my.server\" is not a valid id (letters, digits, '_' and '-', at most 40)",
                 "warnings": ["ignored `enabled_tools`: Switchboard has no tool allow-list; \
                    hide tools with `disabledTools` instead"],
                 "entry": {"command": "my-server"}},
            ],
            "skipped": [],
            "invalid": [{"from": from("nothing"),
                         "reason": "needs `command` (a local server) or `url` (a remote one)"}],
        })
    );
    let text = m.anon(&plan.to_string());
    assert!(text.contains("  + my-server            from Codex $T/home/.codex/config.toml\n      renamed from \"my.server\""), "{text}");
    assert!(
        text.contains("Cannot import 1 server:\n  ! nothing"),
        "{text}"
    );
}

#[test]
fn import_from_a_path_detects_the_format() {
    let m = Machine::new();
    let cases = [
        ("vscode_mcp.json", "servers.json", 4),
        ("windsurf_mcp_config.json", "windsurf.json", 3),
        ("gemini_settings.json", "gemini.json", 4),
        ("codex_config.toml", "codex.toml", 4),
        ("claude.json", "claude-backup.json", 6),
    ];
    for (fixture_name, file, added) in cases {
        let path = m.dir.path().join(file);
        write(&path, &fixture(fixture_name));
        let plan = m.plan(ImportSource::File { path, client: None });
        assert_eq!(plan.added.len(), added, "{fixture_name}: {plan}");
        assert_eq!(plan.files[0].client, None);
    }

    // Given the client, its format is used.
    let path = m.dir.path().join("servers.json");
    let plan = m.plan(ImportSource::File {
        path: path.clone(),
        client: Some(Client::VsCode),
    });
    assert_eq!(plan.files[0].client, Some(Client::VsCode));

    // Not recognisable, missing, or malformed: an error.
    let odd = m.dir.path().join("odd.json");
    write(&odd, "{\"tools\": {}}");
    let req = |path: PathBuf| ImportRequest {
        source: ImportSource::File { path, client: None },
        bases: m.bases.clone(),
        config_path: m.config.clone(),
        endpoint: None,
    };
    assert!(matches!(
        import(&req(odd)),
        Err(ClientError::UnknownFormat { .. })
    ));
    assert!(matches!(
        import(&req(m.dir.path().join("nope.json"))),
        Err(ClientError::NotFound { .. })
    ));
    let bad = m.dir.path().join(".mcp.json");
    write(
        &bad,
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}",
    );
    let err = import(&req(bad)).unwrap_err();
    assert_eq!(
        m.anon(&err.to_string()),
        "$T/.mcp.json:4:5: expected ',' or '}'"
    );
}

#[test]
fn unreadable_client_files_are_reported_not_fatal() {
    let m = Machine::new();
    write(&Client::Cursor.config_path(&m.bases), "{ not json");
    write(
        &Client::Gemini.config_path(&m.bases),
        "{\"mcpServers\": [1]}",
    );
    let plan = m.plan(ImportSource::AllClients);
    let statuses: Vec<(Client, String)> = plan
        .files
        .iter()
        .filter(|f| !matches!(f.status, clients::FileStatus::Missing))
        .map(|f| (f.client.unwrap(), m.anon(&format!("{:?}", f.status))))
        .collect();
    assert_eq!(
        statuses,
        vec![
            (Client::Cursor, "Unreadable { reason: \"$T/home/.cursor/mcp.json:1:3: expected a quoted key or '}'\" }".into()),
            (Client::Gemini, "Unreadable { reason: \"$T/home/.gemini/settings.json: `mcpServers` is not an object\" }".into()),
        ]
    );
    assert!(plan.has_problems());
}

// ---------------------------------------------------------------------------
// connect

/// The `switchboard` entry each JSON client gets, and where.
fn expected_entry(client: Client) -> (&'static str, Value) {
    match client {
        Client::ClaudeDesktop => (
            "mcpServers",
            json!({"command": EXE, "args": ["stdio", "--url", ENDPOINT]}),
        ),
        Client::ClaudeCode => ("mcpServers", json!({"type": "http", "url": ENDPOINT})),
        Client::Cursor => ("mcpServers", json!({"url": ENDPOINT})),
        Client::VsCode => ("servers", json!({"type": "http", "url": ENDPOINT})),
        Client::Windsurf => ("mcpServers", json!({"serverUrl": ENDPOINT})),
        Client::Gemini => ("mcpServers", json!({"httpUrl": ENDPOINT})),
        Client::Codex => unreachable!(),
    }
}

/// The fixtures' JSON, with VS Code's comments and trailing commas taken out.
fn parse_jsonc(text: &str) -> Value {
    let plain: String = text
        .lines()
        .filter(|l| !(l.trim_start().starts_with("//") || l.trim_start().starts_with("/*")))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("},\n  },\n}", "}\n  }\n}");
    serde_json::from_str(&plain).unwrap_or_else(|e| panic!("{e}:\n{plain}"))
}

#[test]
fn connect_adds_one_entry_and_keeps_everything_else() {
    for client in Client::ALL {
        let m = Machine::new();
        let path = m.install(client);
        if client == Client::Cursor {
            // Its fixture is already connected; start from the file without the entry.
            let connected = fixture(fixture_for(client));
            let entry =
                format!(",\n    \"switchboard\": {{\n      \"url\": \"{ENDPOINT}\"\n    }}");
            write(&path, &connected.replace(&entry, ""));
        }
        let original = fs::read_to_string(&path).unwrap();

        let report = m.connect(client, false, false);
        assert_eq!(
            (report.entry, report.changed),
            (EntryChange::Added, true),
            "{client}"
        );
        let backup = report.backup.clone().unwrap();
        assert_eq!(fs::read_to_string(&backup).unwrap(), original, "{client}");
        assert_eq!(siblings(&path, ".bak-"), vec![backup], "{client}");
        let after = fs::read_to_string(&path).unwrap();

        if client == Client::Codex {
            // Placed after the other servers' tables, before `[profiles.fast]`.
            assert_eq!(
                after,
                original.replace(
                    "[profiles.fast]",
                    &format!("[mcp_servers.switchboard]\nurl = \"{ENDPOINT}\"\n\n[profiles.fast]")
                )
            );
        } else if client == Client::Cursor {
            assert_eq!(after, fixture(fixture_for(client)));
        } else {
            // Exactly one new member; every other value (and key order) as before.
            let (container, entry) = expected_entry(client);
            let mut expected = parse_jsonc(&original);
            expected[container]
                .as_object_mut()
                .unwrap()
                .insert("switchboard".into(), entry);
            let got = parse_jsonc(&after);
            assert_eq!(got, expected, "{client}");
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&expected).unwrap(),
                "{client}: key order"
            );
        }

        // Idempotent: the second run changes nothing and makes no backup.
        let again = m.connect(client, false, false);
        assert_eq!(
            (again.entry, again.changed, again.backup),
            (EntryChange::Unchanged, false, None),
            "{client}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), after, "{client}");
        assert_eq!(siblings(&path, ".bak-").len(), 1, "{client}");
    }
}

#[test]
fn connect_keeps_comments_and_formatting_of_jsonc() {
    let m = Machine::new();
    let path = m.install(Client::VsCode);
    m.connect(Client::VsCode, false, false);
    let original = fixture("vscode_mcp.json");
    let insert_at = original.find("\n  },\n}").unwrap() + 1;
    let expected = format!(
        "{}    \"switchboard\": {{\n      \"type\": \"http\",\n      \"url\": \"{ENDPOINT}\"\n    }},\n{}",
        &original[..insert_at],
        &original[insert_at..]
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);
}

#[test]
fn connect_writes_exact_text_into_a_plain_json_file() {
    let m = Machine::new();
    let path = m.install(Client::Windsurf);
    m.connect(Client::Windsurf, false, false);
    let original = fixture("windsurf_mcp_config.json");
    let expected = original.replace(
        "      \"disabled\": true\n    }\n  }\n}",
        &format!(
            "      \"disabled\": true\n    }},\n    \"switchboard\": {{\n      \"serverUrl\": \"{ENDPOINT}\"\n    }}\n  }}\n}}"
        ),
    );
    assert_ne!(expected, original);
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);
}

#[test]
fn connect_creates_a_missing_file() {
    for client in Client::ALL {
        let m = Machine::new();
        let report = m.connect(client, false, false);
        assert_eq!(
            (report.entry, report.backup.clone()),
            (EntryChange::Added, None)
        );
        let text = fs::read_to_string(client.config_path(&m.bases)).unwrap();
        assert_eq!(text, snippet(client, ENDPOINT, Path::new(EXE)), "{client}");
    }
}

#[test]
fn dry_run_writes_nothing() {
    for client in Client::ALL {
        let m = Machine::with_config();
        m.install_all();
        apply_import(&m.config, &m.plan(ImportSource::AllClients)).unwrap();
        let before = m.snapshot();
        let report = m.connect(client, true, true);
        assert!(report.changed && report.dry_run, "{client}");
        assert!(!report.disabled.is_empty(), "{client}");
        assert_eq!((report.backup, report.moved_to), (None, None), "{client}");
        assert_eq!(m.snapshot(), before, "{client}");
    }
    // Nor does it create a missing file.
    let m = Machine::new();
    let report = m.connect(Client::Cursor, true, false);
    assert!(report.changed);
    assert_eq!(m.snapshot(), vec![]);
}

#[test]
fn connect_fixes_a_stale_entry_and_keeps_its_other_keys() {
    let m = Machine::new();
    let path = Client::Gemini.config_path(&m.bases);
    write(
        &path,
        "{\n  \"mcpServers\": {\n    \"switchboard\": {\"httpUrl\": \"http://127.0.0.1:9000/mcp\", \"trust\": true}\n  },\n  \"mcp\": {\"allowed\": [\"a\"]}\n}\n",
    );
    let report = m.connect(Client::Gemini, false, false);
    assert_eq!(report.entry, EntryChange::Updated);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!(
            "{{\n  \"mcpServers\": {{\n    \"switchboard\": {{\n      \"trust\": true,\n      \"httpUrl\": \"{ENDPOINT}\"\n    }}\n  }},\n  \"mcp\": {{\"allowed\": [\"a\",\"switchboard\"]}}\n}}\n"
        )
    );
    assert_eq!(m.connect(Client::Gemini, false, false).changed, false);

    // Claude Desktop's bridge follows the executable.
    let path = Client::ClaudeDesktop.config_path(&m.bases);
    write(
        &path,
        "{\"mcpServers\": {\"switchboard\": {\"command\": \"/old/switchboard\", \"args\": [\"stdio\"], \"env\": {\"RUST_LOG\": \"debug\"}}}}",
    );
    assert_eq!(
        m.connect(Client::ClaudeDesktop, false, false).entry,
        EntryChange::Updated
    );
    assert_eq!(
        read_json(&path),
        json!({"mcpServers": {"switchboard": {"command": EXE, "args": ["stdio", "--url", ENDPOINT], "env": {"RUST_LOG": "debug"}}}})
    );
}

#[test]
fn connect_refuses_a_malformed_file_and_leaves_it() {
    let m = Machine::new();
    let path = Client::Cursor.config_path(&m.bases);
    write(&path, "{\"mcpServers\": {\"a\": }}");
    let err = connect(&ConnectRequest {
        client: Client::Cursor,
        bases: m.bases.clone(),
        endpoint: ENDPOINT.into(),
        exe: EXE.into(),
        dry_run: false,
        disable_imported: false,
        config_path: m.config.clone(),
    })
    .unwrap_err();
    assert_eq!(
        m.anon(&err.to_string()),
        "$T/home/.cursor/mcp.json:1:22: expected a JSON value"
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"mcpServers\": {\"a\": }}"
    );
    assert_eq!(siblings(&path, ".bak-"), Vec::<PathBuf>::new());
}

// ---------------------------------------------------------------------------
// connect --disable-imported

/// A machine whose Switchboard config already has everything importable.
fn imported_machine() -> Machine {
    let m = Machine::with_config();
    m.install_all();
    apply_import(&m.config, &m.plan(ImportSource::AllClients)).unwrap();
    m
}

#[test]
fn disable_imported_moves_entries_out_of_clients_without_an_off_switch() {
    let m = imported_machine();
    let path = Client::Cursor.config_path(&m.bases);
    let report = m.connect(Client::Cursor, false, true);
    let disabled: Vec<(&str, &str)> = report
        .disabled
        .iter()
        .map(|d| (d.name.as_str(), d.same_as.as_str()))
        .collect();
    assert_eq!(
        disabled,
        vec![
            ("context7", "context7"),
            ("filesystem", "filesystem"),
            ("notes", "notes")
        ]
    );
    assert_eq!(report.disable_method, Some(DisableMethod::MovedOut));
    assert_eq!(report.entry, EntryChange::Unchanged);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\n  \"mcpServers\": {\n    \"bad-args\": {\n      \"command\": \"python\",\n      \"args\": \"server.py\"\n    },\n    \"switchboard\": {\n      \"url\": \"http://127.0.0.1:8420/mcp\"\n    }\n  }\n}\n"
    );
    let moved = report.moved_to.clone().unwrap();
    assert!(
        moved
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("mcp.json.switchboard-removed-")
    );
    let original: Value = serde_json::from_str(&fixture("cursor_mcp.json")).unwrap();
    let servers = &original["mcpServers"];
    assert_eq!(
        read_json(&moved),
        json!({"mcpServers": {"context7": servers["context7"], "filesystem": servers["filesystem"],
                              "notes": servers["notes"]}})
    );
    assert_eq!(
        fs::read_to_string(report.backup.clone().unwrap()).unwrap(),
        fixture("cursor_mcp.json")
    );
    assert!(report.to_string().contains("removed"), "{report}");

    let again = m.connect(Client::Cursor, false, true);
    assert_eq!(
        (again.changed, again.disabled.len(), again.moved_to),
        (false, 0, None)
    );
}

#[test]
fn disable_imported_in_claude_code_covers_user_and_local_scopes() {
    let m = imported_machine();
    let path = Client::ClaudeCode.config_path(&m.bases);
    let report = m.connect(Client::ClaudeCode, false, true);
    let disabled: Vec<(&str, Option<&str>)> = report
        .disabled
        .iter()
        .map(|d| (d.name.as_str(), d.scope.as_deref()))
        .collect();
    assert_eq!(
        disabled,
        vec![
            ("github", Some("user")),
            ("sentry", Some("user")),
            ("asana", Some("user")),
            ("linear", Some("user")),
            ("filesystem", Some("local: /home/me/app")),
            ("db", Some("local: /home/me/app")),
        ]
    );
    let after = read_json(&path);
    assert_eq!(
        after["mcpServers"],
        json!({"switchboard": {"type": "http", "url": ENDPOINT}})
    );
    assert_eq!(after["projects"]["/home/me/app"]["mcpServers"], json!({}));
    assert_eq!(
        after["projects"]["/home/me/app"]["disabledMcpServers"],
        json!(["db"])
    );
    assert_eq!(
        after["oauthAccount"],
        json!({"emailAddress": "me@example.com"})
    );
    let moved = read_json(report.moved_to.as_ref().unwrap());
    assert_eq!(
        moved["projects"]["/home/me/app"]["mcpServers"]["db"]["command"],
        json!("npx")
    );
    assert_eq!(moved["mcpServers"].as_object().unwrap().len(), 4);
    // The project's shared .mcp.json is left alone.
    let project = m.bases.project_dir.as_ref().unwrap().join(".mcp.json");
    assert_eq!(
        fs::read_to_string(project).unwrap(),
        fixture("project.mcp.json")
    );
}

#[test]
fn disable_imported_sets_codex_enabled_false_and_keeps_comments() {
    let m = imported_machine();
    let path = Client::Codex.config_path(&m.bases);
    let report = m.connect(Client::Codex, false, true);
    let disabled: Vec<&str> = report.disabled.iter().map(|d| d.name.as_str()).collect();
    // `sentry` is already off in Codex.
    assert_eq!(disabled, vec!["docs", "figma", "my.server"]);
    assert_eq!(report.disable_method, Some(DisableMethod::EnabledFalse));
    assert_eq!(report.moved_to, None);
    let expected = fixture("codex_config.toml")
        .replace(
            "tool_timeout_sec = 120\n",
            "tool_timeout_sec = 120\nenabled = false\n",
        )
        .replace(
            "http_headers = { \"X-Figma-Region\" = \"us-east-1\" }\n",
            "http_headers = { \"X-Figma-Region\" = \"us-east-1\" }\nenabled = false\n",
        )
        .replace(
            "enabled_tools = [\"search\"]\n",
            "enabled_tools = [\"search\"]\nenabled = false\n",
        )
        .replace(
            "[profiles.fast]",
            &format!("[mcp_servers.switchboard]\nurl = \"{ENDPOINT}\"\n\n[profiles.fast]"),
        );
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);
    assert!(!m.connect(Client::Codex, false, true).changed);
}

#[test]
fn disable_imported_uses_geminis_excluded_list() {
    let m = imported_machine();
    let path = Client::Gemini.config_path(&m.bases);
    let report = m.connect(Client::Gemini, false, true);
    let disabled: Vec<&str> = report.disabled.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(disabled, vec!["pythonTools", "githubCopilot", "events"]);
    assert_eq!(report.disable_method, Some(DisableMethod::ExcludedList));
    let after = read_json(&path);
    assert_eq!(
        after["mcp"],
        json!({"excluded": ["slow", "pythonTools", "githubCopilot", "events"]})
    );
    // Entries stay in place, so re-enabling is one edit.
    assert_eq!(after["mcpServers"].as_object().unwrap().len(), 6);
    assert!(!m.connect(Client::Gemini, false, true).changed);
}

// ---------------------------------------------------------------------------
// snippets

#[test]
fn snippets_for_every_client() {
    let exe = Path::new(EXE);
    let got: Vec<(Client, String)> = Client::ALL
        .iter()
        .map(|c| (*c, snippet(*c, ENDPOINT, exe)))
        .collect();
    let json_snippet = |container: &str, entry: &str| {
        format!("{{\n  \"{container}\": {{\n    \"switchboard\": {{\n{entry}\n    }}\n  }}\n}}\n")
    };
    let url = format!("      \"url\": \"{ENDPOINT}\"");
    assert_eq!(
        got,
        vec![
            (
                Client::ClaudeDesktop,
                json_snippet(
                    "mcpServers",
                    &format!(
                        "      \"command\": \"{EXE}\",\n      \"args\": [\n        \"stdio\",\n        \"--url\",\n        \"{ENDPOINT}\"\n      ]"
                    )
                )
            ),
            (
                Client::ClaudeCode,
                json_snippet("mcpServers", &format!("      \"type\": \"http\",\n{url}"))
            ),
            (Client::Cursor, json_snippet("mcpServers", &url)),
            (
                Client::VsCode,
                json_snippet("servers", &format!("      \"type\": \"http\",\n{url}"))
            ),
            (
                Client::Windsurf,
                json_snippet(
                    "mcpServers",
                    &format!("      \"serverUrl\": \"{ENDPOINT}\"")
                )
            ),
            (
                Client::Codex,
                format!("[mcp_servers.switchboard]\nurl = \"{ENDPOINT}\"\n")
            ),
            (
                Client::Gemini,
                json_snippet("mcpServers", &format!("      \"httpUrl\": \"{ENDPOINT}\""))
            ),
        ]
    );
}
