//! The activity log: one record per `tools/call`, `prompts/get` and
//! `resources/read` a client sent through any endpoint (see
//! `docs/security.md`, "The activity log", for what is and is not kept).
//!
//! The gateway builds a small [`CallRecord`] when a call ends and hands it to
//! [`Activity::record`], which only `try_send`s it on a bounded queue: a call
//! never waits for the log, and a full queue drops the record and counts it
//! ([`Activity::dropped`]). One background task ([`Activity::run`]) turns
//! records into [`ActivityEntry`]s (times formatted, error text and, with
//! `settings.activityArguments`, argument values redacted), keeps the newest
//! [`RING`] in memory for `GET /api/v1/activity`, and appends them to
//! `activity.jsonl` (`0600`, in the state directory), rotated at
//! `settings.activityMaxBytes` to `activity.1.jsonl` (see `activity/file.rs`);
//! with `settings.otlpEndpoint` it also exports each call as an
//! OpenTelemetry span and counts it in the hub's metrics (`activity/otlp.rs`).
//!
//! Invariant: no argument or result value reaches an entry unless the
//! setting is on, and then only after [`redact_value`].

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;
use switchboard_api::{ActivityEntry, ActivityOutcome};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::{ServerId, Settings};
use crate::util::redact;

mod file;
mod otlp;

use file::LogFile;
use otlp::Otlp;

/// Records waiting for the writer at most; more are dropped and counted.
pub(crate) const QUEUE: usize = 4096;
/// How long the writer waits after a batch before taking the next one (at
/// most this late in the API and the file; [`QUEUE`] records per pause).
const BATCH_PAUSE: Duration = Duration::from_millis(100);
/// Entries kept in memory for the API.
pub(crate) const RING: usize = 1000;
/// `GET /api/v1/activity` without `limit`.
pub(crate) const DEFAULT_LIMIT: usize = 100;
/// Longest error text kept, in characters.
const MAX_ERROR_CHARS: usize = 500;
/// Longest argument text kept (with `activityArguments`), in characters.
const MAX_ARGUMENT_CHARS: usize = 4096;
/// The name built-in tools are recorded under as their server.
pub(crate) const BUILTIN_SERVER: &str = "switchboard";

/// What kind of request a record is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Tool,
    Prompt,
    Resource,
    /// A task's status change, seen by the hub (`tasks/get`, `tasks/cancel`).
    Task,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tools/call",
            Self::Prompt => "prompts/get",
            Self::Resource => "resources/read",
            Self::Task => "tasks/get",
        }
    }
}

/// Who served a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Served {
    /// The name led to no server (unknown tool, disabled server...).
    Nobody,
    /// One of Switchboard's own tools.
    Builtin,
    /// A configured server.
    Server(ServerId),
}

/// One finished call, as the gateway hands it over: cheap to build (the name
/// and an error's message are the only strings copied; the ids are shared).
/// Grouped by what each part says: who made the call ([`Caller`]), what was
/// asked, and how it ended ([`CallOutcome`]); [`entry`] flattens it into
/// the one wire row.
#[derive(Debug)]
pub(crate) struct CallRecord {
    pub(crate) at: SystemTime,
    pub(crate) duration: Duration,
    pub(crate) method: Method,
    /// The tool or prompt name, or the URI, as the client sent it.
    pub(crate) name: String,
    pub(crate) served: Served,
    /// Who made the call, on which route.
    pub(crate) caller: Caller,
    pub(crate) argument_bytes: u64,
    /// Only with `settings.activityArguments`; unredacted here.
    pub(crate) arguments: Option<Value>,
    /// How a call that needed approval was decided (see `crate::approval`).
    pub(crate) approval: Option<switchboard_api::ActivityApproval>,
    /// How the call ended.
    pub(crate) ended: CallOutcome,
}

/// Who made a recorded call: the route, the client and its session, and the
/// code mode run it belongs to.
#[derive(Debug, Default)]
pub(crate) struct Caller {
    /// The pass-through route's server, `None` for `/mcp`.
    pub(crate) route: Option<ServerId>,
    pub(crate) client: Option<Arc<str>>,
    pub(crate) session: Option<Arc<str>>,
    /// The code mode run the call belongs to (see `crate::codemode`).
    pub(crate) run: Option<Arc<str>>,
}

/// How a recorded call ended: its outcome and error, what it answered.
#[derive(Debug)]
pub(crate) struct CallOutcome {
    pub(crate) outcome: ActivityOutcome,
    /// Unredacted here; the writer redacts it.
    pub(crate) error: Option<String>,
    pub(crate) result_bytes: u64,
    /// The kinds of credentials found in the result (never the values).
    pub(crate) result_secrets: Vec<&'static str>,
    /// The task the call made, or whose new status it reports.
    pub(crate) task: Option<switchboard_api::ActivityTask>,
}

