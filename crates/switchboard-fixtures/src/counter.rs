//! Counts the requests a fixture answered and mirrors them to `--counter-file`.
//!
//! Tests read the file to assert that Switchboard coalesces requests. Counts
//! start at zero when the process starts and cover every session (stdio has one,
//! HTTP may have many). The file is rewritten atomically after every counted
//! request, under the same lock as the increment, so a newer count is never
//! overwritten by an older one. It is not created before the first request.

use std::{
    path::PathBuf,
    sync::{Mutex, PoisonError},
};

use serde::{Deserialize, Serialize};

use crate::files;

/// The kinds of request that are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountedRequest {
    Initialize,
    ToolsList,
    PromptsList,
    ResourcesList,
    ResourceTemplatesList,
    ToolsCall,
    /// A `tools/call` that arrived (counted before it runs; `ToolsCall`
    /// counts it once answered): lets a test wait until a slow call is in
    /// the server instead of sleeping.
    ToolsCallStarted,
}

/// The counter file's content, keyed by JSON-RPC method name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    /// Connection starts: `initialize`, or `server/discover` from a
    /// 2026-07-28 client (which has no handshake).
    pub initialize: u64,
    #[serde(rename = "tools/list")]
    pub tools_list: u64,
    #[serde(rename = "prompts/list")]
    pub prompts_list: u64,
    #[serde(rename = "resources/list")]
    pub resources_list: u64,
    #[serde(rename = "resources/templates/list")]
    pub resource_templates_list: u64,
    #[serde(rename = "tools/call")]
    pub tools_call: u64,
    #[serde(rename = "tools/call started", default)]
    pub tools_call_started: u64,
}

impl RequestCounts {
    fn slot(&mut self, request: CountedRequest) -> &mut u64 {
        match request {
            CountedRequest::Initialize => &mut self.initialize,
            CountedRequest::ToolsList => &mut self.tools_list,
            CountedRequest::PromptsList => &mut self.prompts_list,
            CountedRequest::ResourcesList => &mut self.resources_list,
            CountedRequest::ResourceTemplatesList => &mut self.resource_templates_list,
            CountedRequest::ToolsCall => &mut self.tools_call,
            CountedRequest::ToolsCallStarted => &mut self.tools_call_started,
        }
    }
}

/// Request counts since start-up, optionally mirrored to a file.
#[derive(Debug, Default)]
pub struct RequestCounter {
    /// Where to mirror the counts; `None` keeps them in memory only.
    path: Option<PathBuf>,
    /// Held while the file is rewritten, so writes happen in count order.
    counts: Mutex<RequestCounts>,
}

impl RequestCounter {
    pub fn new(path: Option<PathBuf>) -> Self {
        Self {
            path,
            counts: Mutex::default(),
        }
    }

    /// Counts one answered request and rewrites the file. A write failure is
    /// logged, not returned: it must not fail the request being answered.
    pub fn record(&self, request: CountedRequest) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        *counts.slot(request) += 1;
        let Some(path) = &self.path else {
            return;
        };
        let written = serde_json::to_vec(&*counts)
            .map_err(anyhow::Error::from)
            .and_then(|json| files::write_atomic(path, &json));
        if let Err(error) = written {
            tracing::warn!("cannot write the counter file: {error:#}");
        }
    }

    pub fn counts(&self) -> RequestCounts {
        *self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_key_in_method_order() {
        let dir = std::env::temp_dir().join(format!("sb-fixture-counter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("counts.json");
        let counter = RequestCounter::new(Some(path.clone()));
        counter.record(CountedRequest::Initialize);
        counter.record(CountedRequest::ToolsCallStarted);
        counter.record(CountedRequest::ToolsCall);
        counter.record(CountedRequest::ToolsCallStarted);
        counter.record(CountedRequest::ToolsCall);
        counter.record(CountedRequest::ToolsCallStarted);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"{"initialize":1,"tools/list":0,"prompts/list":0,"resources/list":0,"resources/templates/list":0,"tools/call":2,"tools/call started":3}"#
        );
        let read: RequestCounts =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(read, counter.counts());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
