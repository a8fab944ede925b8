//! The clients added after the first seven: each one's import and connect
//! against a fixture written from its documentation, one dialect at a time,
//! and every client's file locations on Linux, macOS and Windows.

use super::*;
use clients::servers_in;
use pretty_assertions::assert_eq;

/// A client, its fixture, and what importing it adds (id, Switchboard entry).
struct Case {
    id: &'static str,
    fixture: &'static str,
    added: Value,
    /// The hub's entry `connect` writes (Continue's list item has its name).
    entry: Value,
}

fn bridge() -> Value {
    json!({"command": EXE, "args": ["stdio"]})
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            id: "vscode-insiders",
            fixture: "vscode_insiders_mcp.json",
            added: json!({"github": {"url": "https://api.githubcopilot.com/mcp/"}}),
            entry: json!({"type": "http", "url": ENDPOINT}),
        },
        Case {
            id: "zed",
            fixture: "zed_settings.json",
            added: json!({
                "notes": {"command": "npx",
                          "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]},
                "git": {"command": "uvx", "args": ["mcp-server-git"],
                        "env": {"GIT_DIR": "/home/me/repo"}},
                "docs": {"url": "https://docs.example.com/mcp",
                         "headers": {"Authorization": "Bearer docs-token"}, "enabled": false},
            }),
            entry: json!({"source": "custom", "url": ENDPOINT}),
        },
        Case {
            id: "cline",
            fixture: "cline_mcp_settings.json",
            added: json!({
                "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp-cline"},
                           "timeouts": {"callSecs": 90}},
                "remote-docs": {"url": "https://docs.example.com/mcp",
                                "headers": {"X-Key": "docs-key"}, "enabled": false},
            }),
            entry: json!({"type": "streamableHttp", "url": ENDPOINT}),
        },
        Case {
            id: "roo-code",
            fixture: "roo_mcp_settings.json",
            added: json!({
                "sqlite": {"command": "uvx",
                           "args": ["mcp-server-sqlite", "--db-path", "/home/me/app.db"]},
                "search": {"url": "https://search.example.com/mcp",
                           "headers": {"Authorization": "Bearer roo-token"},
                           "disabledTools": ["delete_index"]},
                "events": {"type": "sse", "url": "https://events.example.com/sse",
                           "enabled": false},
                "project-db": {"command": "node", "args": ["./tools/db-mcp.js"],
                               "cwd": "/home/me/work/acme"},
            }),
            entry: json!({"type": "streamable-http", "url": ENDPOINT}),
        },
        Case {
            id: "kilo-code",
            fixture: "kilo_mcp_settings.json",
            added: json!({
                "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
                           "enabled": false},
                "context7": {"url": "https://mcp.context7.com/mcp", "timeouts": {"callSecs": 30}},
            }),
            entry: json!({"type": "streamable-http", "url": ENDPOINT}),
        },
        Case {
            id: "continue",
            fixture: "continue_config.yaml",
            added: json!({
                "SQLite": {"command": "npx", "args": ["-y", "mcp-sqlite", "/home/me/db.sqlite"]},
                "remote-search": {"url": "https://search.example.com/mcp",
                                  "headers": {"Authorization": "Bearer continue-token"}},
                "Browser": {"command": "npx", "args": ["@playwright/mcp@latest"]},
            }),
            entry: json!({"name": "switchboard", "type": "streamable-http", "url": ENDPOINT}),
        },
        Case {
            id: "goose",
            fixture: "goose_config.yaml",
            added: json!({
                "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp-goose"},
                           "description": "GitHub issues and pull requests",
                           "timeouts": {"callSecs": 300}},
                "search": {"url": "https://search.example.com/mcp", "enabled": false,
                           "timeouts": {"callSecs": 60}},
            }),
            entry: json!({"type": "streamable_http", "enabled": true, "timeout": 300,
                          "description": "Switchboard: your MCP servers behind one endpoint",
                          "uri": ENDPOINT, "name": "switchboard"}),
        },
        Case {
            id: "opencode",
            fixture: "opencode.json",
            added: json!({
                "jira": {"command": "npx", "args": ["-y", "mcp-jira"],
                         "env": {"JIRA_URL": "https://jira.example.com"}},
                "context7": {"url": "https://mcp.context7.com/mcp",
                             "headers": {"CONTEXT7_API_KEY": "c7-key"}, "enabled": false},
            }),
            entry: json!({"type": "remote", "enabled": true, "url": ENDPOINT}),
        },
        Case {
            id: "lm-studio",
            fixture: "lmstudio_mcp.json",
            added: json!({
                "hf-mcp-server": {"url": "https://huggingface.co/mcp",
                                  "headers": {"Authorization": "Bearer hf-token"}},
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
            }),
            entry: json!({"url": ENDPOINT}),
        },
        Case {
            id: "copilot-cli",
            fixture: "copilot_mcp-config.json",
            added: json!({
                "playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]},
                "context7": {"url": "https://mcp.context7.com/mcp",
                             "headers": {"CONTEXT7_API_KEY": "c7-key"}},
            }),
            entry: json!({"type": "http", "tools": ["*"], "url": ENDPOINT}),
        },
        Case {
            id: "qwen-code",
            fixture: "qwen_settings.json",
            added: json!({
                "git": {"command": "uvx", "args": ["mcp-server-git"],
                        "timeouts": {"callSecs": 30}},
                "remote": {"url": "https://tools.example.com/mcp",
                           "headers": {"X-Api-Key": "qwen-key"}},
            }),
            entry: json!({"httpUrl": ENDPOINT}),
        },
        Case {
            id: "crush",
            fixture: "crush.json",
            added: json!({
                "filesystem": {"command": "node", "args": ["/path/to/mcp-server.js"],
                               "env": {"NODE_ENV": "production"},
                               "disabledTools": ["some-tool-name"],
                               "timeouts": {"callSecs": 120}},
                "github": {"url": "https://api.githubcopilot.com/mcp/",
                           "headers": {"Authorization": "Bearer crush-token"},
                           "timeouts": {"callSecs": 120}},
                "streaming-service": {"type": "sse", "url": "https://example.com/mcp/sse",
                                      "enabled": false},
            }),
            entry: json!({"type": "http", "url": ENDPOINT}),
        },
        Case {
            id: "kiro",
            fixture: "kiro_mcp.json",
            added: json!({
                "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
                "aws-docs": {"url": "https://aws-docs.example.com/mcp",
                             "headers": {"X-Team": "infra"},
                             "disabledTools": ["search_documentation"]},
            }),
            entry: json!({"url": ENDPOINT}),
        },
        Case {
            id: "amp",
            fixture: "amp_settings.json",
            added: json!({
                "playwright": {"command": "npx",
                               "args": ["-y", "@playwright/mcp@latest", "--headless"]},
                "semgrep": {"url": "https://mcp.semgrep.ai/mcp"},
            }),
            entry: json!({"url": ENDPOINT}),
        },
        Case {
            id: "junie",
            fixture: "junie_mcp.json",
            added: json!({
                "filesystem": {"command": "npx",
                               "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                        "/home/me/projects"]},
            }),
            entry: bridge(),
        },
        Case {
            id: "augment",
            fixture: "augment_settings.json",
            added: json!({
                "context7": {"command": "npx", "args": ["-y", "@upstash/context7-mcp"]},
                "linear": {"url": "https://mcp.linear.app/mcp"},
            }),
            entry: json!({"type": "http", "url": ENDPOINT}),
        },
        Case {
            id: "trae",
            fixture: "trae_mcp.json",
            added: json!({
                "Puppeteer": {"command": "npx",
                              "args": ["-y", "@modelcontextprotocol/server-puppeteer"]},
            }),
            entry: json!({"url": ENDPOINT}),
        },
        Case {
            id: "jan",
            fixture: "jan_mcp_config.json",
            added: json!({
                "browsermcp": {"command": "npx", "args": ["@browsermcp/mcp"]},
                "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "enabled": false},
                "linear": {"url": "https://mcp.linear.app/mcp"},
            }),
            entry: json!({"type": "http", "url": ENDPOINT, "command": "", "args": [], "active": true}),
        },
    ]
}

