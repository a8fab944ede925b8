//! Listing one server (tools, prompts, resources, templates), single-flight:
//! concurrent refreshes share one listing, a failure keeps the last listing
//! (marked stale), and each new listing is compared with the last one to
//! record what changed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

use serde::Serialize;

use super::status::{CHANGE_HISTORY, ListChange, timestamp};
use super::{Upstream, UpstreamError};
use crate::listing::{Capabilities, RefreshTrigger};
use crate::resilience::{DISCOVERY_ATTEMPTS, backoff};

pub(super) type ListOutcome = Result<Arc<Capabilities>, UpstreamError>;

impl Upstream {
    /// Lists the server now (starting it if needed), coalesced with concurrent
    /// refreshes: if a listing started after this call was made, its outcome is
    /// the answer. A failure keeps the last listing and marks it stale.
    pub async fn refresh(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        // A change notification needs a listing that starts after it; any other
        // trigger only needs a recent one, so a listing already under way will do.
        let asked_at = match (trigger, self.listing_now.load(Ordering::SeqCst)) {
            (RefreshTrigger::Notification, _) | (_, 0) => self.list_seq.load(Ordering::SeqCst),
            (_, running) => running - 1,
        };
        let mut last = self.refresh_lock.lock().await;
        if let Some((seq, outcome)) = last.as_ref()
            && *seq > asked_at
        {
            return outcome.clone();
        }
        let seq = self.list_seq.fetch_add(1, Ordering::SeqCst) + 1;
        self.listing_now.store(seq, Ordering::SeqCst);
        if !matches!(trigger, RefreshTrigger::Poll) {
            self.touch();
        }
        let mut attempt = 0;
        let outcome = loop {
            let outcome = self.list_now(trigger).await;
            attempt += 1;
            match &outcome {
                Err(err) if err.is_retryable() && attempt < DISCOVERY_ATTEMPTS => {
                    let wait = backoff(attempt, seq ^ self.fingerprint.as_u64());
                    tracing::debug!(server = %self.id, error = %err, ?wait, "listing failed; retrying");
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.cancel.cancelled() => break outcome,
                    }
                }
                _ => break outcome,
            }
        };
        // What may be served: the listing without the tools its pins hold.
        let (outcome, raw) = match outcome {
            Ok(raw) => (
                Ok(self.pins.apply(self.id.as_str(), raw.clone(), true)),
                Some(raw),
            ),
            Err(err) => (Err(err), None),
        };
        match &outcome {
            Ok(caps) => {
                let caps = caps.clone();
                self.update(|s| {
                    if let Some(change) =
                        s.listing.as_deref().and_then(|old| diff_lists(old, &caps))
                    {
                        crate::limited!(
                            self.log_limits.changed,
                            info,
                            format!("lists of server '{}' changed", self.id),
                            server = %self.id,
                            added = ?change.added,
                            removed = ?change.removed,
                            modified = ?change.modified,
                            "lists changed"
                        );
                        if s.changes.len() == CHANGE_HISTORY {
                            s.changes.pop_front();
                        }
                        s.changes.push_back(change);
                    }
                    s.listing = Some(caps);
                    s.raw_listing = raw;
                    s.stale = false;
                    s.unverified = false;
                });
            }
            Err(err) => {
                crate::limited!(
                    self.log_limits.listing_failed,
                    warn,
                    format!("listing of server '{}' failed", self.id),
                    server = %self.id,
                    error = %err,
                    ?trigger,
                    "listing failed"
                );
                self.note("warn", format!("listing ({trigger}) failed: {err}"));
                self.update(|s| s.stale = s.listing.is_some());
            }
        }
        *last = Some((seq, outcome.clone()));
        self.listing_now.store(0, Ordering::SeqCst);
        outcome
    }

    pub(super) async fn list_now(
        self: &Arc<Self>,
        trigger: RefreshTrigger,
    ) -> Result<Arc<Capabilities>, UpstreamError> {
        let conn = self.connection().await?;
        let timeout = self.call_timeout();
        let started = Instant::now();
        let result = tokio::select! {
            r = tokio::time::timeout(timeout, Capabilities::list(&conn.peer, trigger)) => r,
            _ = self.cancel.cancelled() => {
                return Err(UpstreamError::ShuttingDown { server: self.id.clone() });
            }
        };
        match result {
            Ok(Ok(caps)) => {
                self.record_success(Some(started.elapsed()));
                tracing::debug!(
                    server = %self.id,
                    tools = caps.tools.len(),
                    prompts = caps.prompts.len(),
                    resources = caps.resources.len(),
                    ?trigger,
                    "listed"
                );
                Ok(Arc::new(caps))
            }
            Ok(Err(err)) => Err(self.service_failure(&conn, err).await),
            Err(_) => {
                let err = UpstreamError::Timeout {
                    server: self.id.clone(),
                    during: "the capability listing",
                    after: timeout,
                };
                self.record_failure(&err, None);
                Err(err)
            }
        }
    }

    /// Starts a rebuilt upstream with its predecessor's lists (marked stale),
    /// so a reload does not make its tools vanish until it is listed again.
    /// `raw` is the listing as the server sent it: the pins decide again
    /// what of it is served.
    pub(crate) fn carry_listing(&self, raw: Arc<Capabilities>) {
        let caps = self.pins.apply(self.id.as_str(), raw.clone(), false);
        self.update(|s| {
            s.raw_listing = Some(raw);
            s.listing = Some(caps);
            s.stale = true;
        });
    }

    /// The last listing as the server sent it, before the pins withheld
    /// anything (what the warm catalog keeps, so that the pins of the next
    /// run, in whatever mode, decide what is served).
    pub(crate) fn raw_capabilities(&self) -> Option<Arc<Capabilities>> {
        let status = self.lock_status();
        status
            .raw_listing
            .clone()
            .or_else(|| status.listing.clone())
    }

    /// Marks a listing from a previous run as known but unconfirmed.
    pub(crate) fn set_warm_listing(&self, caps: Capabilities) {
        let raw = Arc::new(caps);
        let caps = self.pins.apply(self.id.as_str(), raw.clone(), false);
        self.update(|s| {
            s.listing = Some(caps);
            s.raw_listing = Some(raw);
            s.unverified = true;
        });
    }

    /// Applies the pins again to the last listing as the server sent it
    /// (after an approval). Returns the listing now served if it changed.
    pub(crate) fn reapply_pins(&self) -> Option<Arc<Capabilities>> {
        let raw = self.lock_status().raw_listing.clone()?;
        let caps = self.pins.apply(self.id.as_str(), raw, false);
        let mut changed = false;
        self.update(|s| {
            changed = s.listing.as_ref().is_none_or(|l| l.hashes != caps.hashes);
            if changed {
                s.listing = Some(caps.clone());
            }
        });
        changed.then_some(caps)
    }

    /// Whether this server's tool `name` is held for approval (cheap while
    /// no tool is).
    pub fn is_held(&self, name: &str) -> bool {
        self.pins.is_held(self.id.as_str(), name)
    }
}

