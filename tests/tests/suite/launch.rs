//! Starting a stdio server the way a desktop launch needs (issue 20): a hub
//! started with a minimal environment (`env -i PATH=/usr/bin:/bin`, as from
//! a Dock or a launcher) finds a command that only the user's login shell
//! puts on PATH, and gives the server that PATH; a command found nowhere is
//! refused with a message naming it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::json;
use switchboard_e2e::{Hub, TestHub, bin};

/// A temp HOME whose login profile puts `tools` on PATH, with a copy of the
/// fixture there under `name`. The profile also prints junk, as real ones do.
fn login_home(home: &Path, name: &str) -> std::path::PathBuf {
    let tools = home.join("my tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(bin("switchboard-fixture"), tools.join(name)).unwrap();
    std::fs::write(
        home.join(".bash_profile"),
        format!(
            "echo 'Welcome back!'\nexport PATH=\"{}:$PATH\"\necho \"$PATH\"\n",
            tools.display()
        ),
    )
    .unwrap();
    tools
}

fn bash() -> String {
    ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("bash is installed")
        .to_string()
}

#[tokio::test]
async fn a_command_only_the_login_shell_has_starts_and_gets_that_path() {
    let home = tempfile::tempdir().unwrap();
    let tools = login_home(home.path(), "sb-login-only-fixture");
    let config = json!({"mcpServers": {
        "login": {"command": "sb-login-only-fixture", "args": ["--tools", "hello"]},
        "own-path": {
            "command": "sb-login-only-fixture",
            "args": ["--tools", "hello"],
            "env": {"PATH": "/usr/bin:/bin"}
        }
    }});
    let home_str = home.path().to_str().unwrap();
    let shell = bash();
    let hub = Hub::start_with_only_env(
        config,
        &[
            ("PATH", "/usr/bin:/bin"),
            ("HOME", home_str),
            ("SHELL", &shell),
        ],
    )
    .await
    .unwrap();
    // Servers start on first use: a client's list starts both.
    let client = hub.client().await;
    let mut names = client.tool_names().await;
    names.sort();
    assert_eq!(names, ["login__hello", "own-path__hello"]);
    let server = hub
        .wait_for("login", "the server listed its tools", |s| {
            s.tool_count == 1
        })
        .await;
    let pid = server.pid.expect("a running process");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let path = environ
        .split(|b| *b == 0)
        .find_map(|var| var.strip_prefix(b"PATH="))
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .expect("the server has a PATH");
    assert!(
        path.starts_with(&tools.display().to_string()) && path.contains("/usr/bin"),
        "the server got the login shell's PATH, not {path}"
    );
    // A server whose env sets PATH keeps it (and is started all the same).
    let own = hub
        .wait_for("own-path", "the server listed its tools", |s| {
            s.tool_count == 1
        })
        .await;
    let environ = std::fs::read(format!("/proc/{}/environ", own.pid.unwrap())).unwrap();
    assert!(
        environ
            .split(|b| *b == 0)
            .any(|var| var == b"PATH=/usr/bin:/bin"),
        "the server's own PATH was kept"
    );
    let log = hub.log();
    assert_eq!(
        log.matches("the login shell's PATH, used for commands")
            .count(),
        1,
        "the login shell is asked once and its answer logged once:\n{log}"
    );
}

#[tokio::test]
async fn a_command_found_nowhere_is_named_in_the_error() {
    let home = tempfile::tempdir().unwrap();
    login_home(home.path(), "sb-some-other-tool");
    let config = json!({"mcpServers": {
        "missing": {"command": "sb-no-such-command-anywhere", "args": []}
    }});
    let shell = bash();
    let hub = Hub::start_with_only_env(
        config,
        &[
            ("PATH", "/usr/bin:/bin"),
            ("HOME", home.path().to_str().unwrap()),
            ("SHELL", &shell),
        ],
    )
    .await
    .unwrap();
    let client = hub.client().await;
    assert!(client.tool_names().await.is_empty());
    let server = hub
        .wait_for("missing", "the start failed", |s| s.last_error.is_some())
        .await;
    let error = server.last_error.unwrap();
    assert!(
        error.contains(
            "the command `sb-no-such-command-anywhere` was not found on PATH nor on the \
             login shell's PATH"
        ),
        "{error}"
    );
}
