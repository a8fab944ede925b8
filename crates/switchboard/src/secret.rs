//! `switchboard secret set|delete`: values such as API keys kept in the OS
//! keyring instead of the config file (no hub needed; a running hub reads
//! secrets each time it starts a server).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use switchboard_core::config::{self, Source, process_env};

use crate::{print, switchboard_config};

#[derive(Subcommand)]
pub(crate) enum SecretAction {
    /// Store a secret; the value is read from stdin (typed without echo on a terminal).
    Set {
        name: String,
        #[arg(long, env = "SWITCHBOARD_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Delete a secret from the keyring.
    Delete {
        name: String,
        #[arg(long, env = "SWITCHBOARD_CONFIG")]
        config: Option<PathBuf>,
    },
}

/// `secret set` / `secret delete`: straight to the OS keyring (no hub needed;
/// a running hub reads secrets each time it starts a server).
pub(crate) async fn secret(action: SecretAction) -> anyhow::Result<std::process::ExitCode> {
    use switchboard_core::auth::{check_secret_name, store};
    let (name, config) = match &action {
        SecretAction::Set { name, config } | SecretAction::Delete { name, config } => {
            (name.clone(), config.clone())
        }
    };
    check_secret_name(&name).map_err(anyhow::Error::msg)?;
    let path = switchboard_config(config);
    // A refused file is no reason to refuse: only the settings are needed.
    let config = config::load(Source::start(&path).overrides(&process_env).or_empty())?.config;
    let settings = config.settings;
    let opened = store::open_async(settings.token_store).await;
    if !opened.kind().persists() {
        anyhow::bail!(
            "{}; secrets need an OS keyring (the Secret Service or keyutils on Linux, the Keychain on macOS, the Credential Manager on Windows)",
            opened
                .note
                .as_deref()
                .unwrap_or("no OS keyring is available")
        );
    }
    let account = store::secret_account(&name);
    match action {
        SecretAction::Set { .. } => {
            let value = read_secret_value(&name)?;
            store::call(&opened.store, move |s| s.set(&account, &value)).await?;
            print(&format!(
                "secret '{name}' stored in the {} keyring; use it as {{\"keyring\": \"{name}\"}}",
                opened.kind()
            ))?;
        }
        SecretAction::Delete { .. } => {
            store::call(&opened.store, move |s| s.delete(&account)).await?;
            print(&format!("secret '{name}' deleted"))?;
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// A value `switchboard add` asks for on a terminal: typed without echo
/// when `secret`.
pub(crate) fn prompt_value(name: &str, secret: bool) -> anyhow::Result<String> {
    if secret {
        return read_secret_value(name);
    }
    let _ = write!(std::io::stderr(), "Value for {name}: ");
    let _ = std::io::stderr().flush();
    let mut value = String::new();
    std::io::stdin()
        .read_line(&mut value)
        .context("reading the value")?;
    let value = value.trim_end_matches(['\n', '\r']).to_string();
    anyhow::ensure!(!value.is_empty(), "no value given for {name}");
    Ok(value)
}

/// The secret's value from stdin: typed without echo on a terminal, else
/// everything piped in (one trailing newline removed).
fn read_secret_value(name: &str) -> anyhow::Result<String> {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    let mut value = String::new();
    if stdin.is_terminal() {
        let _ = write!(std::io::stderr(), "Value for secret '{name}' (not shown): ");
        let _ = std::io::stderr().flush();
        #[cfg(unix)]
        {
            use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
            let saved = tcgetattr(&stdin).context("reading the terminal settings")?;
            let mut quiet = saved.clone();
            quiet.local_flags.remove(LocalFlags::ECHO);
            tcsetattr(&stdin, SetArg::TCSANOW, &quiet).context("turning echo off")?;
            let read = stdin.read_line(&mut value);
            let _ = tcsetattr(&stdin, SetArg::TCSANOW, &saved);
            let _ = writeln!(std::io::stderr());
            read.context("reading the secret")?;
        }
        #[cfg(not(unix))]
        stdin.read_line(&mut value).context("reading the secret")?;
    } else {
        stdin
            .lock()
            .read_to_string(&mut value)
            .context("reading the secret from stdin")?;
    }
    let value = value
        .strip_suffix('\n')
        .map(|v| v.strip_suffix('\r').unwrap_or(v))
        .unwrap_or(&value)
        .to_string();
    anyhow::ensure!(!value.is_empty(), "the secret is empty; nothing stored");
    Ok(value)
}
