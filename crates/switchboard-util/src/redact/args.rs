//! Secrets in a command line (a stdio server's `args`): the value after a
//! secret-named flag (`--api-key VALUE`, `--token=VALUE`, `-k VALUE`) and an
//! argument that looks like a generated credential on its own (`ghp_...`,
//! `sk-...`, `xoxb-...`, a long high-entropy string).
//!
//! Pure functions. The config registers what [`arg_secrets`] finds as known
//! values (so [`super::text`] masks them in stderr lines, logs, errors and
//! snapshots), and the config view masks those arguments.

/// Flag names whose value is a secret, lower case, without the leading
/// dashes, `_` read as `-`: `--api-key`, `--API_KEY` and `--apikey` alike.
pub const SECRET_FLAGS: &[&str] = &[
    "api-key",
    "apikey",
    "api-token",
    "token",
    "access-token",
    "auth-token",
    "bearer-token",
    "password",
    "passwd",
    "secret",
    "client-secret",
    "k",
];

/// Endings that make a long flag a secret flag too (`--github-token`,
/// `--openai-api-key`, `--db-password`), after a `-`.
const SECRET_FLAG_SUFFIXES: &[&str] = &["-token", "-key", "-secret", "-password"];

/// Prefixes of well-known generated credentials (GitHub, GitLab, OpenAI and
/// Anthropic, Stripe, Slack, Hugging Face, npm, PyPI, AWS, Google, JWTs).
const TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "xox",
    "xapp-",
    "hf_",
    "npm_",
    "pypi-",
    "AKIA",
    "ASIA",
    "AIza",
    "eyJ",
];

/// Characters a credential has after its prefix (at least this many).
const MIN_AFTER_PREFIX: usize = 8;
/// A string without a known prefix must be at least this long, mix upper
/// case, lower case and digits, and look random ([`looks_random`]).
const MIN_TOKEN_LEN: usize = 20;
/// Shannon entropy of its characters, in bits per character: random base62
/// of 20+ characters has over 4; words and version strings stay below 3.5.
const MIN_BITS_PER_CHAR: f64 = 3.5;

/// The flag `arg` names when it is a secret flag: `(flag, inline value)`,
/// the value present for `--flag=value`.
fn secret_flag(arg: &str) -> Option<Option<&str>> {
    let (name, value) = match arg.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (arg, None),
    };
    let bare = if let Some(long) = name.strip_prefix("--") {
        long
    } else {
        // A single dash: only the short `-k`.
        let short = name.strip_prefix('-')?;
        if short.len() != 1 {
            return None;
        }
        short
    };
    let normal = bare.to_ascii_lowercase().replace('_', "-");
    let secret = SECRET_FLAGS.contains(&normal.as_str())
        || (name.starts_with("--") && SECRET_FLAG_SUFFIXES.iter().any(|s| normal.ends_with(s)));
    secret.then_some(value)
}

/// Whether an argument on its own looks like a generated credential: a
/// well-known prefix followed by 8 or more characters, or 20 or more
/// characters of letters (both cases), digits, `_`, `-`, `+` and trailing
/// `=` that look random. Never a flag, a path or a word.
pub fn looks_like_token_arg(arg: &str) -> bool {
    let v = arg.trim();
    if v.starts_with('-') || v.contains(|c: char| c.is_whitespace() || c == '/' || c == '\\') {
        return false;
    }
    if TOKEN_PREFIXES.iter().any(|p| {
        v.strip_prefix(p)
            .is_some_and(|rest| rest.len() >= MIN_AFTER_PREFIX)
    }) {
        return true;
    }
    let body = v.trim_end_matches('=');
    body.len() >= MIN_TOKEN_LEN
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
        && body.contains(|c: char| c.is_ascii_uppercase())
        && body.contains(|c: char| c.is_ascii_lowercase())
        && looks_random(body)
}

