//! The token counts in the snapshot (`toolTokens` per server and in
//! `totals`): counted once per change of the merged tool list, on a blocking
//! task so neither a request nor a snapshot ever waits for the tokenizer
//! ([`crate::token_count`]). Counts may finish out of order; the one for the
//! newest tool version wins.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::HubHandle;
use crate::catalog::Catalog;
use crate::token_count::CatalogTokens;

impl HubHandle {
    /// Counts `catalog`'s tools in the background, then republishes the
    /// snapshot with the counts.
    pub(super) fn count_tool_tokens(&self, catalog: Arc<Catalog>) {
        let hub = self.clone();
        self.inner.tasks.spawn(async move {
            let Ok(counted) =
                tokio::task::spawn_blocking(move || CatalogTokens::of(&catalog)).await
            else {
                return;
            };
            let Ok(mut current) = hub.inner.tool_tokens.lock() else {
                return;
            };
            if counted.tools_version < current.tools_version {
                return;
            }
            *current = Arc::new(counted);
            drop(current);
            hub.publish_snapshot();
        });
    }

    /// The last counts of the catalog's tools.
    pub(crate) fn tool_tokens(&self) -> Arc<CatalogTokens> {
        self.inner
            .tool_tokens
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// Sets the tokens of the built-in tools (the layer that has them counts
    /// them once, before serving).
    pub(crate) fn set_builtin_tool_tokens(&self, tokens: usize) {
        self.inner
            .builtin_tool_tokens
            .store(tokens, Ordering::Relaxed);
        self.publish_snapshot();
    }

    pub(crate) fn builtin_tool_tokens(&self) -> usize {
        self.inner.builtin_tool_tokens.load(Ordering::Relaxed)
    }
}