fn client(id: &str) -> Client {
    id.parse().unwrap()
}

impl Machine {
    /// Writes the case's fixture at its client's user path (and, for Roo Code
    /// and Continue, a project file next to it).
    fn install_case(&self, case: &Case) -> PathBuf {
        let c = client(case.id);
        let path = c.user_path(&self.bases).unwrap();
        write(&path, &fixture(case.fixture));
        let project = self.bases.project_dir.clone().unwrap();
        match case.id {
            "roo-code" => write(
                &project.join(".roo/mcp.json"),
                &fixture("roo_project_mcp.json"),
            ),
            "continue" => write(
                &project.join(".continue/mcpServers/playwright.yaml"),
                &fixture("continue_block.yaml"),
            ),
            _ => {}
        }
        path
    }
}

#[test]
fn each_client_imports_its_documented_file() {
    for case in cases() {
        let m = Machine::new();
        m.install_case(&case);
        let plan = m.plan(ImportSource::Client(client(case.id)));
        let added: serde_json::Map<String, Value> = plan
            .added
            .iter()
            .map(|a| (a.id.clone(), a.entry.clone()))
            .collect();
        assert_eq!(Value::Object(added), case.added, "{}", case.id);
        // Refused entries carry a reason; the ones here are documented
        // non-servers (a Zed extension's settings, a Goose builtin).
        for invalid in &plan.invalid {
            assert!(
                matches!(case.id, "zed" | "goose") && !invalid.reason.is_empty(),
                "{}: {invalid:?}",
                case.id
            );
        }
        // Importing the same files again adds nothing.
        apply_import(&m.config, &plan).unwrap();
        let again = m.plan(ImportSource::Client(client(case.id)));
        assert!(again.added.is_empty(), "{}: {:?}", case.id, again.added);
    }
}

