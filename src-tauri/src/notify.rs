//! OS notifications for calls waiting for approval (`settings.confirmCalls`,
//! see "Asking before acting" in `docs/security.md`): one notification per
//! waiting call, naming the client, the server, the tool and its (redacted)
//! arguments, with **Allow** and **Deny** buttons (critical urgency, no
//! expiry: it stays until answered or withdrawn). A click decides the call
//! as the app (`Decider::App`, the activity log's `by: "app"`); a call
//! decided anywhere else (dashboard, CLI, elicitation, timeout) has its
//! notification withdrawn. A notification dismissed without a click leaves
//! the call waiting (the tray line and the dashboard still show it) and is
//! not shown again.
//!
//! Linux: the freedesktop notification service (`org.freedesktop.Notifications`
//! on the session bus, any daemon: GNOME Shell, KDE, dunst, xfce4-notifyd),
//! spoken directly with zbus (already in the tree for the keyring): its
//! `actions` are the buttons, `ActionInvoked` the click, `CloseNotification`
//! the withdrawal. Tauri's notification plugin has no actions on desktop
//! systems, and notify-rust would need a blocking thread per notification to
//! wait for its click. Other systems: no notification; the tray line and the
//! dashboard remain.

use switchboard_core::HubHandle;

/// Starts following the calls waiting for approval of `hub`.
pub fn follow(hub: HubHandle) {
    #[cfg(target_os = "linux")]
    tauri::async_runtime::spawn(linux::run(hub));
    #[cfg(not(target_os = "linux"))]
    {
        let _ = hub;
        tracing::debug!("calls waiting for approval are not notified on this system");
    }
}

