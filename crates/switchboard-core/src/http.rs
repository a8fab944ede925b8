//! The hub's HTTP surface (layer 5): the router with the local-only guard,
//! the control API, the MCP routes, the fast path in front of them, the
//! dashboard's assets, and the listener that serves them.

pub mod control;
pub mod fast_path;
pub mod listener;
pub mod session_manager;
pub mod ui_assets;