/// Names added, removed and modified between two listings; `None` if equal.
pub(super) fn diff_lists(old: &Capabilities, new: &Capabilities) -> Option<ListChange> {
    if old.hashes == new.hashes {
        return None;
    }
    let mut change = ListChange {
        at: timestamp(SystemTime::now()),
        trigger: new.trigger,
        added: Vec::new(),
        removed: Vec::new(),
        modified: Vec::new(),
    };
    fn compare<T: Serialize>(
        change: &mut ListChange,
        prefix: &str,
        old: &[T],
        new: &[T],
        key: impl Fn(&T) -> String,
    ) {
        use std::collections::BTreeMap;
        let index = |items: &[T]| -> BTreeMap<String, u64> {
            items
                .iter()
                .map(|i| (key(i), crate::listing::canonical_hash(i)))
                .collect()
        };
        let (before, after) = (index(old), index(new));
        for (name, hash) in &after {
            match before.get(name) {
                None => change.added.push(format!("{prefix}{name}")),
                Some(h) if h != hash => change.modified.push(format!("{prefix}{name}")),
                Some(_) => {}
            }
        }
        for name in before.keys().filter(|n| !after.contains_key(*n)) {
            change.removed.push(format!("{prefix}{name}"));
        }
    }
    compare(&mut change, "", &old.tools, &new.tools, |t| {
        t.name.to_string()
    });
    compare(&mut change, "prompt:", &old.prompts, &new.prompts, |p| {
        p.name.clone()
    });
    compare(
        &mut change,
        "resource:",
        &old.resources,
        &new.resources,
        |r| r.uri.clone(),
    );
    compare(
        &mut change,
        "template:",
        &old.resource_templates,
        &new.resource_templates,
        |t| t.uri_template.clone(),
    );
    Some(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(tools: serde_json::Value, prompts: serde_json::Value) -> Capabilities {
        let mut caps = Capabilities::empty(RefreshTrigger::Poll);
        caps.tools = serde_json::from_value(tools).unwrap();
        caps.prompts = serde_json::from_value(prompts).unwrap();
        caps.resources =
            serde_json::from_value(json!([{"uri": "file:///a", "name": "a"}])).unwrap();
        caps.hashes = caps.compute_hashes();
        caps
    }

    #[test]
    fn a_list_change_names_what_was_added_removed_and_modified() {
        let schema = json!({"type": "object"});
        let old = listing(
            json!([
                {"name": "keep", "inputSchema": schema},
                {"name": "edit", "inputSchema": schema},
                {"name": "drop", "inputSchema": schema}
            ]),
            json!([{"name": "p"}]),
        );
        assert_eq!(diff_lists(&old, &old.clone()), None, "equal listings");
        let new = listing(
            json!([
                {"name": "keep", "inputSchema": schema},
                {"name": "edit", "description": "now documented", "inputSchema": schema},
                {"name": "new", "inputSchema": schema}
            ]),
            json!([{"name": "p"}, {"name": "q"}]),
        );
        let change = diff_lists(&old, &new).unwrap();
        assert_eq!(change.trigger, RefreshTrigger::Poll);
        assert_eq!(change.added, ["new", "prompt:q"]);
        assert_eq!(change.removed, ["drop"]);
        assert_eq!(change.modified, ["edit"]);
        assert!(
            humantime::parse_rfc3339(&change.at).is_ok(),
            "{}",
            change.at
        );
    }
}
