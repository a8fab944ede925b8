//! Per-session state of the conformance fixture: the log level a client chose
//! with `logging/setLevel`, and its resource subscriptions.
//!
//! One [`SessionState`] per MCP session (the HTTP service builds a fresh handler
//! for each session; stdio has one), so one client's choices never affect
//! another's. Short std locks only, never held across an `.await`.
// Logging is deprecated by SEP-2577 only from protocol 2026-07-28 on; the
// conformance scenarios negotiate 2025-11-25 and still call it.
#![allow(deprecated)]

use std::{
    collections::BTreeSet,
    sync::{Mutex, PoisonError},
};

use rmcp::model::LoggingLevel;

/// The syslog severity rank of `level`: higher is more severe.
pub fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// What one session has asked for.
#[derive(Debug)]
pub struct SessionState {
    /// The least severe level still sent; `debug` (everything) until the
    /// client calls `logging/setLevel`.
    min_log_level: Mutex<LoggingLevel>,
    /// URIs the client subscribed to with `resources/subscribe`.
    subscriptions: Mutex<BTreeSet<String>>,
}

impl Default for SessionState {
    fn default() -> Self {
        Self {
            min_log_level: Mutex::new(LoggingLevel::Debug),
            subscriptions: Mutex::default(),
        }
    }
}

impl SessionState {
    /// Records the level from `logging/setLevel`.
    pub fn set_min_log_level(&self, level: LoggingLevel) {
        *self
            .min_log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = level;
    }

    /// Whether a log message at `level` may be sent to this session.
    pub fn should_log(&self, level: LoggingLevel) -> bool {
        let min = *self
            .min_log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        severity(level) >= severity(min)
    }

    /// Adds a subscription; `false` when it already existed.
    pub fn subscribe(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(uri.to_owned())
    }

    /// Removes a subscription; `false` when there was none.
    pub fn unsubscribe(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri)
    }

    /// The current subscriptions, sorted.
    pub fn subscriptions(&self) -> Vec<String> {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_everything_until_a_level_is_set() {
        let session = SessionState::default();
        assert!(session.should_log(LoggingLevel::Debug));
        session.set_min_log_level(LoggingLevel::Warning);
        assert!(!session.should_log(LoggingLevel::Debug));
        assert!(!session.should_log(LoggingLevel::Info));
        assert!(session.should_log(LoggingLevel::Warning));
        assert!(session.should_log(LoggingLevel::Emergency));
        session.set_min_log_level(LoggingLevel::Info);
        assert!(session.should_log(LoggingLevel::Info));
    }

    #[test]
    fn severity_follows_the_spec_order() {
        let order = [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ];
        let ranks: Vec<u8> = order.into_iter().map(severity).collect();
        assert_eq!(ranks, (0..8).collect::<Vec<u8>>());
    }

    #[test]
    fn tracks_subscriptions() {
        let session = SessionState::default();
        assert!(session.subscribe("test://a"));
        assert!(!session.subscribe("test://a"));
        assert!(session.subscribe("test://b"));
        assert_eq!(session.subscriptions(), ["test://a", "test://b"]);
        assert!(session.unsubscribe("test://a"));
        assert!(!session.unsubscribe("test://a"));
        assert_eq!(session.subscriptions(), ["test://b"]);
    }
}