/// The notification's text for one waiting call: summary and body (plain
/// text; the body is escaped where it is sent to a daemon that reads markup).
/// Only Linux notifies (and the tests read it everywhere).
#[cfg(any(target_os = "linux", test))]
pub fn texts(call: &switchboard_api::PendingCall) -> (String, String) {
    const MAX_ARGUMENTS: usize = 300;
    let summary = format!("Allow {} → {}?", call.server, call.tool);
    let mut arguments = serde_json::to_string(&call.arguments).unwrap_or_default();
    if arguments.chars().count() > MAX_ARGUMENTS {
        arguments = arguments.chars().take(MAX_ARGUMENTS).collect::<String>() + "…";
    }
    let client = call.client.as_deref().unwrap_or("A client");
    let body = format!(
        "{client} asks to call {} of {} with {arguments}",
        call.tool, call.server
    );
    (summary, body)
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{HashMap, HashSet};

    use futures::StreamExt as _;
    use switchboard_core::{Decider, Decision, HubHandle};
    use zbus::zvariant::Value;

    const DESTINATION: &str = "org.freedesktop.Notifications";
    const PATH: &str = "/org/freedesktop/Notifications";
    const INTERFACE: &str = "org.freedesktop.Notifications";
    /// The action keys (the buttons' ids) and their labels.
    const ALLOW: &str = "allow";
    const DENY: &str = "deny";

    /// What is shown: call id → notification id, and every call ever shown.
    #[derive(Default)]
    struct Shown {
        open: HashMap<String, u32>,
        ever: HashSet<String>,
    }

    pub(super) async fn run(hub: HubHandle) {
        let proxy = match connect().await {
            Ok(proxy) => proxy,
            Err(err) => {
                tracing::info!(error = %err, "no notification service: calls waiting for approval are shown in the tray and the dashboard only");
                return;
            }
        };
        let capabilities: Vec<String> =
            proxy.call("GetCapabilities", &()).await.unwrap_or_default();
        let markup = capabilities.iter().any(|c| c == "body-markup");
        if !capabilities.iter().any(|c| c == "actions") {
            tracing::info!(
                "the notification service shows no buttons: answer waiting calls in the tray's dashboard"
            );
        }
        let (mut invoked, mut closed) = match (
            proxy.receive_signal("ActionInvoked").await,
            proxy.receive_signal("NotificationClosed").await,
        ) {
            (Ok(invoked), Ok(closed)) => (invoked, closed),
            (Err(err), _) | (_, Err(err)) => {
                tracing::warn!(error = %err, "cannot follow the notification service");
                return;
            }
        };
        let mut changes = hub.pending().watch();
        let mut shown = Shown::default();
        loop {
            changes.borrow_and_update();
            sync(&hub, &proxy, markup, &mut shown).await;
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                Some(message) = invoked.next() => {
                    let Ok((id, action)) = message.body().deserialize::<(u32, String)>() else {
                        continue;
                    };
                    let Some(call) = shown.open.iter().find(|(_, n)| **n == id).map(|(c, _)| c.clone()) else {
                        continue;
                    };
                    // Withdrawn by the next sync, once the call is decided.
                    let allow = match action.as_str() {
                        ALLOW => true,
                        DENY => false,
                        // The notification's body clicked: not an answer.
                        _ => continue,
                    };
                    let decision = Decision { allow, always: false, by: Decider::App };
                    if let Err(err) = hub.decide_call(&call, decision).await {
                        tracing::debug!(error = %err, "a notification answered a call no longer waiting");
                    }
                }
                Some(message) = closed.next() => {
                    // Dismissed (or closed after its click): not shown again.
                    if let Ok((id, _reason)) = message.body().deserialize::<(u32, u32)>() {
                        shown.open.retain(|_, n| *n != id);
                    }
                }
            }
        }
    }

    async fn connect() -> zbus::Result<zbus::Proxy<'static>> {
        let connection = zbus::Connection::session().await?;
        zbus::Proxy::new(&connection, DESTINATION, PATH, INTERFACE).await
    }

    /// Shows the calls not shown yet, withdraws those no longer waiting.
    async fn sync(hub: &HubHandle, proxy: &zbus::Proxy<'_>, markup: bool, shown: &mut Shown) {
        let waiting = hub.pending().list();
        let gone: Vec<(String, u32)> = shown
            .open
            .iter()
            .filter(|(call, _)| !waiting.iter().any(|w| &w.id == *call))
            .map(|(c, n)| (c.clone(), *n))
            .collect();
        for (call, id) in gone {
            shown.open.remove(&call);
            if let Err(err) = proxy.call::<_, _, ()>("CloseNotification", &(id,)).await {
                tracing::debug!(error = %err, "cannot withdraw a notification");
            }
        }
        shown
            .ever
            .retain(|call| waiting.iter().any(|w| &w.id == call));
        for call in waiting {
            if shown.ever.contains(&call.id) {
                continue;
            }
            shown.ever.insert(call.id.clone());
            let (summary, mut body) = super::texts(&call);
            if markup {
                body = escape(&body);
            }
            let hints: HashMap<&str, Value<'_>> = HashMap::from([
                // Critical: stays until answered (daemons do not expire it).
                ("urgency", Value::U8(2)),
                ("category", Value::from("switchboard.approval")),
            ]);
            let actions = vec![ALLOW, "Allow", DENY, "Deny"];
            let sent: zbus::Result<u32> = proxy
                .call(
                    "Notify",
                    &(
                        "Switchboard",
                        0u32,
                        "",
                        summary.as_str(),
                        body.as_str(),
                        actions,
                        hints,
                        0i32,
                    ),
                )
                .await;
            match sent {
                Ok(id) => {
                    shown.open.insert(call.id.clone(), id);
                }
                Err(err) => {
                    tracing::warn!(error = %err, "cannot show a notification for a waiting call")
                }
            }
        }
    }

    /// `text` safe for a body read as markup (`body-markup` capability).
    fn escape(text: &str) -> String {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_notification_names_the_client_the_server_the_tool_and_the_arguments() {
        let call: switchboard_api::PendingCall = serde_json::from_value(json!({
            "id": "c1", "server": "files", "tool": "delete_file",
            "arguments": {"path": "/tmp/x", "token": "***"},
            "client": "claude-code", "since": "2026-03-01T12:00:00.000Z"
        }))
        .unwrap();
        let (summary, body) = texts(&call);
        assert_eq!(summary, "Allow files → delete_file?");
        assert_eq!(
            body,
            r#"claude-code asks to call delete_file of files with {"path":"/tmp/x","token":"***"}"#
        );
        let long = switchboard_api::PendingCall {
            arguments: json!({"text": "x".repeat(1000)}),
            client: None,
            ..call
        };
        let (_, body) = texts(&long);
        assert!(
            body.starts_with("A client asks") && body.ends_with('…'),
            "{body}"
        );
        assert!(body.chars().count() < 400);
    }
}
