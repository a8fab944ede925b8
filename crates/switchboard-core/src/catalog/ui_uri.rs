//! MCP Apps' `ui://` URIs on the merged endpoint and profiles: each server's
//! UI resources get a URI that names the server, so two servers that both
//! call their page `ui://get-time/mcp-app.html` do not shadow each other.
//!
//! The rule is one prefix: a server `vanilla`'s `ui://get-time/mcp-app.html`
//! is exposed as `ui://vanilla/get-time/mcp-app.html`, and only URIs with the
//! `ui://` scheme change (other resources keep their URIs, see the catalog's
//! module docs). It applies wherever such a URI appears: a tool's
//! `_meta.ui.resourceUri` and the older `_meta["ui/resourceUri"]`, listed
//! resources and templates (built into the [`Catalog`](super::Catalog)), the
//! `uri` of a `resources/read` (request and answer), `resources/subscribe`
//! and the `resources/updated` notifications. The pass-through route
//! (`/servers/<id>/mcp`) shows a server as it is and never rewrites. The
//! mapping back is exact: [`upstream`] undoes [`exposed`] for the same server,
//! and a URI that names another server is not that server's.
//!
//! The extension capability: the hub's upstream client declares
//! [`EXTENSION_ID`] (with [`APP_MIME_TYPE`]) to every server, since one
//! upstream connection serves every session and the hub carries apps through
//! unchanged, and the merged endpoint and profiles declare it to clients; a
//! pass-through session gets the server's own capabilities, extensions
//! included.
//!
//! Pure functions over rmcp's types; everything else (`_meta.ui`'s `csp`,
//! `permissions`, `domain`, mime types, content) passes unchanged.

use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool};
use serde_json::Value;

use crate::config::ServerId;

/// The MCP Apps extension's id in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The mime type of an app's HTML (passed unchanged; declared upstream).
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme of MCP Apps' UI resources.
pub const SCHEME: &str = "ui://";
/// The `_meta` key of the current tool-to-UI link (`_meta.ui.resourceUri`).
const META_UI: &str = "ui";
/// The field under `_meta.ui` that names the UI resource.
const RESOURCE_URI: &str = "resourceUri";
/// The older flat key (`_meta["ui/resourceUri"]`), still sent beside the new one.
const LEGACY_KEY: &str = "ui/resourceUri";

/// The URI clients of the merged endpoint see for `server`'s `uri`:
/// `ui://<server>/<rest>` for a `ui://` URI, `None` for any other (kept).
pub fn exposed(server: &ServerId, uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(SCHEME)?;
    Some(format!("{SCHEME}{server}/{rest}"))
}

/// `server`'s own URI for an exposed `uri`, when `uri` is a `ui://` URI that
/// names `server` (the inverse of [`exposed`]); `None` otherwise.
pub fn upstream(server: &ServerId, uri: &str) -> Option<String> {
    let rest = uri
        .strip_prefix(SCHEME)?
        .strip_prefix(server.as_str())?
        .strip_prefix('/')?;
    Some(format!("{SCHEME}{rest}"))
}

/// The server an exposed `ui://` URI names (its first path segment), when it
/// is a `ui://` URI with one.
pub fn named_server(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (server, _) = rest.split_once('/')?;
    (!server.is_empty()).then_some(server)
}

/// Rewrites `uri` in place for `server` when it is a `ui://` URI.
fn expose_in_place(server: &ServerId, uri: &mut String) {
    if let Some(new) = exposed(server, uri) {
        *uri = new;
    }
}

/// Rewrites a JSON string value in place when it is a `ui://` URI.
fn expose_value(server: &ServerId, value: Option<&mut Value>) {
    if let Some(Value::String(uri)) = value {
        expose_in_place(server, uri);
    }
}

/// A tool as the merged endpoint lists it: its UI links name `server`.
pub fn expose_tool(server: &ServerId, tool: &mut Tool) {
    let Some(meta) = tool.meta.as_mut() else {
        return;
    };
    if let Some(Value::Object(ui)) = meta.0.get_mut(META_UI) {
        expose_value(server, ui.get_mut(RESOURCE_URI));
    }
    expose_value(server, meta.0.get_mut(LEGACY_KEY));
}

