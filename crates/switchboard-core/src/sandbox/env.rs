//! Which inherited environment variables a sandboxed server does not get:
//! those whose names look secret, unless the server's own `env` names them.
//!
//! Pure: the caller passes the hub's variable names and the server's `env`.

use std::collections::BTreeMap;

/// Name parts that mark a variable as secret (compared in upper case).
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "SESSION_KEY",
];

/// Name beginnings that mark a variable as secret.
const SECRET_PREFIXES: &[&str] = &["AWS_", "AZURE_", "GOOGLE_APPLICATION_CREDENTIALS"];

/// Whole names that point at credentials.
const SECRET_NAMES: &[&str] = &[
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "KUBECONFIG",
    "PGPASSFILE",
];

/// Names that contain a secret-looking part but carry none.
const NOT_SECRET: &[&str] = &["XAUTHORITY"];

/// Whether a variable called `name` looks like it holds a secret.
pub(crate) fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if NOT_SECRET.contains(&upper.as_str()) {
        return false;
    }
    SECRET_NAMES.contains(&upper.as_str())
        || SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
        || SECRET_PARTS.iter().any(|p| upper.contains(p))
        || upper.ends_with("_KEY")
        || upper.ends_with("_PAT")
}

/// The inherited variables to drop: secret-looking names among `inherited`
/// that `own` (the server's `env`) does not set, sorted.
pub(crate) fn dropped<'a, V>(
    inherited: impl IntoIterator<Item = &'a str>,
    own: &BTreeMap<String, V>,
) -> Vec<String> {
    let mut out: Vec<String> = inherited
        .into_iter()
        .filter(|name| looks_secret(name) && !own.contains_key(*name))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_looking_names() {
        for name in [
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "DB_PASSWORD",
            "client_secret",
            "SSH_AUTH_SOCK",
            "STRIPE_KEY",
            "GITLAB_PAT",
            "SWITCHBOARD_TOKEN",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "TERM",
            "XAUTHORITY",
            "KEYBOARD",
            "NODE_ENV",
            "GIT_AUTHOR_NAME",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
    }

    #[test]
    fn a_name_the_server_sets_itself_is_kept() {
        let own: BTreeMap<String, String> = [("GITHUB_TOKEN".to_string(), "x".to_string())].into();
        let out = dropped(["GITHUB_TOKEN", "AWS_PROFILE", "PATH", "AWS_PROFILE"], &own);
        assert_eq!(out, vec!["AWS_PROFILE".to_string()]);
    }
}
