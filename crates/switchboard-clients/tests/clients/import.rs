//! `switchboard import`: every client's entries converted, plans applied, twice is
//! a no-op, unreadable files reported.

use super::*;
use pretty_assertions::assert_eq;

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
                "shared-api",
                &json!({"url": "${API_BASE:-https://api.example.com}/mcp",
                "headers": {"X-Team": "blue"}})
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
                "env": {"PERPLEXITY_API_KEY": "$${input:perplexity-key}"}})
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
    let every: usize = Client::ALL
        .iter()
        .map(|c| c.import_files(&m.bases).len())
        .sum();
    assert_eq!(files.len(), every);
    assert!(files.contains(&(Some(Client::ClaudeCode), "$T/project/.mcp.json".into())));
}

#[test]
fn import_twice_adds_nothing() {
    let m = Machine::with_config();
    m.install_all();
    let original = fs::read_to_string(&m.config).unwrap();

    let plan = m.plan(ImportSource::AllClients);
    let outcome = apply_import(&m.config, &plan).unwrap();
    assert_eq!(outcome.added.len(), 24);
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
    switchboard_core::config::load(
        switchboard_core::config::Source::text(&text, &m.config).shape_only(),
    )
    .unwrap();
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
