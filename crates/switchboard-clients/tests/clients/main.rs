//! Import from and connect to AI clients' config files, against fixture files
//! written from each client's documented format (with awkward cases: comments,
//! unknown keys, malformed entries, name collisions, placeholders, headers).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use switchboard_clients as clients;

use std::fs;
use std::path::{Path, PathBuf};

use clients::{
    Bases, Client, ClientError, ConnectRequest, DisableMethod, EntryChange, ImportPlan,
    ImportRequest, ImportSource, SkipReason, apply_import, connect, import, snippet,
};
use serde_json::{Value, json};

const ENDPOINT: &str = "http://127.0.0.1:8420/mcp";
const EXE: &str = "/opt/switchboard/bin/switchboard";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients")
        .join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The clients these tests were first written for; the others are in `more.rs`.
const FIRST_SEVEN: [Client; 7] = [
    Client::ClaudeDesktop,
    Client::ClaudeCode,
    Client::Cursor,
    Client::VsCode,
    Client::Windsurf,
    Client::Codex,
    Client::Gemini,
];

fn fixture_for(client: Client) -> &'static str {
    match client {
        Client::ClaudeDesktop => "claude_desktop_config.json",
        Client::ClaudeCode => "claude.json",
        Client::Cursor => "cursor_mcp.json",
        Client::VsCode => "vscode_mcp.json",
        Client::Windsurf => "windsurf_mcp_config.json",
        Client::Codex => "codex_config.toml",
        Client::Gemini => "gemini_settings.json",
        other => panic!("{other} has its fixture in `more.rs`"),
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
        for client in FIRST_SEVEN {
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
            profile: None,
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

mod connect;
mod import;
mod more;
mod paths;
