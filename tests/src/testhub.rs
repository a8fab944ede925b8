//! [`TestHub`]: what a suite needs of a hub, whichever kind runs it — the
//! real `switchboard serve` process ([`Hub`]) or the engine inside the test
//! process ([`Engine`]). Both speak the same contract: the typed
//! `switchboard_api` snapshot, waits on a condition over it (the process hub's
//! `/api/v1/events` stream, the engine's `watch` channel: no polling), the
//! control API with the control token, and real MCP clients on the merged
//! endpoint. A suite written against the trait moves between the two by
//! changing the line that starts its hub.

use std::path::Path;

use serde_json::Value;
use switchboard_api::{HubSnapshot, ServerSnapshot};

use crate::engine::Engine;
use crate::{Client, DEADLINE, Hub, wait_snapshot};

/// A running hub as the suites see it. The required methods are what differs
/// between a process and the in-process engine; the rest is built on them.
// Test helpers are awaited in the test's own task (never spawned), so their
// futures need no `Send` bound the caller could name.
#[allow(async_fn_in_trait)]
pub trait TestHub {
    /// `http://127.0.0.1:<port>`: the control API's base.
    fn base(&self) -> &str;

    /// The merged MCP endpoint, `<base>/mcp`.
    fn url(&self) -> &str;

    /// The control token, as the CLI and the dashboard send it.
    fn token(&self) -> String;

    /// The hub's config file.
    fn config_path(&self) -> &Path;

    /// The hub's current snapshot, typed.
    async fn snapshot(&self) -> HubSnapshot;

    /// Waits until the whole snapshot satisfies `pred`, returning it; fails
    /// the test after [`DEADLINE`].
    async fn wait_snapshot(&self, what: &str, pred: impl Fn(&HubSnapshot) -> bool) -> HubSnapshot;

    /// Stops the hub the way a person's system does and fails the test unless
    /// it stopped cleanly (the process exits 0, the engine's run returns Ok).
    async fn shutdown(&mut self);

    /// Server `id` of the current snapshot; fails the test if there is none.
    async fn server_snapshot(&self, id: &str) -> ServerSnapshot {
        crate::server(&self.snapshot().await, id).clone()
    }

    /// Waits until server `id`'s snapshot satisfies `pred`, returning it.
    async fn wait_for(
        &self,
        id: &str,
        what: &str,
        pred: impl Fn(&ServerSnapshot) -> bool,
    ) -> ServerSnapshot {
        let snapshot = self
            .wait_snapshot(what, |s| s.servers.iter().any(|s| s.id == id && pred(s)))
            .await;
        crate::server(&snapshot, id).clone()
    }

    /// The process id of server `id` once it runs.
    async fn pid(&self, id: &str) -> u32 {
        self.wait_for(id, &format!("{id} running"), |s| s.pid.is_some())
            .await
            .pid
            .unwrap_or_default()
    }

    /// `GET /api/v1/status` as JSON, for what the typed snapshot cannot show
    /// (which keys the wire form has, what an open read leaves out).
    async fn status(&self) -> Value {
        self.get("/api/v1/status").await
    }

    /// `GET` on the control API with the control token; the answer as JSON.
    async fn get(&self, path: &str) -> Value {
        reqwest::Client::new()
            .get(format!("{}{path}", self.base()))
            .bearer_auth(self.token())
            .send()
            .await
            .expect("GET")
            .json()
            .await
            .expect("JSON")
    }

    /// `POST` on the control API with the control token and no body.
    async fn post(&self, path: &str) -> (u16, Value) {
        send(
            reqwest::Client::new()
                .post(format!("{}{path}", self.base()))
                .bearer_auth(self.token()),
        )
        .await
    }

    /// `POST` on the control API with the control token and a JSON body.
    async fn post_json(&self, path: &str, body: Value) -> (u16, Value) {
        send(
            reqwest::Client::new()
                .post(format!("{}{path}", self.base()))
                .bearer_auth(self.token())
                .json(&body),
        )
        .await
    }

    /// Connects a real rmcp client to the merged endpoint.
    async fn client(&self) -> Client {
        Client::connect(self.url()).await
    }
}

/// Sends a control-API request: its status code and its body as JSON
/// (`Null` when it has none).
async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("a control-API request");
    let code = response.status().as_u16();
    (code, response.json().await.unwrap_or(Value::Null))
}

/// The snapshot JSON of an event or a status read, typed.
fn typed(snapshot: &Value) -> HubSnapshot {
    serde_json::from_value(snapshot.clone())
        .unwrap_or_else(|err| panic!("the snapshot does not parse ({err}): {snapshot}"))
}

impl TestHub for Hub {
    fn base(&self) -> &str {
        &self.base
    }

    fn url(&self) -> &str {
        &self.url
    }

    fn token(&self) -> String {
        self.control_token()
    }

    fn config_path(&self) -> &Path {
        &self.config_path
    }

    async fn snapshot(&self) -> HubSnapshot {
        typed(&self.status().await)
    }

    /// On the hub's `/api/v1/events` stream ([`wait_snapshot`]).
    async fn wait_snapshot(&self, what: &str, pred: impl Fn(&HubSnapshot) -> bool) -> HubSnapshot {
        let token = self.token();
        wait_snapshot(&self.base, Some(&token), what, |snapshot| {
            let snapshot = typed(snapshot);
            pred(&snapshot).then_some(snapshot)
        })
        .await
    }

    async fn shutdown(&mut self) {
        assert_eq!(self.terminate().await, Some(0), "log:\n{}", self.log());
    }
}

impl TestHub for Engine {
    fn base(&self) -> &str {
        &self.base
    }

    fn url(&self) -> &str {
        &self.url
    }

    fn token(&self) -> String {
        self.handle.control_token().to_string()
    }

    fn config_path(&self) -> &Path {
        &self.config_path
    }

    async fn snapshot(&self) -> HubSnapshot {
        self.handle.snapshot().as_ref().clone()
    }

    /// On the hub's `watch` channel of snapshots: each published one is seen.
    async fn wait_snapshot(&self, what: &str, pred: impl Fn(&HubSnapshot) -> bool) -> HubSnapshot {
        let mut snapshots = self.handle.subscribe();
        let wait = async {
            loop {
                let snapshot = snapshots.borrow_and_update().clone();
                if pred(&snapshot) {
                    return Some(snapshot.as_ref().clone());
                }
                if snapshots.changed().await.is_err() {
                    return None;
                }
            }
        };
        match tokio::time::timeout(DEADLINE, wait).await {
            Ok(Some(found)) => found,
            Ok(None) => panic!("the hub stopped while waiting for {what}"),
            Err(_) => panic!(
                "timed out waiting for {what}; last snapshot: {:?}",
                self.handle.snapshot()
            ),
        }
    }

    async fn shutdown(&mut self) {
        self.stop_running().await.expect("the hub stops cleanly");
    }
}