/// The newest entries and the next sequence number.
#[derive(Default)]
struct Ring {
    entries: VecDeque<ActivityEntry>,
    next_seq: u64,
}

/// The hub's activity recorder (one per hub, see the module docs).
pub(crate) struct Activity {
    tx: mpsc::Sender<CallRecord>,
    /// Taken by [`Activity::run`].
    rx: Mutex<Option<mpsc::Receiver<CallRecord>>>,
    dropped: AtomicU64,
    ring: Mutex<Ring>,
    /// `settings.activityArguments`.
    arguments: bool,
    /// `activity.jsonl` and its rotation size; `None` keeps memory only.
    file: Option<(PathBuf, u64)>,
    /// `settings.otlpEndpoint`.
    otlp_endpoint: Option<String>,
}

impl Activity {
    /// A recorder writing to `path` (normally `<state dir>/activity.jsonl`),
    /// or to memory only when `None`.
    pub(crate) fn new(path: Option<PathBuf>, settings: &Settings) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        // The calls before a restart stay visible, and numbers go on.
        let earlier = path
            .as_deref()
            .map(|path| file::last_entries(path, RING))
            .unwrap_or_default();
        let next_seq = earlier.last().map_or(1, |e| e.seq.saturating_add(1));
        Self {
            tx,
            rx: Mutex::new(Some(rx)),
            dropped: AtomicU64::new(0),
            ring: Mutex::new(Ring {
                entries: earlier.into(),
                next_seq,
            }),
            arguments: settings.activity_arguments,
            file: path.map(|p| (p, settings.activity_max_bytes)),
            otlp_endpoint: settings.otlp_endpoint.clone(),
        }
    }

    /// Whether argument values are recorded (`settings.activityArguments`).
    pub(crate) fn keeps_arguments(&self) -> bool {
        self.arguments
    }

    /// Hands a record to the writer without waiting; a full queue drops it.
    pub(crate) fn record(&self, record: CallRecord) {
        if self.tx.try_send(record).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records dropped since the hub started.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The newest `limit` entries (only those numbered above `after`, if
    /// given), newest first.
    pub(crate) fn recent(&self, limit: usize, after: Option<u64>) -> Vec<ActivityEntry> {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.entries
            .iter()
            .rev()
            .take_while(|e| after.is_none_or(|after| e.seq > after))
            .take(limit)
            .cloned()
            .collect()
    }

    /// The writer: runs until `cancel`, then writes what is queued and stops.
    pub(crate) async fn run(self: Arc<Self>, cancel: CancellationToken) {
        let Some(mut rx) = self.rx.lock().ok().and_then(|mut rx| rx.take()) else {
            return;
        };
        let mut file = self
            .file
            .as_ref()
            .map(|(path, max)| LogFile::new(path.clone(), *max));
        let otlp = self
            .otlp_endpoint
            .as_deref()
            .and_then(|endpoint| match Otlp::start(endpoint) {
                Ok(otlp) => {
                    tracing::info!(endpoint, "exporting calls and metrics over OTLP/HTTP");
                    Some(otlp)
                }
                Err(err) => {
                    tracing::warn!(endpoint, error = %err, "OTLP export is off");
                    None
                }
            });
        let mut reported_drops = 0;
        loop {
            let first = tokio::select! {
                record = rx.recv() => record,
                () = cancel.cancelled() => None,
            };
            let Some(first) = first else { break };
            self.write(first, file.as_mut(), otlp.as_ref());
            // Whatever else is queued goes out in the same write.
            while let Ok(record) = rx.try_recv() {
                self.write(record, file.as_mut(), otlp.as_ref());
            }
            if let Some(file) = file.as_mut() {
                file.flush();
            }
            let dropped = self.dropped();
            if dropped > reported_drops {
                tracing::warn!(
                    dropped = dropped - reported_drops,
                    "activity log: calls not recorded, the recorder was behind"
                );
                reported_drops = dropped;
            }
            // Under load, records are taken in batches: one wake-up and one
            // write per pause rather than per call.
            tokio::select! {
                () = tokio::time::sleep(BATCH_PAUSE) => {}
                () = cancel.cancelled() => break,
            }
        }
        while let Ok(record) = rx.try_recv() {
            self.write(record, file.as_mut(), otlp.as_ref());
        }
        if let Some(file) = file.as_mut() {
            file.flush();
        }
        if let Some(otlp) = otlp {
            // Shutting down waits for the exporters' last requests, which run
            // on this runtime: not on one of its threads.
            let _ = tokio::task::spawn_blocking(move || otlp.shutdown()).await;
        }
    }

    /// Turns a record into an entry, keeps it in the ring, appends it and
    /// exports it.
    fn write(&self, record: CallRecord, file: Option<&mut LogFile>, otlp: Option<&Otlp>) {
        let at = record.at;
        let entry = {
            let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
            let entry = entry(record, ring.next_seq);
            ring.next_seq += 1;
            if ring.entries.len() >= RING {
                ring.entries.pop_front();
            }
            ring.entries.push_back(entry.clone());
            entry
        };
        if let Some(file) = file
            && let Ok(mut line) = serde_json::to_vec(&entry)
        {
            line.push(b'\n');
            file.append(&line);
        }
        if let Some(otlp) = otlp {
            otlp.export(&entry, at);
        }
    }
}

/// The wire form of a record: times formatted, texts redacted and cut.
fn entry(record: CallRecord, seq: u64) -> ActivityEntry {
    let CallRecord {
        at,
        duration,
        method,
        name,
        served,
        caller,
        argument_bytes,
        arguments,
        approval,
        ended,
    } = record;
    let endpoint = match &caller.route {
        None => "/mcp".to_string(),
        Some(id) => format!("/servers/{id}/mcp"),
    };
    let server = match served {
        Served::Nobody => None,
        Served::Builtin => Some(BUILTIN_SERVER.to_string()),
        Served::Server(id) => Some(id.to_string()),
    };
    let arguments = arguments.map(|mut value| {
        redact_value(&mut value);
        cut(&value.to_string(), MAX_ARGUMENT_CHARS)
    });
    ActivityEntry {
        seq,
        time: humantime::format_rfc3339_millis(at).to_string(),
        method: method.as_str().to_string(),
        name: cut(&redact::text(&name), MAX_ERROR_CHARS),
        client: caller.client.map(|c| c.to_string()),
        session: caller.session.map(|s| s.to_string()),
        endpoint,
        profile: None,
        server,
        duration_ms: duration.as_secs_f64() * 1000.0,
        outcome: ended.outcome,
        error: ended.error.map(|e| cut(&redact::text(&e), MAX_ERROR_CHARS)),
        argument_bytes,
        result_bytes: ended.result_bytes,
        arguments,
        approval,
        result_secrets: (!ended.result_secrets.is_empty())
            .then(|| ended.result_secrets.iter().map(|k| k.to_string()).collect()),
        task: ended.task,
        run: caller.run.map(|r| r.to_string()),
    }
}

/// Replaces secrets in a JSON value: the value of every member whose name is
/// a secret name (`token`, `apiKey`, ...) becomes `***`, and every string is
/// redacted as text (bearer values, URL credentials, configured secrets).
pub(crate) fn redact_value(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                if redact::is_secret_name(key) {
                    *member = Value::String(redact::MASK.to_string());
                } else {
                    redact_value(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::String(text) => {
            let redacted = redact::text(text);
            if redacted != *text {
                *text = redacted;
            }
        }
        _ => {}
    }
}

/// `text` cut to at most `max` characters (with `…` when cut).
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// The size of `value` as JSON, in bytes, without building the JSON.
pub(crate) fn json_size<T: Serialize + ?Sized>(value: &T) -> u64 {
    struct Count(u64);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn record(name: &str) -> CallRecord {
        CallRecord {
            at: SystemTime::UNIX_EPOCH,
            duration: Duration::from_millis(3),
            method: Method::Tool,
            name: name.to_string(),
            served: Served::Server(ServerId::new("notes").unwrap()),
            caller: Caller {
                client: Some(Arc::from("claude")),
                ..Caller::default()
            },
            argument_bytes: 2,
            arguments: None,
            approval: None,
            ended: CallOutcome {
                outcome: ActivityOutcome::Ok,
                error: None,
                result_bytes: 10,
                result_secrets: Vec::new(),
                task: None,
            },
        }
    }

    /// A record with every part set, as its `activity.jsonl` line: the
    /// record's grouping (caller, outcome) never shows in the wire row.
    #[test]
    fn a_full_record_is_one_flat_line() {
        let record = CallRecord {
            at: SystemTime::UNIX_EPOCH + Duration::from_millis(1_500),
            duration: Duration::from_micros(2_250),
            method: Method::Tool,
            name: "notes__add".to_string(),
            served: Served::Server(ServerId::new("notes").unwrap()),
            caller: Caller {
                route: Some(ServerId::new("notes").unwrap()),
                client: Some(Arc::from("claude")),
                session: Some(Arc::from("s-1")),
                run: Some(Arc::from("run-1")),
            },
            argument_bytes: 12,
            arguments: Some(json!({"text": "hi", "token": "sk-live-abc"})),
            approval: Some(switchboard_api::ActivityApproval {
                decision: "allowed".into(),
                by: "dashboard".into(),
                waited_ms: 5.0,
            }),
            ended: CallOutcome {
                outcome: ActivityOutcome::Error,
                error: Some("server 'notes': bad".to_string()),
                result_bytes: 40,
                result_secrets: vec!["bearer"],
                task: Some(switchboard_api::ActivityTask {
                    id: "sbt-1".into(),
                    status: "working".into(),
                }),
            },
        };
        assert_eq!(
            serde_json::to_string(&entry(record, 7)).unwrap(),
            concat!(
                r#"{"seq":7,"time":"1970-01-01T00:00:01.500Z","method":"tools/call","#,
                r#""name":"notes__add","client":"claude","session":"s-1","#,
                r#""endpoint":"/servers/notes/mcp","profile":null,"server":"notes","#,
                r#""durationMs":2.25,"outcome":"error","error":"server 'notes': bad","#,
                r#""argumentBytes":12,"resultBytes":40,"#,
                r#""arguments":"{\"text\":\"hi\",\"token\":\"***\"}","#,
                r#""approval":{"decision":"allowed","by":"dashboard","waitedMs":5.0},"#,
                r#""resultSecrets":["bearer"],"task":{"id":"sbt-1","status":"working"},"#,
                r#""run":"run-1"}"#,
            )
        );
    }

    #[test]
    fn secrets_in_arguments_are_masked_and_the_rest_kept() {
        let mut value = json!({
            "query": "weather",
            "token": "sk-live-abc",
            "nested": {"apiKey": "k", "list": ["Bearer abcdefghijklmnop", 3]},
        });
        redact_value(&mut value);
        assert_eq!(
            value,
            json!({
                "query": "weather",
                "token": "***",
                "nested": {"apiKey": "***", "list": ["Bearer ***", 3]},
            })
        );
    }

    #[test]
    fn sizes_are_the_json_length() {
        assert_eq!(json_size(&json!({"a": 1})), br#"{"a":1}"#.len() as u64);
    }

    #[test]
    fn long_text_is_cut_on_a_character_boundary() {
        assert_eq!(cut("ééé", 2), "éé…");
        assert_eq!(cut("ab", 2), "ab");
    }

    #[tokio::test]
    async fn the_ring_answers_newest_first_and_after_a_number() {
        let activity = Arc::new(Activity::new(None, &Settings::default()));
        let cancel = CancellationToken::new();
        let writer = tokio::spawn(activity.clone().run(cancel.clone()));
        for name in ["a", "b", "c"] {
            activity.record(record(name));
        }
        cancel.cancel();
        writer.await.unwrap();
        let names = |entries: Vec<ActivityEntry>| -> Vec<(u64, String)> {
            entries.into_iter().map(|e| (e.seq, e.name)).collect()
        };
        assert_eq!(
            names(activity.recent(2, None)),
            vec![(3, "c".to_string()), (2, "b".to_string())]
        );
        assert_eq!(
            names(activity.recent(10, Some(1))),
            vec![(3, "c".to_string()), (2, "b".to_string())]
        );
        let first = activity.recent(10, None).pop().unwrap();
        assert_eq!(first.endpoint, "/mcp");
        assert_eq!(first.server.as_deref(), Some("notes"));
        assert_eq!(first.time, "1970-01-01T00:00:00.000Z");
    }

    #[tokio::test]
    async fn a_restarted_hub_shows_the_earlier_calls_and_numbers_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("activity.jsonl");
        let names = |activity: &Activity| -> Vec<(u64, String)> {
            let entries = activity.recent(10, None);
            entries.into_iter().map(|e| (e.seq, e.name)).collect()
        };
        for run in [["a", "b"], ["c", "d"]] {
            let activity = Arc::new(Activity::new(Some(path.clone()), &Settings::default()));
            let cancel = CancellationToken::new();
            let writer = tokio::spawn(activity.clone().run(cancel.clone()));
            for name in run {
                activity.record(record(name));
            }
            cancel.cancel();
            writer.await.unwrap();
        }
        // A torn last line (a crash mid-write) is skipped, not fatal.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"seq\": 9")
            .unwrap();
        let activity = Activity::new(Some(path), &Settings::default());
        assert_eq!(
            names(&activity),
            vec![
                (4, "d".to_string()),
                (3, "c".to_string()),
                (2, "b".to_string()),
                (1, "a".to_string())
            ]
        );
        assert_eq!(activity.ring.lock().unwrap().next_seq, 5);
    }

    #[tokio::test]
    async fn a_full_queue_drops_and_counts() {
        // No writer running: the queue fills and the rest is dropped.
        let activity = Activity::new(None, &Settings::default());
        for _ in 0..QUEUE + 5 {
            activity.record(record("x"));
        }
        assert_eq!(activity.dropped(), 5);
    }
}
