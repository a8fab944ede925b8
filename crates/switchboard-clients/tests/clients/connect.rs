//! `switchboard connect`: one entry added with everything else kept (comments and
//! formatting too), dry runs, stale entries, `--disable-imported`, snippets.

use super::*;
use pretty_assertions::assert_eq;

/// The `switchboard` entry each JSON client gets, and where.
fn expected_entry(client: Client) -> (&'static str, Value) {
    match client {
        Client::ClaudeDesktop => ("mcpServers", json!({"command": EXE, "args": ["stdio"]})),
        Client::ClaudeCode => ("mcpServers", json!({"type": "http", "url": ENDPOINT})),
        Client::Cursor => ("mcpServers", json!({"url": ENDPOINT})),
        Client::VsCode => ("servers", json!({"type": "http", "url": ENDPOINT})),
        Client::Windsurf => ("mcpServers", json!({"serverUrl": ENDPOINT})),
        Client::Gemini => ("mcpServers", json!({"httpUrl": ENDPOINT})),
        other => unreachable!("{other}"),
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
    for client in FIRST_SEVEN {
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
    for client in FIRST_SEVEN {
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
    for client in FIRST_SEVEN {
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
        json!({"mcpServers": {"switchboard": {"command": EXE, "args": ["stdio"], "env": {"RUST_LOG": "debug"}}}})
    );
}

#[test]
fn gemini_keeps_its_own_url_and_type_http_entry() {
    let m = Machine::new();
    let path = Client::Gemini.config_path(&m.bases);
    let own = format!(
        "{{\"mcpServers\": {{\"switchboard\": {{\"url\": \"{ENDPOINT}\", \"type\": \"http\"}}}}}}\n"
    );
    write(&path, &own);
    let report = m.connect(Client::Gemini, false, false);
    assert_eq!(
        (report.entry, report.changed),
        (EntryChange::Unchanged, false)
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), own);
    // The same form pointing elsewhere is corrected to the hub.
    write(
        &path,
        "{\"mcpServers\": {\"switchboard\": {\"url\": \"http://127.0.0.1:9/mcp\", \"type\": \"http\"}}}\n",
    );
    assert_eq!(
        m.connect(Client::Gemini, false, false).entry,
        EntryChange::Updated
    );
    assert_eq!(
        read_json(&path),
        json!({"mcpServers": {"switchboard": {"httpUrl": ENDPOINT}}})
    );
}

#[test]
fn claude_desktop_gets_url_only_for_a_hub_off_the_default_address() {
    let m = Machine::new();
    let path = Client::ClaudeDesktop.config_path(&m.bases);
    let other = "http://127.0.0.1:9999/mcp";
    connect(&ConnectRequest {
        client: Client::ClaudeDesktop,
        bases: m.bases.clone(),
        endpoint: other.into(),
        exe: EXE.into(),
        dry_run: false,
        disable_imported: false,
        config_path: m.config.clone(),
        profile: None,
    })
    .unwrap();
    assert_eq!(
        read_json(&path),
        json!({"mcpServers": {"switchboard": {"command": EXE, "args": ["stdio", "--url", other]}}})
    );
}

#[test]
fn a_dry_run_note_speaks_of_what_would_happen() {
    let m = imported_machine();
    let dry = m.connect(Client::Cursor, true, true);
    assert!(
        dry.notes
            .iter()
            .any(|n| n.contains("so these would be removed from it and saved beside it")),
        "{:?}",
        dry.notes
    );
    assert!(!dry.notes.iter().any(|n| n.contains("were removed")));
    let real = m.connect(Client::Cursor, false, true);
    assert!(
        real.notes
            .iter()
            .any(|n| n.contains("so these were removed"))
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
        profile: None,
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
    let got: Vec<(Client, String)> = FIRST_SEVEN
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
                        "      \"command\": \"{EXE}\",\n      \"args\": [\n        \"stdio\"\n      ]"
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

#[test]
fn a_profile_is_connected_with_its_token_as_a_header() {
    const PROFILE_URL: &str = "http://127.0.0.1:8420/profiles/work/mcp";
    const TOKEN: &str = "work-token-0123456789";
    let profile = clients::ProfileEntry {
        name: "work".into(),
        token: Some(TOKEN.into()),
    };
    let bearer = format!("Bearer {TOKEN}");
    for client in FIRST_SEVEN {
        let m = Machine::new();
        let path = m.install(client);
        let request = ConnectRequest {
            client,
            bases: m.bases.clone(),
            endpoint: PROFILE_URL.into(),
            exe: EXE.into(),
            dry_run: false,
            disable_imported: false,
            config_path: m.config.clone(),
            profile: Some(profile.clone()),
        };
        if client == Client::ClaudeDesktop {
            // The stdio bridge sends no headers: refused, the file untouched.
            let before = fs::read_to_string(&path).unwrap();
            let err = connect(&request).unwrap_err();
            assert!(matches!(err, ClientError::NoHeaders { .. }), "{err}");
            assert!(
                err.to_string()
                    .contains("cannot send profile 'work''s token"),
                "{err}"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), before);
            continue;
        }
        let report = connect(&request).unwrap();
        assert_eq!(report.entry, EntryChange::Added, "{client}");
        // The report never shows the token.
        assert!(
            !report.snippet.contains(TOKEN),
            "{client}: {}",
            report.snippet
        );
        assert!(!report.to_string().contains(TOKEN), "{client}");
        let text = fs::read_to_string(&path).unwrap();
        if client == Client::Codex {
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            let entry = &doc["mcp_servers"]["switchboard-work"];
            assert_eq!(entry["url"].as_str(), Some(PROFILE_URL));
            assert_eq!(
                entry["http_headers"]["Authorization"].as_str(),
                Some(bearer.as_str())
            );
        } else {
            let (container, _) = expected_entry(client);
            let root = parse_jsonc(&text);
            let entry = &root[container]["switchboard-work"];
            let url = ["url", "serverUrl", "httpUrl"]
                .iter()
                .find_map(|k| entry[*k].as_str());
            assert_eq!(url, Some(PROFILE_URL), "{client}: {entry}");
            assert_eq!(entry["headers"]["Authorization"], bearer, "{client}");
            // The hub's own entry, where there was one, is left alone.
            assert_ne!(root[container]["switchboard"]["url"], json!(PROFILE_URL));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(
                mode, 0o600,
                "{client}: a file holding a token is the owner's only"
            );
        }
        // Connecting again changes nothing.
        let again = connect(&request).unwrap();
        assert_eq!(
            (again.entry, again.changed),
            (EntryChange::Unchanged, false),
            "{client}"
        );
    }
}

#[test]
fn a_profile_without_a_token_needs_no_header() {
    let m = Machine::new();
    let path = m.install(Client::ClaudeCode);
    let report = connect(&ConnectRequest {
        client: Client::ClaudeCode,
        bases: m.bases.clone(),
        endpoint: "http://127.0.0.1:8420/profiles/open/mcp".into(),
        exe: EXE.into(),
        dry_run: false,
        disable_imported: false,
        config_path: m.config.clone(),
        profile: Some(clients::ProfileEntry {
            name: "open".into(),
            token: None,
        }),
    })
    .unwrap();
    assert_eq!(report.entry, EntryChange::Added);
    let root: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        root["mcpServers"]["switchboard-open"],
        json!({"type": "http", "url": "http://127.0.0.1:8420/profiles/open/mcp"})
    );
}