/// What tells random characters from words and versions
/// (`ReadOnlyFilesystemServer2`, `Base64EncodedUtf8Values`): digits in two
/// places or more, the kind of character (upper, lower, digit, other)
/// changing at every second step or more often, and a high entropy. About
/// 3 in 4 random 20-character and 9 in 10 random 40-character strings pass.
fn looks_random(body: &str) -> bool {
    fn kind(c: u8) -> u8 {
        match c {
            b'A'..=b'Z' => 0,
            b'a'..=b'z' => 1,
            b'0'..=b'9' => 2,
            _ => 3,
        }
    }
    let bytes = body.as_bytes();
    let changes = bytes
        .windows(2)
        .filter(|w| kind(w[0]) != kind(w[1]))
        .count();
    let digit_runs = bytes
        .iter()
        .enumerate()
        .filter(|&(i, c)| c.is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()))
        .count();
    digit_runs >= 2 && changes * 2 >= bytes.len() && bits_per_char(body) >= MIN_BITS_PER_CHAR
}

/// Shannon entropy of `text`'s bytes, in bits per byte.
fn bits_per_char(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = f64::from(u32::try_from(text.len()).unwrap_or(u32::MAX));
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * p.log2()
        })
        .sum()
}

/// The secret values in a command line: the value after each secret flag
/// (the next argument, unless it is a flag itself, or the part after `=`)
/// and every argument that [`looks_like_token_arg`].
pub fn arg_secrets<S: AsRef<str>>(args: &[S]) -> Vec<String> {
    let mut found = Vec::new();
    let mut after_flag = false;
    for arg in args {
        let arg = arg.as_ref();
        if after_flag && !arg.starts_with('-') && !arg.is_empty() {
            found.push(arg.to_string());
            after_flag = false;
            continue;
        }
        after_flag = false;
        match secret_flag(arg) {
            Some(Some(value)) if !value.is_empty() => found.push(value.to_string()),
            Some(Some(_)) => {}
            Some(None) => after_flag = true,
            None if looks_like_token_arg(arg) => found.push(arg.to_string()),
            None => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Whether `name` is a flag whose value is a secret.
    fn is_secret_flag(name: &str) -> bool {
        !name.contains('=') && secret_flag(name).is_some()
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn values_after_secret_flags_are_secrets_in_every_spelling() {
        let args = [
            "-y",
            "some-server",
            "--api-key",
            "SBXvalue1",
            "--APIKEY=SBXvalue2",
            "--access_token",
            "SBXvalue3",
            "--Password=SBXvalue4",
            "-k",
            "SBXvalue5",
            "--client-secret",
            "SBXvalue6",
            "--github-token=SBXvalue7",
            "--secret",
            "SBXvalue8",
            "--token",
            "--verbose",
            "--port",
            "8080",
        ];
        assert_eq!(
            arg_secrets(&args),
            strings(&[
                "SBXvalue1",
                "SBXvalue2",
                "SBXvalue3",
                "SBXvalue4",
                "SBXvalue5",
                "SBXvalue6",
                "SBXvalue7",
                "SBXvalue8",
            ])
        );
        for flag in ["--api-key", "--API_KEY", "--token", "-k", "--x-auth-token"] {
            assert!(is_secret_flag(flag), "{flag}");
        }
        for flag in [
            "--port",
            "-p",
            "--keyring",
            "-kv",
            "--monkey",
            "--token=x",
            "token",
        ] {
            assert!(!is_secret_flag(flag), "{flag}");
        }
    }

    #[test]
    fn token_looking_arguments_are_secrets_and_ordinary_ones_are_not() {
        for token in [
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "sk-proj-abcdefgh12345678",
            "xoxb-1234-5678-abcdefgh",
            "github_pat_11ABCDEFG0123456789",
            "AKIAIOSFODNN7EXAMPLE",
            "Zq8fLk2mP9xR4tW7vB1nC6yH3",
        ] {
            assert!(looks_like_token_arg(token), "{token}");
        }
        for ordinary in [
            "-y",
            "@modelcontextprotocol/server-everything",
            "server-everything@2025.9.25",
            "mcp-server-fetch==2024.1.1",
            "/home/someone/projects/mcp-server",
            "--transport=stdio",
            "stdio",
            "sk-learn",
            "ReadOnlyFilesystemServer2",
            "ModelContextProtocolServer2024",
            "Base64EncodedUtf8Values",
            "aaaaaaaaaaaaaaaaaaaaAAAA1111",
        ] {
            assert!(!looks_like_token_arg(ordinary), "{ordinary}");
        }
        assert_eq!(
            arg_secrets(&["run", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "stdio"]),
            strings(&["ghp_16C7e42F292c6912E7710c838347Ae178B4a"])
        );
    }
}
