//! Every client's user file on Linux, macOS and Windows, as the client table
//! computes it from each OS's default directories.

use super::*;
use clients::Os;
use pretty_assertions::assert_eq;

fn client(id: &str) -> Client {
    id.parse().unwrap()
}

/// Where each client's user file is, per OS, under a home of `/h`.
#[test]
fn every_clients_path_on_each_os() {
    let expected: &[(&str, [&str; 3])] = &[
        (
            "claude-desktop",
            [
                ".config/Claude/claude_desktop_config.json",
                "Library/Application Support/Claude/claude_desktop_config.json",
                "AppData/Roaming/Claude/claude_desktop_config.json",
            ],
        ),
        (
            "claude-code",
            [".claude.json", ".claude.json", ".claude.json"],
        ),
        (
            "cursor",
            [".cursor/mcp.json", ".cursor/mcp.json", ".cursor/mcp.json"],
        ),
        (
            "vscode",
            [
                ".config/Code/User/mcp.json",
                "Library/Application Support/Code/User/mcp.json",
                "AppData/Roaming/Code/User/mcp.json",
            ],
        ),
        (
            "windsurf",
            [
                ".codeium/windsurf/mcp_config.json",
                ".codeium/windsurf/mcp_config.json",
                ".codeium/windsurf/mcp_config.json",
            ],
        ),
        (
            "codex",
            [
                ".codex/config.toml",
                ".codex/config.toml",
                ".codex/config.toml",
            ],
        ),
        (
            "gemini",
            [
                ".gemini/settings.json",
                ".gemini/settings.json",
                ".gemini/settings.json",
            ],
        ),
        (
            "vscode-insiders",
            [
                ".config/Code - Insiders/User/mcp.json",
                "Library/Application Support/Code - Insiders/User/mcp.json",
                "AppData/Roaming/Code - Insiders/User/mcp.json",
            ],
        ),
        (
            "zed",
            [
                ".config/zed/settings.json",
                ".config/zed/settings.json",
                "AppData/Roaming/Zed/settings.json",
            ],
        ),
        (
            "cline",
            [
                ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
                "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
                "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            ],
        ),
        (
            "roo-code",
            [
                ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
                "Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
                "AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            ],
        ),
        (
            "kilo-code",
            [
                ".config/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
                "Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
                "AppData/Roaming/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
            ],
        ),
        (
            "continue",
            [
                ".continue/config.yaml",
                ".continue/config.yaml",
                ".continue/config.yaml",
            ],
        ),
        (
            "goose",
            [
                ".config/goose/config.yaml",
                ".config/goose/config.yaml",
                "AppData/Roaming/Block/goose/config/config.yaml",
            ],
        ),
        (
            "opencode",
            [
                ".config/opencode/opencode.json",
                ".config/opencode/opencode.json",
                ".config/opencode/opencode.json",
            ],
        ),
        (
            "lm-studio",
            [
                ".lmstudio/mcp.json",
                ".lmstudio/mcp.json",
                ".lmstudio/mcp.json",
            ],
        ),
        (
            "copilot-cli",
            [
                ".copilot/mcp-config.json",
                ".copilot/mcp-config.json",
                ".copilot/mcp-config.json",
            ],
        ),
        (
            "qwen-code",
            [
                ".qwen/settings.json",
                ".qwen/settings.json",
                ".qwen/settings.json",
            ],
        ),
        (
            "crush",
            [
                ".config/crush/crush.json",
                ".config/crush/crush.json",
                "AppData/Local/crush/crush.json",
            ],
        ),
        (
            "kiro",
            [
                ".kiro/settings/mcp.json",
                ".kiro/settings/mcp.json",
                ".kiro/settings/mcp.json",
            ],
        ),
        (
            "amp",
            [
                ".config/amp/settings.json",
                ".config/amp/settings.json",
                ".config/amp/settings.json",
            ],
        ),
        (
            "junie",
            [
                ".junie/mcp/mcp.json",
                ".junie/mcp/mcp.json",
                ".junie/mcp/mcp.json",
            ],
        ),
        (
            "augment",
            [
                ".augment/settings.json",
                ".augment/settings.json",
                ".augment/settings.json",
            ],
        ),
        (
            "trae",
            [
                ".config/Trae/User/mcp.json",
                "Library/Application Support/Trae/User/mcp.json",
                "AppData/Roaming/Trae/User/mcp.json",
            ],
        ),
        (
            "jan",
            [
                ".config/Jan/data/mcp_config.json",
                "Library/Application Support/Jan/data/mcp_config.json",
                "AppData/Roaming/Jan/data/mcp_config.json",
            ],
        ),
    ];
    let no_file = ["warp", "cherry-studio"];
    assert_eq!(expected.len() + no_file.len(), Client::ALL.len());
    for (id, paths) in expected {
        for (os, rel) in Os::ALL.into_iter().zip(paths) {
            let bases = Bases::for_os(os, "/h");
            let want = rel.split('/').fold(PathBuf::from("/h"), |p, s| p.join(s));
            assert_eq!(client(id).user_path(&bases), Some(want), "{id} on {os:?}");
        }
    }
    for id in no_file {
        for os in Os::ALL {
            assert_eq!(client(id).user_path(&Bases::for_os(os, "/h")), None);
        }
    }
}
