//! Redaction as the engine uses it: everything of `switchboard_util::redact`
//! (URLs, headers, error text, remembered secret values; see that module for
//! what becomes `***`), plus the credential formats of tool results
//! ([`results`]), which read MCP result types and so stay in the engine.

pub use switchboard_util::redact::*;

pub(crate) mod results;

/// `text` with every credential of a well-known format (the kinds of
/// `resultSecrets`, see [`results`]) replaced by `[redacted <kind>]`: for
/// text taken from what a server sent, such as a scan finding's excerpt.
pub(crate) fn redact_formats(text: &str) -> String {
    if !results::might_hold_secret(text) {
        return text.to_string();
    }
    results::redact_text(text)
        .0
        .unwrap_or_else(|| text.to_string())
}
