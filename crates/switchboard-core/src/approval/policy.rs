//! Which calls need a person's approval. Pure: the hub-wide mode, the
//! server's approval settings, the tool's own name at its server and its
//! annotations in, a yes or no out. Order: `allowTools` never asks,
//! `confirmTools` always asks, else the mode (the server's `confirmCalls`,
//! else `settings.confirmCalls`) decides from the annotations.

use rmcp::model::ToolAnnotations;

use super::glob::matches;
use crate::config::{ConfirmCalls, ServerApproval};

/// Whether any call of this server could need approval: false means the
/// call path skips everything else (no listing looked at).
pub(crate) fn may_ask(hub: ConfirmCalls, server: &ServerApproval) -> bool {
    server.confirm_calls.unwrap_or(hub) != ConfirmCalls::Off || !server.confirm_tools.is_empty()
}

/// Whether a call of `tool` (its name at the server) needs approval.
pub(crate) fn needs_approval(
    hub: ConfirmCalls,
    server: &ServerApproval,
    tool: &str,
    annotations: Option<&ToolAnnotations>,
) -> bool {
    if server.allow_tools.iter().any(|p| matches(p, tool)) {
        return false;
    }
    if server.confirm_tools.iter().any(|p| matches(p, tool)) {
        return true;
    }
    let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
    let destructive = annotations.and_then(|a| a.destructive_hint) == Some(true);
    match server.confirm_calls.unwrap_or(hub) {
        ConfirmCalls::Off => false,
        ConfirmCalls::Destructive => destructive && !read_only,
        ConfirmCalls::Writes => !read_only,
        ConfirmCalls::All => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations(read_only: Option<bool>, destructive: Option<bool>) -> ToolAnnotations {
        serde_json::from_value(serde_json::json!({
            "readOnlyHint": read_only, "destructiveHint": destructive
        }))
        .unwrap()
    }

    #[test]
    fn each_mode_asks_for_the_tools_it_names() {
        let plain = ServerApproval::default();
        let delete = annotations(None, Some(true));
        let read = annotations(Some(true), None);
        let both = annotations(Some(true), Some(true));
        let cases = [
            (ConfirmCalls::Off, [false, false, false, false]),
            (ConfirmCalls::Destructive, [true, false, false, false]),
            (ConfirmCalls::Writes, [true, false, false, true]),
            (ConfirmCalls::All, [true, true, true, true]),
        ];
        for (mode, expected) in cases {
            let got = [
                needs_approval(mode, &plain, "t", Some(&delete)),
                needs_approval(mode, &plain, "t", Some(&read)),
                needs_approval(mode, &plain, "t", Some(&both)),
                needs_approval(mode, &plain, "t", None),
            ];
            assert_eq!(got, expected, "{mode:?}");
        }
    }

    #[test]
    fn server_settings_override_the_hub_and_globs_come_first() {
        let server = ServerApproval {
            confirm_calls: Some(ConfirmCalls::All),
            confirm_tools: vec!["send_*".into()],
            allow_tools: vec!["list_*".into(), "send_draft".into()],
        };
        assert!(needs_approval(ConfirmCalls::Off, &server, "anything", None));
        assert!(!needs_approval(
            ConfirmCalls::Off,
            &server,
            "list_files",
            None
        ));
        assert!(!needs_approval(
            ConfirmCalls::All,
            &server,
            "send_draft",
            None
        ));
        let only_globs = ServerApproval {
            confirm_tools: vec!["send_*".into()],
            ..Default::default()
        };
        let read = annotations(Some(true), None);
        assert!(needs_approval(
            ConfirmCalls::Off,
            &only_globs,
            "send_mail",
            Some(&read)
        ));
        assert!(!needs_approval(
            ConfirmCalls::Off,
            &only_globs,
            "read_mail",
            None
        ));
        assert!(may_ask(ConfirmCalls::Off, &only_globs));
        assert!(!may_ask(ConfirmCalls::Off, &ServerApproval::default()));
        let off = ServerApproval {
            confirm_calls: Some(ConfirmCalls::Off),
            ..Default::default()
        };
        assert!(!may_ask(ConfirmCalls::All, &off));
    }
}