/// A listed resource as the merged endpoint lists it.
pub fn expose_resource(server: &ServerId, resource: &mut Resource) {
    expose_in_place(server, &mut resource.uri);
}

/// A listed resource template as the merged endpoint lists it.
pub fn expose_template(server: &ServerId, template: &mut ResourceTemplate) {
    expose_in_place(server, &mut template.uri_template);
}

/// A `resources/read` answer of `server` as the merged endpoint's client
/// sees it: each content's `uri` in the exposed form.
pub fn expose_contents(server: &ServerId, result: &mut ReadResourceResult) {
    for content in &mut result.contents {
        match content {
            ResourceContents::TextResourceContents { uri, .. }
            | ResourceContents::BlobResourceContents { uri, .. } => expose_in_place(server, uri),
            // A kind of content newer than this build: its URI stays as sent.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(s: &str) -> ServerId {
        ServerId::new(s).unwrap()
    }

    #[test]
    fn ui_uris_name_their_server_and_map_back_exactly() {
        let vanilla = id("vanilla");
        let exposed_uri = exposed(&vanilla, "ui://get-time/mcp-app.html").unwrap();
        assert_eq!(exposed_uri, "ui://vanilla/get-time/mcp-app.html");
        assert_eq!(named_server(&exposed_uri), Some("vanilla"));
        assert_eq!(
            upstream(&vanilla, &exposed_uri).as_deref(),
            Some("ui://get-time/mcp-app.html")
        );
        // Another server's URI is not this one's, nor is a prefix of the id.
        assert_eq!(upstream(&id("preact"), &exposed_uri), None);
        assert_eq!(upstream(&id("van"), &exposed_uri), None);
        // Other schemes are kept.
        assert_eq!(exposed(&vanilla, "file:///a.txt"), None);
        assert_eq!(upstream(&vanilla, "file:///a.txt"), None);
        assert_eq!(named_server("ui://nothing-after"), None);
    }

    #[test]
    fn tool_links_both_keys_are_rewritten_and_the_rest_of_meta_kept() {
        let mut tool: Tool = serde_json::from_value(json!({
            "name": "get-time",
            "inputSchema": {"type": "object"},
            "_meta": {
                "ui": {"resourceUri": "ui://get-time/mcp-app.html", "visibility": ["model", "app"],
                       "csp": {"connectDomains": ["https://a.example"]}},
                "ui/resourceUri": "ui://get-time/mcp-app.html",
                "other": "ui://not-a-link"
            }
        }))
        .unwrap();
        expose_tool(&id("vanilla"), &mut tool);
        assert_eq!(
            serde_json::to_value(&tool.meta).unwrap(),
            json!({
                "ui": {"resourceUri": "ui://vanilla/get-time/mcp-app.html",
                       "visibility": ["model", "app"],
                       "csp": {"connectDomains": ["https://a.example"]}},
                "ui/resourceUri": "ui://vanilla/get-time/mcp-app.html",
                "other": "ui://not-a-link"
            })
        );
    }

    #[test]
    fn read_answers_and_lists_are_rewritten() {
        let mut result: ReadResourceResult = serde_json::from_value(json!({
            "contents": [{"uri": "ui://get-time/mcp-app.html", "mimeType": "text/html;profile=mcp-app",
                          "text": "<html></html>", "_meta": {"ui": {"prefersBorder": true}}}]
        }))
        .unwrap();
        expose_contents(&id("p"), &mut result);
        assert_eq!(
            serde_json::to_value(&result.contents).unwrap(),
            json!([{"uri": "ui://p/get-time/mcp-app.html", "mimeType": "text/html;profile=mcp-app",
                    "text": "<html></html>", "_meta": {"ui": {"prefersBorder": true}}}])
        );
        let mut template: ResourceTemplate =
            serde_json::from_value(json!({"uriTemplate": "ui://views/{id}", "name": "v"})).unwrap();
        expose_template(&id("p"), &mut template);
        assert_eq!(template.uri_template, "ui://p/views/{id}");
    }
}
