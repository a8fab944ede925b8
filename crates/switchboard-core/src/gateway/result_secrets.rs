//! Credentials in a tool's result (`settings.resultSecrets`, a server's own
//! `resultSecrets`): checked once here, where every route's forwarded
//! `tools/call` answer passes (the gateway's call path), so
//! no client sees a result before it. The rules are in
//! `util/redact/results.rs`; this applies the mode and tells the hub's log
//! (kinds only, never a value). The activity log gets the kinds through the
//! call's record.

use rmcp::model::CallToolResult;

use crate::config::ResultSecrets;
use crate::upstream::Upstream;
use crate::util::redact::results::scan_result;

/// Redacts (or only reports) the credentials in `result`, a tool result of
/// `upstream`, by its server's mode or else the hub's (`default`); returns
/// the kinds found. (The log line names the server; the activity log's
/// entry of the call names the tool.)
pub(super) fn check_result(
    default: ResultSecrets,
    upstream: &Upstream,
    result: &mut CallToolResult,
) -> Vec<&'static str> {
    let mode = upstream.config().result_secrets.unwrap_or(default);
    if mode == ResultSecrets::Off {
        return Vec::new();
    }
    let found = scan_result(result, mode == ResultSecrets::Redact);
    if !found.kinds.is_empty() {
        tracing::warn!(
            server = %upstream.id,
            kinds = %found.kinds.join(", "),
            redacted = mode == ResultSecrets::Redact,
            "credentials in a tool result"
        );
    }
    found.kinds
}
