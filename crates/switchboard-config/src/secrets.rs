//! What counts as a secret in a config: the rules for a keyring secret's
//! name ([`check_secret_name`]) and the literal values of a server's config
//! that must never reach a log or an answer ([`ServerConfig::secret_values`]).
//!
//! Pure functions over the model; the redaction itself is [`switchboard_util::redact`].

use super::{ConfigValue, ServerConfig, TransportConfig};

/// Checks a secret name: 1 to 100 of `[A-Za-z0-9_.-]`.
pub fn check_secret_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 100 {
        return Err(format!(
            "secret name {name:?} must be 1 to 100 characters long"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "secret name {name:?} contains {bad:?}; only letters, digits, '_', '-' and '.' are allowed"
        ));
    }
    Ok(())
}

impl ServerConfig {
    /// The literal values in this server's config that are or contain
    /// secrets (see [`switchboard_util::redact::secrets_in`]): header and env values,
    /// the URL's userinfo and secret query values, args that carry a URL
    /// with credentials, the value after a secret flag (`--api-key x`,
    /// `--token=x`) and token-looking args, a literal OAuth client secret, and every value
    /// put in for a `${VAR}` reference. Values kept in
    /// the keyring are not here; they are registered when read.
    pub fn secret_values(&self) -> Vec<String> {
        use switchboard_util::redact::{arg_secrets, secrets_in, url_secrets};
        let mut found = Vec::new();
        match &self.transport {
            TransportConfig::Stdio { args, env, .. } => {
                for (name, value) in env {
                    if let ConfigValue::Literal(value) = value {
                        found.extend(secrets_in(name, value));
                    }
                }
                found.extend(arg_secrets(args));
                for arg in args {
                    found.extend(url_secrets(arg));
                }
            }
            TransportConfig::Http { url, headers, .. } => {
                found.extend(url_secrets(url));
                for (name, value) in headers {
                    if let ConfigValue::Literal(value) = value {
                        found.extend(secrets_in(name, value));
                    }
                }
            }
        }
        if let Some(ConfigValue::Literal(secret)) =
            self.oauth.as_ref().and_then(|o| o.client_secret.as_ref())
        {
            found.push(secret.clone());
        }
        found.extend(self.expanded.iter().cloned());
        found
    }
}