#[test]
fn quirks_without_an_equivalent_are_named() {
    let m = Machine::new();
    let cline = cases().into_iter().find(|c| c.id == "cline").unwrap();
    m.install_case(&cline);
    let plan = m.plan(ImportSource::Client(client("cline")));
    let github = plan.added.iter().find(|a| a.id == "github").unwrap();
    assert_eq!(github.warnings.len(), 1, "{:?}", github.warnings);
    assert!(github.warnings[0].contains("alwaysAllow"));
    assert!(github.warnings[0].contains("get_issue"));

    let m = Machine::new();
    let copilot = cases().into_iter().find(|c| c.id == "copilot-cli").unwrap();
    m.install_case(&copilot);
    let plan = m.plan(ImportSource::Client(client("copilot-cli")));
    let c7 = plan.added.iter().find(|a| a.id == "context7").unwrap();
    assert!(
        c7.warnings[0].contains("resolve-library-id"),
        "{:?}",
        c7.warnings
    );
}

#[test]
fn connect_adds_the_entry_and_keeps_the_other_servers() {
    for case in cases() {
        let m = Machine::new();
        let c = client(case.id);
        let path = m.install_case(&case);
        let format = c.format();
        let before = servers_in(&path, format).unwrap();
        let original = fs::read_to_string(&path).unwrap();

        let report = m.connect(c, false, false);
        assert_eq!(
            (report.entry, report.changed),
            (EntryChange::Added, true),
            "{}",
            case.id
        );
        assert_eq!(
            fs::read_to_string(report.backup.as_ref().unwrap()).unwrap(),
            original,
            "{}",
            case.id
        );
        let mut expected = before.clone();
        expected.push(("switchboard".into(), case.entry.clone()));
        assert_eq!(servers_in(&path, format).unwrap(), expected, "{}", case.id);
        let after = fs::read_to_string(&path).unwrap();
        if !format.is_yaml() {
            // A splice: the old text is the new one less the inserted member.
            let first_diff = original
                .bytes()
                .zip(after.bytes())
                .position(|(a, b)| a != b)
                .unwrap();
            let tail = original.len() - first_diff;
            assert!(after.ends_with(&original[first_diff..]), "{}", case.id);
            assert!(after.len() > tail, "{}", case.id);
        } else {
            // Everything before the servers block is kept byte for byte.
            let block = format!("\n{}:", format_key(case.id));
            let head = &original[..original.find(&block).unwrap()];
            assert!(after.starts_with(head), "{}", case.id);
        }

        // Idempotent.
        let again = m.connect(c, false, false);
        assert_eq!(
            (again.entry, again.changed),
            (EntryChange::Unchanged, false),
            "{}",
            case.id
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), after, "{}", case.id);
    }
}

/// The key and value that switch a server off, per dialect (as documented).
fn off_switch(id: &str) -> Option<(&'static str, Value)> {
    match id {
        "cline" | "roo-code" | "kilo-code" | "kiro" | "crush" => Some(("disabled", json!(true))),
        "zed" | "opencode" | "goose" => Some(("enabled", json!(false))),
        "jan" => Some(("active", json!(false))),
        _ => None,
    }
}

fn format_key(id: &str) -> &'static str {
    match id {
        "goose" => "extensions",
        _ => "mcpServers",
    }
}

