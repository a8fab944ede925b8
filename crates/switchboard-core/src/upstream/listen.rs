//! Notifications from a server on protocol 2026-07-28: it has no standalone
//! stream and sends list changes and resource updates only on a
//! `subscriptions/listen` request. One listener per connection asks for the
//! list changes the server announced and the resources sessions subscribed
//! to (`Upstream::subscribe` pokes it to ask again with the new set), and
//! hands what arrives to the same handler code as the older protocols'
//! notifications ([`UpstreamClient::list_changed`],
//! [`UpstreamClient::resource_updated`]). A listen that fails or ends is
//! opened again after [`RETRY`], until the connection closes; a server
//! without the method (`-32601`) is not asked again on that connection.

use std::sync::{Arc, Weak};
use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use tokio_util::sync::CancellationToken;

use super::Upstream;
use super::client::UpstreamClient;
use crate::events::ListKind;

/// Pause before a failed or ended listen is opened again.
const RETRY: Duration = Duration::from_secs(2);

/// Whether a connection runs protocol 2026-07-28 or later (no handshake).
pub(super) fn is_modern(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info().is_some_and(|info| {
        info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
    })
}

/// Starts the listener of a modern connection (nothing for older ones: they
/// send notifications unasked).
pub(super) fn spawn(
    upstream: &Arc<Upstream>,
    peer: Peer<RoleClient>,
    client: UpstreamClient,
    stop: CancellationToken,
) {
    if !is_modern(&peer) {
        return;
    }
    let upstream = Arc::downgrade(upstream);
    tokio::spawn(run(upstream, peer, client, stop));
}

/// What to listen for now: the list changes the server announces, and the
/// resources sessions want (when it supports resource subscriptions).
fn filter(upstream: &Upstream, peer: &Peer<RoleClient>) -> SubscriptionFilter {
    let mut filter = SubscriptionFilter::new();
    let Some(info) = peer.peer_info() else {
        return filter;
    };
    let caps = &info.capabilities;
    let yes = |b: Option<bool>| b.unwrap_or(false).then_some(true);
    filter.tools_list_changed = caps.tools.as_ref().and_then(|t| yes(t.list_changed));
    filter.prompts_list_changed = caps.prompts.as_ref().and_then(|p| yes(p.list_changed));
    filter.resources_list_changed = caps.resources.as_ref().and_then(|r| yes(r.list_changed));
    if caps
        .resources
        .as_ref()
        .is_some_and(|r| r.subscribe.unwrap_or(false))
    {
        let uris = upstream.subscriptions.uris();
        if !uris.is_empty() {
            filter.resource_subscriptions = Some(uris);
        }
    }
    filter
}

fn is_empty(filter: &SubscriptionFilter) -> bool {
    filter.tools_list_changed.is_none()
        && filter.prompts_list_changed.is_none()
        && filter.resources_list_changed.is_none()
        && filter.resource_subscriptions.is_none()
}

async fn run(
    upstream: Weak<Upstream>,
    peer: Peer<RoleClient>,
    client: UpstreamClient,
    stop: CancellationToken,
) {
    loop {
        let Some(strong) = upstream.upgrade() else {
            return;
        };
        let changed = strong.subscriptions.changed();
        // Registered before the filter is read, so a change in between is not lost.
        let notified = changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let wanted = filter(&strong, &peer);
        drop(strong);
        if is_empty(&wanted) {
            tokio::select! {
                () = &mut notified => continue,
                () = stop.cancelled() => return,
            }
        }
        let opened = tokio::select! {
            opened = peer.listen(wanted) => opened,
            () = stop.cancelled() => return,
        };
        let mut subscription = match opened {
            Ok(subscription) => subscription,
            Err(rmcp::ServiceError::McpError(err))
                if err.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND =>
            {
                // The server has no `subscriptions/listen`: the hub's polling
                // is all there is (asking again would only repeat this).
                tracing::debug!(server = %client.server, "server has no subscriptions/listen");
                return;
            }
            Err(err) => {
                tracing::debug!(server = %client.server, %err, "subscriptions/listen failed");
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => continue,
                    () = &mut notified => continue,
                    () = stop.cancelled() => return,
                }
            }
        };
        loop {
            tokio::select! {
                next = subscription.next() => match next {
                    Ok(Some(notification)) => dispatch(&client, notification),
                    Ok(None) | Err(_) => {
                        tokio::select! {
                            () = tokio::time::sleep(RETRY) => {}
                            () = stop.cancelled() => return,
                        }
                        break;
                    }
                },
                // Dropping the subscription cancels it upstream; the next
                // round listens with the new set.
                () = &mut notified => break,
                () = stop.cancelled() => return,
            }
        }
    }
}

fn dispatch(client: &UpstreamClient, notification: ServerNotification) {
    match notification {
        ServerNotification::ToolListChangedNotification(_) => client.list_changed(ListKind::Tools),
        ServerNotification::PromptListChangedNotification(_) => {
            client.list_changed(ListKind::Prompts)
        }
        ServerNotification::ResourceListChangedNotification(_) => {
            client.list_changed(ListKind::Resources)
        }
        ServerNotification::ResourceUpdatedNotification(updated) => {
            client.resource_updated(updated.params)
        }
        _ => {}
    }
}
