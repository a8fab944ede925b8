//! The dashboard's "Connect a client" snippets, made from the client table so
//! the page covers every client `connect ID --print` does, with the same
//! text: `ui/src/clients.gen.ts` is generated from [`ui_snippets`] and
//! checked current by this module's test (`SWITCHBOARD_WRITE_TS=1 cargo
//! test -p switchboard --lib ui_snippets` rewrites it).
//!
//! Each snippet is [`snippet`](super::snippet) for [`ENDPOINT_PLACEHOLDER`]
//! (with `switchboard` as the bridge's command); the page puts its endpoint
//! in place of the placeholder. Where a client's snippet for the default
//! endpoint is not that substitution (the bridge leaves out `--url` then),
//! `atDefault` holds it.

use std::path::Path;

use serde::Serialize;

use super::catalog::UserFile;
use super::{Bases, Client, FileFormat, Os};

/// The endpoint the generated texts carry, replaced by the page's own.
pub const ENDPOINT_PLACEHOLDER: &str = "http://switchboard-endpoint.invalid/mcp";

/// The endpoint a hub listens on by default (`--url` is not needed then).
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:8420/mcp";

/// One client's snippet as the page gets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UiSnippet {
    /// The table id (`connect ID`).
    pub id: &'static str,
    pub name: &'static str,
    /// Where the text goes, as a sentence without its full stop.
    pub r#where: String,
    /// `json`, `toml` or `yaml`.
    pub language: &'static str,
    /// The snippet for [`ENDPOINT_PLACEHOLDER`].
    pub text: String,
    /// The snippet for the default endpoint, when it is not `text` with the
    /// placeholder replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_default: Option<String>,
}

/// Every client's snippet, in table order.
pub fn ui_snippets() -> Vec<UiSnippet> {
    let exe = Path::new("switchboard");
    Client::ALL
        .iter()
        .map(|&client| {
            let text = super::snippet(client, ENDPOINT_PLACEHOLDER, exe);
            let at_default = super::snippet(client, DEFAULT_ENDPOINT, exe);
            let at_default = (text.replace(ENDPOINT_PLACEHOLDER, DEFAULT_ENDPOINT) != at_default)
                .then_some(at_default);
            let format = client.format();
            UiSnippet {
                id: client.id(),
                name: client.display_name(),
                r#where: where_it_goes(client),
                language: if format == FileFormat::Codex {
                    "toml"
                } else if format.is_yaml() {
                    "yaml"
                } else {
                    "json"
                },
                text,
                at_default,
            }
        })
        .collect()
}

/// "Add this to <file on Linux> (macOS: ..., Windows: ...), or run
/// `switchboard connect <id>`"; for a client without a file, its reason.
fn where_it_goes(client: Client) -> String {
    if let UserFile::NoFile(why) = client.spec().user {
        return why.to_string();
    }
    let shown = |os: Os| {
        let mut bases = Bases::for_os(os, "~");
        if os == Os::Windows {
            bases.home = "%USERPROFILE%".into();
            bases.config_dir = "%APPDATA%".into();
            bases.local_data = "%LOCALAPPDATA%".into();
            bases.xdg_config = bases.home.join(".config");
        }
        let path = client
            .user_path(&bases)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        if os == Os::Windows {
            path.replace('/', "\\")
        } else {
            path
        }
    };
    let (linux, macos, windows) = (shown(Os::Linux), shown(Os::Macos), shown(Os::Windows));
    let mut others = Vec::new();
    if macos != linux {
        others.push(format!("macOS: {macos}"));
    }
    others.push(format!("Windows: {windows}"));
    format!(
        "Add this to {linux} ({}), or run `switchboard connect {}`",
        others.join(", "),
        client.id()
    )
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// `ui/src/clients.gen.ts`: the snippets as a TypeScript constant.
    fn typescript() -> String {
        let list = serde_json::to_string_pretty(&ui_snippets()).unwrap_or_else(|_| "[]".into());
        format!(
            "// Generated from the client table (crates/switchboard-clients/src/table.rs) by\n\
             // `SWITCHBOARD_WRITE_TS=1 cargo test -p switchboard --lib ui_snippets`; do not edit.\n\
             // Each text is `switchboard connect <id> --print` for ENDPOINT_PLACEHOLDER.\n\n\
             export const ENDPOINT_PLACEHOLDER = {placeholder};\n\
             export const DEFAULT_ENDPOINT = {default};\n\n\
             export interface ClientSnippet {{\n  id: string;\n  name: string;\n  where: string;\n  \
             language: 'json' | 'toml' | 'yaml';\n  text: string;\n  atDefault?: string;\n}}\n\n\
             export const CLIENT_SNIPPETS: readonly ClientSnippet[] = {list};\n",
            placeholder = serde_json::Value::from(ENDPOINT_PLACEHOLDER),
            default = serde_json::Value::from(DEFAULT_ENDPOINT),
        )
    }

    #[test]
    fn every_client_has_a_snippet_that_is_its_print() {
        let all = ui_snippets();
        assert_eq!(all.len(), Client::ALL.len());
        for (snippet, &client) in all.iter().zip(Client::ALL.iter()) {
            assert_eq!(snippet.id, client.id());
            let exe = Path::new("switchboard");
            for endpoint in [
                "http://127.0.0.1:9999/mcp",
                "http://localhost:1234/profiles/x/mcp",
            ] {
                assert_eq!(
                    snippet.text.replace(ENDPOINT_PLACEHOLDER, endpoint),
                    super::super::snippet(client, endpoint, exe),
                    "{}",
                    snippet.id
                );
            }
            let at_default = snippet
                .at_default
                .clone()
                .unwrap_or_else(|| snippet.text.replace(ENDPOINT_PLACEHOLDER, DEFAULT_ENDPOINT));
            assert_eq!(
                at_default,
                super::super::snippet(client, DEFAULT_ENDPOINT, exe)
            );
            assert!(!snippet.r#where.is_empty());
        }
        let cursor = all.iter().find(|s| s.id == "cursor").unwrap();
        assert_eq!(
            cursor.r#where,
            "Add this to ~/.cursor/mcp.json (Windows: %USERPROFILE%\\.cursor\\mcp.json), or run \
             `switchboard connect cursor`"
        );
        let desktop = all.iter().find(|s| s.id == "claude-desktop").unwrap();
        assert!(
            desktop
                .r#where
                .contains("macOS: ~/Library/Application Support/Claude/"),
            "{}",
            desktop.r#where
        );
        assert!(
            desktop.r#where.contains("Windows: %APPDATA%\\Claude\\"),
            "{}",
            desktop.r#where
        );
    }

    #[test]
    fn ui_snippets_are_current_in_the_dashboard() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/clients.gen.ts");
        let now = typescript();
        if std::env::var_os("SWITCHBOARD_WRITE_TS").is_some() {
            std::fs::write(&path, &now).unwrap();
        }
        let written = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            written == now,
            "{} is not current: run `SWITCHBOARD_WRITE_TS=1 cargo test -p switchboard --lib ui_snippets`",
            path.display()
        );
    }
}