#[test]
fn connect_creates_each_missing_file_from_its_snippet() {
    for case in cases() {
        let m = Machine::new();
        let c = client(case.id);
        m.connect(c, false, false);
        let path = c.user_path(&m.bases).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text, snippet(c, ENDPOINT, Path::new(EXE)), "{}", case.id);
        assert_eq!(
            servers_in(&path, c.format()).unwrap(),
            vec![("switchboard".to_string(), case.entry.clone())],
            "{}",
            case.id
        );
    }
}

#[test]
fn disable_imported_uses_each_dialects_off_switch() {
    for case in cases() {
        let m = Machine::new();
        let c = client(case.id);
        let path = m.install_case(&case);
        apply_import(&m.config, &m.plan(ImportSource::Client(c))).unwrap();
        let report = m.connect(c, false, true);
        let servers = servers_in(&path, c.format()).unwrap();
        if let Some((key, value)) = off_switch(case.id) {
            // Every server Switchboard now serves is switched off in place.
            for (name, entry) in &servers {
                if case.added.get(name).is_some() {
                    assert_eq!(entry.get(key), Some(&value), "{}: {name}", case.id);
                }
            }
            // Those of the user file that were on (project files are not touched).
            let were_on = servers
                .iter()
                .filter_map(|(name, _)| case.added.get(name))
                .filter(|e| e.get("enabled") != Some(&json!(false)))
                .count();
            assert_eq!(report.disabled.len(), were_on, "{}", case.id);
        } else if case.id == "qwen-code" {
            // Gemini CLI's dialect: the names go in `mcp.excluded`.
            assert_eq!(report.disable_method, Some(DisableMethod::ExcludedList));
            let text = fs::read_to_string(&path).unwrap();
            let root: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(root["mcp"]["excluded"], json!(["git", "remote"]), "{text}");
            continue;
        } else if case.id == "continue" {
            assert!(report.disabled.is_empty());
            assert!(report.notes.iter().any(|n| n.contains("SQLite")));
            continue;
        } else {
            // No off switch: moved out, saved beside the file.
            assert_eq!(report.disable_method, Some(DisableMethod::MovedOut));
            assert!(report.moved_to.is_some(), "{}", case.id);
            assert_eq!(servers.len(), 1, "{}: {servers:?}", case.id);
            continue;
        }
        assert!(!report.disabled.is_empty(), "{}", case.id);
        assert!(report.moved_to.is_none(), "{}", case.id);
    }
}

#[test]
fn clients_without_a_file_print_only() {
    for id in ["warp", "cherry-studio"] {
        let m = Machine::new();
        let c = client(id);
        assert_eq!(c.user_path(&m.bases), None);
        let err = connect(&ConnectRequest {
            client: c,
            bases: m.bases.clone(),
            endpoint: ENDPOINT.into(),
            exe: EXE.into(),
            dry_run: false,
            disable_imported: false,
            config_path: m.config.clone(),
            profile: None,
        })
        .unwrap_err();
        assert!(matches!(err, ClientError::NoFile { .. }), "{err}");
        assert!(err.to_string().contains("--print"), "{err}");
        let printed: Value = serde_json::from_str(&snippet(c, ENDPOINT, Path::new(EXE))).unwrap();
        let entry = if id == "warp" {
            json!({"url": ENDPOINT})
        } else {
            bridge()
        };
        assert_eq!(printed, json!({"mcpServers": {"switchboard": entry}}));
        assert_eq!(m.snapshot(), vec![]);
    }
}

#[test]
fn project_files_are_read_for_cursor_and_claude_code() {
    let m = Machine::new();
    let project = m.bases.project_dir.clone().unwrap();
    write(
        &project.join(".cursor/mcp.json"),
        &fixture("cursor_project_mcp.json"),
    );
    write(&project.join(".mcp.json"), &fixture("project.mcp.json"));
    let cursor = m.plan(ImportSource::Client(Client::Cursor));
    assert_eq!(
        cursor
            .added
            .iter()
            .map(|a| a.id.as_str())
            .collect::<Vec<_>>(),
        vec!["acme-jira"]
    );
    let claude = m.plan(ImportSource::Client(Client::ClaudeCode));
    assert!(
        claude
            .added
            .iter()
            .all(|a| a.from.file == project.join(".mcp.json")),
        "{:?}",
        claude.added
    );
    assert!(!claude.added.is_empty());
}

#[test]
fn a_yaml_file_given_by_path_is_read_in_its_detected_dialect() {
    let m = Machine::new();
    let path = m.dir.path().join("exported/config.yaml");
    write(&path, &fixture("goose_config.yaml"));
    let plan = m.plan(ImportSource::File { path, client: None });
    let ids: Vec<&str> = plan.added.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, vec!["github", "search"]);
}
