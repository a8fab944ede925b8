//! Waiting on the hub's state through its event stream (`GET /api/v1/events`)
//! instead of polling: [`Snapshots`] reads the stream, [`wait_snapshot`] waits
//! on it for a condition (what the process hub's `TestHub::wait_for` and
//! `TestHub::wait_snapshot` use), and [`is`] holds predicates over a server's
//! typed snapshot.

use serde_json::Value;

use crate::DEADLINE;

/// The hub's snapshots as `GET /api/v1/events` sends them: the current one
/// first, then the latest after each change (the hub coalesces changes to at
/// most one event every 200 ms, always sending the newest state).
pub struct Snapshots {
    response: reqwest::Response,
    buffer: String,
}

impl Snapshots {
    /// Opens the event stream of the hub at `base` (`http://127.0.0.1:<port>`).
    pub async fn open(base: &str, token: Option<&str>) -> Self {
        let mut request = reqwest::Client::new().get(format!("{base}/api/v1/events"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("GET /api/v1/events");
        assert_eq!(response.status(), 200, "GET /api/v1/events");
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next `snapshot` event's data; `None` once the stream ended (the
    /// hub stopped). Keep-alive comments are skipped.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let (mut name, mut data) = ("", String::new());
                for line in event.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        name = value.trim();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.strip_prefix(' ').unwrap_or(value));
                    }
                }
                if name == "snapshot" {
                    return Some(serde_json::from_str(&data).unwrap_or_else(|err| {
                        panic!("a snapshot event that is not JSON ({err}): {data}")
                    }));
                }
                continue;
            }
            let chunk = self.response.chunk().await.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// Waits on the event stream of the hub at `base` until `check` returns
/// `Some` for a snapshot (the current one first), failing after
/// [`DEADLINE`] or when the stream ends. What every wait of the harness on
/// the hub's state uses: no polling, each change is seen once it is published.
pub async fn wait_snapshot<T>(
    base: &str,
    token: Option<&str>,
    what: &str,
    mut check: impl FnMut(&Value) -> Option<T>,
) -> T {
    let wait = async {
        let mut snapshots = Snapshots::open(base, token).await;
        while let Some(snapshot) = snapshots.next().await {
            if let Some(found) = check(&snapshot) {
                return Some(found);
            }
        }
        None
    };
    match tokio::time::timeout(DEADLINE, wait).await {
        Ok(Some(found)) => found,
        Ok(None) => panic!("the hub's event stream ended while waiting for {what}"),
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// Predicates over a server's typed snapshot, for [`crate::TestHub::wait_for`]:
/// `hub.wait_for("a", "ready with 2 tools", is::all(vec![is::ready(), is::tools(2)]))`.
pub mod is {
    use switchboard_api::{ServerSnapshot, ServerState};

    /// A predicate over one server's typed snapshot.
    pub type Pred = Box<dyn Fn(&ServerSnapshot) -> bool + Send + Sync>;

    /// In `state`.
    pub fn state(state: ServerState) -> Pred {
        Box::new(move |s| s.state == state)
    }

    /// Running and listed.
    pub fn ready() -> Pred {
        state(ServerState::Ready)
    }

    /// Listing exactly `n` tools.
    pub fn tools(n: usize) -> Pred {
        Box::new(move |s| s.tool_count == n)
    }

    /// Listed at least once (`listedAt` set).
    pub fn listed() -> Pred {
        Box::new(|s| s.listed_at.is_some())
    }

    /// With a last error that contains `text`.
    pub fn error_containing(text: &'static str) -> Pred {
        Box::new(move |s| s.last_error.as_deref().is_some_and(|e| e.contains(text)))
    }

    /// Holding tool `name` for approval.
    pub fn holding(name: &'static str) -> Pred {
        Box::new(move |s| s.held_tools.iter().any(|t| t.name == name))
    }

    /// Asking for a login (state `authRequired`).
    pub fn auth_required() -> Pred {
        state(ServerState::AuthRequired)
    }

    /// With a login on record (`auth.loggedIn`) or without one.
    pub fn logged_in(yes: bool) -> Pred {
        Box::new(move |s| s.auth.as_ref().is_some_and(|a| a.logged_in == yes))
    }

    /// Known to need a login (`auth.required`).
    pub fn needs_login() -> Pred {
        Box::new(|s| s.auth.as_ref().is_some_and(|a| a.required))
    }

    /// With no login under way and a word about the last one (`auth.message`).
    pub fn login_settled() -> Pred {
        Box::new(|s| {
            s.auth
                .as_ref()
                .is_some_and(|a| !a.login_pending && a.message.is_some())
        })
    }

    /// With a last error on record.
    pub fn failed_once() -> Pred {
        Box::new(|s| s.last_error.is_some())
    }

    /// Every one of `preds`.
    pub fn all(preds: Vec<Pred>) -> impl Fn(&ServerSnapshot) -> bool {
        move |s| preds.iter().all(|p| p(s))
    }
}
