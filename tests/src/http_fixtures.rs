//! The fixtures that listen on a loopback port: the MCP fixture over
//! Streamable HTTP and the fake MCP Registry.

use anyhow::Result;
use tokio::process::Child;

use crate::spawn_listening;

/// A fixture serving Streamable HTTP on a free loopback port.
pub struct HttpFixture {
    pub child: Child,
    pub url: String,
}

impl HttpFixture {
    pub async fn start(args: &[&str]) -> Result<Self> {
        Self::start_on("127.0.0.1:0", args).await
    }

    /// Starts the fixture on a given address (to restart it on the same port).
    pub async fn start_on(addr: &str, args: &[&str]) -> Result<Self> {
        let mut full = vec!["--http", addr];
        full.extend_from_slice(args);
        let (child, url) = spawn_listening("switchboard-fixture", &full).await?;
        Ok(Self { child, url })
    }

    pub async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }
}

/// The fake MCP Registry (`switchboard-registry-fixture`) on a free loopback port.
pub struct RegistryFixture {
    pub child: Child,
    pub url: String,
}

impl RegistryFixture {
    /// Starts it with `args` (`--docs DIR`, `--mode down|garbage|hang|v0-only`, ...).
    pub async fn start(args: &[&str]) -> Result<Self> {
        let (child, url) = spawn_listening("switchboard-registry-fixture", args).await?;
        Ok(Self { child, url })
    }

    /// How many registry requests it answered (or held).
    pub async fn requests(&self) -> u64 {
        let text = reqwest::get(format!("{}/requests", self.url))
            .await
            .expect("GET /requests")
            .text()
            .await
            .expect("body");
        text.trim().parse().expect("a count")
    }

    pub async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }
}
