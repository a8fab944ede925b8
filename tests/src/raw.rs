//! A client speaking raw Streamable HTTP to one MCP route, for the tests that
//! look at what goes over the wire (content types, status codes, headers,
//! session ids) rather than at what an SDK makes of it.

use serde_json::{Value, json};

/// The protocol revision these requests speak unless told
/// ([`RawMcp::speaking`]).
const PROTOCOL_VERSION: &str = "2025-06-18";

/// One session (or none yet) on one MCP route. A clone speaks on the same
/// session (to send a request from another task).
#[derive(Clone)]
pub struct RawMcp {
    http: reqwest::Client,
    url: String,
    /// The session id the hub gave at `initialize`.
    pub session: Option<String>,
    /// The id the next request gets.
    pub next_id: u64,
    /// The protocol revision it offers and names in its headers.
    version: &'static str,
}

/// An answer as it came: status, content type and every JSON-RPC message of
/// the body (one for JSON, each `data:` for an event stream).
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub messages: Vec<Value>,
    /// The first message; the body as a string when it was neither JSON nor
    /// an event stream; null when the stream carried no message.
    pub message: Value,
    /// The body as it came.
    pub body: String,
}

impl RawMcp {
    pub fn new(url: &str) -> Self {
        Self::with_client(reqwest::Client::new(), url)
    }

    pub fn with_client(http: reqwest::Client, url: &str) -> Self {
        Self {
            http,
            url: url.to_string(),
            session: None,
            next_id: 1,
            version: PROTOCOL_VERSION,
        }
    }

    /// The same client offering protocol `version` at `initialize`.
    pub fn speaking(mut self, version: &'static str) -> Self {
        self.version = version;
        self
    }

    /// POSTs `body` as it is, with the session's headers and `extra` ones.
    pub async fn post_bytes(&self, body: Vec<u8>, extra: &[(&str, &str)]) -> Answer {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body);
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", self.version);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        answer(request.send().await.unwrap()).await
    }

    /// POSTs one JSON-RPC message.
    pub async fn post(&self, body: &Value, extra: &[(&str, &str)]) -> Answer {
        self.post_bytes(serde_json::to_vec(body).unwrap(), extra)
            .await
    }

    /// Sends request `method` with the next id.
    pub async fn request(&mut self, method: &str, params: Value) -> Answer {
        self.request_with(method, params, &[]).await
    }

    /// Sends request `method` with the next id and `extra` headers.
    pub async fn request_with(
        &mut self,
        method: &str,
        params: Value,
        extra: &[(&str, &str)],
    ) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        self.post(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            extra,
        )
        .await
    }

    /// Starts a new session: `initialize`, then `notifications/initialized`
    /// when it succeeded (which must be accepted with 202).
    pub async fn initialize(&mut self) -> Answer {
        self.session = None;
        let init = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": self.version,
                "capabilities": {},
                "clientInfo": {"name": "raw-http", "version": "1"}
            }
        });
        let response = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&init).unwrap())
            .send()
            .await
            .unwrap();
        self.session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let answer = answer(response).await;
        if answer.status == 200 {
            let initialized = self
                .post(
                    &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    &[],
                )
                .await;
            assert_eq!(initialized.status, 202);
        }
        answer
    }

    /// Ends the session with DELETE; the HTTP status.
    pub async fn delete(&self) -> u16 {
        self.http
            .delete(&self.url)
            .header("mcp-session-id", self.session.as_deref().unwrap())
            .header("mcp-protocol-version", self.version)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// Opens the session's event stream (GET) and keeps it open.
    pub async fn open_stream(&self) -> reqwest::Response {
        let response = self
            .http
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", self.session.as_deref().unwrap())
            .header("mcp-protocol-version", self.version)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "GET stream");
        response
    }
}

/// Reads a whole answer: a JSON body, or an event stream's messages.
async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let text = response.text().await.unwrap();
    let (messages, message) = if content_type.starts_with("application/json") {
        let message: Value = serde_json::from_str(&text).unwrap();
        (vec![message.clone()], message)
    } else if content_type.starts_with("text/event-stream") {
        let messages: Vec<Value> = text
            .split("\n\n")
            .filter_map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                let data = data.join("\n");
                (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
            })
            .collect();
        let first = messages.first().cloned().unwrap_or(Value::Null);
        (messages, first)
    } else {
        (Vec::new(), Value::String(text.clone()))
    };
    Answer {
        status,
        content_type,
        messages,
        message,
        body: text,
    }
}
