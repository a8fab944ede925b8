//! The one pooled HTTP client the engine shares: remote upstreams and OAuth
//! use it (a pooled client keeps connections alive between calls; rmcp's
//! default makes a new one per request). Below the upstreams and the hub, so
//! neither imports the other for it.

use std::sync::Arc;
use std::time::Duration;

/// The one pooled HTTP client for remote servers and OAuth, built when first
/// needed: building it loads the system's root certificates (hundreds of
/// files, most of a hub's start-up time), which a hub of local servers never
/// needs.
#[derive(Clone, Default)]
pub(crate) struct SharedHttp(Arc<std::sync::OnceLock<reqwest::Client>>);

impl SharedHttp {
    pub(crate) fn get(&self) -> reqwest::Client {
        self.0
            .get_or_init(|| {
                reqwest::Client::builder()
                    .pool_idle_timeout(Duration::from_secs(90))
                    .tcp_nodelay(true)
                    .build()
                    .unwrap_or_default()
            })
            .clone()
    }
}
