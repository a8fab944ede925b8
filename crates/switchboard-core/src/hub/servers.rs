//! Adding, replacing and removing one server by editing the config file
//! (the dashboard's server form; `PUT`/`DELETE /api/v1/servers/<id>`),
//! hiding or showing one of its tools (`disabledTools`), setting or removing
//! one tool's override (`toolOverrides`, the dashboard's override editor), and
//! the import offer's source (an import is applied under the same lock).
//!
//! Each edit reads the file under the reload lock, splices only the member
//! concerned ([`crate::config::put_server`], [`crate::config::remove_server`]:
//! every other byte stays), writes it atomically keeping its mode, owner and
//! symlink (`0600` when new), and then applies the file like any reload. A
//! definition the loader refuses, or a file that does not parse, writes
//! nothing. Definitions are shown redacted ([`HubHandle::server_definition`]);
//! a `***` sent back keeps the value that was there.

use std::sync::Arc;

use serde_json::Value;

use super::HubHandle;
use super::apply::write_atomically;
use crate::config::{self, EditError};
use crate::import::{ImportApplied, ImportError, ImportSelection, ImportSource};
use crate::reload::{ReloadError, ReloadResult};

impl HubHandle {
    /// Sets server `id` to `definition` in the config file (added last, or
    /// replaced in place; the file is created when there is none) and applies it.
    pub async fn put_server(
        &self,
        id: &str,
        definition: &Value,
    ) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes = config::read_config_file(&path)?;
            let old = match &bytes {
                Some(bytes) if config::load(config::Source::bytes(bytes, &path)).is_ok() => {
                    config::server_definition(bytes, &path, id).ok()
                }
                _ => None,
            };
            let definition =
                config::restore_redacted(definition, old.as_ref()).map_err(|message| {
                    ReloadError::Edit(EditError::Definition {
                        id: id.to_string(),
                        message,
                    })
                })?;
            let text = config::put_server(bytes.as_deref(), &path, id, &definition)
                .map_err(|err| edit_error(err, &definition))?;
            write_atomically(&path, &text)?;
        }
        self.reload_from_file().await
    }

    /// Removes server `id` from the config file and applies it.
    pub async fn remove_server(&self, id: &str) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes = config::read_config_file(&path)?
                .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
            let text = config::remove_server(&bytes, &path, id)
                .map_err(|err| edit_error(err, &Value::Null))?;
            write_atomically(&path, &text)?;
        }
        self.reload_from_file().await
    }

    /// Hides tool `tool` of server `id` (its own name there) or shows it
    /// again, by editing the server's `disabledTools` in the config file
    /// ([`config::set_tool_disabled`]), and applies the file: a catalog-only
    /// change, so the server keeps running and clients get `list_changed`.
    pub async fn set_tool_enabled(
        &self,
        id: &str,
        tool: &str,
        enabled: bool,
    ) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes = config::read_config_file(&path)?
                .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
            let text = config::set_tool_disabled(&bytes, &path, id, tool, !enabled)
                .map_err(|err| edit_error(err, &Value::Null))?;
            if text.as_bytes() != bytes.as_slice() {
                write_atomically(&path, &text)?;
            }
        }
        self.reload_from_file().await
    }

    /// Sets (or, with `None`, removes) server `id`'s override of `tool` (its
    /// own name at the server) in the config file and applies it. When the
    /// server has listed its tools, the tool must be among them and the
    /// arguments named (defaults, hidden) among its schema's properties.
    pub async fn set_tool_override(
        &self,
        id: &str,
        tool: &str,
        value: Option<&Value>,
    ) -> Result<ReloadResult, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        let upstream = self
            .upstream(id)
            .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
        if let (Some(value), Some(caps)) = (value, upstream.capabilities()) {
            let refuse = |message: String| {
                ReloadError::Edit(EditError::Definition {
                    id: id.to_string(),
                    message,
                })
            };
            let listed = caps.tools.iter().find(|t| t.name.as_ref() == tool);
            let Some(listed) = listed else {
                return Err(refuse(format!("server '{id}' lists no tool '{tool}'")));
            };
            let properties = listed
                .input_schema
                .get("properties")
                .and_then(Value::as_object);
            let named = ["arguments", "hideArguments"].into_iter().flat_map(|key| {
                let keys: Vec<String> = match value.get(key) {
                    Some(Value::Object(map)) => map.keys().cloned().collect(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|i| i.as_str().map(String::from))
                        .collect(),
                    _ => Vec::new(),
                };
                keys.into_iter().map(move |k| (key, k))
            });
            if let Some(properties) = properties {
                for (key, name) in named {
                    if !properties.contains_key(&name) {
                        let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
                        known.sort_unstable();
                        return Err(refuse(format!(
                            "`toolOverrides.{tool}.{key}` names {name:?}, which is no argument of {tool} (its arguments: {})",
                            if known.is_empty() {
                                "none".into()
                            } else {
                                known.join(", ")
                            }
                        )));
                    }
                }
            }
        }
        {
            let _pass = self.inner.reload_lock.lock().await;
            let bytes = config::read_config_file(&path)?
                .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
            let text = config::set_tool_override(&bytes, &path, id, tool, value)
                .map_err(|err| edit_error(err, &Value::Null))?;
            if text.as_bytes() != bytes.as_slice() {
                write_atomically(&path, &text)?;
            }
        }
        self.reload_from_file().await
    }

    /// Server `id`'s definition as written in the config file, secrets `***`.
    pub async fn server_definition(&self, id: &str) -> Result<Value, ReloadError> {
        let path = self.config_path().ok_or(ReloadError::NoConfigFile)?;
        let bytes = config::read_config_file(&path)?
            .ok_or_else(|| ReloadError::UnknownServer(id.to_string()))?;
        let definition = config::server_definition(&bytes, &path, id)
            .map_err(|err| edit_error(err, &Value::Null))?;
        Ok(config::redact_definition(&definition))
    }

    /// Gives the hub the AI clients' servers for the import offer (the
    /// binaries do, once, before serving; a second call is ignored).
    pub fn set_import_source(&self, source: Arc<dyn ImportSource>) {
        if self.inner.import_source.set(source).is_err() {
            tracing::debug!("an import source was given already");
        }
    }

    /// The import offer's source, when the binary gave one.
    pub fn import_source(&self) -> Option<Arc<dyn ImportSource>> {
        self.inner.import_source.get().cloned()
    }

    /// Applies an import with `source` under the reload lock (so it never
    /// interleaves with another edit of the file), off the async runtime.
    /// The caller reloads afterwards.
    pub async fn apply_import(
        &self,
        source: Arc<dyn ImportSource>,
        selection: ImportSelection,
    ) -> Result<ImportApplied, ImportError> {
        let path = self
            .config_path()
            .ok_or_else(|| ImportError(ReloadError::NoConfigFile.to_string()))?;
        let _pass = self.inner.reload_lock.lock().await;
        tokio::task::spawn_blocking(move || source.apply(&path, &selection))
            .await
            .map_err(|err| ImportError(format!("the import stopped: {err}")))?
    }
}

/// An editor error as a reload error; a message that may quote the
/// definition has its secrets masked.
pub(super) fn edit_error(err: EditError, definition: &Value) -> ReloadError {
    match err {
        EditError::UnknownServer(id) => ReloadError::UnknownServer(id),
        EditError::Config(err) => ReloadError::Config(err),
        EditError::Definition { id, message } => ReloadError::Edit(EditError::Definition {
            id,
            message: config::mask_definition_secrets(&message, definition),
        }),
        other => ReloadError::Edit(other),
    }
}
